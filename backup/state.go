package backup

import (
	"context"
	"fmt"
	"time"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// State is what status and doctor show about backups: the newest backup,
// the last run of each schedule (and the last manual backup), and what is
// wrong with the configuration. ReadState is its only reader.
type State struct {
	// Enabled is backup.enabled; Scheduled lists the kinds with a schedule.
	Enabled   bool     `json:"enabled"`
	Scheduled []string `json:"scheduled,omitempty"`
	// LastBackup is the newest successful backup of any kind.
	LastBackup *StateBackup `json:"last_backup,omitempty"`
	// Runs holds the last run of each schedule (daily, weekly) and of
	// manual backups.
	Runs map[string]StateRun `json:"runs,omitempty"`
	// Failing lists the runs that failed after the newest backup was made.
	Failing []string `json:"failing,omitempty"`
	// Warnings are ConfigWarnings.
	Warnings []string `json:"warnings,omitempty"`
	// MemorySince is when this memory was created, which tells how long
	// it has gone without a backup when there is none.
	MemorySince *time.Time `json:"memory_since,omitempty"`
}

// StateBackup is BackupRecord as status prints it.
type StateBackup struct {
	File       string    `json:"file"`
	Kind       string    `json:"kind"`
	At         time.Time `json:"at"`
	Size       int64     `json:"size"`
	Encryption string    `json:"encryption"`
	Documents  int64     `json:"documents"`
}

// StateRun is the outcome of one backup run.
type StateRun struct {
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	OK         bool      `json:"ok"`
	Attempts   int       `json:"attempts,omitempty"`
	File       string    `json:"file,omitempty"`
	// Error is why it failed (it never holds a secret).
	Error          string `json:"error,omitempty"`
	RetentionError string `json:"retention_error,omitempty"`
}

// RunKinds orders the runs in status and doctor.
var RunKinds = []string{string(KindDaily), string(KindWeekly), string(KindManual)}

// ReadState reads the backup record of store and judges it against cfg.
func ReadState(ctx context.Context, store *mongostore.Store, cfg config.Backup) (*State, error) {
	st, err := ReadStatus(ctx, store)
	if err != nil {
		return nil, fmt.Errorf("cannot read the backup record: %w", err)
	}
	out := ConfigState(cfg)
	if lb := st.LastBackup; lb != nil {
		out.LastBackup = &StateBackup{File: lb.File, Kind: string(lb.Kind), At: lb.At, Size: lb.Size,
			Encryption: lb.Encryption, Documents: lb.Documents}
	}
	for kind, r := range st.Runs {
		if out.Runs == nil {
			out.Runs = map[string]StateRun{}
		}
		out.Runs[kind] = StateRun{StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, OK: r.OK, Attempts: r.Attempts,
			File: r.File, Error: r.Error, RetentionError: r.RetentionError}
	}
	for _, kind := range RunKinds {
		r, ok := out.Runs[kind]
		if ok && !r.OK && (out.LastBackup == nil || r.FinishedAt.After(out.LastBackup.At)) {
			out.Failing = append(out.Failing, kind)
		}
	}
	if g, err := store.Scopes.GetByName(ctx, scopes.Global); err == nil && !g.CreatedAt.IsZero() {
		since := g.CreatedAt.UTC()
		out.MemorySince = &since
	}
	return out, nil
}

// LastBackupAt is when the newest backup of store was made, if any.
func LastBackupAt(ctx context.Context, store *mongostore.Store) (time.Time, bool) {
	s, err := ReadStatus(ctx, store)
	if err != nil || s.LastBackup == nil {
		return time.Time{}, false
	}
	return s.LastBackup.At, true
}

// ConfigState is what the configuration alone says about backups.
func ConfigState(cfg config.Backup) *State {
	out := &State{Enabled: cfg.Enabled, Warnings: ConfigWarnings(cfg)}
	if sched, err := Schedules(cfg); err == nil {
		for _, s := range sched {
			out.Scheduled = append(out.Scheduled, string(s.Kind))
		}
	}
	return out
}

// OverdueAfter is how long backups may be missing before doctor fails:
// two days while a daily backup is scheduled, a week and a day when only
// a weekly one is.
func (b *State) OverdueAfter() time.Duration {
	for _, k := range b.Scheduled {
		if k == string(KindDaily) {
			return 48 * time.Hour
		}
	}
	if len(b.Scheduled) > 0 {
		return 8 * 24 * time.Hour
	}
	return 0
}

// Overdue reports whether backups are enabled and scheduled but none was
// made for longer than OverdueAfter, and since when.
func (b *State) Overdue(now time.Time) (bool, time.Time) {
	limit := b.OverdueAfter()
	if !b.Enabled || limit == 0 {
		return false, time.Time{}
	}
	switch {
	case b.LastBackup != nil:
		return now.Sub(b.LastBackup.At) > limit, b.LastBackup.At
	case b.MemorySince != nil:
		return now.Sub(*b.MemorySince) > limit, *b.MemorySince
	}
	return false, time.Time{}
}
