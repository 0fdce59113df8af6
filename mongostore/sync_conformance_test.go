package mongostore

import (
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestSyncConformance runs the queries sync issues (the change feed, device
// records, the lease, conditional edits) on every engine: the embedded
// one always, a real mongod or replica set when INFMEM_TEST_MONGODB_URI
// names one.
func TestSyncConformance(t *testing.T) {
	for _, eng := range testEngines(t) {
		t.Run(eng.name, func(t *testing.T) {
			t.Run("Feed", func(t *testing.T) { testFeed(t, eng.open(t)) })
			t.Run("Lease", func(t *testing.T) { testLease(t, eng.open(t)) })
			t.Run("UpdateIf", func(t *testing.T) { testUpdateIf(t, eng.open(t)) })
		})
	}
}

func testFeed(t *testing.T, s *Store) {
	ctx := ctxT(t)
	if err := s.ensureFeed(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.ensureFeed(ctx); err != nil {
		t.Fatalf("ensureFeed twice: %v", err)
	}
	f := s.Feed()
	id := bson.NewObjectID()
	for seq := int64(1); seq <= 3; seq++ {
		if err := f.Append(ctx, &FeedEntry{Device: "a", Seq: seq, MemoryID: id, Kind: "memory", Op: "insert", At: ms(time.Now())}); err != nil {
			t.Fatal(err)
		}
	}
	// Appending again is harmless (a retried write).
	if err := f.Append(ctx, &FeedEntry{Device: "a", Seq: 2, MemoryID: id, Kind: "memory", Op: "insert", At: ms(time.Now())}); err != nil {
		t.Fatal(err)
	}
	e, err := f.Get(ctx, "a", 2)
	if err != nil || e.Seq != 2 || e.MemoryID != id || e.ID != FeedKey("a", 2) {
		t.Fatalf("get: %+v, %v", e, err)
	}
	if _, err := f.Get(ctx, "a", 4); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing entry: %v", err)
	}
	if err := f.Delete(ctx, "a", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Get(ctx, "a", 1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("trimmed entry: %v", err)
	}
	if err := f.SetDevice(ctx, "a", bson.D{{Key: "first", Value: int64(2)}, {Key: "head", Value: int64(3)}}); err != nil {
		t.Fatal(err)
	}
	if err := f.SetDevice(ctx, "a", bson.D{{Key: "position", Value: map[string]int64{"b": 7}}}); err != nil {
		t.Fatal(err)
	}
	if err := f.SetDevice(ctx, "b", bson.D{{Key: "first", Value: int64(1)}}); err != nil {
		t.Fatal(err)
	}
	devs, err := f.Devices(ctx)
	if err != nil || len(devs) != 2 {
		t.Fatalf("devices: %+v, %v", devs, err)
	}
	d, err := f.Device(ctx, "a")
	if err != nil || d.First != 2 || d.Head != 3 || d.Position["b"] != 7 {
		t.Fatalf("device a: %+v, %v", d, err)
	}
}

func testLease(t *testing.T, s *Store) {
	ctx := ctxT(t)
	now := time.Now()
	l, held, err := s.AcquireLease(ctx, "maintenance", "a", now, time.Minute)
	if err != nil || !held || l.Holder != "a" {
		t.Fatalf("a takes a free lease: %+v %v %v", l, held, err)
	}
	if l, held, err = s.AcquireLease(ctx, "maintenance", "b", now.Add(30*time.Second), time.Minute); err != nil || held || l.Holder != "a" {
		t.Fatalf("b takes a's live lease: %+v %v %v", l, held, err)
	}
	if l, held, err = s.AcquireLease(ctx, "maintenance", "a", now.Add(40*time.Second), time.Minute); err != nil || !held || !l.ExpiresAt.After(now.Add(90*time.Second)) {
		t.Fatalf("a renews: %+v %v %v", l, held, err)
	}
	// a stops renewing (crashed): once expired, b takes it.
	if l, held, err = s.AcquireLease(ctx, "maintenance", "b", now.Add(3*time.Minute), time.Minute); err != nil || !held || l.Holder != "b" {
		t.Fatalf("b takes an expired lease: %+v %v %v", l, held, err)
	}
	if _, held, _ = s.AcquireLease(ctx, "maintenance", "a", now.Add(3*time.Minute), time.Minute); held {
		t.Fatal("a still holds a lease b took")
	}
	if err := s.ReleaseLease(ctx, "maintenance", "a"); err != nil {
		t.Fatal(err)
	}
	if l, err := s.ReadLease(ctx, "maintenance"); err != nil || l.Holder != "b" {
		t.Fatalf("a released b's lease: %+v %v", l, err)
	}
	if err := s.ReleaseLease(ctx, "maintenance", "b"); err != nil {
		t.Fatal(err)
	}
	if _, held, err = s.AcquireLease(ctx, "maintenance", "a", now.Add(3*time.Minute), time.Minute); err != nil || !held {
		t.Fatalf("a takes a released lease: %v %v", held, err)
	}
}

func testUpdateIf(t *testing.T, s *Store) {
	ctx := ctxT(t)
	m := newMemory("conditional", "Global")
	m.UpdatedAt = ms(time.Now())
	if err := s.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	set := func(text string, at time.Time) bson.D {
		return bson.D{{Key: "$set", Value: bson.D{{Key: "text", Value: text}, {Key: "updated_at", Value: at}}}}
	}
	cond := func(at time.Time) bson.D {
		return bson.D{{Key: "forgotten_at", Value: bson.D{{Key: "$exists", Value: false}}}, {Key: "updated_at", Value: bson.D{{Key: "$lte", Value: at}}}}
	}
	newer := m.UpdatedAt.Add(time.Second)
	if err := s.Memories.UpdateIf(ctx, m.ID, cond(newer), set("newer", newer)); err != nil {
		t.Fatal(err)
	}
	older := m.UpdatedAt
	if err := s.Memories.UpdateIf(ctx, m.ID, cond(older), set("older", older)); !errors.Is(err, ErrConflict) {
		t.Fatalf("older edit: %v", err)
	}
	if err := s.Memories.SoftForget(ctx, m.ID, newer); err != nil {
		t.Fatal(err)
	}
	later := newer.Add(time.Hour)
	if err := s.Memories.UpdateIf(ctx, m.ID, cond(later), set("later", later)); !errors.Is(err, ErrConflict) {
		t.Fatalf("edit of a forgotten memory: %v", err)
	}
	if err := s.Memories.UpdateIf(ctx, bson.NewObjectID(), cond(later), set("x", later)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing memory: %v", err)
	}
	got, _ := s.Memories.Get(ctx, m.ID)
	if got.Text != "newer" {
		t.Fatalf("text %q", got.Text)
	}
}
