package maintenance

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/testenv"
)

// every fires at each multiple of d; cron's own parser cannot go below a second.
type every time.Duration

func (e every) Next(t time.Time) time.Time { return t.Truncate(time.Duration(e)).Add(time.Duration(e)) }

func TestJobsNeverOverlap(t *testing.T) {
	store := testenv.Store(t)
	s := NewScheduler(store, Options{Logger: testenv.Logger(t)})
	var running, maxRunning, runs atomic.Int32
	job := func(ctx context.Context, dryRun bool) (*Report, error) {
		n := running.Add(1)
		for {
			m := maxRunning.Load()
			if n <= m || maxRunning.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(120 * time.Millisecond)
		running.Add(-1)
		runs.Add(1)
		return &Report{}, nil
	}
	s.Add("a", every(50*time.Millisecond), job)
	s.Add("b", every(50*time.Millisecond), job)
	s.Start(context.Background())
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); s.RunNow(context.Background(), "a", false) }()
	}
	time.Sleep(700 * time.Millisecond)
	wg.Wait()
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if maxRunning.Load() != 1 {
		t.Fatalf("%d jobs ran at once", maxRunning.Load())
	}
	if runs.Load() < 5 {
		t.Fatalf("only %d runs", runs.Load())
	}
}

func TestPanicDoesNotStopOtherJobs(t *testing.T) {
	store := testenv.Store(t)
	s := NewScheduler(store, Options{Logger: testenv.Logger(t)})
	var panics, good atomic.Int32
	// Each job says when it has run three times (waiting for that, not for
	// a fixed time: at load a 40 ms schedule can run far slower).
	badThrice, goodThrice := make(chan struct{}), make(chan struct{})
	s.Add("bad", every(40*time.Millisecond), func(context.Context, bool) (*Report, error) {
		if panics.Add(1) == 3 {
			close(badThrice)
		}
		panic("boom")
	})
	s.Add("good", every(40*time.Millisecond), func(context.Context, bool) (*Report, error) {
		if good.Add(1) == 3 {
			close(goodThrice)
		}
		return &Report{Operations: []string{"did_something"}}, nil
	})
	s.Start(context.Background())
	// The panicking job keeps being scheduled (SkipIfStillRunning outside
	// Recover), and the other one keeps running.
	for _, c := range []chan struct{}{badThrice, goodThrice} {
		select {
		case <-c:
		case <-time.After(2 * time.Minute):
			s.Stop(context.Background())
			t.Fatalf("in 2 minutes of 40 ms schedules, the panicking job ran %d times, the other %d", panics.Load(), good.Load())
		}
	}
	s.Stop(context.Background())
	run, err := ReadRun(testenv.Context(t), store, "bad")
	if err != nil || run.Outcome != "failed" || !strings.Contains(run.Error, "panicked: boom") {
		t.Fatalf("panic not recorded: %+v %v", run, err)
	}
	if _, err := s.RunNow(context.Background(), "bad", false); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("on-demand panic: %v", err)
	}
}

func TestRunsAndAuditRecorded(t *testing.T) {
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	clock := time.Date(2025, 5, 14, 3, 30, 0, 0, time.UTC)
	s := NewScheduler(store, Options{Now: func() time.Time { return clock }})
	s.Add("dedup", nil, func(ctx context.Context, dryRun bool) (*Report, error) {
		r := &Report{}
		r.add("duplicates_merged", 2, "merged_2_duplicate_entries_undo_with_unforget_memory")
		r.change("merged_into:abc", "x", "y")
		r.Merges = append(r.Merges, MergeGroup{Scope: "Global", Kept: MemoryText{ID: "abc", Text: "Alice lives in Porto"},
			Merged: []MemoryText{{ID: "x", Text: "Alice lives in Porto."}, {ID: "y", Text: "alice lives in porto"}}})
		return r, nil
	})
	rep, err := s.RunNow(ctx, "dedup", true)
	if err != nil || !rep.DryRun || rep.Outcome != "ok" {
		t.Fatalf("%+v %v", rep, err)
	}
	if run, _ := ReadRun(ctx, store, "dedup"); !run.LastRun.IsZero() {
		t.Fatal("a dry run counted as the job's last run")
	}
	if _, err := s.RunNow(ctx, "dedup", false); err != nil {
		t.Fatal(err)
	}
	run, _ := ReadRun(ctx, store, "dedup")
	if !run.LastRun.Equal(clock) || run.Outcome != "ok" || run.Counts["duplicates_merged"] != 2 {
		t.Fatalf("run: %+v", run)
	}
	audit, err := Audit(ctx, store, 10)
	if err != nil || len(audit) != 2 || audit[0].DryRun || !audit[1].DryRun || audit[0].Changes[0].Action != "merged_into:abc" {
		t.Fatalf("audit: %+v %v", audit, err)
	}
	// The audit trail lists each merge group with its texts, dry runs too
	// (issue 12), so a person can check what was or would be merged.
	for _, a := range audit {
		if len(a.Merges) != 1 || a.Merges[0].Kept.Text != "Alice lives in Porto" || len(a.Merges[0].Merged) != 2 || a.Merges[0].Merged[1].Text != "alice lives in porto" {
			t.Fatalf("audit merges (dry run %v): %+v", a.DryRun, a.Merges)
		}
	}
	runs, _ := Runs(ctx, store)
	if runs["dedup"].Outcome != "ok" {
		t.Fatalf("runs: %+v", runs)
	}
	if _, err := s.RunNow(ctx, "nope", false); !errors.Is(err, ErrUnknownJob) {
		t.Fatal(err)
	}
}

