package daemon

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/maintenance"
)

// TestScheduledBackupAndMaintenance runs the daemon's runtime with its real
// services and fast schedules: the scheduler makes daily backups and runs
// the nightly maintenance pass, each recorded where status reads it.
func TestScheduledBackupAndMaintenance(t *testing.T) {
	root := testenv.Root(t)
	cfg := config.Defaults()
	cfg.Backup.DailySchedule = "@every 1s"
	cfg.Backup.WeeklySchedule = "off"
	cfg.Maintenance.Schedule = "@every 1s"
	cfg.Embedding.Model = "hash"
	cfg.Backup.IdentityFile = filepath.Join(t.TempDir(), "backup-identity.txt")
	rt := NewRuntime(Options{Config: cfg, Root: root, Version: "test", Logger: testenv.Logger(t)})
	rt.Start()
	defer rt.Close(context.Background())

	ctx := testenv.Context(t)
	deadline := time.Now().Add(30 * time.Second)
	var files []string
	for time.Now().Before(deadline) {
		files, _ = filepath.Glob(filepath.Join(root.BackupsDir(), "backup_*.archive.gz.age"))
		if len(files) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(files) == 0 {
		t.Fatal("no scheduled backup appeared")
	}
	err := rt.Do(ctx, func(st *Stack) error {
		for time.Now().Before(deadline) {
			runs, err := maintenance.Runs(ctx, st.Store)
			if err != nil {
				return err
			}
			if runs["maintenance"].Outcome == "ok" && runs["backup-daily"].Outcome == "ok" {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		runs, _ := maintenance.Runs(ctx, st.Store)
		if runs["maintenance"].Outcome != "ok" || runs["backup-daily"].Outcome != "ok" {
			t.Errorf("scheduler runs: %+v", runs)
		}
		bs, err := backup.ReadStatus(ctx, st.Store)
		if err != nil {
			return err
		}
		if bs.LastBackup == nil || bs.Runs["daily"].OK != true {
			t.Errorf("backup status: %+v", bs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Encrypted out of the box, to the identity made on first use.
	if data, err := os.ReadFile(files[0]); err != nil || !bytes.HasPrefix(data, []byte("age-encryption.org/v1")) {
		t.Fatalf("backup file %s is not age-encrypted: %v", files[0], err)
	}
	if _, err := os.Stat(cfg.Backup.IdentityFile); err != nil {
		t.Fatalf("no identity made: %v", err)
	}
}
