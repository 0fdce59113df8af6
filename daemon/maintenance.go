package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/mcptools"
	"github.com/infmem/infmem/internal/summarize"
	"github.com/infmem/infmem/maintenance"
)

// What the daemon offers terminal commands for maintenance.
const (
	// JobMaintain runs maintenance jobs now; arguments MaintainJobArgs,
	// result a *maintenance.Report.
	JobMaintain = "maintain"
	// JobMaintenanceLog reads the audit trail; arguments {"limit": n},
	// result []maintenance.AuditEntry.
	JobMaintenanceLog = "maintenance-log"
)

// maintenanceService runs the scheduler (nightly maintenance and the
// scheduled backups) beside the open memory, and maintenance on demand.
// A reloaded configuration replaces the scheduler with one built on it.
type maintenanceService struct {
	root dataroot.Root
	loc  *time.Location
	log  *slog.Logger
	// oneShot: the runtime serves one terminal command; jobs run on
	// demand only (no schedule, no scheduled backups, no key made).
	oneShot bool

	mu sync.Mutex
	// cfg is the configuration in force (a reload replaces it).
	cfg config.Config
	// sched runs on st, built from built; nil while the memory is closed.
	sched *maintenance.Scheduler
	st    *Stack
	built config.Config
	// lease is set with sync enabled: the scheduler runs only while this
	// daemon holds the maintenance lease (lease.go); schedOn says whether
	// it runs.
	lease   *leaseState
	schedOn bool
}

func newMaintenanceService(cfg config.Config, root dataroot.Root, log *slog.Logger) *maintenanceService {
	m := &maintenanceService{cfg: cfg, root: root, loc: location(cfg.TimeZone), log: log}
	if cfg.Sync.Enabled {
		m.lease = &leaseState{device: cfg.DeviceName(), ttl: leaseTTLOf(cfg)}
	}
	return m
}

// config is the configuration in force.
func (m *maintenanceService) config() config.Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cfg
}

func (m *maintenanceService) envWith(st *Stack, cfg config.Config) *maintenance.Env {
	return &maintenance.Env{
		Engine: st.Memory, Store: st.Store, Config: cfg, Log: m.log,
		Summarizer: m.summarizer(st, cfg),
		LastBackup: func(ctx context.Context) (time.Time, bool) { return backup.LastBackupAt(ctx, st.Store) },
	}
}

// summarizer chains the configured ways to summarize: a connected client's
// model (MCP sampling) when one offers it, then a local Ollama when
// configured, then the offline extractive summarizer.
func (m *maintenanceService) summarizer(st *Stack, cfg config.Config) summarize.Summarizer {
	var s summarize.Summarizer = summarize.NewExtractive(st.Embedder, summarize.ExtractiveOptions{Location: m.loc, Logger: m.log})
	if cfg.Maintenance.Summarizer == "ollama" {
		o := summarize.NewOllama(cfg.Maintenance.OllamaURL, cfg.Maintenance.OllamaModel, s, nil)
		o.Logger = m.log
		s = o
	}
	sp := summarize.NewSampling(st.Sessions, s)
	sp.Logger = m.log
	return sp
}

// build makes the scheduler of cfg on an open stack, not yet started.
func (m *maintenanceService) build(st *Stack, cfg config.Config) (*maintenance.Scheduler, error) {
	sched := maintenance.NewScheduler(st.Store, maintenance.Options{Logger: m.log, Location: m.loc})
	if m.oneShot {
		maintenance.Register(sched, m.envWith(st, cfg), nil)
		return sched, nil
	}
	nightly, err := config.ParseSchedule(cfg.Maintenance.Schedule)
	if err != nil {
		return nil, err
	}
	maintenance.Register(sched, m.envWith(st, cfg), nightly)
	kinds, err := backup.Schedules(cfg.Backup)
	if err != nil {
		return nil, err
	}
	for _, k := range kinds {
		job := &backup.Job{Store: st.Store, Dir: m.root.BackupsDir(), Config: cfg.Backup, Logger: m.log}
		kind := k.Kind
		sched.Add("backup-"+string(kind), k.Schedule, func(ctx context.Context, dryRun bool) (*maintenance.Report, error) {
			rep := &maintenance.Report{}
			if dryRun {
				return rep, nil
			}
			res, err := job.Run(ctx, kind)
			if err != nil {
				return rep, err
			}
			rep.Operations = []string{"backed_up_to_" + res.File}
			rep.Counts = map[string]int{"documents": int(res.Documents())}
			return rep, nil
		})
	}
	return sched, nil
}

