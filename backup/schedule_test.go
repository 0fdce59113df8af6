package backup

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/infmem/infmem/internal/config"
)

// warp runs a schedule offset ahead of real time, so a run due at 03:00
// can be made due in a moment without changing the schedule itself.
type warp struct {
	inner  cron.Schedule
	offset time.Duration
}

func (w warp) Next(t time.Time) time.Time { return w.inner.Next(t.Add(w.offset)).Add(-w.offset) }

// TestScheduledRunThroughCron drives the job with robfig/cron and the
// default daily schedule from the config (03:00), on a clock warped so
// that 03:00 comes in a third of a second.
func TestScheduledRunThroughCron(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 30)
	idFile := filepath.Join(t.TempDir(), "id.txt")
	recipient, err := GenerateIdentity(idFile, time.Now())
	must(t, err)
	cfg := config.Defaults().Backup
	cfg.Encryption, cfg.Recipients = "required", []string{recipient}
	scheds, err := Schedules(cfg)
	must(t, err)
	if len(scheds) != 2 || scheds[0].Kind != KindDaily || scheds[0].Spec != "0 3 * * *" || scheds[1].Kind != KindWeekly {
		t.Fatalf("schedules: %+v", scheds)
	}
	daily := scheds[0]
	real := time.Now()
	offset := daily.Schedule.Next(real).Sub(real) - 300*time.Millisecond
	job := &Job{Store: env.store, Dir: env.root.BackupsDir(), Config: cfg, Logger: testLogger(t),
		Now: func() time.Time { return time.Now().Add(offset) }}

	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	c := cron.New()
	c.Schedule(warp{daily.Schedule, offset}, cron.FuncJob(func() {
		res, err := job.Run(context.Background(), daily.Kind)
		select {
		case done <- outcome{res, err}:
		default:
		}
	}))
	c.Start()
	defer c.Stop()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the scheduled backup did not run")
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	m := o.res.Manifest
	at := m.CreatedAt.In(time.Local)
	if at.Hour() != 3 || at.Minute() != 0 || m.Kind != KindDaily || m.Encryption != EncryptionRecipients || m.Recipients[0] != recipient {
		t.Fatalf("scheduled backup: %+v (made at %v local)", m, at)
	}
	keys, _ := ReadIdentityFile(idFile)
	if _, err := Verify(context.Background(), o.res.Path, keys, nil); err != nil {
		t.Fatal(err)
	}
	st, err := ReadStatus(context.Background(), env.store)
	must(t, err)
	if r := st.Runs["daily"]; !r.OK || r.Attempts != 1 || r.File != o.res.File || st.LastBackup == nil || st.LastBackup.File != o.res.File || len(st.Failed()) != 0 {
		t.Fatalf("status: %+v", st)
	}
}

func TestSchedulesOffAndDisabled(t *testing.T) {
	cfg := config.Defaults().Backup
	cfg.WeeklySchedule = "off"
	s, err := Schedules(cfg)
	if err != nil || len(s) != 1 || s[0].Kind != KindDaily {
		t.Fatalf("%+v %v", s, err)
	}
	cfg.Enabled = false
	if s, err := Schedules(cfg); err != nil || len(s) != 0 {
		t.Fatalf("disabled: %+v %v", s, err)
	}
}

// hook runs a function when a log message is written: it lets a test act
// at an exact point of the job (between a failure and its retry).
type hook struct {
	slog.Handler
	msg string
	fn  func()
}

func (h hook) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.fn()
	}
	return h.Handler.Handle(ctx, r)
}

func TestJobFailuresAreRetriedAndRecorded(t *testing.T) {
	env := openTestStore(t)
	ctx := context.Background()
	cfg := config.Defaults().Backup
	cfg.Encryption = "off"

	t.Run("required encryption without recipients", func(t *testing.T) {
		c := cfg
		c.Encryption = "required"
		job := &Job{Store: env.store, Dir: env.root.BackupsDir(), Config: c, RetryAfter: time.Millisecond, Logger: testLogger(t)}
		_, err := job.Run(ctx, KindDaily)
		if !errors.Is(err, ErrNoRecipients) || !strings.Contains(err.Error(), "infmem backup keygen") {
			t.Fatalf("got %v", err)
		}
		st, _ := ReadStatus(ctx, env.store)
		if r := st.Runs["daily"]; r.OK || r.Attempts != 0 || !strings.Contains(r.Error, "backup.recipients is empty") {
			t.Fatalf("run record: %+v", r)
		}
		if f := st.Failed(); len(f) != 1 || f[0] != "daily" {
			t.Fatalf("failed: %v", f)
		}
	})
	t.Run("fails twice", func(t *testing.T) {
		notDir := filepath.Join(t.TempDir(), "not-a-dir")
		must(t, os.WriteFile(notDir, nil, 0o600))
		job := &Job{Store: env.store, Dir: notDir, Config: cfg, RetryAfter: time.Millisecond, Logger: testLogger(t)}
		if _, err := job.Run(ctx, KindWeekly); err == nil {
			t.Fatal("backup into a file succeeded")
		}
		st, _ := ReadStatus(ctx, env.store)
		if r := st.Runs["weekly"]; r.OK || r.Attempts != 2 || r.Error == "" {
			t.Fatalf("run record: %+v", r)
		}
	})
	t.Run("retry succeeds", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "backups")
		must(t, os.WriteFile(dir, nil, 0o600))
		// Between the failure and the retry, the problem goes away.
		log := slog.New(hook{Handler: testLogger(t).Handler(), msg: "scheduled backup failed; retrying once", fn: func() {
			os.Remove(dir)
		}})
		job := &Job{Store: env.store, Dir: dir, Config: cfg, RetryAfter: time.Millisecond, Logger: log}
		res, err := job.Run(ctx, KindDaily)
		must(t, err)
		st, _ := ReadStatus(ctx, env.store)
		if r := st.Runs["daily"]; !r.OK || r.Attempts != 2 || r.File != res.File || r.Error != "" || strings.Join(st.Failed(), ",") != "weekly" {
			t.Fatalf("run record: %+v", r)
		}
	})
}
