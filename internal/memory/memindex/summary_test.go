package memindex

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// summaryIndex holds a conversation's turns, archived, and its summary.
func summaryIndex(t *testing.T) (*Index, []bson.ObjectID, bson.ObjectID) {
	t.Helper()
	ix := New(0, time.UTC)
	at := time.Date(2024, 4, 27, 12, 0, 0, 0, time.UTC)
	var turns []bson.ObjectID
	for i, text := range []string{"Sara: I caught a cold on Tuesday.", "Fahim: I went to the science museum with my kids.",
		"Sara: Which exhibit did they like?", "Fahim: The planetarium show."} {
		id := bson.NewObjectID()
		ix.Put(Doc{ID: id, Kind: KindMemory, Text: text, Source: SourceConversation, Scope: "Friends", Conv: "chat",
			TS: at.Add(time.Duration(i) * time.Minute), Created: at, Key: key(text), Archived: true})
		turns = append(turns, id)
	}
	sum := bson.NewObjectID()
	text := "Conversation of 2024-04-27 between Sara and Fahim.\nSara: I caught a cold on Tuesday.\nFahim: I went to the science museum with my kids."
	ix.Put(Doc{ID: sum, Kind: KindSummary, Text: text, Source: "summary", Scope: "Friends", Conv: "chat",
		TS: at.Add(3 * time.Minute), Created: at, Key: key(text)})
	return ix, turns, sum
}

func rankAll(t *testing.T, ix *Index, query string) []Candidate {
	t.Helper()
	var pool []Candidate
	_, err := ix.Rank(context.Background(), RankQuery{Filter: Filter{IncludeArchived: true}, Terms: ix.Analyze(query),
		Candidates: 50, Neighbors: true, K: 10, DuplicateOverlap: 1}, func(p []Candidate) {
		pool = slices.Clone(p)
		for i := range p {
			p[i].Score = p[i].Coverage
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return pool
}

// A summary stands beside its conversation: it has no neighbours, is no
// turn's neighbour and takes no share of its own evidence as one, and its text, set aside from the keyword statistics,
// leaves the turns' coverage as it was without it, also after a snapshot.
func TestSummaryStandsBesideItsTurns(t *testing.T) {
	ix, _, sum := summaryIndex(t)
	bare, _, _ := summaryIndex(t)
	bare.Remove(func() bson.ObjectID {
		for id, slot := range bare.byID {
			if bare.items[slot].kind == KindSummary {
				return id
			}
		}
		return bson.ObjectID{}
	}())
	coverage := func(pool []Candidate) map[int]float64 {
		out := map[int]float64{}
		for _, cd := range pool {
			if cd.Kind == KindMemory {
				out[int(cd.TS)] = cd.Coverage
			}
		}
		return out
	}
	want := coverage(rankAll(t, bare, "museum kids cold"))
	check := func(ix *Index, when string) {
		pool := rankAll(t, ix, "museum kids cold")
		var found bool
		for _, cd := range pool {
			if cd.ID == sum {
				found = true
				// No neighbours, and no neighbour share of its own
				// evidence (not Alone), which the confidence still reads.
				if cd.Alone || cd.Neighbors != [2]int32{-1, -1} || cd.Coverage == 0 || cd.NeighborCoverage != cd.Coverage {
					t.Errorf("%s: the summary has neighbours, no coverage or a share of its own: %+v", when, cd)
				}
				continue
			}
			for _, n := range cd.Neighbors {
				if n >= 0 && pool[n].ID == sum {
					t.Errorf("%s: the summary is a neighbour of a turn", when)
				}
			}
		}
		if !found {
			t.Errorf("%s: the summary is not ranked", when)
		}
		if got := coverage(pool); len(got) == 0 || !mapsEqual(got, want) {
			t.Errorf("%s: the summary moved the turns' coverage: %v, want %v", when, got, want)
		}
	}
	check(ix, "in memory")
	p := filepath.Join(t.TempDir(), "snap")
	if err := ix.WriteFile(p, seedHeader); err != nil {
		t.Fatal(err)
	}
	read, err := ReadFile(p, seedHeader, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	check(read, "after a snapshot")
}

func mapsEqual(a, b map[int]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A summary that ranks among the results brings its conversation's best
// turn along: the turn takes its place and the summary follows every other
// candidate. A summary whose turns are not among the candidates keeps its
// place.
func TestSummaryBringsItsBestTurnAlong(t *testing.T) {
	ix, turns, sum := summaryIndex(t)
	rank := func(query string, k int) []bson.ObjectID {
		out, err := ix.Rank(context.Background(), RankQuery{Filter: Filter{IncludeArchived: true}, Terms: ix.Analyze(query),
			Candidates: 50, K: k, DuplicateOverlap: 1}, func(p []Candidate) {
			for i := range p {
				// The summary scores best, then the turns by coverage.
				p[i].Score = p[i].Coverage
				if p[i].Kind == KindSummary {
					p[i].Score = 10
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		var ids []bson.ObjectID
		for _, cd := range out {
			ids = append(ids, cd.ID)
		}
		return ids
	}
	// "museum" is in the summary and in turn 1 only.
	if got := rank("museum", 1); !slices.Equal(got, []bson.ObjectID{turns[1]}) {
		t.Errorf("top 1 for museum: %v, want the turn the summary quotes (%v), not the summary (%v)", got, turns[1], sum)
	}
	if got := rank("museum", 5); !slices.Equal(got, []bson.ObjectID{turns[1], sum}) {
		t.Errorf("top 5 for museum: %v, want the turn, then the summary", got)
	}
	// Without its turns (forgotten) the summary is the way in.
	for _, id := range turns {
		ix.Remove(id)
	}
	if got := rank("museum", 5); !slices.Equal(got, []bson.ObjectID{sum}) {
		t.Errorf("top 5 for museum without the turns: %v, want the summary", got)
	}
}

// A candidate's ConvTurns counts its conversation's turns the query sees,
// archived ones too when the filter admits them, never its summary: the
// same four turns before and after the nightly pass archives them (counted
// as live items, the archived conversation held one, its summary).
func TestConvTurnsCountArchivedTurns(t *testing.T) {
	ix, turns, _ := summaryIndex(t)
	for _, cd := range rankAll(t, ix, "museum kids cold planetarium") {
		if cd.ConvTurns != int32(len(turns)) {
			t.Errorf("%v (kind %d): ConvTurns %d, want %d", cd.ID, cd.Kind, cd.ConvTurns, len(turns))
		}
	}
	// Unarchived, the turns count the same.
	for _, id := range turns {
		ix.SetFlag(id, FlagArchived, false)
	}
	for _, cd := range rankAll(t, ix, "museum kids cold planetarium") {
		if cd.ConvTurns != int32(len(turns)) {
			t.Errorf("unarchived: %v (kind %d): ConvTurns %d, want %d", cd.ID, cd.Kind, cd.ConvTurns, len(turns))
		}
	}
	// A filter that leaves archived memories out sees none of them.
	for _, id := range turns[:3] {
		ix.SetFlag(id, FlagArchived, true)
	}
	if _, err := ix.Rank(context.Background(), RankQuery{Terms: ix.Analyze("museum kids cold planetarium"),
		Candidates: 50, Neighbors: true, K: 10, DuplicateOverlap: 1}, func(p []Candidate) {
		for _, cd := range p {
			if cd.ConvTurns != 1 {
				t.Errorf("archived left out: %v (kind %d): ConvTurns %d, want 1", cd.ID, cd.Kind, cd.ConvTurns)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
}
