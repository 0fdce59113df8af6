package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/importer"
)

const fixtures = "../../internal/importer/testdata"

// Without a daemon, import opens the memory itself: a dry run changes
// nothing, the import adds each item once, and bad input is refused naming
// the file and line.
func TestImportCommandInProcess(t *testing.T) {
	env := isolatedEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	conv := filepath.Join(fixtures, "chatgpt", "conversations.json")

	code, out, errs := runCLI(t, env, "import", conv, "--dry-run", "--data-dir", root, "--scope", "Chats")
	if code != exitOK || !strings.Contains(out, "dry run, nothing changed") || !strings.Contains(out, "Chats *  7") || !strings.Contains(out, "to be created") {
		t.Fatalf("dry run: %d %q %q", code, out, errs)
	}
	if n := countMemories(t, root); n != 0 {
		t.Fatalf("a dry run stored %d memories", n)
	}
	code, out, errs = runCLI(t, env, "import", "--data-dir", root, "--scope", "Chats", conv)
	if code != exitOK || !strings.Contains(out, "imported ") || !strings.Contains(out, "(chatgpt, 2 conversations)") || !strings.Contains(out, "Chats *  7") ||
		!strings.Contains(out, "skipped 4") {
		t.Fatalf("import: %d %q %q", code, out, errs)
	}
	if n := countMemories(t, root); n != 7 {
		t.Fatalf("%d memories stored", n)
	}
	code, out, _ = runCLI(t, env, "import", conv, "--data-dir", root, "--scope", "Chats", "--json")
	var rep importer.Report
	if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil || rep.Added != 0 || rep.AlreadyImported != 7 || rep.Format != importer.FormatChatGPT {
		t.Fatalf("again: %d %q", code, out)
	}

	code, _, errs = runCLI(t, env, "import", filepath.Join(fixtures, "bad", "memory.jsonl"), "--data-dir", root)
	if code != exitFailure || !strings.Contains(errs, "memory.jsonl:2: a relation needs") || !strings.Contains(errs, "memory.jsonl:3: not a JSON object") ||
		!strings.Contains(errs, "nothing was imported") {
		t.Fatalf("bad input: %d %q", code, errs)
	}
	if n := countMemories(t, root); n != 7 {
		t.Fatalf("bad input stored something: %d", n)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"import"}, exitUsage, "import takes one file or folder"},
		{[]string{"import", conv, "--format", "pdf"}, exitUsage, `--format "pdf" is not one of`},
		{[]string{"import", filepath.Join(t.TempDir(), "nope.json")}, exitFailure, "no such file or directory"},
		{[]string{"import", conv, "--scope", "ALL"}, exitUsage, "reserved"},
		{[]string{"import", conv, "--format", "claude-ai"}, exitFailure, "chat_messages"},
	} {
		code, _, errs := runCLI(t, env, append(c.args, "--data-dir", root)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: %d %q, want %d %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// With a daemon running, 'infmem import' hands the work to it, and what it
// imported is found at once by retrieve_memory: no restart, no reload.
func TestImportThroughDaemon(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	c := bridgeClient(t, env)
	storeText(t, c, "The daemon is up")

	conv, err := filepath.Abs(filepath.Join(fixtures, "chatgpt", "conversations.json"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runBin(t, env, "import", conv, "--dry-run")
	if code != 0 || !strings.Contains(out, "Global  7") {
		t.Fatalf("dry run: %d %s %s", code, out, errs)
	}
	code, out, errs = runBin(t, env, "import", conv, "--json")
	var rep importer.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Added != 7 {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	if !strings.Contains(serviceLog(t, root), "import done") {
		t.Fatal("the import did not run in the daemon")
	}
	notes, _ := filepath.Abs(filepath.Join(fixtures, "notes"))
	if code, out, errs := runBin(t, env, "import", notes, "--scope", "Notes"); code != 0 || !strings.Contains(out, "Notes *  9") {
		t.Fatalf("notes: %d %s %s", code, out, errs)
	}

	rec := callJSON(t, c, "retrieve_memory", map[string]any{"query": "why does my sourdough starter smell like acetone"})
	res := rec["results"].([]any)
	if len(res) == 0 {
		t.Fatalf("nothing recalled: %v", rec)
	}
	top := res[0].(map[string]any)
	if !strings.HasPrefix(top["text"].(string), "Not dead, just hungry") && !strings.HasPrefix(top["text"].(string), "My sourdough starter") {
		t.Fatalf("recall: %v", rec)
	}
	rec = callJSON(t, c, "retrieve_memory", map[string]any{"query": "focaccia recipe oven temperature", "filter": map[string]any{"scope": "Notes"}})
	if got := rec["results"].([]any); len(got) == 0 || !strings.HasPrefix(got[0].(map[string]any)["text"].(string), "Focaccia") {
		t.Fatalf("notes recall: %v", rec)
	}
	tag := callJSON(t, c, "search_by_tag", map[string]any{"tag": "chatgpt"})
	if n := len(tag["results"].([]any)); n != 7 {
		t.Fatalf("search_by_tag chatgpt: %d results", n)
	}

	// Again: nothing added; a bad file refused, naming its line.
	code, out, _ = runBin(t, env, "import", conv)
	if code != 0 || !strings.Contains(out, "Global  0      7") {
		t.Fatalf("again: %d %s", code, out)
	}
	bad, _ := filepath.Abs(filepath.Join(fixtures, "bad", "memory.jsonl"))
	if code, _, errs := runBin(t, env, "import", bad); code != exitFailure || !strings.Contains(errs, "memory.jsonl:2:") {
		t.Fatalf("bad: %d %s", code, errs)
	}
	// A relative path is the terminal's, not the daemon's.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "memory.jsonl"), []byte(`{"type":"entity","name":"Relative","entityType":"test","observations":["path resolved by the terminal"]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := []string{"import", "memory.jsonl"}
	code, out, errs = runBinIn(t, dir, env, cmd...)
	if code != 0 || !strings.Contains(out, "Global  1") {
		t.Fatalf("relative path: %d %s %s", code, out, errs)
	}
}

// runBinIn is runBin in the working directory dir.
func runBinIn(t *testing.T, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	// Built first (once per run, minutes under -race at load): the time
	// limit is the process's.
	bin := infmemBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir = env, dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		t.Fatalf("infmem %v: %v", args, err)
	}
	return 0, out.String(), errb.String()
}
