package backup

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/mongostore"
)

// testWorkFactor keeps scrypt cheap in tests (age's default is 18).
const testWorkFactor = 2

type testEnv struct {
	root  dataroot.Root
	store *mongostore.Store
}

// openTestStore opens the embedded engine on a fresh data root.
func openTestStore(t testing.TB) *testEnv {
	t.Helper()
	root, err := dataroot.Prepare(filepath.Join(t.TempDir(), "root"))
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{root: root, store: openStoreAt(t, root)}
}

func openStoreAt(t testing.TB, root dataroot.Root) *mongostore.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: root, Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("open embedded engine: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.Close(ctx)
	})
	return s
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimSpace(p)))
	return len(p), nil
}

var testScopes = []string{"Global", "ProjectAlpha", "Personal/Health", "Work: Q3 (plans)"}

// populate fills every collection: memories in several scopes with tags
// (some forgotten, some archived), summaries, embeddings, scopes and the
// profile.
func populate(t testing.TB, s *mongostore.Store, n int) {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, sc := range testScopes[1:] {
		err := s.Scopes.Insert(ctx, &mongostore.Scope{ID: bson.NewObjectID(), Type: mongostore.ScopeType, ScopeName: sc,
			Description: "about " + sc, CreatedAt: base, Active: true, RelatedKeywords: []string{"k1"}})
		if err != nil {
			t.Fatal(err)
		}
	}
	var mems []*mongostore.Memory
	var idx []*mongostore.IndexEntry
	flush := func() {
		if err := s.Memories.InsertMany(ctx, mems); err != nil {
			t.Fatal(err)
		}
		if err := s.Index.InsertMany(ctx, idx); err != nil {
			t.Fatal(err)
		}
		mems, idx = mems[:0], idx[:0]
	}
	for i := range n {
		ts := base.Add(time.Duration(i) * time.Hour)
		m := &mongostore.Memory{
			ID: bson.NewObjectID(), ConversationID: fmt.Sprintf("conv-%d", i/10), Timestamp: ts, Speaker: "user",
			Text:  fmt.Sprintf("Memory %d: the launch checklist item %d belongs to Alice.\n# not a heading", i, rng.IntN(1000)),
			Scope: testScopes[i%len(testScopes)], Tags: []string{"tag" + fmt.Sprint(i%3), "common"}, Source: "note",
			Importance: float64(i%10) / 10, ContentHash: fmt.Sprintf("h%d", i), CreatedAt: ts, UpdatedAt: ts, UseCount: int64(i % 4),
		}
		if i%17 == 5 {
			f := ts.Add(time.Minute)
			m.ForgottenAt = &f
		}
		if i%13 == 3 {
			m.Archived = true
		}
		vec := make([]byte, 1024)
		for j := range vec {
			vec[j] = byte(rng.Uint32())
		}
		mems = append(mems, m)
		idx = append(idx, &mongostore.IndexEntry{ID: m.ID, SourceCollection: mongostore.ConversationHistory, SourceID: m.ID,
			Scope: m.Scope, Model: "use-lite", Dim: 512, Embedding: vec, Encoding: "f16",
			Metadata: mongostore.IndexMeta{Timestamp: ts, Tags: m.Tags}, CreatedAt: ts})
		if len(mems) == 1000 {
			flush()
		}
	}
	if len(mems) > 0 {
		flush()
	}
	for i := range max(n/20, 2) {
		ts := base.Add(time.Duration(i) * 24 * time.Hour)
		sm := &mongostore.Summary{ID: bson.NewObjectID(), ConversationID: fmt.Sprintf("conv-%d", i), SummaryText: fmt.Sprintf("Summary %d of the week", i),
			TimeRange: &mongostore.TimeRange{From: ts, To: ts.Add(time.Hour)}, Scope: testScopes[i%len(testScopes)], Tags: []string{"summary"},
			Method: "extractive", Timestamp: ts, ContentHash: fmt.Sprintf("s%d", i), CreatedAt: ts, UpdatedAt: ts}
		if err := s.Summaries.Insert(ctx, sm); err != nil {
			t.Fatal(err)
		}
	}
	err := s.Profiles.Update(ctx, mongostore.DefaultUserID, bson.D{{Key: "$set", Value: bson.D{
		{Key: "name", Value: "Sam"}, {Key: "preferences.tone", Value: "brief"}, {Key: "facts.city", Value: "Lyon"},
		{Key: "contacts", Value: bson.A{bson.D{{Key: "name", Value: "Alice"}, {Key: "relation", Value: "colleague"}}}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot is every document (as canonical extended JSON, sorted) and
// every index of the five collections.
type snapshot map[string][]string

func takeSnapshot(t testing.TB, s *mongostore.Store) snapshot {
	t.Helper()
	ctx := context.Background()
	snap := snapshot{}
	names, err := s.Database().ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	snap["collections"] = names
	for _, name := range mongostore.CollectionNames {
		coll := s.Database().Collection(name)
		cur, err := coll.Find(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		var docs []string
		for cur.Next(ctx) {
			if name == mongostore.Metadata && isString(cur.Current.Lookup("_id"), StatusKey) {
				continue // the backup record describes backups, not memory
			}
			js, err := bson.MarshalExtJSON(cur.Current, true, false)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, string(js))
		}
		if err := cur.Err(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(docs)
		snap[name] = docs
		specs, err := coll.Indexes().ListSpecifications(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var idx []string
		for _, sp := range specs {
			u := sp.Unique != nil && *sp.Unique
			sparse := sp.Sparse != nil && *sp.Sparse
			idx = append(idx, fmt.Sprintf("%s %s unique=%v sparse=%v", sp.Name, sp.KeysDocument, u, sparse))
		}
		slices.Sort(idx)
		snap[name+" indexes"] = idx
	}
	return snap
}

func (a snapshot) diff(b snapshot) string {
	for k, av := range a {
		bv := b[k]
		if !slices.Equal(av, bv) {
			if len(av) != len(bv) {
				return fmt.Sprintf("%s: %d entries, then %d", k, len(av), len(bv))
			}
			for i := range av {
				if av[i] != bv[i] {
					return fmt.Sprintf("%s[%d]:\n  %s\nthen\n  %s", k, i, av[i], bv[i])
				}
			}
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			return "new key " + k
		}
	}
	return ""
}

func mustPassphrase(t testing.TB, s string) *Passphrase {
	p, err := NewPassphrase(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeClock advances by step on every reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}
