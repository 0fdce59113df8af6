package recall

import (
	"cmp"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// foldDraw is how many times K results Rank draws from the index when
// turns may fold into their neighbours' results: each result can take in
// the turns on either side of it.
const foldDraw = 3

// lendings records, for one ranking, which turns lend their score to
// which (the neighbour share), to fold a pair of adjacent turns into one
// result.
type lendings struct {
	// at is each candidate's position in the pool; pool what fold needs
	// of each (id, kind, time, score).
	at   map[bson.ObjectID]int32
	pool []memindex.Hit
	// nb are each position's neighbours (Candidate.Neighbors); owes the
	// share of its score each of them lends it.
	nb   [][2]int32
	owes [][2]float64
	// cov is each position's keyword coverage of the query; conv its
	// conversation (Candidate.Conv).
	cov  []float64
	conv []uint32
	// context holds, per shown result, the turns folded into it.
	context map[bson.ObjectID][]memindex.Hit
	// ev is each position's evidence, for the confidence of a result
	// that shows it as context (unitClears).
	ev []Evidence
}

// lendingsOf reads the pool once scored; lent is what score returned.
func lendingsOf(pool []memindex.Candidate, lent [][2]float64) lendings {
	return lendingsInto(nil, pool, lent)
}

// lendingsInto is lendingsOf on the arrays and map of sc, when not nil
// and large enough (a retrieval's scratch, rankScratch): what it returns
// lives in them until sc is reused.
func lendingsInto(sc *rankScratch, pool []memindex.Candidate, lent [][2]float64) lendings {
	var l lendings
	if sc != nil {
		n := len(pool)
		if sc.at == nil {
			sc.at = make(map[bson.ObjectID]int32, n)
		}
		clear(sc.at)
		sc.hits, sc.nb, sc.owes = grown(sc.hits, n), grown(sc.nb, n), grown(sc.owes, n)
		sc.cov, sc.conv, sc.ev = grown(sc.cov, n), grown(sc.conv, n), slices.Grow(sc.ev[:0], n)
		l = lendings{at: sc.at, pool: sc.hits, nb: sc.nb, owes: sc.owes, cov: sc.cov, conv: sc.conv, ev: sc.ev}
	} else {
		l = lendings{at: make(map[bson.ObjectID]int32, len(pool)), pool: make([]memindex.Hit, len(pool)), nb: make([][2]int32, len(pool)), owes: make([][2]float64, len(pool)), cov: make([]float64, len(pool)), conv: make([]uint32, len(pool)), ev: make([]Evidence, 0, len(pool))}
	}
	for i := range pool {
		cd := &pool[i]
		l.at[cd.ID] = int32(i)
		l.cov[i] = cd.Coverage
		l.conv[i] = cd.Conv
		l.pool[i] = memindex.Hit{ID: cd.ID, Kind: cd.Kind, TS: cd.TS, Score: cd.Score}
		l.ev = append(l.ev, *evidence(cd))
		l.nb[i] = cd.Neighbors
		for j := range 2 {
			if cd.Score > 0 {
				l.owes[i][j] = lent[i][j] / cd.Score
			}
		}
	}
	return l
}

// unitClears is how well a result shown with the turns folded into it
// clears the relevance bar (clears), from each turn's own evidence: what the list of those turns, the result first, would give its
// first place if each stood alone (the best mean of the result's and its
// strongest context turns': the first value of monotone over that list).
// Before folding, a question's turn and the answer next to it were two
// results and the stronger lifted the other through monotone; shown as
// one, the result keeps that.
func (l *lendings) unitClears(own float64, ctx []memindex.Hit, unknown float64, clears func(*Evidence) float64) float64 {
	if len(ctx) == 0 {
		return own
	}
	vs := make([]float64, 0, len(ctx))
	for _, h := range ctx {
		if p, ok := l.at[h.ID]; ok {
			ev := l.ev[p]
			ev.Unknown = unknown
			vs = append(vs, clears(&ev))
		}
	}
	slices.SortFunc(vs, func(a, b float64) int { return cmp.Compare(b, a) })
	best, sum := own, own
	for j, v := range vs {
		sum += v
		best = max(best, sum/float64(j+2))
	}
	return best
}

// owesTo is the share of position p's score that position n lends it.
func (l *lendings) owesTo(p, n int32) float64 {
	for j, m := range l.nb[p] {
		if m == n {
			return l.owes[p][j]
		}
	}
	return 0
}

// pair reports whether adjacent positions p and n are one result: one of
// the two owes at least share of its score to the other.
func (l *lendings) pair(p, n int32, share float64) bool {
	return l.owesTo(p, n) >= share || l.owesTo(n, p) >= share
}

// fold walks ranked (best first) and keeps up to k results; a turn next to
// a result already kept, when one of the two owes at least share of its
// score to the other, joins that result's context instead of taking a
// place of its own. The pair is one result wherever its second turn
// ranks: a kept result also takes in such a neighbour from the pool that
// ranked below what was drawn (with meaning in the score, a long reply
// next to the question that found it often ranks below many turns that
// merely share the conversation's topic; drawn or not, it is the same
// pair). A summary of a conversation whose turns are already shown (as a
// result or in one's context) takes no place: it would only repeat them,
// in the place of another result (memindex's summaries.go puts it after
// every turn; folding frees the places before it).
//
// With cover > 0, a turn whose conversation the results already show at
// least that share of (its kept results, their paired neighbours and the
// turns folded in, over the conversation's turns the search sees: its
// archived turns too, not its summaries) takes no place while other
// results remain; such turns fill what is left at the end.
func (l *lendings) fold(ranked []memindex.Candidate, share, ring, chain, cover float64, k int) []memindex.Candidate {
	out := make([]memindex.Candidate, 0, k)
	shown := map[int32]int{}  // pool position → index in out
	taken := map[int32]bool{} // pool positions shown or folded
	var ctxOf map[int32]int   // with chain: pool position of a context turn → index in out
	if chain > 0 {
		ctxOf = map[int32]int{}
	}
	seen := map[uint32]bool{} // conversations with a turn shown
	// With cover: the turns each conversation shows (counted once), and
	// the turns kept back because theirs is largely shown already.
	var inConv map[uint32]int
	var counted map[int32]bool
	var later []memindex.Candidate
	count := func(p int32) {
		if inConv != nil && p >= 0 && l.conv[p] != 0 && !counted[p] {
			counted[p] = true
			inConv[l.conv[p]]++
		}
	}
	if cover > 0 {
		inConv, counted = map[uint32]int{}, map[int32]bool{}
	}
	add := func(into int, p int32, h memindex.Hit) {
		if p >= 0 && l.conv[p] != 0 {
			seen[l.conv[p]] = true
		}
		count(p)
		if l.context == nil {
			l.context = map[bson.ObjectID][]memindex.Hit{}
		}
		id := out[into].ID
		l.context[id] = append(l.context[id], h)
		if ctxOf != nil && p >= 0 {
			ctxOf[p] = into
		}
	}
	for _, cd := range ranked {
		p, ok := l.at[cd.ID]
		if ok && taken[p] {
			// Already in a result's context (chain: claimed with it).
			continue
		}
		if cd.Kind == memindex.KindSummary && cd.Conv != 0 && seen[cd.Conv] {
			continue
		}
		into, chained := -1, false
		if ok && !cd.Alone {
			for _, n := range l.nb[p] {
				if n < 0 {
					continue
				}
				if i, ok := shown[n]; ok && l.pair(p, n, share) {
					into = i
					break
				}
			}
			if into < 0 && ctxOf != nil && l.cov[p] >= chain {
				for _, n := range l.nb[p] {
					if i, ok := ctxOf[n]; ok && n >= 0 && l.pair(p, n, share) {
						into, chained = i, true
						break
					}
				}
			}
		}
		if into >= 0 {
			taken[p] = true
			add(into, p, memindex.Hit{ID: cd.ID, Kind: cd.Kind, TS: cd.TS, Score: cd.Score})
			if chained {
				// It ranked on its own: its pair turns come with it, as
				// a kept result's do.
				l.claim(p, into, taken, share, add)
			}
			continue
		}
		if inConv != nil && ok && cd.Kind != memindex.KindSummary && cd.Conv != 0 && cd.ConvTurns > 0 &&
			float64(inConv[cd.Conv]) >= cover*float64(cd.ConvTurns) {
			later = append(later, cd)
			continue
		}
		if len(out) < k {
			if ok {
				shown[p], taken[p] = len(out), true
				count(p)
				if inConv != nil && !cd.Alone {
					// Its paired neighbours will be shown with it.
					for _, n := range l.nb[p] {
						if n >= 0 && !taken[n] && l.pair(p, n, share) {
							count(n)
						}
					}
				}
			}
			if cd.Kind != memindex.KindSummary && cd.Conv != 0 {
				seen[cd.Conv] = true
			}
			out = append(out, cd)
			if ok && ctxOf != nil && !cd.Alone {
				// Its pair turns join it now, wherever they rank, so a
				// ranked turn next to one of them can chain on.
				l.claim(p, len(out)-1, taken, share, add)
			}
		}
	}
	// Turns kept back for their conversation fill the places left.
	for _, cd := range later {
		if len(out) >= k {
			break
		}
		if p := l.at[cd.ID]; !taken[p] {
			shown[p], taken[p] = len(out), true
			out = append(out, cd)
		}
	}
	// The neighbours of the results that were not drawn, best first.
	var rest []int32
	for p := range shown {
		for _, n := range l.nb[p] {
			if n >= 0 && !taken[n] && l.pair(p, n, share) {
				taken[n] = true
				rest = append(rest, n)
			}
		}
	}
	l.bestFirst(rest)
	for _, n := range rest {
		for _, p := range l.nb[n] {
			if i, ok := shown[p]; ok && p >= 0 && l.pair(p, n, share) {
				add(i, n, l.pool[n])
				break
			}
		}
	}
	if ring > 0 {
		l.secondRing(out, taken, share, ring)
	}
	return out
}

// claim adds to result into the turns next to position p paired with it
// that no result holds yet, best first.
func (l *lendings) claim(p int32, into int, taken map[int32]bool, share float64, add func(int, int32, memindex.Hit)) {
	var mine []int32
	for _, n := range l.nb[p] {
		if n >= 0 && !taken[n] && l.pair(p, n, share) {
			taken[n] = true
			mine = append(mine, n)
		}
	}
	l.bestFirst(mine)
	for _, n := range mine {
		add(into, n, l.pool[n])
	}
}

// secondRing: a turn two places from a shown result, next to a turn folded
// into it and paired with that turn, joins the result's context when the
// query's own words are in it (keyword coverage at least ring): chat
// splits one thought over several short messages, and the one that holds
// the asked-for words can sit two away from the turn that ranked.
func (l *lendings) secondRing(out []memindex.Candidate, taken map[int32]bool, share, ring float64) {
	for i := range out {
		p, ok := l.at[out[i].ID]
		if !ok {
			continue
		}
		for _, c := range l.context[out[i].ID] {
			q, ok := l.at[c.ID]
			if !ok || q == p {
				continue
			}
			for _, m := range l.nb[q] {
				if m < 0 || m == p || taken[m] || l.cov[m] < ring || !l.pair(q, m, share) {
					continue
				}
				taken[m] = true
				l.context[out[i].ID] = append(l.context[out[i].ID], l.pool[m])
			}
		}
	}
}

// bestFirst orders pool positions by their score, best first (ties by
// position, so the order is the same on every run).
func (l *lendings) bestFirst(ps []int32) {
	slices.SortFunc(ps, func(a, b int32) int {
		return cmp.Or(cmp.Compare(l.pool[b].Score, l.pool[a].Score), cmp.Compare(a, b))
	})
}
