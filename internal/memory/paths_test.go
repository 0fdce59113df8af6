package memory

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/content"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

func ptr[T any](v T) *T { return &v }

// writePath writes one memory with a path at the version PathMemories
// reports.
func writePath(t *testing.T, e *Engine, w PathWrite) string {
	t.Helper()
	ctx := testenv.Context(t)
	_, v, err := e.PathMemories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, _, ok, err := e.WritePaths(ctx, v, []PathWrite{w})
	if err != nil || !ok {
		t.Fatalf("write %s: ok %v, %v", w.Path, ok, err)
	}
	return ids[0]
}

// TestPathsVersion: every change to a memory with a path, by any route,
// moves the version, and a write at an older version writes nothing.
func TestPathsVersion(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	id := writePath(t, e, PathWrite{Path: "/d/a.md", Text: ptr("one\n")})
	ms, v0, err := e.PathMemories(ctx)
	if err != nil || len(ms) != 1 || ms[0].Path != "/d/a.md" || ms[0].Text != "one\n" || ms[0].Scope != "Global" {
		t.Fatalf("path memories %+v %v", ms, err)
	}
	// A note, stored or forgotten, leaves the version alone.
	note := mustStore(t, e, StoreRequest{Content: "a note"})
	if _, err := e.Forget(ctx, ForgetRequest{ID: note.ID}); err != nil {
		t.Fatal(err)
	}
	if _, v, _ := e.PathMemories(ctx); v != v0 {
		t.Errorf("a note moved the version")
	}
	// update_memory on the file does not.
	if _, err := e.Update(ctx, UpdateRequest{ID: id, Content: ptr("two")}); err != nil {
		t.Fatal(err)
	}
	ids, _, ok, err := e.WritePaths(ctx, v0, []PathWrite{{ID: id, Path: "/d/a.md", Text: ptr("three")}})
	if ok || err != nil || ids != nil {
		t.Fatalf("a write at an old version: %v %v %v", ids, ok, err)
	}
	if m, _ := e.Get(ctx, id); m.Text != "two" {
		t.Fatalf("the old-version write changed the text to %q", m.Text)
	}
	// An edit keeps the previous text; a move keeps the text and time.
	_, v, _ := e.PathMemories(ctx)
	if ids, v, ok, err = e.WritePaths(ctx, v, []PathWrite{{ID: id, Path: "/d/a.md", Text: ptr("three")}}); !ok || err != nil || ids[0] != id {
		t.Fatalf("edit: %v %v %v", ids, ok, err)
	}
	ids, v2, ok, err := e.WritePaths(ctx, v, []PathWrite{{ID: id, Path: "/e/b.md"}})
	if !ok || err != nil || ids[0] != id {
		t.Fatalf("move: %v %v %v", ids, ok, err)
	}
	m, _ := e.Get(ctx, id)
	if m.Text != "three" || m.Path != "/e/b.md" || len(m.History) != 2 || m.History[1].Text != "two" {
		t.Errorf("after edit and move: %q at %s, history %+v", m.Text, m.Path, m.History)
	}
	if _, v, _ := e.PathMemories(ctx); v != v2 {
		t.Errorf("the version WritePaths returned (%d) is not the current one (%d)", v2, v)
	}
	// Forget, and a forget of a memory already gone.
	ids, _, ok, err = e.WritePaths(ctx, v2, []PathWrite{{ID: id, Forget: true}, {ID: bson.NewObjectID().Hex(), Forget: true}})
	if !ok || err != nil || ids[0] != id || ids[1] != "" {
		t.Fatalf("forget: %v %v %v", ids, ok, err)
	}
	if ms, _, _ := e.PathMemories(ctx); len(ms) != 0 || e.PathCount() != 0 {
		t.Errorf("a forgotten file is listed: %+v", ms)
	}
	if _, err := e.Unforget(ctx, []string{id}); err != nil {
		t.Fatal(err)
	}
	if ms, _, _ := e.PathMemories(ctx); len(ms) != 1 {
		t.Errorf("unforgotten file not listed: %+v", ms)
	}
}

