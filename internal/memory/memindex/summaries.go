package memindex

import "slices"

// A summary in a ranking (issue 25: a summary is a way in, never a wall).
//
// After the nightly pass a conversation's turns are archived and its
// summary stands beside them; a search ranks both, and the turns score as
// they did before the pass (the summary's text is set aside from the
// keyword statistics, and it is no turn's neighbour). Two rules keep the
// summary from walling off the turns it condenses:
//
//   - A turn's score is its own evidence plus a share of its best
//     neighbour's (the caller's scorer), and a memory outside any
//     conversation (Alone) counts as its own context, taking that share of
//     its own evidence. A summary does not: its text already holds the
//     turns around what it quotes, so it takes no neighbour share.
//     Counted twice, summaries outranked their own turns (BEAM after the
//     pass: three of every four top-5 places, R@5 10 points down).
//   - A summary that ranks among the results brings its conversation's
//     best turn in the pool along: the turn takes the summary's place and
//     the summary goes after every other candidate (so it is read only as
//     a copy of what it repeats). A summary none of whose turns is in the
//     pool keeps its place: it is then the only way in to them.
//
// Both were measured against ranking the summary beside its turns with
// `infmem-bench aged` (BENCHMARKS.md, "Recall across the nightly pass").

// summariesStandOnTheirOwn marks the pool's summaries as not Alone, after
// their neighbour evidence was set to their own: the confidence reads the
// same evidence as before, and the scorer adds no neighbour share (a
// summary has no neighbours).
func summariesStandOnTheirOwn(pool []Candidate) {
	for i := range pool {
		if cd := &pool[i]; cd.Kind == KindSummary {
			cd.Alone = false
		}
	}
}

// summariesLeadLocked reorders the ranked pool (best first): each summary's
// place goes to the best turn of its conversation ranked after it, and the
// summaries that gave their place up follow every other candidate, in
// their order.
func (ix *Index) summariesLeadLocked(ordered []*Candidate) []*Candidate {
	if !slices.ContainsFunc(ordered, func(cd *Candidate) bool { return cd.Kind == KindSummary }) {
		return ordered
	}
	out := make([]*Candidate, 0, len(ordered))
	placed := make(map[*Candidate]bool, len(ordered))
	var last []*Candidate
	for i, cd := range ordered {
		if placed[cd] {
			continue
		}
		if cd.Kind == KindSummary {
			conv := ix.items[cd.slot].conv
			j := slices.IndexFunc(ordered[i+1:], func(o *Candidate) bool {
				return !placed[o] && o.Kind != KindSummary && conv != 0 && ix.items[o.slot].conv == conv
			})
			if j >= 0 {
				turn := ordered[i+1+j]
				out, placed[turn] = append(out, turn), true
				last = append(last, cd)
				continue
			}
		}
		out, placed[cd] = append(out, cd), true
	}
	return append(out, last...)
}
