package memory

import (
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

func fileCmd(t *testing.T, e *Engine, req FileRequest) FileResult {
	t.Helper()
	res, err := e.File(testenv.Context(t), req)
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
	if err := CheckStoredMemory(&m, 1000, now); err != nil {
		t.Errorf("an empty memory file is refused: %v", err)
	}
	for name, mutate := range map[string]func(*mongostore.Memory){
		"no path":           func(m *mongostore.Memory) { m.Path = "" },
		"traversal":         func(m *mongostore.Memory) { m.Path = "/memories/../etc/passwd" },
		"outside":           func(m *mongostore.Memory) { m.Path = "/etc/passwd" },
		"the root":          func(m *mongostore.Memory) { m.Path = "/memories" },
		"not canonical":     func(m *mongostore.Memory) { m.Path = "/memories/a/" },
		"too long":          func(m *mongostore.Memory) { m.Text = strings.Repeat("x", 1001) },
		"path on a note":    func(m *mongostore.Memory) { m.Source = sourceNote; m.Text = "hello" },
		"empty note":        func(m *mongostore.Memory) { m.Source = sourceNote; m.Path = "" },
		"control in path":   func(m *mongostore.Memory) { m.Path = "/memories/a\x01" },
		"encoded in path":   func(m *mongostore.Memory) { m.Path = "/memories/%2e%2e/x" },
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
// memory file.
func TestFilesLeftAloneByMaintenance(t *testing.T) {
	e, _, clk := newEngine(t)
	fileCmd(t, e, FileRequest{Command: "create", Path: "/memories/ok.md", FileText: ptr("ok")})
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

// TestStoreFileImport: a file arriving through Store (an import of
// infmem's export) lands at its path, is a duplicate when the same file is
// there, and goes beside a different one.
func TestStoreFileImport(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	ts := time.Date(2024, 3, 5, 10, 0, 0, 0, time.UTC)
	r1, err := e.Store(ctx, StoreRequest{Content: "a\tb\n", Source: sourceFile, Path: "/memories/n.md", Timestamp: ts})
	if err != nil || r1.DuplicateOf != "" {
		t.Fatalf("import: %+v %v", r1, err)
	}
	r2, err := e.Store(ctx, StoreRequest{Content: "a\tb\n", Source: sourceFile, Path: "/memories/n.md"})
	if err != nil || r2.DuplicateOf != r1.ID {
		t.Fatalf("same file again: %+v %v", r2, err)
	}
	if _, err := e.Store(ctx, StoreRequest{Content: "other", Source: sourceFile, Path: "/memories/n.md"}); err != nil {
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
	for _, req := range []StoreRequest{
		{Content: "x", Source: sourceFile},
		{Content: "x", Path: "/memories/x.md"},
		{Content: "x", Source: sourceFile, Path: "/memories/../x"},
	} {
		if _, err := e.Store(ctx, req); !IsInputError(err) {
			t.Errorf("%+v: %v; want an input error", req, err)
		}
	}
}

// TestFileEditsRaceOtherWriters: str_replace on a file while update_memory
// rewrites the same memory: every call ends cleanly and the table never
// shows a path that is not the memory's.
func TestFileEditsRaceOtherWriters(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	id := fileCmd(t, e, FileRequest{Command: "create", Path: "/memories/r.md", FileText: ptr("v0 marker")}).IDs[0]
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			_, err := e.File(ctx, FileRequest{Command: "str_replace", Path: "/memories/r.md", OldStr: ptr("marker"), NewStr: ptr("marker+")})
			if err != nil && !IsInputError(err) {
				t.Errorf("str_replace %d: %v", i, err)
			}
		})
		wg.Go(func() {
			if _, err := e.Update(ctx, UpdateRequest{ID: id, Content: ptr("v" + string(rune('1'+i)) + " marker")}); err != nil {
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
