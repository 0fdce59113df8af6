package daemon

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
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

const secretWords = "correct-horse-battery-staple"

// The passphrase a terminal sends to the daemon prints and logs as
// redacted; only its JSON (for the owner-only socket) carries it.
func TestWirePassphraseNeverPrints(t *testing.T) {
	args := BackupJobArgs{Encryption: EncPassphrase, Passphrase: secretWords}
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
	r := testenv.Root(t)
	root := r.Dir
	func(store *mongostore.Store) {
		addMemories(t, store, "Global", 3)
		ctx := context.Background()
		var logged bytes.Buffer
		cfg := config.Defaults().Backup
		notADir := filepath.Join(t.TempDir(), "file")
		os.WriteFile(notADir, nil, 0o600)
		svc := &backupService{cfg: cfg, dir: notADir, exportDir: filepath.Join(root, "export"),
			log: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))}
		st := &Stack{Store: store}
		raw, _ := json.Marshal(BackupJobArgs{Encryption: EncPassphrase, Passphrase: secretWords})

		_, err := svc.backupJob(ctx, st, raw)
		if err == nil || strings.Contains(err.Error(), secretWords) {
			t.Fatalf("backup into a file: %v", err)
		}
		if _, err := svc.backupJob(ctx, st, json.RawMessage(`{"encryption":"passphrase","passphrase":"`+secretWords)); err == nil || strings.Contains(err.Error(), secretWords) {
			t.Fatalf("malformed request: %v", err)
		}
		b, err := svc.state(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := b.Runs["manual"]; !ok || m.OK || m.Error == "" || len(b.Failing) != 1 || b.Failing[0] != "manual" {
			t.Fatalf("failed manual backup not reported: %+v", b)
		}
		// The record outlives the daemon that made it, and holds no secret.
		fresh := &backupService{cfg: cfg, dir: notADir, log: svc.log}
		if b, err := fresh.state(ctx, st); err != nil || len(b.Failing) != 1 {
			t.Fatalf("failed manual backup forgotten by a new daemon: %+v %v", b, err)
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
		b, _ = svc.state(ctx, st)
		if !b.Runs["manual"].OK || len(b.Failing) != 0 || b.LastBackup == nil || b.LastBackup.File != res.File {
			t.Fatalf("after a good backup: %+v", b)
		}
		// An interrupted backup is not a failure: nothing is recorded.
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := svc.backupJob(cancelled, st, raw); err == nil {
			t.Fatal("backup ran on a cancelled context")
		}
		if b, _ := svc.state(ctx, st); !b.Runs["manual"].OK {
			t.Fatalf("interrupted backup recorded as a failure: %+v", b)
		}
		if strings.Contains(logged.String(), secretWords) {
			t.Fatalf("passphrase in the service log:\n%s", logged.String())
		}

		// An unencrypted backup is refused when the daemon's config requires encryption.
		svc.cfg.Encryption = "required"
		none, _ := json.Marshal(BackupJobArgs{Encryption: EncNone})
		if _, err := svc.backupJob(ctx, st, none); err == nil || !strings.Contains(err.Error(), "required") {
			t.Fatalf("unencrypted under required: %v", err)
		}

		exp, _ := json.Marshal(ExportJobArgs{Format: "json"})
		eo, err := svc.exportJob(ctx, st, exp)
		if er, ok := eo.(*backup.ExportResult); err != nil || !ok || er.Memories != 3 || len(er.Files) != 1 {
			t.Fatalf("export: %+v %v", eo, err)
		}
		if _, err := svc.exportJob(ctx, st, json.RawMessage(`{"format":"pdf"}`)); err == nil {
			t.Fatal("export accepted format pdf")
		}
	}(testenv.StoreAt(t, r))
}

// addMemories stores n notes in scope straight into the database.
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
