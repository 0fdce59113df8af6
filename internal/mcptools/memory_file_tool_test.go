package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/memfiles"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/scopes"
)

// The memory tool's tests follow Anthropic's memory-tool semantics (the
// commands, their arguments and answers); the store behind is the real
// embedded engine.

// mem runs one memory command and returns its answer's result text.
func (h *harness) mem(c *client.Client, args map[string]any) string {
	h.t.Helper()
	out := h.ok(c, "memory", args)
	s, _ := out["result"].(string)
	return s
}

func (h *harness) memFails(c *client.Client, args map[string]any, want string) {
	h.t.Helper()
	h.fails(c, "memory", args, want)
}

func create(path, text string) map[string]any {
	return map[string]any{"command": "create", "path": path, "file_text": text}
}

func view(path string) map[string]any { return map[string]any{"command": "view", "path": path} }

func TestMemoryFileViewFormat(t *testing.T) {
	h := newHarness(t)
	c := h.connect()

	// An empty directory lists itself only.
	want := "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n0B\t/memories"
	if got := h.mem(c, view("/memories")); got != want {
		t.Fatalf("empty view:\n%q\nwant\n%q", got, want)
	}
	if got := h.mem(c, create("/memories/notes.md", "line one\nline two\n\tindented\n")); got != "File created successfully at: /memories/notes.md" {
		t.Fatalf("create: %q", got)
	}
	got := h.mem(c, view("/memories/notes.md"))
	want = "Here's the content of /memories/notes.md with line numbers:\n     1\tline one\n     2\tline two\n     3\t\tindented\n     4\t"
	if got != want {
		t.Fatalf("view file:\n%q\nwant\n%q", got, want)
	}
	// A file view is labelled as recalled data.
	out := h.ok(c, "memory", view("/memories/notes.md"))
	if out["kind"] != recalledKind || out["path"] != "/memories/notes.md" {
		t.Errorf("file view not labelled or without path: %v", out)
	}

	for _, tc := range []struct {
		r    []int
		want string
	}{
		{[]int{2, -1}, "     2\tline two\n     3\t\tindented\n     4\t"},
		{[]int{2, 2}, "     2\tline two"},
		{[]int{1, 1}, "     1\tline one"},
		{[]int{3, 4}, "     3\t\tindented\n     4\t"},
	} {
		args := view("/memories/notes.md")
		args["view_range"] = tc.r
		got := h.mem(c, args)
		if want := "Here's the content of /memories/notes.md with line numbers:\n" + tc.want; got != want {
			t.Errorf("view_range %v:\n%q\nwant\n%q", tc.r, got, want)
		}
	}
	for _, r := range [][]int{{0, 2}, {3, 2}, {1, 5}, {5, -1}, {1}, {1, 2, 3}, {-2, -1}} {
		args := view("/memories/notes.md")
		args["view_range"] = r
		h.memFails(c, args, "view_range")
	}
	args := view("/memories")
	args["view_range"] = []int{1, 2}
	h.memFails(c, args, "is a directory")

	// Listing: two levels deep, directories with a slash and the size of
	// what they hold, hidden names left out, sorted.
	h.mem(c, create("/memories/projects/apollo.md", strings.Repeat("a", 1536)))
	h.mem(c, create("/memories/projects/deep/er/x.md", strings.Repeat("b", 100)))
	h.mem(c, create("/memories/.hidden", "secret"))
	h.mem(c, create("/memories/projects/.cache/y", "zz"))
	h.mem(c, create("/memories/a.txt", ""))
	got = h.mem(c, view("/memories"))
	want = strings.Join([]string{
		"Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:",
		"1.6K\t/memories",
		"0B\t/memories/a.txt",
		"28B\t/memories/notes.md",
		"1.6K\t/memories/projects/",
		"1.5K\t/memories/projects/apollo.md",
		"100B\t/memories/projects/deep/",
	}, "\n")
	if got != want {
		t.Fatalf("listing:\n%s\nwant\n%s", got, want)
	}
	got = h.mem(c, view("/memories/projects/"))
	want = strings.Join([]string{
		"Here're the files and directories up to 2 levels deep in /memories/projects, excluding hidden items:",
		"1.6K\t/memories/projects",
		"1.5K\t/memories/projects/apollo.md",
		"100B\t/memories/projects/deep/",
		"100B\t/memories/projects/deep/er/",
	}, "\n")
	if got != want {
		t.Fatalf("sub-listing:\n%s\nwant\n%s", got, want)
	}
	// The empty file shows one empty line, as Anthropic's tool does.
	if got := h.mem(c, view("/memories/a.txt")); got != "Here's the content of /memories/a.txt with line numbers:\n     1\t" {
		t.Errorf("empty file: %q", got)
	}
	h.memFails(c, view("/memories/missing.md"), "does not exist")
	h.memFails(c, view("/memories/projects/apollo.md/x"), "does not exist")
}

