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

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/importer"
	"github.com/infmem/infmem/mongostore"
)

// 'infmem export' without a daemon gives local times in the profile's
// time zone beside UTC (issue 26.4).
func TestExportCommandLocalTimes(t *testing.T) {
	env := isolatedEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	withStore(t, root, func(s *mongostore.Store) {
		addMemories(t, s, "Global", 1)
		if err := s.Profiles.Update(context.Background(), mongostore.DefaultUserID,
			bson.D{{Key: "$set", Value: bson.D{{Key: "preferences.time_zone", Value: "Europe/Paris"}}}}); err != nil {
			t.Fatal(err)
		}
	})
	code, _, errs := runCLI(t, env, "export", "--data-dir", root, "--format", "markdown")
	if code != exitOK {
		t.Fatalf("%d %s", code, errs)
	}
	md, _ := filepath.Glob(filepath.Join(root, "export", "*", "Global.md"))
	if len(md) != 1 {
		t.Fatalf("exported %v", md)
	}
	data, _ := os.ReadFile(md[0])
	if !strings.Contains(string(data), "### 2025-05-01 12:00 CEST (UTC+02:00) · 2025-05-01 10:00 UTC") {
		t.Fatalf("Global.md:\n%s", data)
	}
}

// A refused restore into a new data root makes nothing; an accepted one
// takes no safety backup of the empty database; 'backups --verify' says a
// passphrase backup needs a passphrase (issue 26.5, 26.6).
func TestRestoreIntoNewRoot(t *testing.T) {
	env := isolatedEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	withStore(t, root, func(s *mongostore.Store) { addMemories(t, s, "Global", 3) })
	dir := t.TempDir()
	right, wrong := filepath.Join(dir, "right"), filepath.Join(dir, "wrong")
	os.WriteFile(right, []byte("open sesame\n"), 0o600)
	os.WriteFile(wrong, []byte("open says me\n"), 0o600)
	code, out, errs := runCLI(t, env, "backup", "--data-dir", root, "--passphrase-file", right)
	if code != exitOK {
		t.Fatalf("backup: %d %q %q", code, out, errs)
	}
	path := writtenBackup(t, out)

	code, out, _ = runCLI(t, env, "backups", "--data-dir", root, "--verify")
	if code != exitOK || !strings.Contains(out, " needs passphrase\n") || strings.Contains(out, "needs key") {
		t.Fatalf("backups --verify without a passphrase: %d %q", code, out)
	}

	fresh := filepath.Join(t.TempDir(), "new")
	code, _, errs = runCLI(t, env, "restore", path, "--data-dir", fresh, "--passphrase-file", wrong)
	if code != exitFailure || !strings.Contains(errs, "the passphrase is wrong; nothing was changed") {
		t.Fatalf("wrong passphrase: %d %q", code, errs)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(fresh)
		t.Fatalf("a refused restore made %s: %v", fresh, entries)
	}

	code, out, errs = runCLI(t, env, "restore", path, "--data-dir", fresh, "--passphrase-file", right)
	if code != exitOK || !strings.Contains(out, "no safety backup was taken: the memory it replaced was empty") {
		t.Fatalf("restore into a new root: %d %q %q", code, out, errs)
	}
	if n := countMemories(t, fresh); n != 3 {
		t.Fatalf("%d memories restored, want 3", n)
	}
	if entries, _ := os.ReadDir(filepath.Join(fresh, "backups")); len(entries) != 0 {
		t.Fatalf("backups of the empty database: %v", entries)
	}
}

