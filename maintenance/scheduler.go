package maintenance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/infmem/infmem/mongostore"
)

// JobFunc runs one job. dryRun asks it to report what it would change and
// change nothing.
type JobFunc func(ctx context.Context, dryRun bool) (*Report, error)

// job is a registered job.
type job struct {
	name     string
	schedule cron.Schedule // nil: on demand only
	fn       JobFunc
}

// Scheduler runs jobs on their schedules and on demand. Jobs never overlap
// each other or themselves: one runs at a time, and a scheduled run that
// finds its job already running is skipped. Each run is recorded in
// Metadata (last run, duration, outcome, counts) and in the audit trail.
type Scheduler struct {
	store *mongostore.Store
	log   *slog.Logger
	now   func() time.Time
	loc   *time.Location

	mu   sync.Mutex // guards jobs and cron
	jobs map[string]*job
	cron *cron.Cron

	// run serialises every job run, scheduled or not.
	run sync.Mutex
	// running names the job holding run, for status.
	runningMu sync.Mutex
	running   string

	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
}

// Options configures a Scheduler.
type Options struct {
	Logger *slog.Logger
	// Now is the clock used for missed-run detection and records.
	Now func() time.Time
	// Location is the time zone schedules are read in (default time.Local).
	Location *time.Location
}

// NewScheduler creates a scheduler recording into store.
func NewScheduler(store *mongostore.Store, opts Options) *Scheduler {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	return &Scheduler{store: store, log: opts.Logger, now: opts.Now, loc: opts.Location, jobs: map[string]*job{}}
}

// Add registers a job; a nil schedule makes it on-demand only.
func (s *Scheduler) Add(name string, schedule cron.Schedule, fn JobFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.jobs[name] = &job{name: name, schedule: schedule, fn: fn}
}

// Jobs lists the registered job names.
func (s *Scheduler) Jobs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.jobs))
	for n := range s.jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Start begins firing scheduled jobs, and runs once, in the background,
// every job whose last scheduled time passed while infmem was not running
// (the machine slept or was off).
func (s *Scheduler) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	cl := cronLogger{s.log}
	// SkipIfStillRunning must wrap Recover: the other way round, a panic
	// escapes before the running mark is cleared and the job never runs
	// again.
	s.cron = cron.New(cron.WithLocation(s.loc), cron.WithChain(cron.SkipIfStillRunning(cl), cron.Recover(cl)))
	var missed []*job
	for _, j := range s.jobs {
		if j.schedule == nil {
			continue
		}
		j := j
		s.cron.Schedule(j.schedule, cron.FuncJob(func() { s.runScheduled(j) }))
		if s.missed(ctx, j) {
			missed = append(missed, j)
		}
	}
	s.cron.Start()
	sort.Slice(missed, func(a, b int) bool { return missed[a].name < missed[b].name })
	if len(missed) > 0 {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for _, j := range missed {
				if s.ctx.Err() != nil {
					return
				}
				s.log.Info("running a job missed while infmem was not running", "job", j.name)
				s.runScheduled(j)
			}
		}()
	}
}

// missed reports whether j's next run after its last recorded one is due.
func (s *Scheduler) missed(ctx context.Context, j *job) bool {
	rec, err := ReadRun(ctx, s.store, j.name)
	if err != nil || rec.LastRun.IsZero() {
		// Never ran: the first run is the next scheduled one.
		return false
	}
	return !j.schedule.Next(rec.LastRun.In(s.loc)).After(s.now())
}

// Stop stops firing jobs and waits for a running one (bounded by ctx).
func (s *Scheduler) Stop(ctx context.Context) error {
	s.mu.Lock()
	c, cancel := s.cron, s.cancel
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	cancel()
	done := c.Stop().Done()
	waited := make(chan struct{})
	go func() { s.wg.Wait(); <-done; close(waited) }()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("a maintenance job did not stop in time: %w", ctx.Err())
	}
}

func (s *Scheduler) runScheduled(j *job) {
	if _, err := s.execute(s.ctx, j, false, "schedule"); err != nil {
		s.log.Warn("scheduled job failed", "job", j.name, "err", err)
	}
}

// ErrUnknownJob is returned by RunNow for a name no job has.
var ErrUnknownJob = errors.New("no such maintenance job")

// RunNow runs a job on demand and returns its report. It waits for a job
// already running to finish first.
func (s *Scheduler) RunNow(ctx context.Context, name string, dryRun bool) (*Report, error) {
	s.mu.Lock()
	j, ok := s.jobs[name]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w %q; the jobs are %s", ErrUnknownJob, name, strings.Join(s.Jobs(), ", "))
	}
	return s.execute(ctx, j, dryRun, "demand")
}

// Running names the job running now ("" when idle).
func (s *Scheduler) Running() string {
	s.runningMu.Lock()
	defer s.runningMu.Unlock()
	return s.running
}

// execute runs j alone, recovers a panic into an error, and records the run.
func (s *Scheduler) execute(ctx context.Context, j *job, dryRun bool, trigger string) (rep *Report, err error) {
	s.run.Lock()
	defer s.run.Unlock()
	s.runningMu.Lock()
	s.running = j.name
	s.runningMu.Unlock()
	defer func() {
		s.runningMu.Lock()
		s.running = ""
		s.runningMu.Unlock()
	}()
	start := s.now()
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("job %s panicked: %v", j.name, r)
				s.log.Error("maintenance job panicked", "job", j.name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			}
		}()
		rep, err = j.fn(ctx, dryRun)
	}()
	if rep == nil {
		rep = &Report{}
	}
	rep.Job, rep.DryRun, rep.Trigger = j.name, dryRun, trigger
	rep.Started, rep.Duration = start, s.now().Sub(start)
	rep.Outcome = "ok"
	if err != nil {
		rep.Outcome, rep.Error = "failed", err.Error()
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if rerr := s.record(rctx, rep); rerr != nil {
		s.log.Warn("cannot record a maintenance run", "job", j.name, "err", rerr)
	}
	s.log.Info("maintenance job finished", "job", j.name, "outcome", rep.Outcome, "dry_run", dryRun, "duration", rep.Duration.Round(time.Millisecond), "operations", rep.Operations)
	return rep, err
}

// cronLogger adapts slog to cron's logger.
type cronLogger struct{ l *slog.Logger }

func (c cronLogger) Info(msg string, kv ...any) { c.l.Debug("cron: "+msg, kv...) }
func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error("cron: "+msg, append(kv, "err", err)...)
}