func TestMemoryFileEdits(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	h.mem(c, create("/memories/todo.md", "alpha\nbeta\ngamma\nbeta\ndelta\n"))
	first := h.ok(c, "memory", view("/memories/todo.md"))["memory_ids"].([]any)[0].(string)

	// str_replace: exactly once, or a clear refusal.
	h.memFails(c, map[string]any{"command": "str_replace", "path": "/memories/todo.md", "old_str": "beta", "new_str": "B"}, "appears 2 times (lines 2, 4)")
	h.memFails(c, map[string]any{"command": "str_replace", "path": "/memories/todo.md", "old_str": "omega", "new_str": "B"}, "not found")
	h.memFails(c, map[string]any{"command": "str_replace", "path": "/memories/todo.md", "old_str": "", "new_str": "B"}, "old_str is empty")
	h.memFails(c, map[string]any{"command": "str_replace", "path": "/memories/nope.md", "old_str": "a", "new_str": "B"}, "does not exist")
	got := h.mem(c, map[string]any{"command": "str_replace", "path": "/memories/todo.md", "old_str": "gamma\nbeta", "new_str": "GAMMA"})
	want := "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\talpha\n     2\tbeta\n     3\tGAMMA\n     4\tdelta\n     5\t"
	if got != want {
		t.Fatalf("str_replace:\n%q\nwant\n%q", got, want)
	}
	// Occurrences on one line are each named by their line.
	h.mem(c, create("/memories/o.md", "x\naa aa\n"))
	h.memFails(c, map[string]any{"command": "str_replace", "path": "/memories/o.md", "old_str": "aa", "new_str": "b"}, "appears 2 times (lines 2, 2)")

	// insert: after line N, 0 at the top; the range is named when wrong.
	if got := h.mem(c, map[string]any{"command": "insert", "path": "/memories/todo.md", "insert_line": 0, "insert_text": "top\n"}); got != "The file /memories/todo.md has been edited." {
		t.Fatalf("insert: %q", got)
	}
	h.mem(c, map[string]any{"command": "insert", "path": "/memories/todo.md", "insert_line": 5, "insert_text": "end"})
	h.mem(c, map[string]any{"command": "insert", "path": "/memories/todo.md", "insert_line": 2, "insert_text": "two\nlines"})
	h.memFails(c, map[string]any{"command": "insert", "path": "/memories/todo.md", "insert_line": 9, "insert_text": "x"}, "[0, 8]")
	h.memFails(c, map[string]any{"command": "insert", "path": "/memories/todo.md", "insert_line": -1, "insert_text": "x"}, "[0, 8]")
	got = h.mem(c, view("/memories/todo.md"))
	want = "Here's the content of /memories/todo.md with line numbers:\n     1\ttop\n     2\talpha\n     3\ttwo\n     4\tlines\n     5\tbeta\n     6\tGAMMA\n     7\tdelta\n     8\tend\n     9\t"
	if got != want {
		t.Fatalf("after inserts:\n%q\nwant\n%q", got, want)
	}
	// Insert into an empty file.
	h.mem(c, create("/memories/empty.md", ""))
	h.memFails(c, map[string]any{"command": "insert", "path": "/memories/empty.md", "insert_line": 1, "insert_text": "x"}, "[0, 0]")
	h.mem(c, map[string]any{"command": "insert", "path": "/memories/empty.md", "insert_line": 0, "insert_text": "x"})
	if got := h.mem(c, view("/memories/empty.md")); !strings.HasSuffix(got, "     1\tx\n     2\t") {
		t.Errorf("insert into empty: %q", got)
	}

	// create over a file overwrites it in place: same memory, history kept.
	if got := h.mem(c, create("/memories/todo.md", "fresh")); !strings.Contains(got, "overwritten") {
		t.Errorf("overwrite: %q", got)
	}
	out := h.ok(c, "memory", view("/memories/todo.md"))
	if id := out["memory_ids"].([]any)[0].(string); id != first {
		t.Errorf("overwrite changed the memory id: %s, was %s", id, first)
	}
	m, err := h.eng.Get(testenv.Context(t), first)
	if err != nil {
		t.Fatal(err)
	}
	if m.Text != "fresh" || m.Path != "/memories/todo.md" || m.Source != "file" || len(m.History) != 5 {
		t.Errorf("stored memory: text %q path %q source %q, %d revisions", m.Text, m.Path, m.Source, len(m.History))
	}

	// create refuses directories and paths beneath files.
	h.mem(c, create("/memories/dir/f.md", "x"))
	h.memFails(c, create("/memories/dir", "x"), "is a directory")
	h.memFails(c, create("/memories", "x"), "is a directory")
	h.memFails(c, create("/memories/todo.md/child", "x"), "is a file")
	h.memFails(c, map[string]any{"command": "str_replace", "path": "/memories/dir", "old_str": "a", "new_str": "b"}, "is a directory")
}

