package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// ChatGPT's data export (Settings → Data controls → Export) holds
// conversations.json: a list of conversations, each a tree of message
// nodes ("mapping") of which the branch ending at current_node is the
// conversation as last seen (edits and regenerations make other
// branches):
//
//	{"title": "…", "create_time": 1700000000.1, "conversation_id": "…",
//	 "current_node": "n3",
//	 "mapping": {"n1": {"id": "n1", "parent": null, "children": ["n2"],
//	   "message": {"id": "…", "author": {"role": "user"}, "create_time": 1700000000.2,
//	     "content": {"content_type": "text", "parts": ["…"]}, "recipient": "all"}}, …}}
//
// Only what the user and the assistant said to each other is imported:
// text parts of user and assistant messages addressed to everyone, and the
// transcription of what was said in voice mode ({"content_type":
// "audio_transcription", "text": …} among a message's parts); system and
// tool messages, hidden ones, the assistant's calls to tools, images,
// files and audio are skipped.

type gptConversation struct {
	Title          string             `json:"title"`
	CreateTime     *float64           `json:"create_time"`
	ConversationID string             `json:"conversation_id"`
	ID             string             `json:"id"`
	CurrentNode    string             `json:"current_node"`
	Mapping        map[string]gptNode `json:"mapping"`
}

type gptNode struct {
	ID       string      `json:"id"`
	Parent   *string     `json:"parent"`
	Children []string    `json:"children"`
	Message  *gptMessage `json:"message"`
}

type gptMessage struct {
	ID     string `json:"id"`
	Author struct {
		Role string `json:"role"`
	} `json:"author"`
	CreateTime *float64 `json:"create_time"`
	Content    struct {
		ContentType string            `json:"content_type"`
		Parts       []json.RawMessage `json:"parts"`
	} `json:"content"`
	Recipient string         `json:"recipient"`
	Metadata  map[string]any `json:"metadata"`
}

const chatgptTag = "chatgpt"

func readChatGPT(ctx context.Context, path string) (*Input, error) {
	return readConversationExport(ctx, path, func(in *Input, probs *Problems, name string, line, i int, raw json.RawMessage) bool {
		var c gptConversation
		if err := json.Unmarshal(raw, &c); err != nil {
			probs.add(inputErr(convWhere(name, line, i, ""), "not a ChatGPT conversation: %s", jsonMsg(err)))
			return false
		}
		where := convWhere(name, line, i, c.Title)
		if c.Mapping == nil {
			probs.add(inputErr(where, `a ChatGPT conversation has a "mapping" of messages; is this Claude.ai's export? (--format claude-ai)`))
			return false
		}
		id := c.ConversationID
		if id == "" {
			id = c.ID
		}
		if e := checkConvID(where, id, `"conversation_id" or "id"`); e != nil {
			probs.add(e)
			return false
		}
		var convTime time.Time
		if c.CreateTime != nil {
			t, err := unixTime(*c.CreateTime)
			if err != nil {
				probs.add(inputErr(where, "create_time: %v", err))
				return false
			}
			convTime = t
		}
		for j, n := range gptBranch(&c) {
			m := n.Message
			text, ok := gptText(m)
			if !ok {
				in.Skipped++
				continue
			}
			ts := convTime
			if m.CreateTime != nil {
				t, err := unixTime(*m.CreateTime)
				if err != nil {
					probs.add(inputErr(fmt.Sprintf("%s, message %d", where, j+1), "create_time: %v", err))
					continue
				}
				ts = t
			}
			msgID := m.ID
			if msgID == "" {
				msgID = n.ID
			}
			in.Items = append(in.Items, Item{
				Where: fmt.Sprintf("%s, message %d", where, j+1), Key: "chatgpt\x00" + id + "\x00" + msgID,
				Text: text, Tags: []string{chatgptTag}, Source: sourceConversation, Timestamp: ts,
				Speaker: m.Author.Role, ConversationID: id,
			})
		}
		return true
	})
}

// gptBranch lists the nodes of the conversation's current branch, first
// message first; without a current node, every node with a message in
// the order they were written.
func gptBranch(c *gptConversation) []gptNode {
	var out []gptNode
	if _, ok := c.Mapping[c.CurrentNode]; ok {
		seen := map[string]bool{}
		for id := c.CurrentNode; id != "" && !seen[id]; {
			seen[id] = true
			n, ok := c.Mapping[id]
			if !ok {
				break
			}
			if n.Message != nil {
				out = append(out, n)
			}
			if n.Parent == nil {
				break
			}
			id = *n.Parent
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		return out
	}
	for _, n := range c.Mapping {
		if n.Message != nil {
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Message.CreateTime, out[j].Message.CreateTime
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil || (a == nil && b == nil && out[i].ID < out[j].ID)
		case *a != *b:
			return *a < *b
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// gptText is what a message said, if it is one to import: a user's or the
// assistant's visible text to everyone.
func gptText(m *gptMessage) (string, bool) {
	if m == nil {
		return "", false
	}
	if r := m.Author.Role; r != "user" && r != "assistant" {
		return "", false
	}
	if m.Recipient != "" && m.Recipient != "all" {
		return "", false
	}
	if hidden, _ := m.Metadata["is_visually_hidden_from_conversation"].(bool); hidden {
		return "", false
	}
	switch m.Content.ContentType {
	case "text", "multimodal_text":
	default:
		return "", false
	}
	var parts []string
	for _, p := range m.Content.Parts {
		var s string
		// Images, files and audio are objects among the parts; only text
		// is kept, and what was said in voice mode (its transcription).
		if json.Unmarshal(p, &s) != nil {
			var obj struct {
				ContentType string `json:"content_type"`
				Text        string `json:"text"`
			}
			if json.Unmarshal(p, &obj) == nil && obj.ContentType == "audio_transcription" {
				s = obj.Text
			}
		}
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	text := strings.TrimSpace(strings.Join(parts, "\n\n"))
	if clean(text) == "" {
		return "", false
	}
	return text, true
}

// unixTime reads Unix seconds with a fraction.
func unixTime(f float64) (time.Time, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < -2.2e9 || f > 1e11 {
		return time.Time{}, fmt.Errorf("%v is not a time in Unix seconds", f)
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC(), nil
}
