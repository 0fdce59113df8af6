package importer

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/memfiles"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
)

// The memory tool's files survive export → import as files: same paths,
// same exact text (tabs, trailing newline, an empty file); importing
// again adds nothing.
func TestRoundTripMemoryFiles(t *testing.T) {
	ctx := testenv.Context(t)
	src := newTarget(t)
	files := map[string]string{
		"/memories/notes.md":           "# Notes\n\tindented line\n",
		"/memories/projects/heron.md":  "Field test on June 21.\n",
		"/memories/projects/empty.txt": "",
	}
	for p, text := range files {
		if _, err := memfiles.For(src.Memory).Run(ctx, memfiles.FileRequest{Command: "create", Path: p, FileText: &text}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.Memory.Store(ctx, memory.StoreRequest{Content: "A plain note"}); err != nil {
		t.Fatal(err)
	}
	ex, err := backup.Export(ctx, src.Store, backup.ExportOptions{Dir: filepath.Join(t.TempDir(), "export"), JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	in, err := Read(ex.Dir, FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	dst := newTarget(t)
	rep, err := Run(ctx, dst, in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != len(files)+1 {
		t.Fatalf("added %d; want %d: %+v", rep.Added, len(files)+1, rep)
	}
	for p, text := range files {
		r, err := memfiles.For(dst.Memory).Run(ctx, memfiles.FileRequest{Command: "view", Path: p})
		if err != nil {
			t.Fatalf("%s after import: %v", p, err)
		}
		body := r.Text[strings.Index(r.Text, "\n")+1:]
		var want []string
		for i, l := range strings.Split(text, "\n") {
			want = append(want, strings.Repeat(" ", 5)+string(rune('1'+i))+"\t"+l)
		}
		if body != strings.Join(want, "\n") {
			t.Errorf("%s after import:\n%q\nwant\n%q", p, body, strings.Join(want, "\n"))
		}
	}
	if n := memfiles.Count(dst.Memory); n != len(files) {
		t.Errorf("%d files after import; want %d", n, len(files))
	}
	// Into its own data root: every file is already there.
	if rep, err := Run(ctx, src, in, Options{}); err != nil || rep.Added != 0 || rep.AlreadyPresent != len(files)+1 {
		t.Fatalf("into its own data root: %+v %v", rep, err)
	}
	if n := memfiles.Count(src.Memory); n != len(files) {
		t.Errorf("%d files after importing into the source; want %d", n, len(files))
	}
}