func TestMemoryFileDeleteAndRename(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	for _, p := range []string{"/memories/a/one.md", "/memories/a/b/two.md", "/memories/a/b/c/three.md", "/memories/keep.md", "/memories/ab.md"} {
		h.mem(c, create(p, "content of "+p))
	}
	// rename a directory: every file beneath moves, nothing else.
	if got := h.mem(c, map[string]any{"command": "rename", "old_path": "/memories/a", "new_path": "/memories/x/y"}); got != "Successfully renamed /memories/a to /memories/x/y" {
		t.Fatalf("rename: %q", got)
	}
	for _, p := range []string{"/memories/x/y/one.md", "/memories/x/y/b/two.md", "/memories/x/y/b/c/three.md", "/memories/ab.md"} {
		if got := h.mem(c, view(p)); !strings.Contains(got, "content of ") {
			t.Errorf("%s: %q", p, got)
		}
	}
	h.memFails(c, view("/memories/a"), "does not exist")
	h.memFails(c, view("/memories/a/one.md"), "does not exist")
	// rename a file; its memory stays the same.
	before := h.ok(c, "memory", view("/memories/keep.md"))["memory_ids"].([]any)[0]
	h.mem(c, map[string]any{"command": "rename", "old_path": "/memories/keep.md", "new_path": "/memories/kept/keep.md"})
	after := h.ok(c, "memory", view("/memories/kept/keep.md"))["memory_ids"].([]any)[0]
	if before != after {
		t.Errorf("rename gave a new memory: %v, was %v", after, before)
	}
	h.memFails(c, map[string]any{"command": "rename", "old_path": "/memories/ab.md", "new_path": "/memories/kept/keep.md"}, "already exists")
	h.memFails(c, map[string]any{"command": "rename", "old_path": "/memories/ab.md", "new_path": "/memories/x"}, "already exists")
	h.memFails(c, map[string]any{"command": "rename", "old_path": "/memories/x", "new_path": "/memories/x/z"}, "into itself")
	h.memFails(c, map[string]any{"command": "rename", "old_path": "/memories/nope", "new_path": "/memories/z"}, "does not exist")
	h.memFails(c, map[string]any{"command": "rename", "old_path": "/memories", "new_path": "/memories/z"}, "cannot rename /memories")
	h.memFails(c, map[string]any{"command": "rename", "old_path": "/memories/ab.md", "new_path": "/memories/kept/keep.md/z"}, "is a file")
	h.memFails(c, map[string]any{"command": "rename", "old_path": "/memories/ab.md", "new_path": "/tmp/ab.md"}, "outside /memories")

	// delete a directory recursively; the deleted files can be restored.
	out := h.ok(c, "memory", map[string]any{"command": "delete", "path": "/memories/x"})
	if out["result"] != "Successfully deleted /memories/x (3 files)" || len(out["memory_ids"].([]any)) != 3 {
		t.Fatalf("delete dir: %v", out)
	}
	h.memFails(c, view("/memories/x/y/one.md"), "does not exist")
	h.memFails(c, map[string]any{"command": "delete", "path": "/memories/x"}, "does not exist")
	h.memFails(c, map[string]any{"command": "delete", "path": "/memories"}, "cannot delete the /memories directory")
	if got := h.mem(c, map[string]any{"command": "delete", "path": "/memories/ab.md"}); got != "Successfully deleted /memories/ab.md" {
		t.Errorf("delete file: %q", got)
	}
	want := "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n28B\t/memories\n28B\t/memories/kept/\n28B\t/memories/kept/keep.md"
	if got := h.mem(c, view("/memories")); got != want {
		t.Errorf("after deletes:\n%s\nwant\n%s", got, want)
	}
	ids := out["memory_ids"].([]any)
	h.ok(c, "unforget_memory", map[string]any{"memory_ids": ids})
	if got := h.mem(c, view("/memories/x/y/b/two.md")); !strings.Contains(got, "content of /memories/a/b/two.md") {
		t.Errorf("after unforget: %q", got)
	}
}

