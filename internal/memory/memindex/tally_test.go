package memindex

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestCountsKeptMatchScan: through random puts, replacements, forgets,
// unforgets, archives, removals and a snapshot round trip, the counts the
// index keeps equal a pass over every item.
func TestCountsKeptMatchScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ix := New(4, time.UTC)
	var ids []bson.ObjectID
	filters := []Filter{{}, {Scopes: []string{"s1"}}, {Scopes: []string{"s0", "s3", "nowhere"}}, {IncludeArchived: true},
		{IncludeForgotten: true}, {OnlyForgotten: true, Scopes: []string{"s2"}},
		{From: time.UnixMilli(2e11), To: time.UnixMilli(7e11)}, {Scopes: []string{}}}
	check := func(step string) {
		t.Helper()
		if got, want := ix.Count(), ix.countScan(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: kept counts %+v, a scan gives %+v", step, got, want)
		}
		// The filters' pass over the packed slots admits what a pass over
		// the items does.
		ix.mu.RLock()
		defer ix.mu.RUnlock()
		for _, f := range filters {
			c := ix.compileLocked(f)
			fast, n := ix.allowedLocked(&c)
			slow := 0
			for i := range ix.items {
				if c.match(&ix.items[i]) != fast.Has(uint32(i)) {
					t.Fatalf("%s: filter %+v: slot %d admitted %v by the packed pass", step, f, i, fast.Has(uint32(i)))
				}
				if c.match(&ix.items[i]) {
					slow++
				}
			}
			if n != slow {
				t.Fatalf("%s: filter %+v admits %d, a pass over the items %d", step, f, n, slow)
			}
		}
	}
	doc := func(id bson.ObjectID) Doc {
		text := fmt.Sprintf("memory %d about %d", rng.IntN(1000), rng.IntN(50))
		d := Doc{ID: id, Kind: Kind(rng.IntN(2)), Text: text, Source: []string{"note", "file", "lesson"}[rng.IntN(3)], Scope: fmt.Sprint("s", rng.IntN(4)),
			TS: time.UnixMilli(rng.Int64N(1e12)), Created: time.UnixMilli(rng.Int64N(1e12)), Key: key(text),
			Forgotten: rng.IntN(8) == 0, Archived: rng.IntN(8) == 0}
		if rng.IntN(3) > 0 {
			d.Conv = fmt.Sprint("c", rng.IntN(10))
		}
		if d.Forgotten {
			d.ForgottenAt = time.UnixMilli(1)
		}
		return d
	}
	for step := range 3000 {
		switch op := rng.IntN(10); {
		case op < 4 || len(ids) == 0:
			id := bson.NewObjectID()
			ids = append(ids, id)
			ix.Put(doc(id))
		case op < 6:
			ix.Put(doc(ids[rng.IntN(len(ids))]))
		case op == 6:
			ix.SetForgotten(ids[rng.IntN(len(ids))], rng.IntN(2) == 0, time.UnixMilli(5), "back again", nil)
		case op == 7:
			ix.SetFlag(ids[rng.IntN(len(ids))], []Flag{FlagArchived, FlagPinned}[rng.IntN(2)], rng.IntN(2) == 0)
		case op == 8:
			i := rng.IntN(len(ids))
			ix.Remove(ids[i])
			ids = append(ids[:i], ids[i+1:]...)
		default:
			ix.Remove(bson.NewObjectID()) // unknown: nothing changes
		}
		if step%100 == 0 {
			check(fmt.Sprint("step ", step))
		}
	}
	check("end")
	p := filepath.Join(t.TempDir(), "snap")
	if err := ix.WriteFile(p, Header{Token: "t", Model: "m", Dim: 4}); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(p, Header{Token: "t", Model: "m", Dim: 4}, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back.Count(), ix.Count(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a snapshot round trip %+v, before %+v", got, want)
	}
	if c := ix.Count(); c.Live == 0 || c.Forgotten == 0 || c.Archived == 0 || c.Conversations == 0 || c.Summaries == 0 {
		t.Fatalf("the random run did not reach every count: %+v", c)
	}
}
