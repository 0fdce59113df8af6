package mongostore

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestConformance runs every query shape the store API issues against every
// available engine: embedded always, managed through the stand-in mongod,
// external when INFMEM_TEST_MONGODB_URI is set.
func TestConformance(t *testing.T) {
	for _, eng := range testEngines(t) {
		t.Run(eng.name, func(t *testing.T) {
			for _, c := range conformanceCases {
				t.Run(c.name, func(t *testing.T) {
					s := eng.open(t)
					c.run(t, s)
				})
			}
		})
	}
}

var conformanceCases = []struct {
	name string
	run  func(t *testing.T, s *Store)
}{
	{"Bootstrap", testBootstrap},
	{"BootstrapIsIdempotent", testBootstrapIdempotent},
	{"MemoryCRUD", testMemoryCRUD},
	{"UpdateOperators", testUpdateOperators},
	{"SoftForget", testSoftForget},
	{"DuplicateID", testDuplicateID},
	{"Iterate", testIterate},
	{"IndexEntries", testIndexEntries},
	{"Summaries", testSummaries},
	{"Scopes", testScopes},
	{"Metadata", testMetadata},
	{"Profile", testProfile},
	{"Stats", testStats},
	{"Compact", testCompact},
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func ms(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

func newMemory(text, scope string, tags ...string) *Memory {
	now := ms(time.Now())
	if tags == nil {
		tags = []string{}
	}
	return &Memory{
		ID: bson.NewObjectID(), Timestamp: now, Text: text, Scope: scope, Tags: tags,
		Source: "note", Importance: 0.5, ContentHash: "h-" + text, CreatedAt: now, UpdatedAt: now,
	}
}

func testBootstrap(t *testing.T, s *Store) {
	ctx := ctxT(t)
	names, err := s.Database().ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range CollectionNames {
		if !slices.Contains(names, want) {
			t.Errorf("collection %s missing; have %v", want, names)
		}
	}
	for _, coll := range CollectionNames {
		specs, err := s.Database().Collection(coll).Indexes().ListSpecifications(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, sp := range specs {
			got[sp.Name] = sp.Unique != nil && *sp.Unique
		}
		for _, want := range indexes[coll] {
			unique, ok := got[want.name]
			if !ok {
				t.Errorf("%s: index %s missing; have %v", coll, want.name, got)
			} else if unique != want.unique {
				t.Errorf("%s: index %s unique=%v, want %v", coll, want.name, unique, want.unique)
			}
		}
	}
	g, err := s.Scopes.GetByName(ctx, "Global")
	if err != nil || !g.Active || g.Type != ScopeType {
		t.Fatalf("Global scope: %+v %v", g, err)
	}
	p, err := s.Profiles.Get(ctx, DefaultUserID)
	if err != nil || p.Facts == nil || p.Preferences == nil {
		t.Fatalf("default profile: %+v %v", p, err)
	}
	v, err := s.SchemaVersionStored(ctx)
	if err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d %v, want %d", v, err, SchemaVersion)
	}
}

func testBootstrapIdempotent(t *testing.T, s *Store) {
	ctx := ctxT(t)
	for i := 0; i < 2; i++ {
		if err := s.bootstrap(ctx); err != nil {
			t.Fatalf("bootstrap #%d: %v", i+2, err)
		}
	}
	scopes, err := s.Scopes.List(ctx)
	if err != nil || len(scopes) != 1 {
		t.Fatalf("scopes after repeated bootstrap: %v %v", scopes, err)
	}
	n, err := s.Profiles.EstimatedCount(ctx)
	if err != nil || n != 1 {
		t.Fatalf("profiles after repeated bootstrap: %d %v", n, err)
	}
}

func testMemoryCRUD(t *testing.T, s *Store) {
	ctx := ctxT(t)
	m := newMemory("Project Apollo deadline is June 5", "Work", "apollo", "deadline")
	m.ConversationID = "c1"
	m.Speaker = "user"
	m.Category = "plan"
	if err := s.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	got, err := s.Memories.Get(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != m.Text || got.Scope != "Work" || !slices.Equal(got.Tags, m.Tags) || !got.Timestamp.Equal(m.Timestamp) ||
		got.ConversationID != "c1" || got.Speaker != "user" || got.Category != "plan" || got.Importance != 0.5 || got.LastAccessed != nil {
		t.Fatalf("round trip: got %+v want %+v", got, m)
	}
	m.Text = "Project Apollo deadline moved to June 12"
	if err := s.Memories.Replace(ctx, m.ID, m); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Memories.Get(ctx, m.ID); got.Text != m.Text {
		t.Fatalf("replace: %q", got.Text)
	}
	existed, err := s.Memories.Delete(ctx, m.ID)
	if err != nil || !existed {
		t.Fatalf("delete: %v %v", existed, err)
	}
	if _, err := s.Memories.Get(ctx, m.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	if existed, err = s.Memories.Delete(ctx, m.ID); err != nil || existed {
		t.Fatalf("second delete: %v %v", existed, err)
	}
	if err := s.Memories.Replace(ctx, m.ID, m); !errors.Is(err, ErrNotFound) {
		t.Fatalf("replace missing: %v", err)
	}
	if err := s.Memories.Update(ctx, m.ID, bson.D{{Key: "$set", Value: bson.D{{Key: "text", Value: "x"}}}}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update missing: %v", err)
	}
	if err := s.Memories.Upsert(ctx, m.ID, m); err != nil {
		t.Fatal(err)
	}
	if got, err = s.Memories.Get(ctx, m.ID); err != nil || got.Text != m.Text {
		t.Fatalf("upsert: %+v %v", got, err)
	}
}

func testUpdateOperators(t *testing.T, s *Store) {
	ctx := ctxT(t)
	m := newMemory("likes tea", "Global", "drinks")
	if err := s.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	at := ms(time.Now().Add(time.Hour))
	steps := []bson.D{
		{{Key: "$inc", Value: bson.D{{Key: "use_count", Value: 1}}}, {Key: "$set", Value: bson.D{{Key: "last_accessed", Value: at}}}},
		{{Key: "$inc", Value: bson.D{{Key: "use_count", Value: 2}}}},
		{{Key: "$addToSet", Value: bson.D{{Key: "tags", Value: "food"}}}},
		{{Key: "$addToSet", Value: bson.D{{Key: "tags", Value: "food"}}}},
		{{Key: "$push", Value: bson.D{{Key: "tags", Value: "tea"}}}},
		{{Key: "$pull", Value: bson.D{{Key: "tags", Value: "drinks"}}}},
		{{Key: "$set", Value: bson.D{{Key: "archived", Value: true}, {Key: "importance", Value: 0.9}}}},
	}
	for i, u := range steps {
		if err := s.Memories.Update(ctx, m.ID, u); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	got, err := s.Memories.Get(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.UseCount != 3 || got.LastAccessed == nil || !got.LastAccessed.Equal(at) || !slices.Equal(got.Tags, []string{"food", "tea"}) || !got.Archived || got.Importance != 0.9 {
		t.Fatalf("after updates: %+v", got)
	}
	if err := s.Memories.Update(ctx, m.ID, bson.D{{Key: "$unset", Value: bson.D{{Key: "last_accessed", Value: ""}, {Key: "archived", Value: ""}}}}); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Memories.Get(ctx, m.ID); got.LastAccessed != nil || got.Archived {
		t.Fatalf("after $unset: %+v", got)
	}
}

func testSoftForget(t *testing.T, s *Store) {
	ctx := ctxT(t)
	m := newMemory("secret plan", "Global")
	if err := s.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	at := ms(time.Now())
	if err := s.Memories.SoftForget(ctx, m.ID, at); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Memories.Get(ctx, m.ID)
	if got.ForgottenAt == nil || !got.ForgottenAt.Equal(at) {
		t.Fatalf("forgotten_at: %+v", got.ForgottenAt)
	}
	if err := s.Memories.Unforget(ctx, m.ID, at); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Memories.Get(ctx, m.ID); got.ForgottenAt != nil {
		t.Fatalf("after unforget: %+v", got.ForgottenAt)
	}
	if err := s.Memories.SoftForget(ctx, bson.NewObjectID(), at); !errors.Is(err, ErrNotFound) {
		t.Fatalf("forget missing: %v", err)
	}
}

func testDuplicateID(t *testing.T, s *Store) {
	ctx := ctxT(t)
	m := newMemory("one", "Global")
	if err := s.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := s.Memories.Insert(ctx, m); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate _id: %v", err)
	}
}

func testIterate(t *testing.T, s *Store) {
	ctx := ctxT(t)
	const n = 2500
	want := map[bson.ObjectID]bool{}
	docs := make([]*Memory, 0, 500)
	for i := 0; i < n; i++ {
		m := newMemory("memory number", "Global")
		want[m.ID] = true
		docs = append(docs, m)
		if len(docs) == cap(docs) {
			if err := s.Memories.InsertMany(ctx, docs); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	var batches []int
	seen := map[bson.ObjectID]bool{}
	err := s.Memories.Iterate(ctx, 1000, func(b []Memory) error {
		batches = append(batches, len(b))
		for _, m := range b {
			if seen[m.ID] {
				t.Errorf("%v seen twice", m.ID)
			}
			seen[m.ID] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(batches, []int{1000, 1000, 500}) || len(seen) != n {
		t.Fatalf("batches %v, %d docs", batches, len(seen))
	}
	for id := range want {
		if !seen[id] {
			t.Fatalf("%v not iterated", id)
		}
	}
	stop := errors.New("stop")
	if err := s.Memories.Iterate(ctx, 100, func([]Memory) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("callback error not returned: %v", err)
	}
	if c, err := s.Memories.EstimatedCount(ctx); err != nil || c != n {
		t.Fatalf("count %d %v", c, err)
	}
}

func testIndexEntries(t *testing.T, s *Store) {
	ctx := ctxT(t)
	vec := make([]byte, 2048)
	for i := range vec {
		vec[i] = byte(i * 7)
	}
	src := bson.NewObjectID()
	e := &IndexEntry{
		ID: src, SourceCollection: ConversationHistory, SourceID: src, Scope: "Global",
		Model: "test-512", Dim: 512, Embedding: vec, Encoding: "f32",
		Metadata: IndexMeta{Timestamp: ms(time.Now()), Tags: []string{"a"}}, CreatedAt: ms(time.Now()),
	}
	if err := s.Index.Insert(ctx, e); err != nil {
		t.Fatal(err)
	}
	got, err := s.Index.Get(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Embedding, vec) || got.Model != "test-512" || got.SourceID != src || !slices.Equal(got.Metadata.Tags, []string{"a"}) {
		t.Fatalf("round trip: %+v", got)
	}
	raw, err := s.Index.Raw().FindOne(ctx, bson.D{{Key: "_id", Value: src}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := raw.Lookup("embedding").BinaryOK(); !ok {
		t.Fatalf("embedding not stored as BSON binary: %v", raw.Lookup("embedding").Type)
	}
	dup := *e
	dup.ID = bson.NewObjectID()
	if err := s.Index.Insert(ctx, &dup); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("second entry for one source: %v", err)
	}
	if ok, err := s.Index.Delete(ctx, src); !ok || err != nil {
		t.Fatalf("delete: %v %v", ok, err)
	}
}

func testSummaries(t *testing.T, s *Store) {
	ctx := ctxT(t)
	from, to := ms(time.Now().Add(-48*time.Hour)), ms(time.Now())
	refs := []bson.ObjectID{bson.NewObjectID(), bson.NewObjectID()}
	sm := &Summary{
		ID: bson.NewObjectID(), ConversationID: "c1", SummaryText: "We planned Apollo.",
		TimeRange: &TimeRange{From: from, To: to}, MessageRefs: refs, Scope: "Work", Tags: []string{"summary"},
		Method: "extractive", Timestamp: to, CreatedAt: to, UpdatedAt: to,
	}
	if err := s.Summaries.Insert(ctx, sm); err != nil {
		t.Fatal(err)
	}
	got, err := s.Summaries.Get(ctx, sm.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.SummaryText != sm.SummaryText || !slices.Equal(got.MessageRefs, refs) || got.TimeRange == nil || !got.TimeRange.From.Equal(from) || got.Method != "extractive" {
		t.Fatalf("round trip: %+v", got)
	}
	if err := s.Summaries.SoftForget(ctx, sm.ID, to); err != nil {
		t.Fatal(err)
	}
}

func testScopes(t *testing.T, s *Store) {
	ctx := ctxT(t)
	now := ms(time.Now())
	work := &Scope{ID: bson.NewObjectID(), Type: ScopeType, ScopeName: "Project Alpha", Description: "work", CreatedAt: now, Active: true, ParentScope: "Work", RelatedKeywords: []string{"alpha"}}
	if err := s.Scopes.Insert(ctx, work); err != nil {
		t.Fatal(err)
	}
	dup := *work
	dup.ID = bson.NewObjectID()
	if err := s.Scopes.Insert(ctx, &dup); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate scope name: %v", err)
	}
	got, err := s.Scopes.GetByName(ctx, "Project Alpha")
	if err != nil || got.ID != work.ID || got.ParentScope != "Work" || !slices.Equal(got.RelatedKeywords, []string{"alpha"}) {
		t.Fatalf("by name: %+v %v", got, err)
	}
	if _, err := s.Scopes.GetByName(ctx, "Nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing scope: %v", err)
	}
	if err := s.Scopes.Update(ctx, work.ID, bson.D{{Key: "$set", Value: bson.D{{Key: "active", Value: false}}}}); err != nil {
		t.Fatal(err)
	}
	list, err := s.Scopes.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sc := range list {
		names = append(names, sc.ScopeName)
		if sc.ScopeName == "Project Alpha" && sc.Active {
			t.Error("deactivation not stored")
		}
	}
	sort.Strings(names)
	if !slices.Equal(names, []string{"Global", "Project Alpha"}) {
		t.Fatalf("list: %v", names)
	}
	if ok, err := s.Scopes.Delete(ctx, work.ID); !ok || err != nil {
		t.Fatalf("delete scope: %v %v", ok, err)
	}
}

type jobRun struct {
	ID       string    `bson:"_id"`
	Type     string    `bson:"type"`
	LastRun  time.Time `bson:"last_run"`
	Outcome  string    `bson:"outcome"`
	Affected int       `bson:"affected"`
}

func testMetadata(t *testing.T, s *Store) {
	ctx := ctxT(t)
	var r jobRun
	if err := s.GetMeta(ctx, "job:backup", &r); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing meta: %v", err)
	}
	at := ms(time.Now())
	for i, outcome := range []string{"ok", "failed"} {
		if err := s.PutMeta(ctx, "job:backup", &jobRun{ID: "job:backup", Type: "job", LastRun: at, Outcome: outcome, Affected: i}); err != nil {
			t.Fatal(err)
		}
	}
	// Records without scope_name must not collide on the sparse unique index.
	if err := s.PutMeta(ctx, "job:dedup", &jobRun{ID: "job:dedup", Type: "job"}); err != nil {
		t.Fatal(err)
	}
	if err := s.GetMeta(ctx, "job:backup", &r); err != nil || r.Outcome != "failed" || r.Affected != 1 || !r.LastRun.Equal(at) {
		t.Fatalf("meta: %+v %v", r, err)
	}
	if err := s.DeleteMeta(ctx, "job:backup"); err != nil {
		t.Fatal(err)
	}
	if err := s.GetMeta(ctx, "job:backup", &r); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

func testProfile(t *testing.T, s *Store) {
	ctx := ctxT(t)
	upd := bson.D{{Key: "$set", Value: bson.D{
		{Key: "name", Value: "Jane Doe"},
		{Key: "facts.favorite_color", Value: "blue"},
		{Key: "preferences.tone", Value: "casual"},
	}}, {Key: "$push", Value: bson.D{{Key: "contacts", Value: Contact{Name: "Alice", Relation: "sister"}}}}}
	if err := s.Profiles.Update(ctx, DefaultUserID, upd); err != nil {
		t.Fatal(err)
	}
	if err := s.Profiles.Update(ctx, DefaultUserID, bson.D{{Key: "$push", Value: bson.D{{Key: "notes", Value: "allergic to penicillin"}}}}); err != nil {
		t.Fatal(err)
	}
	p, err := s.Profiles.Get(ctx, DefaultUserID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Jane Doe" || p.Facts["favorite_color"] != "blue" || p.Preferences["tone"] != "casual" ||
		len(p.Contacts) != 1 || p.Contacts[0].Relation != "sister" || !slices.Equal(p.Notes, []string{"allergic to penicillin"}) {
		t.Fatalf("profile: %+v", p)
	}
	if err := s.Profiles.Update(ctx, DefaultUserID, bson.D{{Key: "$unset", Value: bson.D{{Key: "facts.favorite_color", Value: ""}}}}); err != nil {
		t.Fatal(err)
	}
	if p, _ = s.Profiles.Get(ctx, DefaultUserID); len(p.Facts) != 0 {
		t.Fatalf("after unset: %+v", p.Facts)
	}
}

func testStats(t *testing.T, s *Store) {
	ctx := ctxT(t)
	if err := s.Memories.Insert(ctx, newMemory("x", "Global")); err != nil {
		t.Fatal(err)
	}
	data, storage, err := s.DBStats(ctx)
	if err != nil || data <= 0 || storage <= 0 {
		t.Fatalf("dbStats: %d %d %v", data, storage, err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func testCompact(t *testing.T, s *Store) {
	ctx := ctxT(t)
	if err := s.Memories.Insert(ctx, newMemory("compact me", "Global")); err != nil {
		t.Fatal(err)
	}
	how, err := s.Compact(ctx)
	if err != nil || how == "" {
		t.Fatalf("compact: %q %v", how, err)
	}
	if _, err := s.Memories.EstimatedCount(ctx); err != nil {
		t.Fatal(err)
	}
}