func TestMemoryFileArguments(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	h.mem(c, create("/memories/f.md", "x"))
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"command": "list", "path": "/memories"}, "not one of: view, create"},
		{map[string]any{"path": "/memories"}, "not one of"},
		{map[string]any{"command": "view"}, "view needs path"},
		{map[string]any{"command": "create", "path": "/memories/g.md"}, "create needs file_text"},
		{map[string]any{"command": "view", "path": "/memories", "file_text": "x"}, "view does not take file_text"},
		{map[string]any{"command": "rename", "path": "/memories/f.md", "new_path": "/memories/g.md"}, "rename does not take path"},
		{map[string]any{"command": "rename", "old_path": "/memories/f.md"}, "rename needs new_path"},
		{map[string]any{"command": "insert", "path": "/memories/f.md", "insert_text": "x"}, "insert needs insert_line"},
		{map[string]any{"command": "str_replace", "path": "/memories/f.md", "new_str": "x"}, "str_replace needs old_str"},
		{map[string]any{"command": "view", "path": "/memories", "bogus": 1}, "unknown argument"},
		{map[string]any{"command": "view", "path": 7}, "must be a string"},
		{map[string]any{"command": "insert", "path": "/memories/f.md", "insert_line": "2", "insert_text": "x"}, "whole number"},
	} {
		h.memFails(c, tc.args, tc.want)
	}
}

// TestMemoryFilePathAttacks: every path that could leave /memories, or
// hide what it names, is refused with a tool error, by every command.
func TestMemoryFilePathAttacks(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	h.mem(c, create("/memories/ok.md", "fine"))
	for _, tc := range []struct{ path, want string }{
		{"/memories/../etc/passwd", "not allowed"},
		{"/memories/a/../../etc/passwd", "not allowed"},
		{"/memories/..", "not allowed"},
		{"/memories/./ok.md", "not allowed"},
		{"/memories/a/..", "not allowed"},
		{"/memories/%2e%2e/etc/passwd", "percent-encoding"},
		{"/memories/%2E%2E%2Fetc", "percent-encoding"},
		{"/memories/..%2fetc", "percent-encoding"},
		{"/memories/a%00b", "percent-encoding"},
		{"/memories\\..\\etc", "backslash"},
		{"/memories/..\\..\\x", "backslash"},
		{"/memories/a\x00b", "control"},
		{"/memories/a\nb", "control"},
		{"/memories/a\u202eb", "control"},
		{"/etc/passwd", "outside /memories"},
		{"/memoriesX/a", "outside /memories"},
		{"memories/a.md", "outside /memories"},
		{"a.md", "outside /memories"},
		{"../memories/a.md", "outside /memories"},
		{"//memories/a.md", "outside /memories"},
		{"/memories//a.md", "empty name"},
		{"/memories/a//b.md", "empty name"},
		{"~/memories/a.md", "outside /memories"},
		{"", "empty"},
		{"/memories/" + strings.Repeat("a", 300), "limit is 256"},
		{"/memories/" + strings.Repeat("a", 129), "limit is 128"},
		{"/memories/1/2/3/4/5/6/7/8/9", "limit is 8"},
	} {
		for _, cmd := range []map[string]any{
			view(tc.path),
			create(tc.path, "pwned"),
			{"command": "str_replace", "path": tc.path, "old_str": "a", "new_str": "b"},
			{"command": "insert", "path": tc.path, "insert_line": 0, "insert_text": "x"},
			{"command": "delete", "path": tc.path},
			{"command": "rename", "old_path": tc.path, "new_path": "/memories/z.md"},
			{"command": "rename", "old_path": "/memories/ok.md", "new_path": tc.path},
		} {
			if tc.path == "" && cmd["command"] != "rename" {
				// An empty path is a missing argument.
				h.memFails(c, cmd, "needs path")
				continue
			}
			if tc.path == "" {
				h.memFails(c, cmd, "needs")
				continue
			}
			h.memFails(c, cmd, tc.want)
		}
	}
	// Nothing was written anywhere but ok.md.
	if n := memfiles.Count(h.eng); n != 1 {
		t.Errorf("%d files after the attacks; want 1", n)
	}
	if got := h.mem(c, view("/memories/ok.md")); !strings.HasSuffix(got, "1\tfine") {
		t.Errorf("ok.md changed: %q", got)
	}
}

