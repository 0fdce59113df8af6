package main

import (
	"fmt"
	"github.com/infmem/infmem/mongostore"
	"sort"
	"strings"
	"time"
)

// The recall sets share one shape, whatever their source: messages to
// store in order, questions asked at a point of that order, each with its
// gold. A loader (sets_*.go) reads a dataset into a benchSet following its
// README's protocol; runRecall stores and asks them through the engine or
// through `infmem mcp` and scores every set the same way.

// benchMessage is one message a set stores.
type benchMessage struct {
	// ID is unique within the set; questions' gold names these.
	ID string
	// Scope is the memory's scope ("" is the default scope).
	Scope string
	// Session groups messages for session-level gold (RealMemBench).
	Session string
	// Conv, Speaker and Source are stored as metadata when not empty.
	Conv, Speaker, Source string
	Content               string
	TS                    time.Time
}

// benchQuestion is one question a set asks.
type benchQuestion struct {
	ID    string
	Scope string // where it is asked ("" is the default scope)
	Text  string
	// Kind is the question's category (LoCoMo category, BEAM ability,
	// RealMem kind), for the per-kind rows.
	Kind string
	// Gold holds the message ids that answer it; GoldSessions the sessions
	// (a returned message of one counts). Recall@k is the share of them
	// among the first k results, or with AnyOf 1 when any one is.
	Gold, GoldSessions map[string]bool
	AnyOf              bool
	// Abstain: nothing stored answers it; the right answer is
	// nothing_relevant (BEAM abstention, a question asked of another
	// conversation, a never-stored question).
	Abstain bool
	// At is when it is asked: before messages[At] is stored (RealMem's
	// replay asks a query before its turn is stored); len(messages) or
	// more is after everything.
	At int
	// Newer and Older name an update's messages (BEAM knowledge_update):
	// the newer should rank above the older.
	Newer, Older []string
}

// benchSet is one dataset, ready to store and ask.
type benchSet struct {
	Name      string
	Messages  []benchMessage
	Questions []benchQuestion
	// TopK is the top_k the set's protocol asks with (default 10).
	TopK int
	// Contacts are given to the user profile before anything is stored
	// (who "my sister" is).
	Contacts []mongostore.Contact
}

// setLoader reads a set; path is the dataset's file or folder ("" is the
// default under /work/shared/datasets).
type setLoader struct {
	defaultPath string
	load        func(path string) (*benchSet, error)
}

// recallSets are the sets `infmem-bench recall --sets` knows, in the
// order the table prints them. Other helpers add theirs here (a
// sets_NAME.go with an init that registers it).
var recallSets = map[string]setLoader{}
var recallSetOrder []string

func registerSet(name, defaultPath string, load func(path string) (*benchSet, error)) {
	if _, dup := recallSets[name]; !dup {
		recallSetOrder = append(recallSetOrder, name)
	}
	recallSets[name] = setLoader{defaultPath: defaultPath, load: load}
}

// datasetsDir is where the shared datasets live; --datasets changes it.
var datasetsDir = "/work/shared/datasets"

// loadSets reads the sets of a comma-separated --sets list (blank entries
// skipped), each cut to its first sample scopes when sample > 0.
func loadSets(list string, sample int) ([]*benchSet, error) {
	var sets []*benchSet
	for _, spec := range strings.Split(list, ",") {
		if spec = strings.TrimSpace(spec); spec == "" {
			continue
		}
		s, err := loadSet(spec)
		if err != nil {
			return nil, err
		}
		if sample > 0 {
			s.keepScopes(sample)
		}
		sets = append(sets, s)
	}
	return sets, nil
}

// loadSet reads one registered set by name; "name=path" reads it from path.
func loadSet(spec string) (*benchSet, error) {
	name, path, _ := strings.Cut(spec, "=")
	l, ok := recallSets[name]
	if !ok {
		names := append([]string{}, recallSetOrder...)
		sort.Strings(names)
		return nil, fmt.Errorf("no recall set %q (have %s)", name, strings.Join(names, ", "))
	}
	if path == "" && l.defaultPath != "" {
		path = datasetsDir + "/" + l.defaultPath
	}
	s, err := l.load(path)
	if err != nil {
		return nil, fmt.Errorf("set %s: %w", name, err)
	}
	if s.Name == "" {
		s.Name = name
	}
	if s.TopK == 0 {
		s.TopK = 10
	}
	return s, s.check()
}

