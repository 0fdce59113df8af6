package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Claude.ai's data export (Settings → Privacy → Export data) holds
// conversations.json: a list of conversations with their messages in
// order:
//
//	{"uuid": "…", "name": "…", "created_at": "2024-05-01T09:00:00.000000Z",
//	 "chat_messages": [{"uuid": "…", "sender": "human", "text": "…",
//	   "content": [{"type": "text", "text": "…"}], "created_at": "…"}, …]}
//
// A message's text is its content's text blocks (tool calls, tool results
// and thinking are left out), or its text field when it has no content
// list. human becomes the speaker user.

type claudeConversation struct {
	UUID         string          `json:"uuid"`
	Name         string          `json:"name"`
	CreatedAt    string          `json:"created_at"`
	ChatMessages []claudeMessage `json:"chat_messages"`
}

type claudeMessage struct {
	UUID      string  `json:"uuid"`
	Sender    string  `json:"sender"`
	Text      *string `json:"text"`
	CreatedAt string  `json:"created_at"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

const claudeAITag = "claude-ai"

func readClaudeAI(ctx context.Context, path string) (*Input, error) {
	return readConversationExport(ctx, path, func(in *Input, probs *Problems, name string, line, i int, raw json.RawMessage) bool {
		var c claudeConversation
		var shape map[string]json.RawMessage
		if err := json.Unmarshal(raw, &shape); err != nil {
			probs.add(inputErr(convWhere(name, line, i, ""), "not a Claude.ai conversation: %s", jsonMsg(err)))
			return false
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			probs.add(inputErr(convWhere(name, line, i, ""), "not a Claude.ai conversation: %s", jsonMsg(err)))
			return false
		}
		where := convWhere(name, line, i, c.Name)
		if _, ok := shape["chat_messages"]; !ok {
			probs.add(inputErr(where, `a Claude.ai conversation has "chat_messages"; is this ChatGPT's export? (--format chatgpt)`))
			return false
		}
		if e := checkConvID(where, c.UUID, `"uuid"`); e != nil {
			probs.add(e)
			return false
		}
		convTime, err := isoTime(c.CreatedAt)
		if err != nil {
			probs.add(inputErr(where, "created_at: %v", err))
			return false
		}
		for j, m := range c.ChatMessages {
			mwhere := fmt.Sprintf("%s, message %d", where, j+1)
			var speaker string
			switch m.Sender {
			case "human":
				speaker = "user"
			case "assistant":
				speaker = "assistant"
			default:
				in.Skipped++
				continue
			}
			text := claudeText(&m)
			if clean(text) == "" {
				in.Skipped++
				continue
			}
			ts := convTime
			if m.CreatedAt != "" {
				if ts, err = isoTime(m.CreatedAt); err != nil {
					probs.add(inputErr(mwhere, "created_at: %v", err))
					continue
				}
			}
			id := m.UUID
			if id == "" {
				id = fmt.Sprint(j)
			}
			in.Items = append(in.Items, Item{
				Where: mwhere, Key: "claude-ai\x00" + c.UUID + "\x00" + id,
				Text: text, Tags: []string{claudeAITag}, Source: sourceConversation, Timestamp: ts,
				Speaker: speaker, ConversationID: c.UUID,
			})
		}
		return true
	})
}

// claudeText is a message's text: its text blocks, else its text field.
func claudeText(m *claudeMessage) string {
	var parts []string
	for _, c := range m.Content {
		if c.Type == "text" && strings.TrimSpace(c.Text) != "" {
			parts = append(parts, c.Text)
		}
	}
	if len(parts) > 0 {
		return strings.TrimSpace(strings.Join(parts, "\n\n"))
	}
	if m.Text != nil && len(m.Content) == 0 {
		return strings.TrimSpace(*m.Text)
	}
	return ""
}

// isoTime reads an RFC 3339 time; "" is zero.
func isoTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time", s)
	}
	return t.UTC(), nil
}