func TestMemoryFileLimits(t *testing.T) {
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	eng := memory.New(store, reg, memory.Options{Location: time.UTC, Logger: testenv.Logger(t), MaxContentBytes: 1000})
	memfiles.For(eng).SetMaxFiles(3)
	eng.Start(ctx)
	t.Cleanup(func() { eng.Close(context.Background()) })
	h := &harness{t: t, eng: eng, store: store, srv: NewServer(Deps{Memory: Ready(eng), Logger: testenv.Logger(t)}, "test", server.WithOutputSchemaValidation())}
	c := h.connect()

	h.memFails(c, create("/memories/big.md", strings.Repeat("x", 1001)), "the limit for one memory file is 1000 bytes")
	h.memFails(c, create("/memories/bad.md", "a\x00b"), "NUL")
	h.mem(c, create("/memories/big.md", strings.Repeat("x", 1000)))
	h.memFails(c, map[string]any{"command": "insert", "path": "/memories/big.md", "insert_line": 0, "insert_text": "y"}, "limit for one memory file is 1000 bytes")
	h.memFails(c, map[string]any{"command": "str_replace", "path": "/memories/big.md", "old_str": "xx", "new_str": "yyy"}, "appears")
	h.mem(c, create("/memories/b.md", "b"))
	h.mem(c, create("/memories/c.md", "c"))
	h.memFails(c, create("/memories/d.md", "d"), "holds 3 files, the limit")
	// Overwriting an existing file is not a new file.
	h.mem(c, create("/memories/c.md", "c2"))
	h.mem(c, map[string]any{"command": "delete", "path": "/memories/c.md"})
	h.mem(c, create("/memories/d.md", "d"))
}

// TestMemoryFileConcurrentEdits: many str_replace calls from two clients
// at once on one file; every one lands (no lost update). Run with -race.
func TestMemoryFileConcurrentEdits(t *testing.T) {
	h := newHarness(t)
	clients := []*client.Client{h.connect(), h.connect()}
	const n = 24
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf("slot-%02d: todo", i))
	}
	h.mem(clients[0], create("/memories/board.md", strings.Join(lines, "\n")+"\n"))
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			c := clients[i%2]
			req := map[string]any{"command": "str_replace", "path": "/memories/board.md",
				"old_str": fmt.Sprintf("slot-%02d: todo", i), "new_str": fmt.Sprintf("slot-%02d: done by %d", i, i%2)}
			r := h.call(c, "memory", req)
			if r.isError {
				errs <- r.text
			}
		})
	}
	// Meanwhile another client keeps creating and reading other files.
	wg.Go(func() {
		for i := range 6 {
			h.call(clients[1], "memory", create(fmt.Sprintf("/memories/other/%d.md", i), "x"))
			h.call(clients[0], "memory", view("/memories"))
		}
	})
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("a concurrent str_replace failed: %s", e)
	}
	got := h.mem(clients[0], view("/memories/board.md"))
	for i := range n {
		if want := fmt.Sprintf("slot-%02d: done by %d", i, i%2); !strings.Contains(got, want) {
			t.Errorf("lost update: %q missing from\n%s", want, got)
		}
	}
	if strings.Contains(got, "todo") {
		t.Errorf("some slots still todo:\n%s", got)
	}
}