// check drops gold that names no message stored before the question (a
// dataset's malformed ids) and questions left without gold, and
// validates the order.
func (s *benchSet) check() error {
	// A client stores no empty message (RealMem has a few): drop them,
	// keeping every question at its point of the replay.
	newAt := make([]int, len(s.Messages)+1)
	msgs := s.Messages[:0]
	for i, m := range s.Messages {
		newAt[i] = len(msgs)
		if strings.TrimSpace(m.Content) != "" {
			msgs = append(msgs, m)
		}
	}
	newAt[len(s.Messages)] = len(msgs)
	for i := range s.Questions {
		if at := s.Questions[i].At; at >= 0 && at < len(newAt) {
			s.Questions[i].At = newAt[at]
		}
	}
	s.Messages = msgs
	stored := map[string]int{}
	session := map[string]int{} // session -> index of its first message
	for i := range s.Messages {
		// A client cannot store more than the size limit in one memory.
		s.Messages[i].Content = clip(s.Messages[i].Content, maxBenchContent)
		m := s.Messages[i]
		if _, dup := stored[m.ID]; dup {
			return fmt.Errorf("message id %q twice", m.ID)
		}
		stored[m.ID] = i
		if _, ok := session[m.Session]; !ok && m.Session != "" {
			session[m.Session] = i
		}
	}
	kept := s.Questions[:0]
	for _, q := range s.Questions {
		at := min(q.At, len(s.Messages))
		if at < 0 {
			at = len(s.Messages)
		}
		q.At = at
		for id := range q.Gold {
			if i, ok := stored[id]; !ok || i >= at {
				delete(q.Gold, id)
			}
		}
		for id := range q.GoldSessions {
			if i, ok := session[id]; !ok || i >= at {
				delete(q.GoldSessions, id)
			}
		}
		if !q.Abstain && len(q.Gold) == 0 && len(q.GoldSessions) == 0 {
			continue
		}
		kept = append(kept, q)
	}
	s.Questions = kept
	return nil
}

// sessionOf maps message ids to their sessions.
func (s *benchSet) sessionOf() map[string]string {
	out := make(map[string]string, len(s.Messages))
	for _, m := range s.Messages {
		out[m.ID] = m.Session
	}
	return out
}

// recallAt scores one answer (message ids, best first) of q at k.
func (q *benchQuestion) recallAt(got []string, k int, sessionOf map[string]string) float64 {
	if q.Abstain {
		return 0
	}
	hit := map[string]bool{}
	for j, id := range got {
		if j >= k {
			break
		}
		if q.Gold[id] {
			hit[id] = true
		}
		if s := sessionOf[id]; s != "" && q.GoldSessions[s] {
			hit["session:"+s] = true
		}
	}
	n := len(q.Gold) + len(q.GoldSessions)
	if n == 0 {
		return 0
	}
	if q.AnyOf {
		if len(hit) > 0 {
			return 1
		}
		return 0
	}
	return float64(len(hit)) / float64(n)
}

// relevant reports whether a returned message answers q.
func (q *benchQuestion) relevant(id string, sessionOf map[string]string) bool {
	if q.Abstain {
		return false
	}
	return q.Gold[id] || q.GoldSessions[sessionOf[id]]
}

// otherScopeNegatives adds, for each answerable question of a set with
// one scope per conversation, the same question asked of the next
// scope after everything is stored (its answer is not there): how often
// the answer says nothing_relevant.
func otherScopeNegatives(s *benchSet) {
	var scopes []string
	seen := map[string]bool{}
	for _, m := range s.Messages {
		if !seen[m.Scope] {
			seen[m.Scope] = true
			scopes = append(scopes, m.Scope)
		}
	}
	if len(scopes) < 2 {
		return
	}
	next := map[string]string{}
	for i, sc := range scopes {
		next[sc] = scopes[(i+1)%len(scopes)]
	}
	n := len(s.Questions)
	for _, q := range s.Questions[:n] {
		if q.Abstain {
			continue
		}
		s.Questions = append(s.Questions, benchQuestion{ID: q.ID + "/other", Scope: next[q.Scope], Text: q.Text,
			Kind: "other-scope", Abstain: true, At: len(s.Messages)})
	}
}

// keepScopes keeps the messages and questions of the first n scopes (in
// store order) only.
func (s *benchSet) keepScopes(n int) {
	keep := map[string]bool{}
	for _, m := range s.Messages {
		if len(keep) == n && !keep[m.Scope] {
			continue
		}
		keep[m.Scope] = true
	}
	newAt := make([]int, len(s.Messages)+1)
	msgs := s.Messages[:0]
	for i, m := range s.Messages {
		newAt[i] = len(msgs)
		if keep[m.Scope] {
			msgs = append(msgs, m)
		}
	}
	newAt[len(s.Messages)] = len(msgs)
	qs := s.Questions[:0]
	for _, q := range s.Questions {
		if keep[q.Scope] {
			q.At = newAt[min(q.At, len(s.Messages))]
			qs = append(qs, q)
		}
	}
	s.Messages, s.Questions = msgs, qs
}
