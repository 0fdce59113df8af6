package memfiles

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// newEngine opens a started engine on a fresh embedded store.
func newEngine(t *testing.T) *memory.Engine {
	t.Helper()
	ctx := testenv.Context(t)
	store := testenv.Store(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	e := memory.New(store, reg, memory.Options{Location: time.UTC, Logger: testenv.Logger(t)})
	e.Start(ctx)
	t.Cleanup(func() { e.Close(context.Background()) })
	return e
}

func fileCmd(t *testing.T, e *memory.Engine, req FileRequest) FileResult {
	t.Helper()
	res, err := For(e).Run(testenv.Context(t), req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Command, req.Path, err)
	}
	return res
}

func ptr[T any](v T) *T { return &v }

func TestCheckStoredFile(t *testing.T) {
	now := time.Now()
	base := func() mongostore.Memory {
		return mongostore.Memory{ID: bson.NewObjectID(), Text: "", Scope: "Global", Source: sourceFile, Path: "/memories/a.md",
			Importance: 0.5, Timestamp: now}
	}
	m := base()
	if err := CheckStored(&m, 1000, now); err != nil {
		t.Errorf("an empty memory file is refused: %v", err)
	}
	for name, mutate := range map[string]func(*mongostore.Memory){
		"no path":           func(m *mongostore.Memory) { m.Path = "" },
		"traversal":         func(m *mongostore.Memory) { m.Path = "/memories/../etc/passwd" },
		"outside":           func(m *mongostore.Memory) { m.Path = "/etc/passwd" },
		"the root":          func(m *mongostore.Memory) { m.Path = "/memories" },
		"not canonical":     func(m *mongostore.Memory) { m.Path = "/memories/a/" },
		"too long":          func(m *mongostore.Memory) { m.Text = strings.Repeat("x", 1001) },
		"path on a note":    func(m *mongostore.Memory) { m.Source = "note"; m.Text = "hello" },
		"empty note":        func(m *mongostore.Memory) { m.Source = "note"; m.Path = "" },
		"control in path":   func(m *mongostore.Memory) { m.Path = "/memories/a\x01" },
		"encoded in path":   func(m *mongostore.Memory) { m.Path = "/memories/%2e%2e/x" },
		"backslash in path": func(m *mongostore.Memory) { m.Path = `/memories\x` },
	} {
		m := base()
		mutate(&m)
		if err := CheckStored(&m, 1000, now); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestImport: a file arriving from outside (an import of infmem's export)
// lands at its path, is a duplicate when the same file is there, and goes
// beside a different one.
func TestImport(t *testing.T) {
	e := newEngine(t)
	ctx := testenv.Context(t)
	f := For(e)
	ts := time.Date(2024, 3, 5, 10, 0, 0, 0, time.UTC)
	r1, err := f.Import(ctx, "/memories/n.md", "a\tb\n", ts, nil)
	if err != nil || r1.DuplicateOf != "" {
		t.Fatalf("import: %+v %v", r1, err)
	}
	r2, err := f.Import(ctx, "/memories/n.md", "a\tb\n", time.Time{}, nil)
	if err != nil || r2.DuplicateOf != r1.ID {
		t.Fatalf("same file again: %+v %v", r2, err)
	}
	if _, err := f.Import(ctx, "/memories/n.md", "other", time.Time{}, nil); err != nil {
		t.Fatal(err)
	}
	if got := fileCmd(t, e, FileRequest{Command: "view", Path: "/memories/n.md.imported"}).Text; !strings.HasSuffix(got, "1\tother") {
		t.Errorf("the different file: %q", got)
	}
	if got := fileCmd(t, e, FileRequest{Command: "view", Path: "/memories/n.md"}).Text; !strings.HasSuffix(got, "1\ta\tb\n     2\t") {
		t.Errorf("the imported file is not exact: %q", got)
	}
	m, _ := e.Get(ctx, r1.ID)
	if !m.Timestamp.Equal(ts) {
		t.Errorf("timestamp %v, want %v", m.Timestamp, ts)
	}
	for _, p := range []string{"", "/memories", "/memories/../x", "/etc/x"} {
		if _, err := f.Import(ctx, p, "x", time.Time{}, nil); !memory.IsInputError(err) {
			t.Errorf("%q: %v; want an input error", p, err)
		}
	}
	if _, err := f.Import(ctx, "/memories/late.md", "x", time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), nil); !memory.IsInputError(err) {
		t.Errorf("a year-3000 file: %v; want an input error", err)
	}
	if n := Count(e); n != 2 {
		t.Errorf("%d files; want 2", n)
	}
}

// TestFileEditsRaceOtherWriters: str_replace on a file while update_memory
// rewrites the same memory: every call ends cleanly and the table never
// shows a path that is not the memory's.
func TestFileEditsRaceOtherWriters(t *testing.T) {
	e := newEngine(t)
	ctx := testenv.Context(t)
	id := fileCmd(t, e, FileRequest{Command: "create", Path: "/memories/r.md", FileText: ptr("v0 marker")}).IDs[0]
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			_, err := For(e).Run(ctx, FileRequest{Command: "str_replace", Path: "/memories/r.md", OldStr: ptr("marker"), NewStr: ptr("marker+")})
			if err != nil && !memory.IsInputError(err) {
				t.Errorf("str_replace %d: %v", i, err)
			}
		})
		wg.Go(func() {
			if _, err := e.Update(ctx, memory.UpdateRequest{ID: id, Content: ptr("v" + string(rune('1'+i)) + " marker")}); err != nil {
				t.Errorf("update %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	m, err := e.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	got := fileCmd(t, e, FileRequest{Command: "view", Path: "/memories/r.md"}).Text
	if !strings.HasSuffix(got, "1\t"+m.Text) {
		t.Errorf("view %q; the memory holds %q", got, m.Text)
	}
}

// TestTableFollowsOtherWriters: a file changed, forgotten or brought back
// by the engine's other operations is shown as it is at the next command
// (the table is read again when the engine's PathsVersion moves).
func TestTableFollowsOtherWriters(t *testing.T) {
	e := newEngine(t)
	ctx := testenv.Context(t)
	id := fileCmd(t, e, FileRequest{Command: "create", Path: "/memories/t.md", FileText: ptr("first")}).IDs[0]
	fileCmd(t, e, FileRequest{Command: "view", Path: "/memories"})
	if _, err := e.Update(ctx, memory.UpdateRequest{ID: id, Content: ptr("second")}); err != nil {
		t.Fatal(err)
	}
	if got := fileCmd(t, e, FileRequest{Command: "view", Path: "/memories/t.md"}).Text; !strings.HasSuffix(got, "1\tsecond") {
		t.Errorf("after update_memory: %q", got)
	}
	if _, err := e.Forget(ctx, memory.ForgetRequest{ID: id}); err != nil {
		t.Fatal(err)
	}
	if _, err := For(e).Run(ctx, FileRequest{Command: "view", Path: "/memories/t.md"}); !memory.IsInputError(err) {
		t.Errorf("a forgotten file is still shown: %v", err)
	}
	if _, err := e.Unforget(ctx, []string{id}); err != nil {
		t.Fatal(err)
	}
	if got := fileCmd(t, e, FileRequest{Command: "view", Path: "/memories"}).Text; !strings.Contains(got, "/memories/t.md") {
		t.Errorf("an unforgotten file is not listed: %q", got)
	}
	if err := e.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fileCmd(t, e, FileRequest{Command: "view", Path: "/memories/t.md"}).Text; !strings.HasSuffix(got, "1\tsecond") {
		t.Errorf("after a reload: %q", got)
	}
}