// TestMemoryFileIsAMemory: a file written through the tool is found by
// retrieve_memory (with its path), counted by stats, exported, and kept
// current when other tools change its memory; a new engine on the same
// database finds the files again.
func TestMemoryFileIsAMemory(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	ctx := testenv.Context(t)
	h.mem(c, create("/memories/projects/apollo.md", "# Apollo\nThe Apollo launch moved to June 12 because of the heat shield.\n"))
	h.ok(c, "store_memory", map[string]any{"content": "Lunch with Maria on Friday"})

	res := h.ok(c, "retrieve_memory", map[string]any{"query": "when is the Apollo launch?"})
	items, _ := res["results"].([]any)
	if len(items) == 0 {
		t.Fatalf("retrieve_memory found nothing: %v", res)
	}
	top := items[0].(map[string]any)
	if top["source"] != "file" || top["path"] != "/memories/projects/apollo.md" || !strings.Contains(top["text"].(string), "June 12") {
		t.Fatalf("top result is not the file: %v", top)
	}
	id := top["memory_id"].(string)
	listed := h.ok(c, "list_memories", map[string]any{"source": "file"})
	if listed["total"].(float64) != 1 {
		t.Errorf("list_memories source file: %v", listed)
	}
	st, err := h.eng.Stats(ctx)
	if err != nil || st.Files != 1 {
		t.Errorf("stats: %d files (%v); want 1", st.Files, err)
	}

	// The export carries the file with its path and exact text.
	dir := t.TempDir()
	if _, err := backup.Export(ctx, h.store, backup.ExportOptions{Dir: dir, JSON: true, Markdown: true}); err != nil {
		t.Fatal(err)
	}
	found, _ := filepath.Glob(filepath.Join(dir, "export_*", "memory.json"))
	if len(found) != 1 {
		t.Fatalf("export wrote %v", found)
	}
	data, err := os.ReadFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Scopes []struct {
			Memories []struct{ Source, Path, Text string } `json:"memories"`
		} `json:"scopes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var exported bool
	for _, s := range doc.Scopes {
		for _, m := range s.Memories {
			if m.Source == "file" && m.Path == "/memories/projects/apollo.md" && strings.HasSuffix(m.Text, "heat shield.\n") {
				exported = true
			}
		}
	}
	if !exported {
		t.Errorf("the file is not in the export:\n%s", data)
	}

	// Changes made by other tools reach the memory tool.
	h.ok(c, "update_memory", map[string]any{"memory_id": id, "content": "The Apollo launch is on June 20"})
	if got := h.mem(c, view("/memories/projects/apollo.md")); !strings.HasSuffix(got, "1\tThe Apollo launch is on June 20") {
		t.Errorf("after update_memory: %q", got)
	}
	if got := h.mem(c, view("/memories")); !strings.Contains(got, "31B\t/memories/projects/apollo.md") {
		t.Errorf("listing after update_memory:\n%s", got)
	}
	h.ok(c, "delete_memory", map[string]any{"target": map[string]any{"memory_id": id}})
	h.memFails(c, view("/memories/projects/apollo.md"), "does not exist")
	if st, _ := h.eng.Stats(ctx); st.Files != 0 {
		t.Errorf("stats after delete_memory: %d files", st.Files)
	}
	h.ok(c, "unforget_memory", map[string]any{"memory_ids": []string{id}})
	h.mem(c, view("/memories/projects/apollo.md"))

	// An unforgotten file whose path was taken meanwhile leaves the path to
	// the newer file.
	h.mem(c, map[string]any{"command": "delete", "path": "/memories/projects/apollo.md"})
	h.mem(c, create("/memories/projects/apollo.md", "newer"))
	h.ok(c, "unforget_memory", map[string]any{"memory_ids": []string{id}})
	if got := h.mem(c, view("/memories/projects/apollo.md")); !strings.HasSuffix(got, "1\tnewer") {
		t.Errorf("the older file took the path back: %q", got)
	}

	// A store_memory cannot forge a file.
	h.fails(c, "store_memory", map[string]any{"content": "x", "metadata": map[string]any{"source": "file"}}, "source")

	// A second engine on the same database sees the same files.
	reg, err := scopes.Load(ctx, h.store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	eng2 := memory.New(h.store, reg, memory.Options{Location: time.UTC, Logger: testenv.Logger(t)})
	eng2.Start(ctx)
	defer eng2.Close(context.Background())
	r, err := memfiles.For(eng2).Run(ctx, memfiles.FileRequest{Command: "view", Path: "/memories/projects/apollo.md"})
	if err != nil || !strings.HasSuffix(r.Text, "1\tnewer") {
		t.Errorf("a new engine reads %q, %v", r.Text, err)
	}
}
