package backup

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/mongostore"
)

// Schedule is one scheduled backup: its kind and when it runs.
type Schedule struct {
	Kind Kind
	// Spec is the cron expression from the config.
	Spec     string
	Schedule cron.Schedule
}

// Schedules returns the configured backup schedules: none when backups are
// disabled, and none for a kind whose schedule is "off".
func Schedules(cfg config.Backup) ([]Schedule, error) {
	if !cfg.Enabled {
		return nil, nil
	}
	var out []Schedule
	for _, s := range []struct {
		kind Kind
		key  string
		spec string
	}{{KindDaily, "backup.daily_schedule", cfg.DailySchedule}, {KindWeekly, "backup.weekly_schedule", cfg.WeeklySchedule}} {
		sched, err := config.ParseSchedule(s.spec)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", s.key, err)
		}
		if sched != nil {
			out = append(out, Schedule{Kind: s.kind, Spec: s.spec, Schedule: sched})
		}
	}
	return out, nil
}

// Job is the scheduled backup job: the maintenance scheduler calls Run at
// each configured time.
type Job struct {
	Store *mongostore.Store
	// Dir is the backups directory.
	Dir    string
	Config config.Backup
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// RetryAfter is the wait before the one retry of a failed backup;
	// zero means one minute.
	RetryAfter time.Duration
	Logger     *slog.Logger
}

// Run makes a backup of kind (daily or weekly) encrypted to the configured
// recipients, retries once if it fails, then applies retention, and
// records the outcome in Metadata (see ReadStatus). The error is the
// backup's; a retention failure is logged and recorded, not returned.
func (j *Job) Run(ctx context.Context, kind Kind) (*Result, error) {
	now := j.Now
	if now == nil {
		now = time.Now
	}
	log := j.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	retry := j.RetryAfter
	if retry == 0 {
		retry = time.Minute
	}
	run := RunRecord{StartedAt: now().UTC()}
	finish := func(res *Result, err error) (*Result, error) {
		run.FinishedAt = now().UTC()
		run.OK = err == nil
		if err != nil {
			run.Error = err.Error()
		}
		if res != nil {
			run.File = res.File
		}
		// The record must be written even when ctx ended the run.
		if rerr := RecordRun(context.WithoutCancel(ctx), j.Store, kind, run); rerr != nil {
			log.Warn("cannot record the backup run", "kind", string(kind), "err", rerr)
		}
		return res, err
	}

	enc, err := ConfiguredEncryption(j.Config)
	if err != nil {
		// A configuration problem: retrying cannot help.
		log.Error("scheduled backup not made", "kind", string(kind), "err", err)
		return finish(nil, err)
	}
	opts := Options{Dir: j.Dir, Kind: kind, Encryption: enc, Now: now, Logger: log}
	var res *Result
	for attempt := 1; attempt <= 2; attempt++ {
		run.Attempts = attempt
		res, err = Create(ctx, j.Store, opts)
		if err == nil || ctx.Err() != nil {
			break
		}
		if attempt == 1 {
			log.Warn("scheduled backup failed; retrying once", "kind", string(kind), "retry_in", retry.String(), "err", err)
			select {
			case <-time.After(retry):
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				err = fmt.Errorf("%w (the retry was cancelled: %w)", err, ctx.Err())
				break
			}
		}
	}
	if err != nil {
		log.Error("scheduled backup failed", "kind", string(kind), "attempts", run.Attempts, "err", err)
		return finish(nil, err)
	}
	removed, rerr := Retention{Dir: j.Dir, KeepDaily: j.Config.KeepDaily, KeepWeekly: j.Config.KeepWeekly, Now: now, Logger: log}.Apply()
	run.Removed = removed
	if rerr != nil {
		run.RetentionError = rerr.Error()
		log.Error("backup retention failed", "err", rerr)
	}
	return finish(res, nil)
}
