package backup

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// Retention deletes scheduled backups beyond the configured number of each
// kind. It deletes only what the schedule made (a backup named by this
// package whose manifest says daily or weekly); manual and safety backups
// and any other file are never touched. The newest backup that passes its
// manifest check is never deleted, whatever its kind, so a run of broken
// backups cannot push out the last good one.
type Retention struct {
	Dir        string
	KeepDaily  int
	KeepWeekly int
	// Now is the clock; nil means time.Now. Temporary files this package
	// left behind (a crash during a backup or restore) are removed once
	// they are a day old; a running backup's are younger.
	Now    func() time.Time
	Logger *slog.Logger
}

// Apply deletes the backups retention no longer keeps and returns their
// names.
func (r Retention) Apply() ([]string, error) {
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	entries, err := List(r.Dir)
	if err != nil {
		return nil, err
	}
	// entries are newest first.
	protected := ""
	for i := range entries {
		if entries[i].Check() == nil {
			protected = entries[i].File
			break
		}
	}
	keep := map[Kind]int{KindDaily: r.KeepDaily, KindWeekly: r.KeepWeekly}
	seen := map[Kind]int{}
	var removed []string
	var errs []error
	for i := range entries {
		e := &entries[i]
		k := e.Kind()
		if _, scheduled := keep[k]; !scheduled {
			continue
		}
		if ok, _ := isBackupName(e.File); !ok {
			continue
		}
		seen[k]++
		if seen[k] <= keep[k] || e.File == protected {
			continue
		}
		if err := os.Remove(e.Path); err != nil {
			errs = append(errs, fmt.Errorf("cannot delete old backup %s: %w", e.File, err))
			continue
		}
		if err := os.Remove(manifestPath(e.Path)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("cannot delete the manifest of %s: %w", e.File, err))
		}
		r.Logger.Info("old backup deleted", "file", e.File, "kind", string(k))
		removed = append(removed, e.File)
	}
	if err := r.removeStaleTemp(); err != nil {
		errs = append(errs, err)
	}
	if len(removed) > 0 {
		syncDir(r.Dir)
	}
	return removed, errors.Join(errs...)
}

// removeStaleTemp deletes temporary files of backups, manifests and
// restores that a crash left in Dir.
func (r Retention) removeStaleTemp() error {
	_, err := RemoveLeftovers(r.Logger, r.Now(), r.Dir)
	return err
}
