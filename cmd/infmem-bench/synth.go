package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// synth generates realistic-looking memories: sentences over a vocabulary
// with a Zipf distribution, a few scopes, tags and spread-out timestamps.
type synth struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	words []string
}

var (
	subjects = []string{"Alice", "Bob", "Dana", "the team", "my sister", "Marco", "the landlord", "our manager", "Priya", "the dentist"}
	verbs    = []string{"said", "decided", "mentioned", "asked", "planned", "agreed", "reminded me", "promised", "noticed", "suggested"}
	scopeSet = []string{"Global", "Work", "Project Alpha", "Health", "Travel", "Home", "Finance", "Hobbies"}
	tagSet   = []string{"meeting", "deadline", "family", "idea", "todo", "decision", "travel", "health", "budget", "book"}
)

func newSynth(seed uint64) *synth {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := &synth{rng: rng}
	s.words = vocabulary(rng, 20000)
	s.zipf = rand.NewZipf(rng, 1.1, 2, uint64(len(s.words)-1))
	return s
}

// vocabulary makes pronounceable pseudo-words, plus common real ones.
func vocabulary(rng *rand.Rand, n int) []string {
	real := strings.Fields("project deadline meeting budget launch report garden kitchen flight hotel doctor invoice " +
		"contract design review birthday dinner concert marathon piano recipe insurance mortgage lesson vacation " +
		"tickets presentation client server database backup phone laptop car bike train museum holiday")
	syl := []string{"ka", "lo", "mi", "ra", "ten", "vor", "sa", "ne", "tri", "pol", "du", "fe", "gan", "ish", "or", "bel", "zu", "wen"}
	seen := map[string]bool{}
	words := append([]string(nil), real...)
	for _, w := range real {
		seen[w] = true
	}
	for len(words) < n {
		var b strings.Builder
		for i := 0; i < 2+rng.IntN(3); i++ {
			b.WriteString(syl[rng.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

func (s *synth) word() string { return s.words[s.zipf.Uint64()] }

// sentence is a 12–40 word memory, about 300 bytes at most.
func (s *synth) sentence(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", subjects[s.rng.IntN(len(subjects))], verbs[s.rng.IntN(len(verbs))])
	for n := 10 + s.rng.IntN(28); n > 0; n-- {
		b.WriteByte(' ')
		b.WriteString(s.word())
	}
	fmt.Fprintf(&b, " (note %d)", i)
	return b.String()
}

func (s *synth) scope() string { return scopeSet[s.rng.IntN(len(scopeSet))] }

func (s *synth) tags() []string {
	var t []string
	for n := s.rng.IntN(3); n > 0; n-- {
		t = append(t, tagSet[s.rng.IntN(len(tagSet))])
	}
	return t
}

// query is a 3–6 word question over mid-frequency words.
func (s *synth) query() string {
	var parts []string
	for n := 3 + s.rng.IntN(4); n > 0; n-- {
		parts = append(parts, s.words[20+s.rng.IntN(2000)])
	}
	return "what about " + strings.Join(parts, " ")
}
