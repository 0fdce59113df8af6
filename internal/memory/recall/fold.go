package recall

import (
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
	// at is each candidate's position in the pool.
	at map[bson.ObjectID]int32
	// nb are each position's neighbours (Candidate.Neighbors); owes the
	// share of its score each of them lends it.
	nb   [][2]int32
	owes [][2]float64
	// context holds, per shown result, the turns folded into it.
	context map[bson.ObjectID][]memindex.Hit
}

// lendingsOf reads the pool once scored; lent is what score returned.
func lendingsOf(pool []memindex.Candidate, lent [][2]float64) lendings {
	l := lendings{at: make(map[bson.ObjectID]int32, len(pool)), nb: make([][2]int32, len(pool)), owes: make([][2]float64, len(pool))}
	for i := range pool {
		cd := &pool[i]
		l.at[cd.ID] = int32(i)
		l.nb[i] = cd.Neighbors
		for j := range 2 {
			if cd.Score > 0 {
				l.owes[i][j] = lent[i][j] / cd.Score
			}
		}
	}
	return l
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

// fold walks ranked (best first) and keeps up to k results; a turn next to
// a result already kept, when one of the two owes at least share of its
// score to the other, joins that result's context instead of taking a
// place of its own.
func (l *lendings) fold(ranked []memindex.Candidate, share float64, k int) []memindex.Candidate {
	out := make([]memindex.Candidate, 0, k)
	shown := map[int32]int{} // pool position → index in out
	for _, cd := range ranked {
		p, ok := l.at[cd.ID]
		into := -1
		if ok && !cd.Alone {
			for _, n := range l.nb[p] {
				if n < 0 {
					continue
				}
				if i, ok := shown[n]; ok && (l.owesTo(p, n) >= share || l.owesTo(n, p) >= share) {
					into = i
					break
				}
			}
		}
		if into >= 0 {
			if l.context == nil {
				l.context = map[bson.ObjectID][]memindex.Hit{}
			}
			id := out[into].ID
			l.context[id] = append(l.context[id], memindex.Hit{ID: cd.ID, Kind: cd.Kind, TS: cd.TS, Score: cd.Score})
			continue
		}
		if len(out) < k {
			if ok {
				shown[p] = len(out)
			}
			out = append(out, cd)
		}
	}
	return out
}