// attach starts the scheduler on an open stack.
func (m *maintenanceService) attach(ctx context.Context, st *Stack) (func(context.Context) error, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sched, err := m.build(st, m.cfg)
	if err != nil {
		return nil, err
	}
	m.sched, m.st, m.built = sched, st, m.cfg
	if m.oneShot {
		// Jobs run on demand only: nothing to start, nothing to stop.
		return func(context.Context) error {
			m.mu.Lock()
			m.sched, m.st = nil, nil
			m.mu.Unlock()
			return nil
		}, nil
	}
	if m.lease != nil {
		m.schedOn = false
		lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan struct{})
		go m.runLease(lctx, st, done)
		return func(ctx context.Context) error {
			cancel()
			select {
			case <-done:
			case <-ctx.Done():
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			s, on := m.sched, m.schedOn
			m.sched, m.st, m.schedOn = nil, nil, false
			if s == nil || !on {
				return nil
			}
			return s.Stop(ctx)
		}, nil
	}
	sched.Start(ctx)
	m.schedOn = true
	m.ensureBackupKey()
	return func(ctx context.Context) error {
		m.mu.Lock()
		defer m.mu.Unlock()
		// The scheduler running now: a reload may have replaced the one
		// started above.
		s := m.sched
		m.sched, m.st = nil, nil
		if s == nil {
			return nil
		}
		return s.Stop(ctx)
	}, nil
}

// ensureBackupKey makes the backup identity on the daemon's first run when
// backups are to be encrypted to it (no recipients configured), so the
// first scheduled backup is encrypted and status and doctor can name the
// key to keep a copy of from the start. Held with m.mu.
func (m *maintenanceService) ensureBackupKey() {
	b := m.cfg.Backup
	if b.Encryption == "off" || len(b.Recipients) > 0 || b.IdentityFile == "" {
		return
	}
	enc, err := backup.ConfiguredEncryption(b)
	switch {
	case err != nil:
		m.log.Warn("backups cannot be encrypted yet", "err", err)
	case enc.NewIdentity:
		m.log.Warn("made the backup identity that backups are encrypted to: keep a copy of it off this machine, a backup cannot be restored without it",
			"identity_file", enc.IdentityFile)
	}
}

// reconfigure takes a reloaded configuration. When what the jobs or their
// schedules read changed, the scheduler is replaced by one built on it —
// at once when no job runs, else once the running job has finished, so
// that a reload never cuts a backup or a maintenance pass short.
func (m *maintenanceService) reconfigure(ctx context.Context, cfg config.Config) error {
	m.mu.Lock()
	m.cfg = cfg
	old := m.sched
	same := sameForScheduler(m.built, cfg)
	m.mu.Unlock()
	if old == nil || same {
		return nil
	}
	if job := old.Running(); job != "" {
		m.log.Info("the new schedules apply once the running job finishes", "job", job)
		go func() {
			for old.Running() != "" {
				time.Sleep(200 * time.Millisecond)
			}
			if err := m.replace(context.Background(), old); err != nil {
				m.log.Error("cannot apply the reloaded maintenance and backup settings", "err", err)
			}
		}()
		return nil
	}
	return m.replace(ctx, old)
}

// replace stops old, if it is still the scheduler, and starts one built on
// the configuration in force.
func (m *maintenanceService) replace(ctx context.Context, old *maintenance.Scheduler) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sched != old {
		// Stopped (the memory closed) or replaced meanwhile.
		return nil
	}
	sched, err := m.build(m.st, m.cfg)
	if err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := old.Stop(sctx); err != nil {
		m.log.Warn("the previous scheduler did not stop cleanly", "err", err)
	}
	if m.schedOn {
		// Without sync always; with it, while this daemon holds the lease.
		sched.Start(sctx)
	}
	m.sched, m.built = sched, m.cfg
	m.log.Info("maintenance and backup schedules reloaded", "maintenance", m.cfg.Maintenance.Schedule,
		"daily_backup", m.cfg.Backup.DailySchedule, "weekly_backup", m.cfg.Backup.WeeklySchedule, "backups_enabled", m.cfg.Backup.Enabled)
	return nil
}

