package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/mongostore"
)

func init() {
	// age's default scrypt cost takes a second per passphrase; tests need none of it.
	daemon.ScryptWorkFactor = 2
}

// withStore opens the embedded engine on root, runs fn, and closes it
// again so the CLI can open it.
func withStore(t *testing.T, root string, fn func(s *mongostore.Store)) {
	t.Helper()
	r, err := dataroot.Prepare(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: r})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	fn(s)
}

func addMemories(t *testing.T, s *mongostore.Store, scope string, n int) {
	t.Helper()
	now := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	for i := range n {
		m := &mongostore.Memory{ID: bson.NewObjectID(), Text: fmt.Sprintf("%s memory %d", scope, i), Scope: scope,
			Tags: []string{"t"}, Source: "note", Timestamp: now.Add(time.Duration(i) * time.Minute), CreatedAt: now, UpdatedAt: now}
		if err := s.Memories.Insert(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
}

func countMemories(t *testing.T, root string) (n int64) {
	withStore(t, root, func(s *mongostore.Store) {
		var err error
		if n, err = s.Memories.Raw().CountDocuments(context.Background(), bson.D{}); err != nil {
			t.Fatal(err)
		}
	})
	return n
}

// writtenBackup extracts the path from backup's output.
func writtenBackup(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`backup written: (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no backup path in %q", out)
	}
	return m[1]
}

func writeConfig(t *testing.T, env map[string]string, json string) {
	t.Helper()
	if err := os.WriteFile(env["INFMEM_CONFIG"], []byte(json), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestBackupRestoreWithPassphrase(t *testing.T) {
	env := isolatedEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	withStore(t, root, func(s *mongostore.Store) { addMemories(t, s, "Global", 30) })
	passFile := filepath.Join(t.TempDir(), "pass")
	os.WriteFile(passFile, []byte("open sesame\n"), 0o600)

	code, out, errs := runCLI(t, env, "backup", "--data-dir", root, "--passphrase-file", passFile)
	if code != exitOK || !strings.Contains(out, "encrypted with a passphrase") || strings.Contains(errs, "not encrypted") || strings.Contains(errs, "readable by other users") {
		t.Fatalf("backup: %d %q %q", code, out, errs)
	}
	// A passphrase file others can read is used, with a warning that never
	// quotes it.
	loose := filepath.Join(t.TempDir(), "loose")
	os.WriteFile(loose, []byte("open sesame\n"), 0o644)
	code, out2, errs2 := runCLI(t, env, "backup", "--data-dir", root, "--passphrase-file", loose)
	if code != exitOK || !strings.Contains(errs2, "passphrase file "+loose+" is readable by other users (mode 0644)") || strings.Contains(errs2+out2, "open sesame") {
		t.Fatalf("loose passphrase file: %d %q %q", code, out2, errs2)
	}
	extra := writtenBackup(t, out2)
	os.Remove(extra)
	os.Remove(strings.TrimSuffix(extra, ".archive.gz.age") + ".manifest.json")
	path := writtenBackup(t, out)
	name := filepath.Base(path)
	if !strings.HasSuffix(name, ".archive.gz.age") {
		t.Fatal(name)
	}

	code, out, _ = runCLI(t, env, "backups", "--data-dir", root)
	if code != exitOK || !strings.Contains(out, name) || !strings.Contains(out, "passphrase") || !strings.Contains(out, " ok") {
		t.Fatalf("backups: %d %q", code, out)
	}
	env[EnvBackupPassphrase] = "open sesame"
	code, out, _ = runCLI(t, env, "backups", "--data-dir", root, "--verify")
	if code != exitOK || !strings.Contains(out, "verified") {
		t.Fatalf("backups --verify: %d %q", code, out)
	}
	code, out, _ = runCLI(t, env, "restore", name, "--data-dir", root, "--dry-run")
	if code != exitOK || !regexp.MustCompile(`ConversationHistory\s+30 documents`).MatchString(out) || !strings.Contains(out, "nothing was restored") {
		t.Fatalf("dry run: %d %q", code, out)
	}

	// Change the data, then refuse a wrong passphrase without touching it.
	withStore(t, root, func(s *mongostore.Store) { addMemories(t, s, "Later", 5) })
	env[EnvBackupPassphrase] = "open says me"
	code, _, errs = runCLI(t, env, "restore", name, "--data-dir", root)
	if code != exitFailure || !strings.Contains(errs, "infmem: cannot use backup "+name+": the passphrase is wrong; nothing was changed\nhint: ") {
		t.Fatalf("wrong passphrase: %d %q", code, errs)
	}
	if strings.Contains(errs, "open sesame") || strings.Contains(errs, "open says me") {
		t.Fatal("a passphrase reached the output")
	}
	if n := countMemories(t, root); n != 35 {
		t.Fatalf("%d memories after a refused restore", n)
	}

	env[EnvBackupPassphrase] = "open sesame"
	code, out, errs = runCLI(t, env, "restore", "--data-dir", root, path)
	if code != exitOK || !strings.Contains(out, "restored "+name+": ") || !strings.Contains(out, "the data it replaced is in ") {
		t.Fatalf("restore: %d %q %q", code, out, errs)
	}
	if n := countMemories(t, root); n != 30 {
		t.Fatalf("%d memories after the restore, want 30", n)
	}
	// The safety backup holds the 35 and is encrypted like scheduled
	// backups (to the default identity), never in plaintext.
	safety := regexp.MustCompile(`replaced is in (\S+)`).FindStringSubmatch(out)[1]
	code, out, _ = runCLI(t, env, "restore", safety, "--data-dir", root, "--dry-run", "--json")
	var c backup.Contents
	if code != exitOK || json.Unmarshal([]byte(out), &c) != nil || c.Encryption != backup.EncryptionRecipients || c.Manifest.Kind != backup.KindSafety {
		t.Fatalf("safety backup: %d %q", code, out)
	}
	if c.Collections[0].Name != "ConversationHistory" || c.Collections[0].Documents != 35 {
		t.Fatalf("safety backup holds %+v", c.Collections)
	}
}

func TestBackupRefusesPassphraseArgument(t *testing.T) {
	for _, cmd := range []string{"backup", "restore", "backups"} {
		code, out, errs := runCLI(t, isolatedEnv(t), cmd, "--passphrase=hunter2")
		if code != exitUsage || strings.Contains(out+errs, "hunter2") || !strings.Contains(errs, "--passphrase takes no value") {
			t.Fatalf("%s: %d %q %q", cmd, code, out, errs)
		}
	}
}

func TestRestoreRefusesBadFiles(t *testing.T) {
	env := isolatedEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	withStore(t, root, func(s *mongostore.Store) { addMemories(t, s, "Global", 3) })
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.archive.gz")
	os.WriteFile(empty, nil, 0o600)
	text := filepath.Join(dir, "notes.archive.gz")
	os.WriteFile(text, []byte("my notes"), 0o600)
	for _, c := range []struct {
		file string
		code int
		msg  string
	}{
		{empty, exitFailure, "cannot use backup empty.archive.gz: the file is empty (0 bytes); nothing was changed\nhint: 'infmem backups' lists"},
		{text, exitFailure, "cannot use backup notes.archive.gz: it is neither age-encrypted nor a gzip-compressed mongodump archive; nothing was changed"},
		{filepath.Join(dir, "missing.archive.gz"), exitUsage, "no backup file"},
	} {
		code, _, errs := runCLI(t, env, "restore", c.file, "--data-dir", root)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%s: %d %q", c.file, code, errs)
		}
	}
	if n := countMemories(t, root); n != 3 {
		t.Fatalf("%d memories", n)
	}
	if code, _, errs := runCLI(t, env, "restore", "--data-dir", root); code != exitUsage || !strings.Contains(errs, "one backup file") {
		t.Fatalf("no file: %d %q", code, errs)
	}
}

func TestBackupToConfiguredKey(t *testing.T) {
	env := isolatedEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	withStore(t, root, func(s *mongostore.Store) { addMemories(t, s, "Global", 10) })
	idFile := filepath.Join(t.TempDir(), "keys", "id.txt")
	code, out, errs := runCLI(t, env, "backup", "keygen", "-o", idFile)
	recipient := strings.TrimSpace(out)
	if code != exitOK || !strings.HasPrefix(recipient, "age1") || !strings.Contains(errs, `"recipients": ["`+recipient+`"]`) {
		t.Fatalf("keygen: %d %q %q", code, out, errs)
	}
	if code, _, errs := runCLI(t, env, "backup", "keygen", "-o", idFile); code != exitFailure || !strings.Contains(errs, "refusing to overwrite") {
		t.Fatalf("keygen again: %d %q", code, errs)
	}
	writeConfig(t, env, `{"backup": {"encryption": "required", "recipients": ["`+recipient+`"]}}`)
	code, out, errs = runCLI(t, env, "backup", "--data-dir", root)
	if code != exitOK || !strings.Contains(out, "encrypted to 1 age key") {
		t.Fatalf("backup: %d %q %q", code, out, errs)
	}
	name := filepath.Base(writtenBackup(t, out))

	env[EnvBackupIdentity] = filepath.Join(t.TempDir(), "none.txt")
	code, _, errs = runCLI(t, env, "restore", name, "--data-dir", root, "--dry-run")
	if code != exitUsage || !strings.Contains(errs, "encrypted to an age key; give its identity file with -i FILE") {
		t.Fatalf("no key: %d %q", code, errs)
	}
	other := filepath.Join(t.TempDir(), "other.txt")
	runCLI(t, env, "backup", "keygen", "-o", other)
	code, _, errs = runCLI(t, env, "restore", name, "--data-dir", root, "-i", other)
	if code != exitFailure || !strings.Contains(errs, "no identity in "+other+" can decrypt it") || !strings.Contains(errs, "hint: use the identity file") {
		t.Fatalf("wrong key: %d %q", code, errs)
	}
	code, out, errs = runCLI(t, env, "restore", name, "--data-dir", root, "-i", idFile)
	if code != exitOK || !strings.Contains(out, "restored") {
		t.Fatalf("restore: %d %q %q", code, out, errs)
	}
	// The default identity file is found without -i.
	env[EnvBackupIdentity] = idFile
	if code, out, errs := runCLI(t, env, "restore", name, "--data-dir", root, "--dry-run"); code != exitOK {
		t.Fatalf("default identity: %d %q %q", code, out, errs)
	}
}

func TestBackupEncryptionPolicy(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	t.Run("unencrypted warns", func(t *testing.T) {
		code, out, errs := runCLI(t, isolatedEnv(t), "backup", "--data-dir", root, "--no-encrypt")
		if code != exitOK || !strings.Contains(out, "NOT encrypted") || !strings.Contains(errs, "warning: this backup is not encrypted") {
			t.Fatalf("%d %q %q", code, out, errs)
		}
	})
	t.Run("required without any key or terminal", func(t *testing.T) {
		env := isolatedEnv(t)
		// No recipients, and the default identity cannot be made.
		env[EnvBackupIdentity] = filepath.Join(os.DevNull, "backup-identity.txt")
		writeConfig(t, env, `{"backup": {"encryption": "required"}}`)
		code, _, errs := runCLI(t, env, "backup", "--data-dir", root)
		if code != exitUsage || !strings.Contains(errs, "no terminal to ask for a passphrase") || !strings.Contains(errs, "hint: ") {
			t.Fatalf("%d %q", code, errs)
		}
		code, _, errs = runCLI(t, env, "backup", "--data-dir", root, "--no-encrypt")
		if code != exitUsage || !strings.Contains(errs, "backup.encryption to required") {
			t.Fatalf("--no-encrypt: %d %q", code, errs)
		}
		env[EnvBackupPassphrase] = "from the environment"
		code, out, errs := runCLI(t, env, "backup", "--data-dir", root)
		if code != exitOK || !strings.Contains(out, "encrypted with a passphrase") {
			t.Fatalf("env passphrase: %d %q %q", code, out, errs)
		}
	})
	t.Run("conflicting flags", func(t *testing.T) {
		code, _, errs := runCLI(t, isolatedEnv(t), "backup", "--data-dir", root, "--no-encrypt", "--passphrase")
		if code != exitUsage || !strings.Contains(errs, "cannot be combined") {
			t.Fatalf("%d %q", code, errs)
		}
	})
	t.Run("listing shows all", func(t *testing.T) {
		code, out, _ := runCLI(t, isolatedEnv(t), "backups", "--data-dir", root, "--json")
		var rows []backupListing
		if code != exitOK || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 2 {
			t.Fatalf("%d %q", code, out)
		}
		for _, r := range rows {
			if r.Check != checkOK || r.Kind != "manual" {
				t.Errorf("%+v", r)
			}
		}
	})
	t.Run("damage is reported", func(t *testing.T) {
		entries, _ := backup.List(filepath.Join(root, "backups"))
		data, _ := os.ReadFile(entries[0].Path)
		os.WriteFile(entries[0].Path, data[:len(data)-10], 0o600)
		code, out, errs := runCLI(t, isolatedEnv(t), "backups", "--data-dir", root)
		if code != exitFailure || !strings.Contains(out, "FAILED") || !strings.Contains(out, "truncated") || !strings.Contains(errs, "1 of 2 backups failed their check") {
			t.Fatalf("%d %q %q", code, out, errs)
		}
	})
}

func TestExportCommand(t *testing.T) {
	env := isolatedEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	withStore(t, root, func(s *mongostore.Store) {
		addMemories(t, s, "Global", 4)
		addMemories(t, s, "Work", 2)
	})
	code, out, errs := runCLI(t, env, "export", "--data-dir", root)
	if code != exitOK || !strings.Contains(out, "exported 6 memories and 0 summaries in 2 scopes") || !strings.Contains(errs, "personal memory data") {
		t.Fatalf("%d %q %q", code, out, errs)
	}
	if !strings.Contains(out, filepath.Join(root, "export")) || !strings.Contains(out, "Work.md") {
		t.Fatalf("files: %q", out)
	}
	code, out, _ = runCLI(t, env, "export", "--data-dir", root, "--scope", "Work", "--format", "json", "--json")
	var res backup.ExportResult
	if code != exitOK || json.Unmarshal([]byte(out), &res) != nil || res.Memories != 2 || len(res.Files) != 1 {
		t.Fatalf("%d %q", code, out)
	}
	if code, _, errs := runCLI(t, env, "export", "--data-dir", root, "--format", "pdf"); code != exitUsage || !strings.Contains(errs, "--format") {
		t.Fatalf("%d %q", code, errs)
	}
	if code, _, errs := runCLI(t, env, "export", "--data-dir", root, "--scope", "Nope"); code != exitFailure || !strings.Contains(errs, `"Nope"`) {
		t.Fatalf("%d %q", code, errs)
	}
}

func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		p    backup.Progress
		want string
	}{
		{backup.Progress{Op: "backup", Step: "dumping", Collections: 5, CollectionsDone: 2, Bytes: 3 << 20},
			"backup: dumping   [#########...............]  40%  2/5 collections, 3.0 MB"},
		{backup.Progress{Op: "restore", Step: "verifying", Bytes: 1 << 20, TotalBytes: 4 << 20},
			"restore: verifying [######..................]  25%  1.0 MB of 4.0 MB"},
		{backup.Progress{Op: "restore", Step: "loading", Docs: 1000, TotalDocs: 1000, Collections: 5, CollectionsDone: 5, Done: true},
			"restore: loading   [########################] 100%  1000 of 1000 documents, 5/5 collections"},
		{backup.Progress{Op: "backup", Step: "dumping", Docs: 250, TotalDocs: 1000, Collections: 5},
			"backup: dumping   [######..................]  25%  250 of 1000 documents, 0/5 collections"},
		// Before the total is known, the documents are counted all the same.
		{backup.Progress{Op: "backup", Step: "dumping", Docs: 250, Collections: 5},
			"backup: dumping   [........................]   0%  250 documents, 0/5 collections"},
	} {
		if got := progressLine(c.p); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

func TestRestoreWhileDatabaseInUse(t *testing.T) {
	env := isolatedEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	code, out, _ := runCLI(t, env, "backup", "--data-dir", root, "--no-encrypt")
	if code != exitOK {
		t.Fatal(out)
	}
	name := filepath.Base(writtenBackup(t, out))
	// Another process (the daemon, say) has the embedded database open.
	withStore(t, root, func(*mongostore.Store) {
		code, _, errs := runCLI(t, env, "restore", name, "--data-dir", root)
		if code != exitFailure || !strings.Contains(errs, "infmem: cannot open the database for the restore: the embedded database in") ||
			!strings.Contains(errs, "is in use by process") || !strings.Contains(errs, "\nhint: ") {
			t.Fatalf("%d %q", code, errs)
		}
		// A dry run needs no database.
		if code, out, errs := runCLI(t, env, "restore", name, "--data-dir", root, "--dry-run"); code != exitOK {
			t.Fatalf("dry run: %d %q %q", code, out, errs)
		}
	})
}

// TestBackupEncryptedOutOfTheBox: with no recipients configured, 'infmem
// backup' encrypts to an identity it makes (0600) and says where it is;
// restore finds it without -i.
func TestBackupEncryptedOutOfTheBox(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	env := isolatedEnv(t)
	code, out, errs := runCLI(t, env, "backup", "--data-dir", root)
	if code != exitOK || !strings.Contains(out, "encrypted to 1 age key") || strings.Contains(out, "NOT encrypted") {
		t.Fatalf("default backup: %d %q %q", code, out, errs)
	}
	fi, err := os.Stat(env[EnvBackupIdentity])
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("identity file: %v %v", fi, err)
	}
	entries, _ := backup.List(filepath.Join(root, "backups"))
	if len(entries) != 1 || !strings.HasSuffix(entries[0].Path, ".age") {
		t.Fatalf("backups: %+v", entries)
	}
	if code, out, errs := runCLI(t, env, "restore", entries[0].Path, "--data-dir", root, "--dry-run"); code != exitOK {
		t.Fatalf("restore with the made identity: %d %q %q", code, out, errs)
	}
	code, out, _ = runCLI(t, env, "doctor", "--data-dir", root)
	if !strings.Contains(out, env[EnvBackupIdentity]) || !strings.Contains(out, "off this machine") {
		t.Fatalf("doctor does not name the identity file: %d %q", code, out)
	}
}
