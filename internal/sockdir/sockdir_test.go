//go:build unix

package sockdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSocketDirTakeover: when the run folder's path is too long for a
// socket, the sockets go to a per-root folder in a shared place; a folder
// there that another user made, that is a symlink, or that others can
// enter is refused, so nobody can put their own listener where infmem's
// CLI would send a passphrase (issue 13).
func TestSocketDirTakeover(t *testing.T) {
	runtimeDir := t.TempDir()
	os.Chmod(runtimeDir, 0o700) // as $XDG_RUNTIME_DIR is
	t.Setenv("XDG_RUNTIME_DIR", runtimeDir)
	runDir := filepath.Join(t.TempDir(), strings.Repeat("a-long-folder-name/", 8), "run")
	sock, err := Path(runDir, "control.sock")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(sock)
	if filepath.Dir(dir) != runtimeDir {
		t.Fatalf("socket %s not under $XDG_RUNTIME_DIR %s", sock, runtimeDir)
	}
	if fi, err := os.Lstat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket folder: %v %v", fi, err)
	}
	if again, err := Path(runDir, "control.sock"); err != nil || again != sock {
		t.Fatalf("second call: %s %v", again, err)
	}

	os.Chmod(dir, 0o755)
	if _, err := Path(runDir, "control.sock"); err == nil || !strings.Contains(err.Error(), "mode is 0755") {
		t.Fatalf("a folder others can enter: %v", err)
	}
	os.Chmod(dir, 0o700)

	os.Remove(dir)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := Path(runDir, "control.sock"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("a symlinked folder: %v", err)
	}
	os.Remove(dir)

	if os.Getuid() == 0 {
		// As root, make the folder another user's, as an attacker would.
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		if _, err := Path(runDir, "control.sock"); err == nil || !strings.Contains(err.Error(), "belongs to uid 12345") {
			t.Fatalf("another user's folder: %v", err)
		}
	}

	// Without a usable $XDG_RUNTIME_DIR the temp dir is used, with the same
	// checks; the folder name carries the uid.
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", t.TempDir())
	sock, err = Path(runDir, "control.sock")
	if err != nil || filepath.Dir(filepath.Dir(sock)) != os.Getenv("TMPDIR") {
		t.Fatalf("temp dir fallback: %s %v", sock, err)
	}
}
