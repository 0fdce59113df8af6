package logging

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestRotationKeepsBoundedFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	r, err := OpenRotating(path, 1000, 3)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 99) + "\n" // 100 bytes
	for i := 0; i < 55; i++ {
		if _, err := fmt.Fprintf(r, "%02d%s", i, line[2:]); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// 55 lines of 100 bytes at 10 per file: the current file holds 50..54,
	// .1 holds 40..49, .2 30..39, .3 20..29; older ones are gone.
	want := map[string]string{FileName: "50", FileName + ".1": "40", FileName + ".2": "30", FileName + ".3": "20"}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(want) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("files %v, want %d", names, len(want))
	}
	for name, first := range want {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 1000 || !strings.HasPrefix(string(data), first) {
			t.Fatalf("%s: %d bytes starting %q, want at most 1000 starting %q", name, len(data), data[:2], first)
		}
		fi, _ := os.Stat(filepath.Join(dir, name))
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s mode %v", name, fi.Mode().Perm())
		}
	}
}

func TestConcurrentRecordsStayWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	l, err := Open(Options{Path: path, MaxBytes: 4096, Keep: 50})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				l.Logger.Info("record written", "writer", g, "n", i)
			}
		}()
	}
	wg.Wait()
	l.Close()
	total := 0
	files, _ := filepath.Glob(path + "*")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if !strings.Contains(line, `msg="record written"`) || !strings.Contains(line, " n=") {
				t.Fatalf("%s: torn record %q", f, line)
			}
			total++
		}
	}
	if total != 800 {
		t.Fatalf("%d records, want 800", total)
	}
}

func TestLevelAndConsole(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	var console bytes.Buffer
	l, err := Open(Options{Path: path, Level: "warn", Console: &console})
	if err != nil {
		t.Fatal(err)
	}
	l.Logger.Info("quiet")
	l.Logger.Warn("loud", "key", "v")
	l.Close()
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "quiet") || !strings.Contains(string(data), "msg=loud key=v") {
		t.Fatalf("file: %q", data)
	}
	if console.String() != string(data) {
		t.Fatalf("console %q, file %q", console.String(), data)
	}
	if _, err := Open(Options{Path: path, Level: "loud"}); err == nil || !strings.Contains(err.Error(), "debug, info, warn, error") {
		t.Fatalf("bad level: %v", err)
	}
	l.Logger.Error("after close") // must not panic
}

func TestTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "line %d with some padding to make the file larger than the window\n", i)
	}
	os.WriteFile(path, []byte(b.String()), 0o600)
	lines, err := Tail(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "line 4997 ") || !strings.HasPrefix(lines[2], "line 4999 ") {
		t.Fatalf("%q", lines)
	}
	os.WriteFile(path, []byte("only\n"), 0o600)
	if lines, _ := Tail(path, 10); len(lines) != 1 || lines[0] != "only" {
		t.Fatalf("%q", lines)
	}
	if _, err := Tail(filepath.Join(t.TempDir(), "missing"), 3); err == nil {
		t.Fatal("missing file: no error")
	}
}
