//go:build linux

package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
)

// daemonPeakRSS is a process's peak resident memory (VmHWM), in bytes.
func daemonPeakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb int64
		if n, _ := fmt.Sscanf(sc.Text(), "VmHWM: %d kB", &kb); n == 1 {
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// writeGPTExport writes a ChatGPT conversations.json of n user messages,
// each text unique, 20 to a conversation.
func writeGPTExport(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("[\n")
	for c := 0; c*20 < n; c++ {
		if c > 0 {
			w.WriteString(",\n")
		}
		fmt.Fprintf(w, `{"title": "c%d", "conversation_id": "conv-%d", "current_node": "m%d", "mapping": {`, c, c, min(n, (c+1)*20)-1)
		for i := c * 20; i < min(n, (c+1)*20); i++ {
			parent := "null"
			if i > c*20 {
				parent = fmt.Sprintf(`"m%d"`, i-1)
			}
			if i > c*20 {
				w.WriteString(", ")
			}
			fmt.Fprintf(w, `"m%d": {"id": "m%d", "parent": %s, "children": [], "message": {"id": "msg-%d", "author": {"role": "user"}, "create_time": %d,
				"content": {"content_type": "text", "parts": ["Note %d: the %s shelf holds box %d of the %s archive"]}, "recipient": "all"}}`,
				i, i, parent, i, 1700000000+i*60, i, uniqueWord(1, i), i*7, uniqueWord(2, i))
		}
		w.WriteString("}}")
	}
	w.WriteString("\n]\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// The fault matrix's hostile imports (issue 22, item 4), through a real
// daemon: a zip bomb (1 MB inflating to 1 GiB), an SQLite file whose
// memories is an endless VIEW, a notes folder with links to a private key
// and to /dev/urandom, and SIGTERM while a large import runs. The daemon
// stays small and responsive, the next import does not wait behind a
// stuck one, SIGTERM stops the daemon within 10 s, the next start is
// clean and the interrupted import completes when run again.
func TestFaultHostileImports(t *testing.T) {
	root, env := faultRoot(t, faultConfig)
	if code, _, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %s", code, errs)
	}
	pid := servingPID(t, root, 0)
	work := t.TempDir()

	t.Run("zip bomb", func(t *testing.T) {
		bomb := filepath.Join(work, "chatgpt-export.zip")
		if err := testenv.WriteZipBomb(bomb, 1024); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(bomb)
		start := time.Now()
		code, out, errs := runBin(t, env, "import", bomb)
		if code == 0 || !strings.Contains(errs, "inflates 1") || !strings.Contains(errs, "times") {
			t.Fatalf("import of a %d-byte zip holding 1 GiB: %d %s %s", fi.Size(), code, out, errs)
		}
		t.Logf("refused in %v: %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(errs))
	})

	t.Run("endless SQLite view", func(t *testing.T) {
		db := filepath.Join(work, "sqlite_vec.db")
		h, err := sql.Open("sqlite", db)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Exec(`CREATE VIEW memories AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS rowid, 'x' AS content FROM n`); err != nil {
			t.Fatal(err)
		}
		h.Close()
		code, _, errs := runBin(t, env, "import", "--format", "mcp-memory-service", db)
		if code == 0 || !strings.Contains(errs, "memories is a view, not a table") {
			t.Fatalf("import of an endless view: %d %s", code, errs)
		}
		// The next import is not stuck behind it.
		good := filepath.Join(work, "memory.jsonl")
		os.WriteFile(good, []byte(`{"type":"entity","name":"Ann","entityType":"person","observations":["Ann rides a green bike"]}`+"\n"), 0o600)
		if code, out, errs := runBin(t, env, "import", good); code != 0 || !strings.Contains(out, "1") {
			t.Fatalf("the next import: %d %s %s", code, out, errs)
		}
	})

	t.Run("links in a notes folder", func(t *testing.T) {
		home := filepath.Join(work, "home")
		vault := filepath.Join(home, "vault")
		os.MkdirAll(filepath.Join(vault, "sub"), 0o700)
		key := filepath.Join(home, "id_ed25519")
		os.WriteFile(key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nqxsecretkeymaterial\n-----END OPENSSH PRIVATE KEY-----\n"), 0o600)
		os.WriteFile(filepath.Join(vault, "garden.md"), []byte("# Garden\n\nThe garden gate code is qxgatecode.\n"), 0o600)
		os.Symlink(key, filepath.Join(vault, "sub", "key.md"))
		os.Symlink("/dev/urandom", filepath.Join(vault, "rand.md"))
		code, out, errs := runBin(t, env, "import", vault)
		if code != 0 || !strings.Contains(out+errs, "sub/key.md skipped") || !strings.Contains(out+errs, "rand.md skipped") {
			t.Fatalf("import of the vault: %d\n%s\n%s", code, out, errs)
		}
		c := bridgeClient(t, env)
		got, err := tryCall(c, "retrieve_memory", map[string]any{"query": "qxsecretkeymaterial OPENSSH PRIVATE KEY", "top_k": 20})
		if err != nil {
			t.Fatal(err)
		}
		if texts := strings.Join(resultTexts(got), "|"); strings.Contains(texts, "qxsecretkeymaterial") || strings.Contains(texts, "PRIVATE KEY") {
			t.Fatalf("the key behind a link was imported: %s", texts)
		}
		got, _ = tryCall(c, "retrieve_memory", map[string]any{"query": "garden gate code"})
		if !strings.Contains(strings.Join(resultTexts(got), "|"), "qxgatecode") {
			t.Fatalf("the real note was not imported: %v", got)
		}
		c.Close()
	})

	peak := daemonPeakRSS(t, pid)
	t.Logf("daemon peak RSS after the hostile imports: %d MB", peak>>20)
	if peak > 1<<30 {
		t.Fatalf("the daemon's peak RSS reached %d MB (the zip bomb used to take it to 5 GB)", peak>>20)
	}

	t.Run("SIGTERM during an import", func(t *testing.T) {
		n := 4000
		if raceEnabled {
			n = 1000 // the race detector slows storing several times
		}
		export := filepath.Join(work, "conversations.json")
		writeGPTExport(t, export, n)
		imp := startInfmem(t, env, "import", export)
		pollUntil(t, 2*time.Minute, "the import to store its first memories", func() bool {
			_, out, _ := runBin(t, env, "status", "--json")
			rep := statusJSON(t, out)
			return rep.Memories != nil && rep.Memories.Total > 50 || !imp.running()
		})
		if !imp.running() {
			t.Fatal("the import ended before the daemon could be stopped; make the export larger")
		}
		start := time.Now()
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		pollUntil(t, 30*time.Second, "the daemon to stop", func() bool { return !alive(pid) })
		took := time.Since(start)
		t.Logf("SIGTERM during the import: the daemon stopped in %v", took.Round(time.Millisecond))
		if took > 10*time.Second {
			t.Fatalf("SIGTERM took %v to stop the daemon; the limit is 10 s", took)
		}
		if code, _, errs := imp.wait(t); code == 0 {
			t.Fatalf("the interrupted import reported success: %s", errs)
		}
		// The next start is clean, and the same import stores the rest.
		if code, _, errs := runBin(t, env, "start"); code != 0 {
			t.Fatalf("start: %d %s", code, errs)
		}
		pid = servingPID(t, root, pid)
		statusAndDoctorClean(t, env)
		if code, out, errs := runBin(t, env, "import", export); code != 0 {
			t.Fatalf("the import again: %d %s %s", code, out, errs)
		}
		_, out, _ := runBin(t, env, "status", "--json")
		// Every message, plus Ann and the garden note of the subtests above.
		if rep := statusJSON(t, out); rep.Memories == nil || rep.Memories.Total != n+2 {
			t.Fatalf("after the import again: %+v; want %d memories", rep.Memories, n+2)
		}
	})
}

// alive reports whether pid still runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
