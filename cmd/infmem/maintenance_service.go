package main

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
	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/mcptools"
	"github.com/infmem/infmem/internal/summarize"
	"github.com/infmem/infmem/maintenance"
	"github.com/infmem/infmem/mongostore"
)

// What the daemon offers terminal commands for maintenance.
const (
	// jobMaintain runs maintenance jobs now; arguments maintainJobArgs,
	// result a *maintenance.Report.
	jobMaintain = "maintain"
	// jobMaintenanceLog reads the audit trail; arguments {"limit": n},
	// result []maintenance.AuditEntry.
	jobMaintenanceLog = "maintenance-log"
	// reporterMaintenance adds a maintenanceState to the daemon's status.
	reporterMaintenance = "maintenance"
)

// maintenanceService runs the scheduler (nightly maintenance and the
// scheduled backups) beside the open memory, and maintenance on demand.
// A reloaded configuration replaces the scheduler with one built on it.
type maintenanceService struct {
	root dataroot.Root
	loc  *time.Location
	log  *slog.Logger

	mu sync.Mutex
	// cfg is the configuration in force (a reload replaces it).
	cfg config.Config
	// sched runs on st, built from built; nil while the memory is closed.
	sched *maintenance.Scheduler
	st    *daemon.Stack
	built config.Config
}

func newMaintenanceService(s *session, log *slog.Logger) *maintenanceService {
	return &maintenanceService{cfg: s.cfg, root: s.root, loc: s.location(), log: log}
}

// config is the configuration in force.
func (m *maintenanceService) config() config.Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cfg
}

// env builds the jobs' environment on an open stack.
func (m *maintenanceService) env(st *daemon.Stack) *maintenance.Env {
	return m.envWith(st, m.config())
}

func (m *maintenanceService) envWith(st *daemon.Stack, cfg config.Config) *maintenance.Env {
	return &maintenance.Env{
		Engine: st.Memory, Store: st.Store, Config: cfg, Log: m.log,
		Summarizer: m.summarizer(st, cfg),
		LastBackup: func(ctx context.Context) (time.Time, bool) {
			s, err := backup.ReadStatus(ctx, st.Store)
			if err != nil || s.LastBackup == nil {
				return time.Time{}, false
			}
			return s.LastBackup.At, true
		},
	}
}

// summarizer chains the configured ways to summarize: a connected client's
// model (MCP sampling) when one offers it, then a local Ollama when
// configured, then the offline extractive summarizer.
func (m *maintenanceService) summarizer(st *daemon.Stack, cfg config.Config) summarize.Summarizer {
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
func (m *maintenanceService) build(st *daemon.Stack, cfg config.Config) (*maintenance.Scheduler, error) {
	sched := maintenance.NewScheduler(st.Store, maintenance.Options{Logger: m.log, Location: m.loc})
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
func (m *maintenanceService) attach(ctx context.Context, st *daemon.Stack) (func(context.Context) error, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sched, err := m.build(st, m.cfg)
	if err != nil {
		return nil, err
	}
	sched.Start(ctx)
	m.sched, m.st, m.built = sched, st, m.cfg
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
	sched.Start(sctx)
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

// maintainJobArgs are the arguments of the maintain job.
type maintainJobArgs struct {
	Job    string `json:"job"`
	DryRun bool   `json:"dry_run"`
}

func (m *maintenanceService) maintainJob(ctx context.Context, st *daemon.Stack, raw json.RawMessage) (any, error) {
	var args maintainJobArgs
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

func (m *maintenanceService) logJob(ctx context.Context, st *daemon.Stack, raw json.RawMessage) (any, error) {
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

// maintenanceState is the maintenance section of status.
type maintenanceState struct {
	Schedule string                    `json:"schedule"`
	Running  string                    `json:"running,omitempty"`
	Runs     map[string]maintenanceRun `json:"runs"`
}

// maintenanceRun is a job's last run (maintenance.Run) as status shows it.
type maintenanceRun struct {
	Job      string         `json:"job"`
	LastRun  time.Time      `json:"last_run"`
	Duration time.Duration  `json:"duration_ns"`
	Outcome  string         `json:"outcome"`
	Error    string         `json:"error,omitempty"`
	Counts   map[string]int `json:"counts,omitempty"`
	Warnings []string       `json:"warnings,omitempty"`
}

func (m *maintenanceService) report(ctx context.Context, st *daemon.Stack) (any, error) {
	return readMaintenanceState(ctx, st.Store, m.config(), m.running())
}

func (m *maintenanceService) running() string {
	if s, err := m.scheduler(); err == nil {
		return s.Running()
	}
	return ""
}

func readMaintenanceState(ctx context.Context, store *mongostore.Store, cfg config.Config, running string) (*maintenanceState, error) {
	runs, err := maintenance.Runs(ctx, store)
	if err != nil {
		return nil, err
	}
	out := &maintenanceState{Schedule: cfg.Maintenance.Schedule, Running: running, Runs: make(map[string]maintenanceRun, len(runs))}
	for name, r := range runs {
		out.Runs[name] = maintenanceRun{Job: r.Job, LastRun: r.LastRun, Duration: r.Duration, Outcome: r.Outcome,
			Error: r.Error, Counts: r.Counts, Warnings: r.Warnings}
	}
	return out, nil
}

// toolHooks are the backup_memory, export_memory and optimize_memory tools.
func (m *maintenanceService) toolHooks() daemon.ToolHooks {
	return daemon.ToolHooks{
		Backup: func(ctx context.Context, st *daemon.Stack) (mcptools.BackupResult, error) {
			enc, err := backup.ConfiguredEncryption(m.config().Backup)
			if errors.Is(err, backup.ErrNoRecipients) {
				return mcptools.BackupResult{}, fmt.Errorf("%w: %v; add an age recipient to backup.recipients in the config (make one with 'infmem backup keygen'), or set backup.encryption to auto", mcptools.ErrBackupNotConfigured, err)
			}
			if err != nil {
				return mcptools.BackupResult{}, err
			}
			res, err := backup.Create(ctx, st.Store, backup.Options{Dir: m.root.BackupsDir(), Kind: backup.KindManual, Encryption: enc, Logger: m.log})
			if err != nil {
				return mcptools.BackupResult{}, err
			}
			return mcptools.BackupResult{File: res.File, Encrypted: res.Manifest.Encryption != "none", Documents: int(res.Documents())}, nil
		},
		Export: func(ctx context.Context, st *daemon.Stack, req mcptools.ExportRequest) (mcptools.ExportResult, error) {
			res, err := backup.Export(ctx, st.Store, backup.ExportOptions{Dir: m.root.ExportDir(), Scopes: req.Scopes,
				JSON: req.Format != "markdown", Markdown: req.Format != "json"})
			if err != nil {
				return mcptools.ExportResult{}, err
			}
			return mcptools.ExportResult{Dir: res.Dir, Files: res.Files, Memories: res.Memories + res.Summaries, Notice: res.Notice}, nil
		},
		MaintenanceRuns: func(ctx context.Context, st *daemon.Stack) (map[string]mcptools.MaintenanceRun, error) {
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
		Optimize: func(ctx context.Context, st *daemon.Stack, job string, dryRun bool) (mcptools.OptimizeResult, error) {
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
