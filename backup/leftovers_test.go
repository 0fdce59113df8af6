package backup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestRemoveLeftovers: what a killed backup, restore or export left is
// removed as soon as its writer is gone (its pid is in the name); what a
// running process writes is kept; a name without a pid (older versions)
// waits a day.
func TestRemoveLeftovers(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("cannot run a short-lived process:", err)
	}
	dead, alive := strconv.Itoa(gone.Process.Pid), strconv.Itoa(os.Getppid())
	write := func(name string, age time.Duration) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		os.Chtimes(p, at, at)
		return p
	}
	deadBackup := write(".backup-"+dead+"-123.tmp", 0)
	deadExport := filepath.Join(dir, ".export-"+dead+"-9.tmp")
	os.Mkdir(deadExport, 0o700)
	os.WriteFile(filepath.Join(deadExport, "memory.json"), []byte("{}"), 0o600)
	mine := write(".restore-"+strconv.Itoa(os.Getpid())+"-1.tmp", 0)
	running := write(".backup-"+alive+"-7.tmp", 0)
	oldStyle := write(".backup-123456.tmp", 25*time.Hour)
	oldStyleFresh := write(".manifest-99.tmp", time.Hour)
	other := write("backup_2025-01-01T00-00-00Z.archive.gz", 48*time.Hour)

	n, err := RemoveLeftovers(nil, time.Now(), dir)
	if err != nil || n != 3 {
		t.Fatalf("removed %d: %v", n, err)
	}
	for _, p := range []string{deadBackup, deadExport, oldStyle} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s kept", filepath.Base(p))
		}
	}
	for _, p := range []string{mine, running, oldStyleFresh, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
	if tempPattern("backup") != ".backup-"+strconv.Itoa(os.Getpid())+"-*.tmp" {
		t.Fatal(tempPattern("backup"))
	}
}
