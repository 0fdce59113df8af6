package backup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/mongostore"
)

// StatusKey is the Metadata _id of the backup job's record.
const StatusKey = "job:backup"

// Status is what the database remembers about backups, for status,
// doctor and get_memory_stats.
type Status struct {
	ID   string `bson:"_id"`
	Type string `bson:"type"`
	// LastBackup is the newest successful backup of any kind.
	LastBackup *BackupRecord `bson:"last_backup,omitempty"`
	// Runs holds the last run of each kind (daily, weekly, manual).
	Runs map[string]RunRecord `bson:"runs,omitempty"`
}

// BackupRecord describes one written backup.
type BackupRecord struct {
	File       string    `bson:"file"`
	Kind       Kind      `bson:"kind"`
	At         time.Time `bson:"at"`
	Size       int64     `bson:"size"`
	Encryption string    `bson:"encryption"`
	Documents  int64     `bson:"documents"`
}

// RunRecord is the outcome of one run.
type RunRecord struct {
	StartedAt  time.Time `bson:"started_at"`
	FinishedAt time.Time `bson:"finished_at"`
	OK         bool      `bson:"ok"`
	Attempts   int       `bson:"attempts"`
	File       string    `bson:"file,omitempty"`
	// Error is the failure, redacted (it never holds a secret).
	Error string `bson:"error,omitempty"`
	// Removed lists the backups retention deleted after this run.
	Removed []string `bson:"removed,omitempty"`
	// RetentionError is a retention failure; the backup itself succeeded.
	RetentionError string `bson:"retention_error,omitempty"`
}

// Failed lists the kinds whose last scheduled run failed.
func (s *Status) Failed() []string {
	var out []string
	for _, k := range []string{string(KindDaily), string(KindWeekly)} {
		if r, ok := s.Runs[k]; ok && !r.OK {
			out = append(out, k)
		}
	}
	return out
}

// ReadStatus reads the backup record; a database that never made a backup
// has an empty one.
func ReadStatus(ctx context.Context, store *mongostore.Store) (*Status, error) {
	var s Status
	err := store.GetMeta(ctx, StatusKey, &s)
	if errors.Is(err, mongostore.ErrNotFound) {
		return &Status{ID: StatusKey, Type: "job"}, nil
	}
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// setStatus updates fields of the record in place, so a manual backup and
// a scheduled run finishing together do not overwrite each other.
func setStatus(ctx context.Context, store *mongostore.Store, fields bson.D) error {
	fields = append(fields, bson.E{Key: "type", Value: "job"})
	_, err := store.Database().Collection(mongostore.Metadata).UpdateOne(ctx,
		bson.D{{Key: "_id", Value: StatusKey}},
		bson.D{{Key: "$set", Value: fields}},
		options.UpdateOne().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("cannot record backup status: %w", err)
	}
	return nil
}

func recordBackup(ctx context.Context, store *mongostore.Store, res *Result) error {
	return setStatus(ctx, store, bson.D{{Key: "last_backup", Value: BackupRecord{
		File: res.File, Kind: res.Manifest.Kind, At: res.Manifest.CreatedAt, Size: res.Manifest.Size,
		Encryption: res.Manifest.Encryption, Documents: res.Documents(),
	}}})
}

// RecordRun records the outcome of a run of kind (scheduled, or a manual
// backup) for status and doctor.
func RecordRun(ctx context.Context, store *mongostore.Store, kind Kind, run RunRecord) error {
	return setStatus(ctx, store, bson.D{{Key: "runs." + string(kind), Value: run}})
}

// ConfigWarnings lists what status and doctor should tell the user about
// the backup configuration; none means it is sound.
func ConfigWarnings(cfg config.Backup) []string {
	var w []string
	if !cfg.Enabled {
		w = append(w, "scheduled backups are disabled (backup.enabled is false)")
	}
	switch {
	case cfg.Encryption == "off":
		w = append(w, "backups are not encrypted (backup.encryption is off): anyone who can read a backup file can read the memory")
	case len(cfg.Recipients) == 0 && cfg.IdentityFile == "":
		w = append(w, "scheduled backups fail: backup.recipients is empty and there is no backup identity file to encrypt to; run 'infmem backup keygen' and add the recipient it prints")
	case len(cfg.Recipients) == 0:
		fi, err := os.Stat(cfg.IdentityFile)
		switch {
		case errors.Is(err, os.ErrNotExist):
			w = append(w, fmt.Sprintf("backups will be encrypted to a key made when the daemon first runs (or at the first backup), in %s: keep a copy of that file off this machine, since a backup without its key is lost", cfg.IdentityFile))
		case err != nil:
			w = append(w, fmt.Sprintf("scheduled backups fail: cannot read the backup identity %s: %v", cfg.IdentityFile, err))
		default:
			w = append(w, fmt.Sprintf("backups are encrypted to the key in %s: keep a copy of that file off this machine, since a backup without its key is lost", cfg.IdentityFile))
			if fi.Mode().Perm()&0o077 != 0 {
				w = append(w, fmt.Sprintf("the backup identity %s is readable by other users (mode %04o): run chmod 600 on it", cfg.IdentityFile, fi.Mode().Perm()))
			}
		}
	}
	return w
}
