package importer

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
)

// Issue 22, item 4: imports run in the daemon and read files from
// anywhere; these inputs used to exhaust it.

// A 64 KiB zip whose conversations.json inflates to 64 MiB (the issue's
// was 1 MB to 1 GiB, and took the daemon to 5 GB): refused from the
// archive's directory, before a byte is inflated.
func TestZipBombRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "export.zip")
	if err := testenv.WriteZipBomb(p, 64); err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{FormatAuto, FormatChatGPT} {
		_, err := Read(p, f)
		if err == nil || !strings.Contains(err.Error(), "inflates") || !strings.Contains(err.Error(), "times") {
			t.Fatalf("%s: %v; want the bomb refused", f, err)
		}
	}
}

// Past the inflated-size limit, or one conversation past its own limit,
// the file is refused, naming the line: it is read as a stream, one
// conversation at a time, never whole.
func TestOversizedConversationRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "conversations.json")
	var b bytes.Buffer
	b.WriteString("[\n" + gptConv("c1", "hello there") + ",\n")
	b.WriteString(`{"title": "huge", "conversation_id": "c2", "current_node": "", "mapping": {}, "pad": "`)
	b.Write(bytes.Repeat([]byte("x"), maxConversationBytes))
	b.WriteString("\"}\n]\n")
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Read(p, FormatChatGPT)
	if err == nil || !strings.Contains(err.Error(), "conversations.json:3") || !strings.Contains(err.Error(), "a conversation is over 64.0 MiB") {
		t.Fatalf("%v; want the second conversation (line 3) refused", err)
	}
}

// gptConv is a one-message ChatGPT conversation.
func gptConv(id, text string) string {
	return `{"title": "t", "conversation_id": "` + id + `", "current_node": "m1", "mapping": {"m1": {"id": "m1", "parent": null, "children": [],
		"message": {"id": "` + id + `-m1", "author": {"role": "user"}, "create_time": 1700000000, "content": {"content_type": "text", "parts": ["` + text + `"]}, "recipient": "all"}}}}`
}

// mcp-memory-service's file with its memories table replaced: a VIEW over
// an endless recursive query kept a core busy for ever, and the next
// import waited behind it; a generated column can make each row a
// gigabyte; one row can be huge. Each is refused up front, and every
// query runs under the job's context.
func TestHostileSQLiteRefused(t *testing.T) {
	cases := []struct {
		name, schema, want string
	}{
		{"endless view", `CREATE VIEW memories AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS rowid, 'x' AS content FROM n`,
			"memories is a view, not a table"},
		{"generated column", `CREATE TABLE memories (content_hash TEXT, n INTEGER, content TEXT GENERATED ALWAYS AS (printf('%.*c', n, 'x')) VIRTUAL);
			INSERT INTO memories (content_hash, n) VALUES ('h', 500000000)`,
			"generated columns"},
		{"huge row", `CREATE TABLE memories (content_hash TEXT, content TEXT); INSERT INTO memories VALUES ('h', 'ok');
			INSERT INTO memories VALUES ('h2', CAST(zeroblob(20000000) AS TEXT))`,
			"memories row 2: its content is 19.1 MiB; the limit is 16.0 MiB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sqlite_vec.db")
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(tc.schema); err != nil {
				t.Fatal(err)
			}
			db.Close()
			// Bounded, so that a test without the checks fails instead of
			// running for ever.
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			start := time.Now()
			_, err = ReadContext(ctx, path, FormatMCPMS)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v (after %v); want %q", err, time.Since(start).Round(time.Millisecond), tc.want)
			}
		})
	}
	// A reading whose job has ended stops.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadContext(ctx, mcpmsFixture(t), FormatMCPMS); !errors.Is(err, context.Canceled) {
		t.Fatalf("reading under a cancelled job: %v", err)
	}
}

// A Markdown folder from elsewhere (a downloaded vault) held links: to the
// user's SSH key (imported, recalled, synced) and to /dev/urandom (the
// daemon grew 250 MB a second). Only regular files, and links that stay
// in the folder, are read; what is skipped is said.
func TestNotesFolderLinksAndDevices(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and FIFOs")
	}
	home := t.TempDir()
	secret := filepath.Join(home, "id_ed25519")
	os.WriteFile(secret, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"), 0o600)
	vault := filepath.Join(home, "vault")
	os.MkdirAll(filepath.Join(vault, "sub"), 0o700)
	os.WriteFile(filepath.Join(vault, "real.md"), []byte("# Real\n\nThe garden gate code is 2291.\n"), 0o600)
	for link, target := range map[string]string{
		"sub/key.md":    secret,
		"rand.md":       "/dev/urandom",
		"inside.md":     filepath.Join(vault, "real.md"),
		"dangling.md":   filepath.Join(home, "nothing"),
		"sub/escape.md": "../../id_ed25519",
	} {
		if err := os.Symlink(target, filepath.Join(vault, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := mkfifo(filepath.Join(vault, "pipe.md")); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var in *Input
	var err error
	go func() { in, err = Read(vault, FormatAuto); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("reading the folder did not end (a device or a pipe was read)")
	}
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, it := range in.Items {
		texts = append(texts, it.Text)
	}
	all := strings.Join(texts, "|")
	if strings.Contains(all, "PRIVATE KEY") || strings.Contains(all, "b3BlbnNzaC") {
		t.Fatalf("the SSH key behind a link was imported: %q", all)
	}
	if strings.Count(all, "garden gate code") != 2 {
		t.Fatalf("the note and the link to it inside the folder: %q", all)
	}
	warn := strings.Join(in.Warnings, "\n")
	for _, want := range []string{"sub/key.md skipped: a link to " + secret + ", outside the folder", "rand.md skipped: a link to /dev/urandom",
		"pipe.md skipped: not a regular file", "dangling.md skipped: a link that leads nowhere", "sub/escape.md skipped"} {
		if !strings.Contains(warn, want) {
			t.Errorf("warnings lack %q:\n%s", want, warn)
		}
	}
	if in.Skipped != 5 {
		t.Errorf("skipped %d, want 5", in.Skipped)
	}
}

// A project folder's CLAUDE.md that is a link out of it is not read
// either.
func TestClaudeCodeLinkOutside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links")
	}
	home := t.TempDir()
	secret := filepath.Join(home, "credentials")
	os.WriteFile(secret, []byte("- aws_secret_access_key = AKIAEXAMPLESECRET\n"), 0o600)
	proj := filepath.Join(home, "proj")
	os.MkdirAll(filepath.Join(proj, ".claude", "rules"), 0o700)
	os.Symlink(secret, filepath.Join(proj, "CLAUDE.md"))
	os.WriteFile(filepath.Join(proj, ".claude", "rules", "style.md"), []byte("- Use tabs for indentation\n"), 0o600)
	in, err := Read(proj, FormatClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range in.Items {
		if strings.Contains(it.Text, "AKIAEXAMPLESECRET") {
			t.Fatalf("a link out of the project was imported: %q", it.Text)
		}
	}
	if len(in.Items) != 1 || !strings.Contains(strings.Join(in.Warnings, "\n"), "CLAUDE.md skipped: a link to "+secret) {
		t.Fatalf("items %d, warnings %q", len(in.Items), in.Warnings)
	}
}
