package recall

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// meaningLead applies Options.MeaningLead to the first MeaningTop of
// final (best's results in their order so far, each with its score): the
// note among them closest to the query in meaning that holds none of its
// words leads; a note among them that holds some of its words and whose
// cosine is at least MeaningLead under the leader's (and at most
// MeaningLeadRatio times it) loses its keyword part, and those places are
// put in order again. A superseded note
// never leads; a note meeting more of the query's word groups than
// MeaningLeadGroups is not cut (leadCuts). It reports whether any score
// was cut.
//
// The reading: a keyword lead resting on words shared with the query
// ("family" of "family doctor" in "a family law firm", "coffee" in "a
// coffee grinder") is worth less than a clear lead in meaning held by a
// note that says the asked thing in other words ("Our GP is …", "I drink
// oat flat whites"); where neither note is clearly closer, the words
// decide as before.
func meaningLead(best []memindex.Candidate, final []candidateAt, q *query, ro *Options) bool {
	top := min(len(final), int(ro.MeaningTop))
	if top < 2 {
		return false
	}
	lead, found := 0.0, false
	for _, f := range final[:top] {
		cd := &best[f.i]
		if cd.Alone && cd.Coverage <= 0 && !q.superseded[cd.ID] && (!found || cd.Cos > lead) {
			lead, found = cd.Cos, true
		}
	}
	if !found {
		return false
	}
	cut := false
	for j := range final[:top] {
		cd := &best[final[j].i]
		if cd.Alone && cd.Coverage > 0 && cd.Cos+ro.MeaningLead <= lead && (ro.MeaningLeadRatio <= 0 || cd.Cos <= ro.MeaningLeadRatio*lead) && leadCuts(cd.Holds, q.coord, ro) {
			// A note is its own context: its keyword part counts
			// (1 + NeighborShare) times in its score (score).
			final[j].score -= (1 + ro.NeighborShare) * kwWeight(cd, ro) * cd.Coverage
			cut = true
		}
	}
	if cut {
		slices.SortStableFunc(final[:top], func(a, b candidateAt) int { return cmp.Compare(b.score, a.score) })
	}
	return cut
}

// leadCuts says whether MeaningLead may cut a note holding the word groups
// holds of the query's groups mask: always with MeaningLeadGroups off,
// else when the query has two groups or more and the note meets at most
// MeaningLeadGroups of them.
func leadCuts(holds, mask uint64, ro *Options) bool {
	if ro.MeaningLeadGroups <= 0 {
		return true
	}
	return bits.OnesCount64(mask) >= 2 && bits.OnesCount64(holds&mask) <= int(ro.MeaningLeadGroups)
}
