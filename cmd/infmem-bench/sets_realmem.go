package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

func init() {
	registerSet("realmem", "realmem", loadRealMemSet)
}

type realMemFile struct {
	Meta struct {
		Person string `json:"person_name"`
	} `json:"_metadata"`
	Dialogues []struct {
		UUID  string `json:"session_uuid"`
		Time  string `json:"current_time"`
		Turns []struct {
			Speaker  string          `json:"speaker"`
			IsQuery  bool            `json:"is_query"`
			Content  string          `json:"content"`
			QueryID  string          `json:"query_id"`
			Category string          `json:"category_name"`
			Gold     json.RawMessage `json:"memory_session_uuids"`
		} `json:"dialogue_turns"`
	} `json:"dialogues"`
}

// loadRealMemSet reads RealMemBench (every *_dialogues_*.json in dir) as
// its README's replay says: each person in a scope of their own, their
// sessions stored in order, every turn with the session's current_time as
// its timestamp; a query turn (is_query) is asked before it is stored,
// gold the sessions memory_session_uuids names on the Assistant turn right
// after it (a session-level hit).
func loadRealMemSet(dir string) (*benchSet, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_dialogues_*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *_dialogues_*.json in %s", dir)
	}
	sort.Strings(files)
	s := &benchSet{Name: "realmem"}
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var f realMemFile
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		person := f.Meta.Person
		if person == "" {
			person = strings.SplitN(filepath.Base(path), "_dialogues", 2)[0]
		}
		scope := "realmem-" + strings.ToLower(strings.NewReplacer("_", "-", " ", "-").Replace(person))
		for _, d := range f.Dialogues {
			day, _, _ := strings.Cut(d.Time, " ")
			ts, err := time.Parse("2006-01-02", day)
			if err != nil {
				return nil, fmt.Errorf("%s session %s: current_time %q: %w", path, d.UUID, d.Time, err)
			}
			ts = ts.Add(12 * time.Hour)
			session := scope + "/" + d.UUID
			for i, t := range d.Turns {
				if strings.TrimSpace(t.Content) == "" {
					// A few turns are empty: nothing to store or ask.
					continue
				}
				id := session + "/" + strconv.Itoa(i)
				if t.IsQuery && i+1 < len(d.Turns) {
					v, err := pyLiteral(d.Turns[i+1].Gold)
					if err != nil {
						return nil, fmt.Errorf("%s %s: memory_session_uuids: %w", path, id, err)
					}
					gold := map[string]bool{}
					for _, u := range flattenIDs(v) {
						gold[scope+"/"+u] = true
					}
					qid := t.QueryID
					if qid == "" {
						qid = id
					}
					s.Questions = append(s.Questions, benchQuestion{ID: scope + "/" + qid, Scope: scope, Text: t.Content,
						Kind: strings.ToLower(t.Category), GoldSessions: gold, At: len(s.Messages)})
				}
				s.Messages = append(s.Messages, benchMessage{ID: id, Scope: scope, Session: session, Conv: session,
					Speaker: strings.ToLower(t.Speaker), Source: "conversation", Content: clip(t.Content, maxBenchContent), TS: ts})
			}
		}
	}
	return s, nil
}
