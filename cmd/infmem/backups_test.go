package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/mongostore"
)

// A wrong passphrase or key does not open a backup, and says nothing else
// about it: 'backups --verify' reports it as such, never as a failed or
// damaged backup, and says what to pass instead; real damage still fails.
func TestBackupsVerifyWrongKeyIsNotDamage(t *testing.T) {
	env := isolatedEnv(t)
	env[EnvBackupIdentity] = filepath.Join(t.TempDir(), "none.txt")
	root := filepath.Join(t.TempDir(), "root")
	withStore(t, root, func(s *mongostore.Store) { addMemories(t, s, "Global", 20) })
	dir := t.TempDir()
	passFile := filepath.Join(dir, "pass")
	os.WriteFile(passFile, []byte("open sesame\n"), 0o600)
	code, out, errs := runCLI(t, env, "backup", "--data-dir", root, "--passphrase-file", passFile)
	if code != exitOK {
		t.Fatalf("passphrase backup: %d %q %q", code, out, errs)
	}
	byPass := filepath.Base(writtenBackup(t, out))
	idFile, otherFile := filepath.Join(dir, "id.txt"), filepath.Join(dir, "other.txt")
	_, recipient, _ := runCLI(t, env, "backup", "keygen", "-o", idFile)
	recipient = strings.TrimSpace(recipient)
	if code, out, errs := runCLI(t, env, "backup", "keygen", "-o", otherFile); code != exitOK {
		t.Fatalf("keygen: %d %q %q", code, out, errs)
	}
	writeConfig(t, env, `{"backup": {"recipients": ["`+recipient+`"]}}`)
	code, out, errs = runCLI(t, env, "backup", "--data-dir", root)
	if code != exitOK || !strings.Contains(out, "encrypted to 1 age key") {
		t.Fatalf("key backup: %d %q %q", code, out, errs)
	}
	byKey := filepath.Base(writtenBackup(t, out))

	noSecrets := func(t *testing.T, texts ...string) {
		t.Helper()
		for _, s := range texts {
			if strings.Contains(s, "open sesame") || strings.Contains(s, "open says me") || strings.Contains(s, "AGE-SECRET-KEY") {
				t.Fatalf("a secret reached the output: %q", s)
			}
		}
	}

	// The wrong passphrase, and an identity file of another key.
	env[EnvBackupPassphrase] = "open says me"
	code, out, errs = runCLI(t, env, "backups", "--data-dir", root, "--verify", "-i", otherFile)
	noSecrets(t, out, errs)
	if code != exitFailure {
		t.Fatalf("exit %d, want %d: %q %q", code, exitFailure, out, errs)
	}
	for _, bad := range []string{"FAILED", "damaged:", "failed their check", "do not rely"} {
		if strings.Contains(out+errs, bad) {
			t.Fatalf("a wrong key reported as damage (%q):\n%s%s", bad, out, errs)
		}
	}
	for _, want := range []string{
		byPass + ": wrong passphrase: the passphrase from $" + EnvBackupPassphrase + " does not open it; the file itself is intact",
		byKey + ": wrong key: it was encrypted to " + recipient + ", and no identity in " + otherFile + " matches; the file itself is intact",
		"pass -i IDENTITY",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "infmem: wrong passphrase or key: 2 of 2 backups could not be verified") || !strings.Contains(errs, "\nhint: ") {
		t.Errorf("error: %q", errs)
	}
	code, out, _ = runCLI(t, env, "backups", "--data-dir", root, "--verify", "-i", otherFile, "--json")
	var rows []backupListing
	if code != exitFailure || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 2 {
		t.Fatalf("--json: %d %q", code, out)
	}
	for _, r := range rows {
		want := map[string]string{byPass: "wrong passphrase", byKey: "wrong key"}[r.File]
		if r.Check != want {
			t.Errorf("%s: check %q, want %q", r.File, r.Check, want)
		}
	}

	// The right keys verify both.
	env[EnvBackupPassphrase] = "open sesame"
	code, out, errs = runCLI(t, env, "backups", "--data-dir", root, "--verify", "-i", idFile)
	if code != exitOK || strings.Count(out, " verified\n") != 2 {
		t.Fatalf("right keys: %d %q %q", code, out, errs)
	}

	// Damage is damage, whatever key is given.
	entries, err := backup.List(filepath.Join(root, "backups"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.File == byPass {
			data, _ := os.ReadFile(e.Path)
			data[len(data)/2] ^= 0x40
			os.WriteFile(e.Path, data, 0o600)
		}
	}
	env[EnvBackupPassphrase] = "open says me"
	code, out, errs = runCLI(t, env, "backups", "--data-dir", root, "--verify", "-i", otherFile)
	noSecrets(t, out, errs)
	if code != exitFailure || !strings.Contains(out, byPass+": cannot use backup "+byPass+": the file does not match the checksum") ||
		!strings.Contains(errs, "1 of 2 backups failed their check") || !strings.Contains(errs, "1 more could not be verified: wrong passphrase or key") {
		t.Fatalf("damaged and wrong key: %d %q %q", code, out, errs)
	}
}

// 'backups --verify' finds the identity 'backup keygen' wrote in its
// default place, as restore does, instead of asking for a key.
func TestBackupsVerifyFindsDefaultIdentity(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	// keygen without -o writes to the user config directory.
	code, out, errs := runBin(t, env, "backup", "keygen")
	recipient := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(recipient, "age1") {
		t.Fatalf("keygen: %d %q %q", code, out, errs)
	}
	if err := os.WriteFile(envValue(env, "INFMEM_CONFIG"), []byte(`{"backup": {"recipients": ["`+recipient+`"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runBin(t, env, "backup")
	if code != 0 || !strings.Contains(out, "encrypted to 1 age key") {
		t.Fatalf("backup: %d %q %q", code, out, errs)
	}
	name := filepath.Base(writtenBackup(t, out))
	code, out, errs = runBin(t, env, "backups", "--verify")
	if code != 0 || !strings.Contains(out, name) || !strings.Contains(out, " verified\n") || strings.Contains(out, checkNeedsKey) {
		t.Fatalf("backups --verify: %d %q %q", code, out, errs)
	}
	// restore finds it in the same place.
	if code, out, errs := runBin(t, env, "restore", name, "--dry-run"); code != 0 || !strings.Contains(out, "the backup verifies") {
		t.Fatalf("restore --dry-run: %d %q %q", code, out, errs)
	}
	// Without it, the backup needs a key, and the listing says where it looked.
	home := envValue(env, "XDG_CONFIG_HOME")
	if err := os.Rename(filepath.Join(home, "infmem", "backup-identity.txt"), filepath.Join(home, "moved.txt")); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runBin(t, env, "backups", "--verify")
	if code != 0 || !strings.Contains(out, checkNeedsKey) || !strings.Contains(out, "pass -i IDENTITY") ||
		!strings.Contains(out, filepath.Join(home, "infmem", "backup-identity.txt")) {
		t.Fatalf("without the identity: %d %q %q", code, out, errs)
	}
}
