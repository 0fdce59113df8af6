package recall

import (
	"github.com/infmem/infmem/internal/memory/memindex"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Knowledge updates in ranking: the engine marks, at store time, which
// memory a new one supersedes or contradicts (memory/supersede.go); the
// index gives each candidate its successor and the memory it contradicts
// among the candidates.

const (
	// sameQuestion: a successor (or a contradicting memory) is ranked
	// with the memory it relates to when its own score for the question
	// is at least this share of that memory's (Options.SameQuestion);
	// sameQuestionTurn when the link is between conversation turns (a
	// turn says many things).
	sameQuestion     = 0.6
	sameQuestionTurn = 0.85
	// sameQuestionMeaning: sameQuestion for a successor found by meaning
	// that says the change outright (Options.SameQuestionMeaning,
	// recall.MeaningOutright). 0.3 first gained newer-first on the held-out
	// update sets but cost hit@1 on two held-out everyday sets, through
	// links whose newer note said no change; with those links left to the
	// common bar, it costs no answer of any everyday set, held out or not,
	// and ranks the newer first for more held-out update pairs
	// (BENCHMARKS.md "The lower bar only where the newer says the change
	// outright").
	sameQuestionMeaning = 0.3
)

// supersede is the ranking's last step (Rank calls it after scoring):
// a superseded memory ranks just below its successor, and the successor
// is lifted to where the older one ranked when that was higher, with the
// older one's evidence where it is stronger (the question matched the
// older's words; the newer answers it now). Memories that contradict
// each other are ranked side by side. Both only when the other memory
// answers the same question too (sameQuestion of the score): a long
// message that updates one detail of another is not lifted for a
// question about the rest.
//
// A successor found by meaning (it says the value changed in other words)
// needs only sameMeaning.
func supersede(pool []memindex.Candidate, same, sameMeaning float64) {
	const eps = 1e-6
	for range len(pool) {
		moved := false
		for i := range pool {
			cd := &pool[i]
			if cd.Successor < 0 {
				continue
			}
			s := &pool[cd.Successor]
			bar := sameAs(cd, same)
			if cd.ByMeaning {
				bar = sameMeaning
			}
			if s.Score < bar*cd.Score {
				continue
			}
			if top := max(cd.Score, s.Score); s.Score != top || cd.Score > top-eps {
				s.Score, cd.Score = top, top-eps
				s.Cos, s.Coverage = max(s.Cos, cd.Cos), max(s.Coverage, cd.Coverage)
				s.NeighborCos, s.NeighborCoverage = max(s.NeighborCos, cd.NeighborCos), max(s.NeighborCoverage, cd.NeighborCoverage)
				s.During = s.During || cd.During
				moved = true
			}
		}
		if !moved {
			break
		}
	}
	for i := range pool {
		cd := &pool[i]
		if cd.Contradicts < 0 {
			continue
		}
		o := &pool[cd.Contradicts]
		if o.Score < cd.Score-2*eps && o.Score >= sameAs(cd, same)*cd.Score {
			o.Score = cd.Score - 2*eps
		}
	}
}

// sameAs is the share of cd's score a memory linked to it needs to be
// ranked with it: same for a memory, sameQuestionTurn for a turn.
func sameAs(cd *memindex.Candidate, same float64) float64 {
	if cd.Scoped {
		return sameQuestionTurn
	}
	return same
}

// successorsKeepPlace gives a successor that supersede ranked at or above
// the memory it supersedes no larger coordination cut (Options.CoordWeight)
// than that memory's. The cut only reorders the results; a successor that
// says the change in other words meets fewer of the question's words than
// the memory it replaced, and must not fall back below it (the update
// sets lost newer-first to it: updates-heldout2 87.5 -> 75.0 %).
func successorsKeepPlace(pool []memindex.Candidate, cut map[bson.ObjectID]float64) {
	if len(cut) == 0 {
		return
	}
	for range len(pool) {
		changed := false
		for i := range pool {
			cd := &pool[i]
			if cd.Successor < 0 {
				continue
			}
			s := &pool[cd.Successor]
			if s.Score < cd.Score {
				continue
			}
			if c, o := cut[s.ID], cut[cd.ID]; c > o {
				if o > 0 {
					cut[s.ID] = o
				} else {
					delete(cut, s.ID)
				}
				changed = true
			}
		}
		if !changed {
			return
		}
	}
}
