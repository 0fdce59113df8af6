package mongostore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/dataroot"
)

// readRaw reads ids of collection through s.raw.get, the documents by _id.
func readRaw(t *testing.T, s *Store, collection string, ids []bson.ObjectID) map[bson.ObjectID]bson.Raw {
	t.Helper()
	out := map[bson.ObjectID]bson.Raw{}
	err := s.raw.get(ctxT(t), collection, ids, func(doc bson.Raw) error {
		id := doc.Lookup("_id").ObjectID()
		if _, dup := out[id]; dup {
			return fmt.Errorf("%s handed over twice", id.Hex())
		}
		out[id] = bytes.Clone(doc)
		return nil
	})
	if err != nil {
		t.Fatalf("raw get of %d ids: %v", len(ids), err)
	}
	return out
}

func preparedReadsServed(s *Store) int {
	s.raw.prep.mu.Lock()
	defer s.raw.prep.mu.Unlock()
	return s.raw.prep.reads
}

// TestPreparedReadsMatchPool: reads by _id on the statements kept compiled
// (rawprepared.go) hand over, byte for byte, what the pool's query does, for
// every count of _ids up to past maxPreparedIDs, absent _ids among them;
// they see documents changed and added since a statement was compiled (each
// run is a read transaction of its own); and they are what serves the reads
// (the driver's connection was reached).
func TestPreparedReadsMatchPool(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	ctx := ctxT(t)
	var ids []bson.ObjectID
	for i := range 90 {
		m := newMemory(fmt.Sprintf("memory %d \"q\" é", i), "s", "t")
		if err := s.Memories.Insert(ctx, m); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ask := func(n int) []bson.ObjectID {
		a := make([]bson.ObjectID, 0, n)
		for _, i := range rng.Perm(len(ids))[:n] {
			a = append(a, ids[i])
		}
		if n > 2 {
			a[n/2] = bson.NewObjectID() // not stored
		}
		return a
	}
	compare := func(a []bson.ObjectID) {
		t.Helper()
		before := preparedReadsServed(s)
		got := readRaw(t, s, s.Memories.Name(), a)
		served := preparedReadsServed(s) - before
		if want := 0; len(a) <= maxPreparedIDs {
			want = 1
			if served != want {
				t.Fatalf("%d ids: %d reads served by the prepared statements, want %d", len(a), served, want)
			}
		} else if served != 0 {
			t.Fatalf("%d ids (past maxPreparedIDs): served by the prepared statements", len(a))
		}
		s.raw.noPrepared = true
		want := readRaw(t, s, s.Memories.Name(), a)
		s.raw.noPrepared = false
		if !maps.EqualFunc(got, want, func(x, y bson.Raw) bool { return bytes.Equal(x, y) }) {
			t.Fatalf("%d ids: prepared read %d documents, pool %d (or they differ)", len(a), len(got), len(want))
		}
	}
	for n := 1; n <= maxPreparedIDs+6; n++ {
		compare(ask(n))
		compare(ask(n)) // the statement of n again
	}
	// A document changed and one added after the statements were compiled.
	if err := s.Memories.Update(ctx, ids[0], bson.D{{Key: "$set", Value: bson.D{{Key: "text", Value: "changed text"}}}}); err != nil {
		t.Fatal(err)
	}
	m := newMemory("added later", "s")
	if err := s.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	got := readRaw(t, s, s.Memories.Name(), []bson.ObjectID{ids[0], m.ID})
	if len(got) != 2 || got[ids[0]].Lookup("text").StringValue() != "changed text" || got[m.ID].Lookup("text").StringValue() != "added later" {
		t.Fatalf("after a change: %v", got)
	}
	if len(s.raw.prep.stmts) == 0 || len(s.raw.prep.stmts) > maxPreparedStmts {
		t.Fatalf("%d statements kept", len(s.raw.prep.stmts))
	}
}

// TestPreparedReadsConcurrent: reads from several goroutines at once (one
// on the prepared statements, the others through the pool) each get their
// documents whole, beside writes.
func TestPreparedReadsConcurrent(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	ctx := ctxT(t)
	var ids []bson.ObjectID
	texts := map[bson.ObjectID]string{}
	for i := range 40 {
		m := newMemory(fmt.Sprintf("concurrent %d", i), "s")
		if err := s.Memories.Insert(ctx, m); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
		texts[m.ID] = m.Text
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Go(func() {
			for i := range 60 {
				a := ids[(g*7+i)%30 : (g*7+i)%30+1+i%10]
				n := 0
				err := s.raw.get(ctx, s.Memories.Name(), a, func(doc bson.Raw) error {
					id := doc.Lookup("_id").ObjectID()
					if doc.Lookup("text").StringValue() != texts[id] || !slices.Contains(a, id) {
						return fmt.Errorf("read %s: %q", id.Hex(), doc.Lookup("text").StringValue())
					}
					n++
					return nil
				})
				if err == nil && n != len(a) {
					err = fmt.Errorf("%d of %d read", n, len(a))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 10 {
			if err := s.Memories.Insert(ctx, newMemory(fmt.Sprintf("writer %d", i), "s")); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if preparedReadsServed(s) == 0 {
		t.Fatal("no read served by the prepared statements")
	}
}

// TestPreparedReadsReachDriver: the driver connection's layout is the one
// rawprepared.go reads (a modernc.org/sqlite upgrade that changes it fails
// here instead of silently reading through the pool only).
func TestPreparedReadsReachDriver(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	db, err := s.raw.open()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var ok bool
	if err := conn.Raw(func(dc any) error { _, _, ok = driverHandle(dc); return nil }); err != nil || !ok {
		t.Fatalf("the driver connection's sqlite3 handle was not found (%T): %v", conn, err)
	}
	if _, _, ok := driverHandle(&struct{ db uintptr }{1}); ok {
		t.Fatal("another type taken for the driver's connection")
	}
}

// BenchmarkRawGet100k times get's reads by _id, on the prepared statements
// and through the pool, on a copy of a real data root
// (INFMEM_BENCH_ROOT=DIR, e.g. a cp -a of a 100k-memory root): 5 _ids (a
// retrieval's results) and 8 (a store's relate candidates), drawn at random
// from the first 20,000 memories.
func BenchmarkRawGet100k(b *testing.B) {
	root := os.Getenv("INFMEM_BENCH_ROOT")
	if root == "" {
		b.Skip("set INFMEM_BENCH_ROOT to a copy of a data root")
	}
	ctx := context.Background()
	r, err := dataroot.Prepare(root)
	if err != nil {
		b.Fatal(err)
	}
	s, err := Open(ctx, Options{Mode: ModeEmbedded, Root: r})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(ctx)
	var ids []bson.ObjectID
	errEnough := errors.New("enough")
	err = s.raw.iterate(ctx, s.Memories.Name(), func(doc bson.Raw) error {
		ids = append(ids, doc.Lookup("_id").ObjectID())
		if len(ids) == 20000 {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		b.Fatal(err)
	}
	for _, n := range []int{5, 8} {
		for _, prepared := range []bool{true, false} {
			name := fmt.Sprintf("ids=%d/pool", n)
			if prepared {
				name = fmt.Sprintf("ids=%d/prepared", n)
			}
			b.Run(name, func(b *testing.B) {
				s.raw.noPrepared = !prepared
				defer func() { s.raw.noPrepared = false }()
				rng := rand.New(rand.NewPCG(7, uint64(n)))
				ask := make([]bson.ObjectID, n)
				b.ReportAllocs()
				for b.Loop() {
					for i := range ask {
						ask[i] = ids[rng.IntN(len(ids))]
						for slices.Contains(ask[:i], ask[i]) {
							ask[i] = ids[rng.IntN(len(ids))]
						}
					}
					got := 0
					if err := s.raw.get(ctx, s.Memories.Name(), ask, func(bson.Raw) error { got++; return nil }); err != nil || got != n {
						b.Fatal(got, err)
					}
				}
			})
		}
	}
}