// sameForScheduler reports whether a and b differ in nothing the jobs and
// their schedules read (every live key but the log level).
func sameForScheduler(a, b config.Config) bool {
	for _, k := range config.Diff(a, b) {
		if config.Live(k) && !strings.HasPrefix(k, "logging.") {
			return false
		}
	}
	return true
}

func (m *maintenanceService) scheduler() (*maintenance.Scheduler, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sched == nil {
		return nil, errors.New("maintenance is not running (the memory is not open)")
	}
	return m.sched, nil
}

// MaintainJobArgs are the arguments of the maintain job.
type MaintainJobArgs struct {
	Job    string `json:"job"`
	DryRun bool   `json:"dry_run"`
}

func (m *maintenanceService) maintainJob(ctx context.Context, st *Stack, raw json.RawMessage) (any, error) {
	var args MaintainJobArgs
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("the maintain request is malformed: %w", err)
		}
	}
	if args.Job == "" {
		args.Job = maintenance.JobAll
	}
	sched, err := m.scheduler()
	if err != nil {
		return nil, err
	}
	rep, err := sched.RunNow(ctx, args.Job, args.DryRun)
	if err != nil && rep == nil {
		return nil, err
	}
	// A job that failed part-way still reports what it did.
	return rep, nil
}

func (m *maintenanceService) logJob(ctx context.Context, st *Stack, raw json.RawMessage) (any, error) {
	var args struct {
		Limit int `json:"limit"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("the maintenance-log request is malformed: %w", err)
		}
	}
	return maintenance.Audit(ctx, st.Store, args.Limit)
}

// state is the maintenance section of the daemon's status.
func (m *maintenanceService) state(ctx context.Context, st *Stack) (*maintenance.State, error) {
	return maintenance.ReadState(ctx, st.Store, m.config().Maintenance.Schedule, m.running())
}

func (m *maintenanceService) running() string {
	if s, err := m.scheduler(); err == nil {
		return s.Running()
	}
	return ""
}

// tools are the optimize_memory tool and the maintenance runs get_memory_stats shows.
func (m *maintenanceService) tools() toolHooks {
	return toolHooks{
		MaintenanceRuns: func(ctx context.Context, st *Stack) (map[string]mcptools.MaintenanceRun, error) {
			runs, err := maintenance.Runs(ctx, st.Store)
			if err != nil {
				return nil, err
			}
			out := make(map[string]mcptools.MaintenanceRun, len(runs))
			for name, r := range runs {
				out[name] = mcptools.MaintenanceRun{LastRun: r.LastRun.UTC().Format(time.RFC3339), Outcome: r.Outcome,
					DurationMS: r.Duration.Milliseconds(), Warnings: r.Warnings}
			}
			return out, nil
		},
		Optimize: func(ctx context.Context, st *Stack, job string, dryRun bool) (mcptools.OptimizeResult, error) {
			sched, err := m.scheduler()
			if err != nil {
				return mcptools.OptimizeResult{}, err
			}
			rep, err := sched.RunNow(ctx, job, dryRun)
			if errors.Is(err, maintenance.ErrUnknownJob) {
				return mcptools.OptimizeResult{}, mcptools.BadInput("%v", err)
			}
			if rep == nil {
				return mcptools.OptimizeResult{}, err
			}
			out := mcptools.OptimizeResult{Operations: rep.Operations, Counts: rep.Counts, Warnings: rep.Warnings, DryRun: dryRun}
			for _, g := range rep.Merges {
				mg := mcptools.MergeGroup{Scope: g.Scope, Kept: mcptools.MergedMemory{MemoryID: g.Kept.ID, Text: g.Kept.Text}}
				for _, m := range g.Merged {
					mg.Merged = append(mg.Merged, mcptools.MergedMemory{MemoryID: m.ID, Text: m.Text})
				}
				out.Merges = append(out.Merges, mg)
			}
			if err != nil {
				out.Warnings = append(out.Warnings, "some jobs failed: "+err.Error())
			}
			return out, nil
		},
	}
}
