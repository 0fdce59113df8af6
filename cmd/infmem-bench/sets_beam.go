package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

func init() {
	registerSet("beam", "beam/100K", loadBeamSet)
}

type beamBatch struct {
	Batch int             `json:"batch_number"`
	Turns [][]beamMessage `json:"turns"`
}

type beamMessage struct {
	Role       string          `json:"role"`
	ID         json.RawMessage `json:"id"`
	TimeAnchor string          `json:"time_anchor"`
	Content    string          `json:"content"`
}

type beamQuestion struct {
	Question string          `json:"question"`
	Sources  json.RawMessage `json:"source_chat_ids"`
}

// beamMarker is the "->-> 1,1" plan reference the generator left at the end
// of user messages; a person's message has none.
var beamMarker = regexp.MustCompile(`\s*->->\s*\d+\s*,\s*\d+\s*$`)

// loadBeamSet reads BEAM as its README says: each conversation (a folder
// with chat.json) in a scope of its own, every message stored with its
// batch's time_anchor (carried by the batch's first user message) as the
// timestamp; every probing question asked of its conversation's scope
// after everything is stored, gold the messages source_chat_ids names (a
// Python-literal list or dict, flattened); abstention questions have no
// gold and expect nothing_relevant. knowledge_update questions also name
// the newer and the older message.
func loadBeamSet(dir string) (*benchSet, error) {
	convs, err := filepath.Glob(filepath.Join(dir, "*", "chat.json"))
	if err != nil {
		return nil, err
	}
	if len(convs) == 0 {
		return nil, fmt.Errorf("no */chat.json under %s", dir)
	}
	sort.Slice(convs, func(i, j int) bool { return natLess(convs[i], convs[j]) })
	s := &benchSet{Name: "beam"}
	for _, path := range convs {
		name := filepath.Base(filepath.Dir(path))
		scope := "beam-" + name
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var batches []beamBatch
		if err := json.Unmarshal(raw, &batches); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var ts time.Time
		for bi, b := range batches {
			if t, ok := beamAnchor(b); ok {
				ts = t
			} else if ts.IsZero() {
				return nil, fmt.Errorf("%s: batch %d has no time_anchor", path, b.Batch)
			}
			for si, sess := range b.Turns {
				session := fmt.Sprintf("%s/b%d/s%d", scope, bi+1, si+1)
				for _, m := range sess {
					id, err := beamID(m.ID)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", path, err)
					}
					s.Messages = append(s.Messages, benchMessage{ID: scope + "/" + id, Scope: scope, Session: session, Conv: session,
						Speaker: m.Role, Source: "conversation", Content: beamMarker.ReplaceAllString(m.Content, ""), TS: ts})
				}
			}
		}
		qraw, err := os.ReadFile(filepath.Join(filepath.Dir(path), "probing_questions", "probing_questions.json"))
		if err != nil {
			return nil, err
		}
		var byAbility map[string][]beamQuestion
		if err := json.Unmarshal(qraw, &byAbility); err != nil {
			return nil, fmt.Errorf("%s probing questions: %w", name, err)
		}
		abilities := make([]string, 0, len(byAbility))
		for a := range byAbility {
			abilities = append(abilities, a)
		}
		sort.Strings(abilities)
		for _, ability := range abilities {
			for i, q := range byAbility[ability] {
				bq := benchQuestion{ID: fmt.Sprintf("%s/%s#%d", scope, ability, i), Scope: scope, Text: q.Question, Kind: ability, At: -1}
				if ability == "abstention" {
					bq.Abstain = true
					s.Questions = append(s.Questions, bq)
					continue
				}
				src, err := pyLiteral(q.Sources)
				if err != nil {
					return nil, fmt.Errorf("%s: source_chat_ids: %w", bq.ID, err)
				}
				bq.Gold = map[string]bool{}
				for _, id := range flattenIDs(src) {
					bq.Gold[scope+"/"+id] = true
				}
				if m, ok := src.(map[string]any); ok && ability == "knowledge_update" {
					for _, id := range flattenIDs(m["updated_info"]) {
						bq.Newer = append(bq.Newer, scope+"/"+id)
					}
					for _, id := range flattenIDs(m["original_info"]) {
						bq.Older = append(bq.Older, scope+"/"+id)
					}
				}
				s.Questions = append(s.Questions, bq)
			}
		}
	}
	return s, nil
}

// beamAnchor is a batch's time_anchor ("March-15-2024"), from its first
// message that carries one.
func beamAnchor(b beamBatch) (time.Time, bool) {
	for _, sess := range b.Turns {
		for _, m := range sess {
			if m.TimeAnchor != "" {
				t, err := time.Parse("January-02-2006", m.TimeAnchor)
				return t.Add(12 * time.Hour), err == nil
			}
		}
	}
	return time.Time{}, false
}

func beamID(raw json.RawMessage) (string, error) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("message id %s is neither a number nor a string", raw)
	}
	return s, nil
}

// pyLiteral reads a value that is JSON, or a JSON string holding a
// Python literal ("[86, 114]", "{'original_info': [86]}").
func pyLiteral(raw json.RawMessage) (any, error) {
	var v any
	if len(raw) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	s, ok := v.(string)
	if !ok {
		return v, nil
	}
	// A Python literal of lists, dicts, numbers and quoted strings.
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			b.WriteByte('"')
		case strings.HasPrefix(s[i:], "None"):
			b.WriteString("null")
			i += 3
		case strings.HasPrefix(s[i:], "True"):
			b.WriteString("true")
			i += 3
		case strings.HasPrefix(s[i:], "False"):
			b.WriteString("false")
			i += 4
		case c == '(':
			b.WriteByte('[')
		case c == ')':
			b.WriteByte(']')
		default:
			b.WriteByte(c)
		}
	}
	var out any
	if err := json.Unmarshal([]byte(b.String()), &out); err != nil {
		// Not a literal: the string is the id ("chat_id: 58").
		return s, nil
	}
	return out, nil
}

// flattenIDs lists every number (or string) inside v, depth first, dict
// values in key order.
func flattenIDs(v any) []string {
	switch x := v.(type) {
	case float64:
		return []string{strconv.FormatFloat(x, 'f', -1, 64)}
	case string:
		if x = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(x), "chat_id:")); x != "" {
			return []string{x}
		}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, flattenIDs(e)...)
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			out = append(out, flattenIDs(x[k])...)
		}
		return out
	}
	return nil
}

// natLess orders paths with numbers by value (…/2/… before …/10/…).
func natLess(a, b string) bool {
	na, ea := strconv.Atoi(filepath.Base(filepath.Dir(a)))
	nb, eb := strconv.Atoi(filepath.Base(filepath.Dir(b)))
	if ea == nil && eb == nil {
		return na < nb
	}
	return a < b
}

// maxBenchContent keeps a message under a memory's size limit (32 KiB by
// default): a client cannot store more in one memory, so the bench stores
// the beginning (one BEAM message is a 340 KB paste).
const maxBenchContent = 32000

// clip cuts s to at most n bytes at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
