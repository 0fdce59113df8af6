package mongostore

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestRecordUsesMatchesDriver: uses written straight into SQLite give, read
// back through FerretDB and through the raw path, the same bytes as the
// driver's own $inc/$set on a twin collection, for documents with and
// without last_accessed and with awkward text; a missing _id comes back
// for the caller; another engine's collection hands every use back.
func TestRecordUsesMatchesDriver(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	ctx := ctxT(t)
	raw := Collection[Memory]{s.db.Collection("uses_raw"), s.raw}
	drv := Collection[Memory]{s.db.Collection("uses_drv"), nil}
	seen := time.Date(2025, 3, 4, 5, 6, 7, 891_000_000, time.UTC)
	texts := []string{"plain", `quote " backslash \ slash /`, "tab\tnewline\n", "é ü 中文 🎉 \u2028", strings.Repeat("long ", 500), "\x01 control"}
	var uses []Use
	for i, text := range texts {
		m := newMemory(text, "s", "t")
		m.Importance = 0.1 * float64(i+1)
		m.UseCount = int64(i)
		if i%2 == 1 {
			m.LastAccessed = &seen
		}
		m.History = []Revision{{Text: "old " + text, ChangedAt: seen, Importance: 0.3}}
		for _, c := range []Collection[Memory]{raw, drv} {
			cp := *m
			if err := c.Insert(ctx, &cp); err != nil {
				t.Fatal(err)
			}
		}
		if i != 2 { // one document is not used
			uses = append(uses, Use{ID: m.ID, Count: int64(i + 1), At: seen.Add(time.Duration(i) * time.Hour)})
		}
	}
	missing := Use{ID: bson.NewObjectID(), Count: 1, At: seen}
	rest, err := raw.RecordUses(ctx, append(uses, missing))
	if err != nil || len(rest) != 1 || rest[0] != missing {
		t.Fatalf("RecordUses: rest %v, %v", rest, err)
	}
	for _, u := range uses {
		if err := drv.Update(ctx, u.ID, bson.D{
			{Key: "$inc", Value: bson.D{{Key: "use_count", Value: u.Count}}},
			{Key: "$set", Value: bson.D{{Key: "last_accessed", Value: u.At}}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	for name, read := range map[string]func(string) map[string]bson.Raw{
		"driver": func(c string) map[string]bson.Raw { return driverDocs(t, s, c) },
		"raw":    func(c string) map[string]bson.Raw { return rawDocs(t, s, c) },
	} {
		got, want := read("uses_raw"), read("uses_drv")
		if len(got) != len(texts) || len(want) != len(texts) {
			t.Fatalf("%s read %d and %d documents", name, len(got), len(want))
		}
		for id, w := range want {
			if !bytes.Equal(got[id], w) {
				t.Fatalf("%s read of %s:\nraw uses %v\ndriver   %v", name, id, got[id], w)
			}
		}
	}
	m, err := raw.Get(ctx, uses[0].ID)
	if err != nil || m.UseCount != 1 || m.LastAccessed == nil || !m.LastAccessed.Equal(uses[0].At) {
		t.Fatalf("after one use: %+v, %v", m, err)
	}
	// A second batch adds to the first.
	if rest, err := raw.RecordUses(ctx, uses[:1]); err != nil || len(rest) != 0 {
		t.Fatalf("second batch: rest %v, %v", rest, err)
	}
	if m, err := raw.Get(ctx, uses[0].ID); err != nil || m.UseCount != 2 {
		t.Fatalf("after two uses: %+v, %v", m, err)
	}
	if rest, err := drv.RecordUses(ctx, uses); err != nil || fmt.Sprint(rest) != fmt.Sprint(uses) {
		t.Fatalf("without the raw path every use comes back: %v, %v", rest, err)
	}
}

// TestSortedUsesAscending: the batch is written in ascending _id order
// (page locality), from a copy: the caller's slice keeps its order.
func TestSortedUsesAscending(t *testing.T) {
	var uses []Use
	for i := 0; i < 50; i++ {
		uses = append(uses, Use{ID: bson.NewObjectID(), Count: int64(i)})
	}
	slices.Reverse(uses)
	orig := slices.Clone(uses)
	got := sortedUses(uses)
	if len(got) != len(uses) || !slices.Equal(uses, orig) {
		t.Fatalf("sortedUses changed its input or lost uses: %d of %d", len(got), len(uses))
	}
	for i := 1; i < len(got); i++ {
		if bytes.Compare(got[i-1].ID[:], got[i].ID[:]) >= 0 {
			t.Fatalf("use %d (%s) not after %s", i, got[i].ID.Hex(), got[i-1].ID.Hex())
		}
	}
}

// TestRecordUsesSameIDTwice: two uses of one document in a batch (written
// by one statement) count as both, and the later time stays, as writing
// them one after another does.
func TestRecordUsesSameIDTwice(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	ctx := ctxT(t)
	raw := Collection[Memory]{s.db.Collection("uses_twice"), s.raw}
	m, other := newMemory("twice", "s", "t"), newMemory("once", "s", "t")
	for _, x := range []*Memory{m, other} {
		if err := raw.Insert(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	t1 := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	t2 := t1.Add(-time.Hour) // the later use in the batch, with the earlier time
	rest, err := raw.RecordUses(ctx, []Use{{ID: m.ID, Count: 1, At: t1}, {ID: other.ID, Count: 4, At: t1}, {ID: m.ID, Count: 2, At: t2}})
	if err != nil || len(rest) != 0 {
		t.Fatalf("RecordUses: rest %v, %v", rest, err)
	}
	got, err := raw.Get(ctx, m.ID)
	if err != nil || got.UseCount != 3 || got.LastAccessed == nil || !got.LastAccessed.Equal(t2) {
		t.Fatalf("after two uses in one batch: %+v, %v", got, err)
	}
	if got, err := raw.Get(ctx, other.ID); err != nil || got.UseCount != 4 || !got.LastAccessed.Equal(t1) {
		t.Fatalf("the other document: %+v, %v", got, err)
	}
}

// TestUseLogThenFold: LogUses adds to the log (counts summed, the last
// time kept) and leaves the documents alone; LoggedUses reads it back in
// _id order; FoldUses writes a memory's logged uses into its document and
// deletes its rows in one go; rows of a table no collection has any longer
// (a restore swapped it out) are dropped, not handed out; another engine's
// collection logs nothing.
func TestUseLogThenFold(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	ctx := ctxT(t)
	raw := Collection[Memory]{s.db.Collection("uses_log"), s.raw}
	m1, m2 := newMemory("first", "s", "t"), newMemory("second", "s", "t")
	for _, x := range []*Memory{m1, m2} {
		if err := raw.Insert(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	t1 := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	t2 := t1.Add(time.Hour)
	for _, batch := range [][]Use{{{ID: m2.ID, Count: 2, At: t1}, {ID: m1.ID, Count: 1, At: t1}}, {{ID: m1.ID, Count: 3, At: t2}}} {
		if ok, err := raw.LogUses(ctx, batch); !ok || err != nil {
			t.Fatalf("LogUses: %v, %v", ok, err)
		}
	}
	if ok, err := (Collection[Memory]{s.db.Collection("uses_log"), nil}).LogUses(ctx, []Use{{ID: m1.ID, Count: 1, At: t1}}); ok || err != nil {
		t.Fatalf("LogUses without SQLite: %v, %v", ok, err)
	}
	// A row of a table swapped out by a restore.
	db, err := s.raw.openWriter()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO `+usesLogTable+` VALUES ('gone_1234', ?, 5, 0)`, m1.ID.Hex()); err != nil {
		t.Fatal(err)
	}
	want := func(where string, uses ...Use) {
		t.Helper()
		got, err := raw.LoggedUses(ctx)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(uses) {
			t.Fatalf("%s: logged %v, %v; want %v", where, got, err, uses)
		}
	}
	first, second := Use{ID: m1.ID, Count: 4, At: t2}, Use{ID: m2.ID, Count: 2, At: t1}
	if bytes.Compare(m1.ID[:], m2.ID[:]) < 0 {
		want("logged", first, second)
	} else {
		want("logged", second, first)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+usesLogTable+` WHERE tbl = 'gone_1234'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows of a table swapped out: %d, %v", n, err)
	}
	for _, m := range []*Memory{m1, m2} {
		if got, err := raw.Get(ctx, m.ID); err != nil || got.UseCount != 0 || got.LastAccessed != nil {
			t.Fatalf("logged uses in the document: %+v, %v", got, err)
		}
	}
	if rest, err := raw.FoldUses(ctx, []Use{first}); err != nil || len(rest) != 0 {
		t.Fatalf("FoldUses: rest %v, %v", rest, err)
	}
	if got, err := raw.Get(ctx, m1.ID); err != nil || got.UseCount != 4 || got.LastAccessed == nil || !got.LastAccessed.Equal(t2) {
		t.Fatalf("after the fold: %+v, %v", got, err)
	}
	want("after folding the first", second)
}
