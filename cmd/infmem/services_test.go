package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/mongostore"
)

const secretWords = "correct-horse-battery-staple"

// The passphrase a terminal sends to the daemon prints and logs as
// redacted; only its JSON (for the owner-only socket) carries it.
func TestWirePassphraseNeverPrints(t *testing.T) {
	args := backupJobArgs{Encryption: encPassphrase, Passphrase: secretWords}
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("job", "args", args, "passphrase", args.Passphrase)
	for _, s := range []string{fmt.Sprint(args), fmt.Sprintf("%+v", args), fmt.Sprintf("%#v", args), fmt.Sprintf("%s", args.Passphrase), logged.String()} {
		if strings.Contains(s, secretWords) {
			t.Fatalf("passphrase printed: %s", s)
		}
	}
	b, err := json.Marshal(args)
	if err != nil || !strings.Contains(string(b), secretWords) {
		t.Fatalf("the socket's JSON must carry the passphrase: %s %v", b, err)
	}
}

// The backup job records a failed manual backup for status and doctor,
// and neither its error nor the service log holds the passphrase.
func TestBackupJobRecordsOutcomeWithoutSecrets(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	withStore(t, root, func(store *mongostore.Store) {
		addMemories(t, store, "Global", 3)
		ctx := context.Background()
		var logged bytes.Buffer
		cfg := config.Defaults().Backup
		notADir := filepath.Join(t.TempDir(), "file")
		os.WriteFile(notADir, nil, 0o600)
		svc := &backupService{cfg: cfg, dir: notADir, exportDir: filepath.Join(root, "export"),
			log: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))}
		st := &daemon.Stack{Store: store}
		raw, _ := json.Marshal(backupJobArgs{Encryption: encPassphrase, Passphrase: secretWords})

		_, err := svc.backupJob(ctx, st, raw)
		if err == nil || strings.Contains(err.Error(), secretWords) {
			t.Fatalf("backup into a file: %v", err)
		}
		if _, err := svc.backupJob(ctx, st, json.RawMessage(`{"encryption":"passphrase","passphrase":"`+secretWords)); err == nil || strings.Contains(err.Error(), secretWords) {
			t.Fatalf("malformed request: %v", err)
		}
		rep, err := svc.report(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		b := rep.(*backupState)
		if m, ok := b.Runs["manual"]; !ok || m.OK || m.Error == "" || len(b.Failing) != 1 || b.Failing[0] != "manual" {
			t.Fatalf("failed manual backup not reported: %+v", b)
		}
		// The record outlives the daemon that made it, and holds no secret.
		fresh := &backupService{cfg: cfg, dir: notADir, log: svc.log}
		if rep, err := fresh.report(ctx, st); err != nil || len(rep.(*backupState).Failing) != 1 {
			t.Fatalf("failed manual backup forgotten by a new daemon: %+v %v", rep, err)
		}
		var stored bson.M
		if err := store.GetMeta(ctx, backup.StatusKey, &stored); err != nil || strings.Contains(fmt.Sprint(stored), secretWords) {
			t.Fatalf("stored record: %v %v", stored, err)
		}

		svc.dir = filepath.Join(root, "backups")
		out, err := svc.backupJob(ctx, st, raw)
		if err != nil {
			t.Fatal(err)
		}
		res := out.(*backup.Result)
		if res.Manifest.Encryption != backup.EncryptionPassphrase || res.Manifest.Kind != backup.KindManual || res.Documents() < 3 {
			t.Fatalf("backup: %+v", res.Manifest)
		}
		rep, _ = svc.report(ctx, st)
		b = rep.(*backupState)
		if !b.Runs["manual"].OK || len(b.Failing) != 0 || b.LastBackup == nil || b.LastBackup.File != res.File {
			t.Fatalf("after a good backup: %+v", b)
		}
		// An interrupted backup is not a failure: nothing is recorded.
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := svc.backupJob(cancelled, st, raw); err == nil {
			t.Fatal("backup ran on a cancelled context")
		}
		if rep, _ := svc.report(ctx, st); !rep.(*backupState).Runs["manual"].OK {
			t.Fatalf("interrupted backup recorded as a failure: %+v", rep)
		}
		if strings.Contains(logged.String(), secretWords) {
			t.Fatalf("passphrase in the service log:\n%s", logged.String())
		}

		// An unencrypted backup is refused when the daemon's config requires encryption.
		svc.cfg.Encryption = "required"
		none, _ := json.Marshal(backupJobArgs{Encryption: encNone})
		if _, err := svc.backupJob(ctx, st, none); err == nil || !strings.Contains(err.Error(), "required") {
			t.Fatalf("unencrypted under required: %v", err)
		}

		exp, _ := json.Marshal(exportJobArgs{Format: "json"})
		eo, err := svc.exportJob(ctx, st, exp)
		if er, ok := eo.(*backup.ExportResult); err != nil || !ok || er.Memories != 3 || len(er.Files) != 1 {
			t.Fatalf("export: %+v %v", eo, err)
		}
		if _, err := svc.exportJob(ctx, st, json.RawMessage(`{"format":"pdf"}`)); err == nil {
			t.Fatal("export accepted format pdf")
		}
	})
}

func TestBackupStateOverdue(t *testing.T) {
	now := time.Date(2025, 6, 10, 12, 0, 0, 0, time.UTC)
	old := now.Add(-72 * time.Hour)
	recent := now.Add(-24 * time.Hour)
	for _, c := range []struct {
		name string
		b    backupState
		want bool
	}{
		{"daily, last 3 days ago", backupState{Enabled: true, Scheduled: []string{"daily", "weekly"}, LastBackup: &backupRecordOut{At: old}}, true},
		{"daily, last yesterday", backupState{Enabled: true, Scheduled: []string{"daily"}, LastBackup: &backupRecordOut{At: recent}}, false},
		{"none, memory 3 days old", backupState{Enabled: true, Scheduled: []string{"daily"}, MemorySince: &old}, true},
		{"none, memory new", backupState{Enabled: true, Scheduled: []string{"daily"}, MemorySince: &recent}, false},
		{"weekly only, 3 days", backupState{Enabled: true, Scheduled: []string{"weekly"}, LastBackup: &backupRecordOut{At: old}}, false},
		{"weekly only, 9 days", backupState{Enabled: true, Scheduled: []string{"weekly"}, LastBackup: &backupRecordOut{At: now.Add(-9 * 24 * time.Hour)}}, true},
		{"disabled", backupState{Enabled: false, Scheduled: nil, LastBackup: &backupRecordOut{At: old}}, false},
	} {
		if got, _ := c.b.overdue(now); got != c.want {
			t.Errorf("%s: overdue %v, want %v", c.name, got, c.want)
		}
	}
}