// TestPathWritesRefused: bad paths and texts are input errors, a note
// cannot be written with source file, and nothing is written.
func TestPathWritesRefused(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	_, v, _ := e.PathMemories(ctx)
	for _, w := range []PathWrite{
		{Path: "", Text: ptr("x")},
		{Path: "rel/a", Text: ptr("x")},
		{Path: "/a/../b", Text: ptr("x")},
		{Path: "/a//b", Text: ptr("x")},
		{Path: "/a/", Text: ptr("x")},
		{Path: `/a\b`, Text: ptr("x")},
		{Path: "/a\u202eb", Text: ptr("x")},
		{Path: "/" + strings.Repeat("x", content.MaxPathBytes), Text: ptr("x")},
		{Path: "/a", Text: ptr("nul\x00")},
		{Path: "/a", Text: ptr(strings.Repeat("x", e.opts.MaxContentBytes+1))},
		{Path: "/a", Text: ptr("x"), At: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{ID: "nope", Path: "/a"},
	} {
		if _, _, _, err := e.WritePaths(ctx, v, []PathWrite{w}); !IsInputError(err) {
			t.Errorf("%q: %v; want an input error", w.Path, err)
		}
	}
	for _, req := range []StoreRequest{{Content: "x", Source: "file"}, {Content: "x", Source: " File "}} {
		if _, err := e.Store(ctx, req); !IsInputError(err) {
			t.Errorf("store %+v: %v; want an input error", req, err)
		}
		if _, errs, err := e.StoreMany(ctx, []StoreRequest{req}); err != nil || !IsInputError(errs[0]) {
			t.Errorf("store many %+v: %v %v; want an input error", req, errs, err)
		}
	}
	if ms, _, _ := e.PathMemories(ctx); len(ms) != 0 {
		t.Errorf("refused writes wrote %+v", ms)
	}
}

// TestCheckStoredPath: a stored memory with a path may be empty; its path
// must be plain, and only source file has one.
func TestCheckStoredPath(t *testing.T) {
	now := time.Now()
	base := func() mongostore.Memory {
		return mongostore.Memory{ID: bson.NewObjectID(), Text: "", Scope: "Global", Source: sourceFile, Path: "/memories/a.md",
			Importance: 0.5, Timestamp: now}
	}
	m := base()
	if err := CheckStoredMemory(&m, 1000, now); err != nil {
		t.Errorf("an empty memory with a path is refused: %v", err)
	}
	for name, mutate := range map[string]func(*mongostore.Memory){
		"no path":           func(m *mongostore.Memory) { m.Path = "" },
		"traversal":         func(m *mongostore.Memory) { m.Path = "/memories/../etc/passwd" },
		"relative":          func(m *mongostore.Memory) { m.Path = "memories/a" },
		"not canonical":     func(m *mongostore.Memory) { m.Path = "/memories/a/" },
		"too long":          func(m *mongostore.Memory) { m.Text = strings.Repeat("x", 1001) },
		"path on a note":    func(m *mongostore.Memory) { m.Source = sourceNote; m.Text = "hello" },
		"empty note":        func(m *mongostore.Memory) { m.Source = sourceNote; m.Path = "" },
		"control in path":   func(m *mongostore.Memory) { m.Path = "/memories/a\x01" },
		"backslash in path": func(m *mongostore.Memory) { m.Path = `/memories\x` },
	} {
		m := base()
		mutate(&m)
		if err := CheckStoredMemory(&m, 1000, now); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestFilesLeftAloneByMaintenance: pruning and noise removal never pick a
// memory with a path.
func TestFilesLeftAloneByMaintenance(t *testing.T) {
	e, _, clk := newEngine(t)
	writePath(t, e, PathWrite{Path: "/memories/ok.md", Text: ptr("ok")})
	mustStore(t, e, StoreRequest{Content: "ok", Source: sourceConversation})
	clk.Set(clk.Now().AddDate(1, 0, 0))
	later := clk.Now()
	if got := e.StaleCandidates(later, 0.7); len(got) != 1 {
		t.Errorf("stale candidates %v; want only the conversation turn", got)
	}
	for _, id := range append(e.StaleCandidates(later, 0.7), e.NoiseCandidates(later)...) {
		if m, _ := e.Get(testenv.Context(t), id); m.Source == sourceFile {
			t.Errorf("maintenance would touch the file %s", m.Path)
		}
	}
}
