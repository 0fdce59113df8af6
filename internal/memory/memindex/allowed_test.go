package memindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/vecindex"
)

// The allowed sets a search gets from the cache are always the ones the
// index admits now: after every kind of write (a new memory, a replaced
// one with other scope and tags, a removal, forgetting, archiving, links,
// vectors), for filters of every shape; and a run of searches with no
// write between is served from the cache.
func TestAllowedCacheFollowsWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const dim = 8
	ix := New(dim, time.UTC)
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []bson.ObjectID
	put := func(id bson.ObjectID, i int) {
		text := fmt.Sprintf("memory %d about %d", i, r.IntN(50))
		ix.Put(Doc{ID: id, Kind: KindMemory, Text: text, Source: []string{"note", "conversation"}[i%2], Scope: fmt.Sprintf("s%d", r.IntN(4)),
			Tags: []string{fmt.Sprintf("t%d", r.IntN(3))}, TS: at.Add(time.Duration(r.IntN(1000)) * time.Hour), Created: at, Key: key(text), Vec: randVec(r, dim)})
	}
	for i := range 200 {
		id := bson.NewObjectID()
		put(id, i)
		ids = append(ids, id)
	}
	filters := []Filter{{}, {Scopes: []string{"s1"}}, {Scopes: []string{"s0", "s2"}}, {Tags: []string{"t1"}},
		{Sources: []string{"note"}}, {IncludeArchived: true}, {OnlyForgotten: true}, {IncludeForgotten: true, Scopes: []string{"s3"}},
		{From: at.Add(100 * time.Hour), To: at.Add(500 * time.Hour)}, {Scopes: []string{"s9"}}, {Tags: []string{"t9"}},
		{Sources: []string{"file"}}, {Scopes: []string{}}, {Sources: []string{}}}
	// Each step checks two filters, the second again at the next step
	// after a write: the cache still holds its set then, revised.
	check := func(step string, fs ...Filter) {
		t.Helper()
		ix.mu.RLock()
		defer ix.mu.RUnlock()
		for _, f := range fs {
			c := ix.compileLocked(f)
			got, n := ix.allowedLocked(&c)
			want, wn := ix.admittedLocked(&c)
			var g, w []uint32
			for s := range uint32(len(ix.items)) {
				if got.Has(s) {
					g = append(g, s)
				}
				if want.Has(s) {
					w = append(w, s)
				}
			}
			if n != wn || !slices.Equal(g, w) {
				t.Fatalf("%s, filter %+v: cached set of %d %v, admitted %d %v", step, f, n, g, wn, w)
			}
		}
	}
	for step := range 300 {
		fs := []Filter{filters[step%len(filters)], filters[(step+1)%len(filters)]}
		check(fmt.Sprintf("step %d", step), fs...)
		check(fmt.Sprintf("step %d again", step), fs...)
		id := ids[r.IntN(len(ids))]
		switch op := r.IntN(7); op {
		case 0:
			nid := bson.NewObjectID()
			put(nid, len(ids))
			ids = append(ids, nid)
		case 1:
			put(id, r.IntN(1000)) // replaced: another scope, tags, time
		case 2:
			ix.Remove(id)
		case 3:
			ix.SetForgotten(id, r.IntN(2) == 0, at, "", nil)
		case 4:
			ix.SetFlag(id, FlagArchived, r.IntN(2) == 0)
		case 5:
			ix.SetLinks(id, Links{SupersededBy: ids[r.IntN(len(ids))]})
		case 6:
			ix.SetVec(id, randVec(r, dim))
			ix.Touch([]bson.ObjectID{id})
		}
		if step == 9+14*10 { // just after a check of filters[9] and [10] (s9, t9)
			// A scope, tag and source the filters named before any
			// memory had them: the sets cached then must take it in.
			nid := bson.NewObjectID()
			ix.Put(Doc{ID: nid, Kind: KindMemory, Text: "late newcomer", Source: "file", Scope: "s9", Tags: []string{"t9"},
				TS: at, Created: at, Key: key("late newcomer"), Vec: randVec(r, dim)})
			ids = append(ids, nid)
		}
	}
	// No write between: the second search's set is the first's.
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.compileLocked(filters[1])
	a, _ := ix.allowedLocked(&c)
	b, _ := ix.allowedLocked(&c)
	if a != b {
		t.Fatal("the same filter with no write between was not served from the cache")
	}
}

// A write of one memory revises the cached sets instead of dropping them:
// a store's update check must not pass over every item again.
func TestAllowedCacheRevisedByWrite(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const dim = 8
	ix := New(dim, time.UTC)
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 100 {
		text := fmt.Sprintf("memory %d", i)
		ix.Put(Doc{ID: bson.NewObjectID(), Kind: KindMemory, Text: text, Source: "note", Scope: "s1", TS: at, Created: at, Key: key(text), Vec: randVec(r, dim)})
	}
	set := func() (*vecindex.Filter, int) {
		ix.mu.RLock()
		defer ix.mu.RUnlock()
		c := ix.compileLocked(Filter{Scopes: []string{"s1"}})
		return ix.allowedLocked(&c)
	}
	a, n := set()
	id := bson.NewObjectID()
	ix.Put(Doc{ID: id, Kind: KindMemory, Text: "one more", Source: "note", Scope: "s1", TS: at, Created: at, Key: key("one more"), Vec: randVec(r, dim)})
	b, m := set()
	if a != b || m != n+1 {
		t.Fatalf("after one store: set %p of %d, before %p of %d; want the same set, one more", b, m, a, n)
	}
	ix.SetFlag(id, FlagArchived, true)
	if c, k := set(); c != a || k != n {
		t.Fatalf("after archiving it: set %p of %d; want %p of %d", c, k, a, n)
	}
}