// An import's dry run lists what it would add (the first few per scope;
// all with --json) and what is already stored (issue 26.8).
func TestImportDryRunLists(t *testing.T) {
	env := isolatedEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	os.MkdirAll(a, 0o700)
	os.MkdirAll(b, 0o700)
	note := "# Dentist\n\nThe dentist moved to Friday at 9:30.\n"
	// The same note under another file name: not imported before, but its
	// text is stored.
	os.WriteFile(filepath.Join(a, "copy.md"), []byte("---\ntitle: dentist\n---\n"+note), 0o600)
	os.WriteFile(filepath.Join(b, "dentist.md"), []byte(note), 0o600)
	for i := range 7 {
		os.WriteFile(filepath.Join(b, fmt.Sprintf("note%d.md", i)), []byte(fmt.Sprintf("# Note %d\n\nIdea number %d for the garden.\n", i, i)), 0o600)
	}
	if code, out, errs := runCLI(t, env, "import", a, "--data-dir", root, "--scope", "Notes"); code != exitOK {
		t.Fatalf("import: %d %q %q", code, out, errs)
	}
	code, out, errs := runCLI(t, env, "import", b, "--dry-run", "--data-dir", root, "--scope", "Notes")
	if code != exitOK || !strings.Contains(out, "would add (the first 5 of each scope; --json lists all):\n  Notes\n    - note0 # Note 0") ||
		!strings.Contains(out, "    … and 2 more\n") || !strings.Contains(out, "already stored, not added again") ||
		!regexp.MustCompile(`- dentist .*\(memory [0-9a-f]{24}\)`).MatchString(out) {
		t.Fatalf("dry run: %d %q %q", code, out, errs)
	}
	code, out, _ = runCLI(t, env, "import", b, "--dry-run", "--json", "--data-dir", root, "--scope", "Notes")
	var rep importer.Report
	if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil || len(rep.ToAdd) != 7 || len(rep.Stored) != 1 || rep.Added != 7 || rep.AlreadyPresent != 1 {
		t.Fatalf("dry run --json: %d %q", code, out)
	}
}

// After 'infmem uninstall', status no longer says Claude starts the
// daemon, and uninstall says what stays and where; maintain names its jobs
// in words; export takes export_memory's format name (issue 26.10).
func TestUninstallSaysWhatStays(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	if code, out, errs := runBin(t, env, "install", "--no-service"); code != 0 {
		t.Fatalf("install: %d %s %s", code, out, errs)
	}
	if _, out, _ := runBin(t, env, "status"); !strings.Contains(out, "Claude starts it through 'infmem mcp'") {
		t.Fatalf("status after install:\n%s", out)
	}
	code, out, errs := runBin(t, env, "uninstall", "--no-service")
	key := filepath.Join(envValue(env, "XDG_CONFIG_HOME"), "infmem", "backup-identity.txt")
	if code != 0 || !strings.Contains(out, "Also kept (delete them yourself to remove infmem completely):\n  the program: "+infmemBinary(t)+"\n") ||
		!strings.Contains(out, "  its config: "+envValue(env, "INFMEM_CONFIG")+"\n") || !strings.Contains(out, "  the backup key: "+key+" (") {
		t.Fatalf("uninstall: %d\n%s\n%s", code, out, errs)
	}
	if _, out, _ := runBin(t, env, "status"); strings.Contains(out, "Claude starts it") || !strings.Contains(out, "'infmem install' registers infmem with Claude Desktop") ||
		strings.Contains(out, "unavailable: login service:") {
		t.Fatalf("status after uninstall:\n%s", out)
	}
	if _, out, _ := runBin(t, env, "doctor"); strings.Contains(out, "Claude also starts it") {
		t.Fatalf("doctor after uninstall:\n%s", out)
	}
	code, _, errs = runBin(t, env, "maintain", "--job", "frob")
	if code == 0 || !strings.Contains(errs, `no such maintenance job "frob"; the jobs are compact, dedup, `) || strings.Contains(errs, "[") {
		t.Fatalf("maintain --job frob: %d %s", code, errs)
	}
	if code, out, errs := runBin(t, env, "export", "--format", "both"); code != 0 || !strings.Contains(out, "memory.json") || !strings.Contains(out, "profile.md") ||
		!strings.Contains(out, "exported 0 memories and 0 summaries in 1 scope to ") {
		t.Fatalf("export --format both: %d %s %s", code, out, errs)
	}
}

func TestTakesEffect(t *testing.T) {
	for keys, want := range map[string]string{
		"time_zone":                "time_zone takes effect",
		"time_zone,data_dir":       "time_zone and data_dir take effect",
		"time_zone,data_dir,mongo": "time_zone, data_dir and mongo take effect",
	} {
		if got := takesEffect(strings.Split(keys, ",")); got != want {
			t.Errorf("%s: %q, want %q", keys, got, want)
		}
	}
}