// TestMissedRunCatchesUp: a job whose scheduled time passed while infmem
// was not running runs once at start.
func TestMissedRunCatchesUp(t *testing.T) {
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	sched, err := config.ParseSchedule("30 3 * * *")
	if err != nil {
		t.Fatal(err)
	}
	last := time.Date(2025, 5, 12, 3, 30, 0, 0, time.Local)
	clock := last
	s := NewScheduler(store, Options{Now: func() time.Time { return clock }})
	var ran atomic.Int32
	s.Add("maintenance", sched, func(context.Context, bool) (*Report, error) { ran.Add(1); return &Report{}, nil })
	if _, err := s.RunNow(ctx, "maintenance", false); err != nil {
		t.Fatal(err)
	}
	ran.Store(0)

	// The machine slept through the 13th's 03:30 and wakes at noon.
	clock = time.Date(2025, 5, 13, 12, 0, 0, 0, time.Local)
	s2 := NewScheduler(store, Options{Now: func() time.Time { return clock }})
	s2.Add("maintenance", sched, func(context.Context, bool) (*Report, error) { ran.Add(1); return &Report{}, nil })
	s2.Start(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for ran.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	s2.Stop(ctx)
	if ran.Load() != 1 {
		t.Fatalf("missed run executed %d times", ran.Load())
	}

	// Nothing missed: no catch-up run.
	ran.Store(0)
	clock = time.Date(2025, 5, 13, 20, 0, 0, 0, time.Local)
	s3 := NewScheduler(store, Options{Now: func() time.Time { return clock }})
	s3.Add("maintenance", sched, func(context.Context, bool) (*Report, error) { ran.Add(1); return &Report{}, nil })
	s3.Start(ctx)
	time.Sleep(200 * time.Millisecond)
	s3.Stop(ctx)
	if ran.Load() != 0 {
		t.Fatalf("ran %d times with nothing missed", ran.Load())
	}
}

// TestScheduleNext checks the configured schedules, across a DST change.
func TestScheduleNext(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	parse := func(expr string) cron.Schedule {
		t.Helper()
		s, err := cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow).Parse("CRON_TZ=Europe/Berlin " + expr)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		expr       string
		from, want time.Time
	}{
		// Nightly maintenance, an ordinary day.
		{"30 3 * * *", time.Date(2025, 5, 14, 3, 30, 0, 0, berlin), time.Date(2025, 5, 15, 3, 30, 0, 0, berlin)},
		// Spring forward (30 March 2025, 02:00 → 03:00): 03:30 exists, 23 hours later.
		{"30 3 * * *", time.Date(2025, 3, 29, 3, 30, 0, 0, berlin), time.Date(2025, 3, 30, 3, 30, 0, 0, berlin)},
		// Fall back (26 October 2025, 03:00 → 02:00): 03:30 happens once.
		{"30 3 * * *", time.Date(2025, 10, 25, 3, 30, 0, 0, berlin), time.Date(2025, 10, 26, 3, 30, 0, 0, berlin)},
		// Daily backup at 03:00 and weekly on Sunday at midnight.
		{"0 3 * * *", time.Date(2025, 3, 29, 12, 0, 0, 0, berlin), time.Date(2025, 3, 30, 3, 0, 0, 0, berlin)},
		{"0 0 * * 0", time.Date(2025, 5, 14, 12, 0, 0, 0, berlin), time.Date(2025, 5, 18, 0, 0, 0, 0, berlin)},
	}
	for _, c := range cases {
		got := parse(c.expr).Next(c.from)
		if !got.Equal(c.want) {
			t.Errorf("%q after %v: %v, want %v", c.expr, c.from, got, c.want)
		}
	}
	spring := parse("30 3 * * *").Next(time.Date(2025, 3, 29, 3, 30, 0, 0, berlin))
	if d := spring.Sub(time.Date(2025, 3, 29, 3, 30, 0, 0, berlin)); d != 23*time.Hour {
		t.Errorf("across spring-forward: %v apart, want 23h", d)
	}
	// A 02:30 job on the spring-forward day: that time does not exist.
	skip := parse("30 2 * * *").Next(time.Date(2025, 3, 29, 2, 30, 0, 0, berlin))
	if skip.Day() == 29 || skip.Before(time.Date(2025, 3, 30, 0, 0, 0, 0, berlin)) {
		t.Errorf("02:30 on the spring-forward day: %v", skip)
	}
	if s, _ := config.ParseSchedule("off"); s != nil {
		t.Error("off is a schedule")
	}
}
