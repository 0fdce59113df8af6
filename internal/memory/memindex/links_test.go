package memindex

import (
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestLinksCountWhileLive: a memory is superseded (or contradicted) only
// while the memory that supersedes it is live; a change to the memory
// that sends no links keeps them; a hard delete drops them.
func TestLinksCountWhileLive(t *testing.T) {
	ix := New(0, time.UTC)
	put := func(id bson.ObjectID, text string, l *Links) {
		ix.Put(Doc{ID: id, Text: text, Scope: "S", Key: key(text), TS: time.Unix(100, 0), Links: l})
	}
	older, newer, other := bson.NewObjectID(), bson.NewObjectID(), bson.NewObjectID()
	put(newer, "launch moved to December 19", nil)
	put(other, "I never planned a launch", &Links{Contradicts: []bson.ObjectID{newer}})
	put(older, "launch is December 12", &Links{SupersededBy: newer})
	if r := ix.RelatedOf(older); r.SupersededBy != newer {
		t.Fatalf("older: %+v", r)
	}
	if r := ix.RelatedOf(newer); !slices.Equal(r.Supersedes, []bson.ObjectID{older}) {
		t.Fatalf("newer: %+v", r)
	}
	if r := ix.RelatedOf(other); !slices.Equal(r.Contradicts, []bson.ObjectID{newer}) {
		t.Fatalf("other: %+v", r)
	}
	// An edit that says nothing of links keeps them.
	put(older, "launch is on December 12", nil)
	if r := ix.RelatedOf(older); r.SupersededBy != newer {
		t.Fatalf("after an edit: %+v", r)
	}
	// Forgetting the newer makes the older current again; unforgetting
	// it, superseded again.
	ix.SetForgotten(newer, true, time.Unix(200, 0), "", nil)
	if r := ix.RelatedOf(older); !r.Empty() {
		t.Fatalf("newer forgotten: %+v", r)
	}
	if r := ix.RelatedOf(other); !r.Empty() {
		t.Fatalf("newer forgotten, contradiction: %+v", r)
	}
	ix.SetForgotten(newer, false, time.Time{}, "launch moved to December 19", nil)
	if r := ix.RelatedOf(older); r.SupersededBy != newer {
		t.Fatalf("newer unforgotten: %+v", r)
	}
	// Cleared links, and a hard delete.
	ix.SetLinks(older, Links{})
	if r := ix.RelatedOf(newer); len(r.Supersedes) != 0 {
		t.Fatalf("links cleared, newer still supersedes %v", r.Supersedes)
	}
	ix.SetLinks(older, Links{SupersededBy: newer})
	ix.Remove(older)
	if r := ix.RelatedOf(newer); len(r.Supersedes) != 0 || len(ix.links) != 1 {
		t.Fatalf("older deleted, newer supersedes %v (%d links)", r.Supersedes, len(ix.links))
	}
}

// TestRankPullsInTheSuccessor: a query that finds only the older memory
// ranks its successor too, and tells the scorer which it is.
func TestRankPullsInTheSuccessor(t *testing.T) {
	ix := New(0, time.UTC)
	older, newer := bson.NewObjectID(), bson.NewObjectID()
	ix.Put(Doc{ID: newer, Text: "Moved to December 19", Scope: "S", Key: key("b"), TS: time.Unix(300, 0)})
	ix.Put(Doc{ID: older, Text: "The Apollo launch deadline is December 12", Scope: "S", Key: key("a"), TS: time.Unix(100, 0),
		Links: &Links{SupersededBy: newer}})
	var seen []Candidate
	best, err := ix.Rank(t.Context(), RankQuery{Terms: ix.Analyze("Apollo launch deadline"), Candidates: 10, K: 5, DuplicateOverlap: 1}, func(pool []Candidate) {
		seen = slices.Clone(pool)
		for i := range pool {
			pool[i].Score = pool[i].Coverage
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || len(best) != 2 {
		t.Fatalf("pool %d, best %d", len(seen), len(best))
	}
	for _, cd := range seen {
		switch cd.ID {
		case older:
			if cd.Successor < 0 || seen[cd.Successor].ID != newer {
				t.Fatalf("older's successor %d", cd.Successor)
			}
		case newer:
			if cd.Successor != -1 {
				t.Fatalf("newer's successor %d", cd.Successor)
			}
		}
	}
}

// TestRankTellsALinkByMeaning: the older memory's candidate says its
// successor was found by meaning only when the link says so.
func TestRankTellsALinkByMeaning(t *testing.T) {
	for _, meaning := range []bool{false, true} {
		ix := New(0, time.UTC)
		older, newer := bson.NewObjectID(), bson.NewObjectID()
		ix.Put(Doc{ID: newer, Text: "Moved to December 19", Scope: "S", Key: key("b"), TS: time.Unix(300, 0)})
		ix.Put(Doc{ID: older, Text: "The Apollo launch deadline is December 12", Scope: "S", Key: key("a"), TS: time.Unix(100, 0),
			Links: StoredLinks(newer.Hex(), nil, nil, meaning)})
		var got *Candidate
		_, err := ix.Rank(t.Context(), RankQuery{Terms: ix.Analyze("Apollo launch deadline"), Candidates: 10, K: 5, DuplicateOverlap: 1}, func(pool []Candidate) {
			for i := range pool {
				pool[i].Score = pool[i].Coverage
				if pool[i].ID == older {
					c := pool[i]
					got = &c
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if got == nil || got.Successor < 0 || got.ByMeaning != meaning {
			t.Fatalf("by meaning %v: the older's candidate %+v", meaning, got)
		}
	}
}
