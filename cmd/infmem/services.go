package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/mcptools"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// What the daemon offers terminal commands on its control socket.
const (
	// jobBackup makes a manual backup; its arguments are backupJobArgs and
	// its result a *backup.Result.
	jobBackup = "backup"
	// jobExport writes an export; its arguments are exportJobArgs and its
	// result a *backup.ExportResult.
	jobExport = "export"
	// reporterBackup adds a backupState to the daemon's status.
	reporterBackup = "backup"
)

// services are what the daemon runs beside the memory for one session:
// the components attached to the open memory, the jobs terminal commands
// start through the control socket, and the sections they add to the
// daemon's status.
type services struct {
	Attach    []daemon.Attach
	Jobs      map[string]daemon.Job
	Reporters map[string]daemon.Reporter
	Tools     daemon.ToolHooks
	// Reconfigure takes a reloaded configuration's live keys.
	Reconfigure []func(context.Context, config.Config) error
}

// newServices builds the daemon's services from the session's config and
// data root; log is the service log.
func newServices(s *session, log *slog.Logger) services {
	b := &backupService{cfg: s.cfg.Backup, dir: s.root.BackupsDir(), exportDir: s.root.ExportDir(), log: log}
	m := newMaintenanceService(s, log)
	tools := limitTools(m.toolHooks(), newToolLimits(time.Now))
	return services{
		Attach: []daemon.Attach{gcAttach, m.attach},
		Jobs: map[string]daemon.Job{
			jobBackup:         b.backupJob,
			jobExport:         b.exportJob,
			jobMaintain:       m.maintainJob,
			jobMaintenanceLog: m.logJob,
		},
		Reporters: map[string]daemon.Reporter{
			reporterBackup:      b.report,
			reporterMaintenance: m.report,
		},
		Tools:       tools,
		Reconfigure: []func(context.Context, config.Config) error{b.reconfigure, m.reconfigure},
	}
}

// serverGCPercent is the garbage collector's target in a server once its
// memory index is loaded: the heap may grow to 1.5 times the live data
// instead of Go's default 2. At 100k memories the server's RSS drops from
// about 360 to 290 MB with no measurable change in latency; during the
// index load itself, which makes garbage fast, it would cost time, so the
// default applies until then (BENCHMARKS.md). GOGC, when set, wins.
const serverGCPercent = 50

// gcAttach applies serverGCPercent once the stack's index is loaded.
func gcAttach(ctx context.Context, s *daemon.Stack) (func(context.Context) error, error) {
	if os.Getenv("GOGC") != "" {
		return nil, nil
	}
	stop := make(chan struct{})
	go func() {
		select {
		case <-s.Memory.Loaded():
			debug.SetGCPercent(serverGCPercent)
		case <-stop:
		}
	}()
	return func(context.Context) error { close(stop); return nil }, nil
}

// Backups and exports the MCP tools ask for are rate limited: a model
// calling backup_memory or export_memory in a loop would otherwise fill the
// disk with copies (the free-space floor, see backup.DefaultMinFree, stops
// it short of full, but only there). One of each runs at a time, and the
// next starts no sooner than this after the last successful one finished.
// A failed one (refused for lack of space, say) leaves nothing behind and
// does not count, so it can be tried again at once. Scheduled backups and
// the ones terminal commands ask for are not limited.
const (
	toolBackupInterval = time.Minute
	toolExportInterval = time.Minute
)

// toolLimits are the limits of the backup_memory and export_memory tools.
type toolLimits struct{ backup, export *callLimiter }

// newToolLimits makes the tools' limits on the clock now.
func newToolLimits(now func() time.Time) toolLimits {
	return toolLimits{
		backup: &callLimiter{what: "backup", interval: toolBackupInterval, now: now},
		export: &callLimiter{what: "export", interval: toolExportInterval, now: now},
	}
}

// limitTools applies l to the backup and export tools of h, and answers
// a refusal for lack of disk space as a refused request (an isError
// result that says how much is free), not as a failure of infmem.
func limitTools(h daemon.ToolHooks, l toolLimits) daemon.ToolHooks {
	if next := h.Backup; next != nil {
		h.Backup = func(ctx context.Context, st *daemon.Stack) (mcptools.BackupResult, error) {
			return limitedCall(l.backup, func() (mcptools.BackupResult, error) { return next(ctx, st) })
		}
	}
	if next := h.Export; next != nil {
		h.Export = func(ctx context.Context, st *daemon.Stack, req mcptools.ExportRequest) (mcptools.ExportResult, error) {
			return limitedCall(l.export, func() (mcptools.ExportResult, error) { return next(ctx, st, req) })
		}
	}
	return h
}

// callLimiter lets one call run at a time, and the next start only
// interval after the last successful one finished.
type callLimiter struct {
	// what names what the tool makes ("backup") in refusals.
	what     string
	interval time.Duration
	now      func() time.Time

	mu      sync.Mutex
	running bool
	last    time.Time // when the last successful call finished
}

// begin admits a call, or says why not and when to try again; done ends
// an admitted call and says whether it succeeded.
func (l *callLimiter) begin() (done func(ok bool), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running {
		return nil, mcptools.Refused("another %s is still running; try again when it has finished", l.what)
	}
	if !l.last.IsZero() {
		if wait := l.last.Add(l.interval).Sub(l.now()); wait > 0 {
			return nil, mcptools.Refused("this tool makes at most one %s every %d s, and the last one finished %d s ago; try again in %d s",
				l.what, ceilSeconds(l.interval), int64((l.interval-wait)/time.Second), ceilSeconds(wait))
		}
	}
	l.running = true
	return func(ok bool) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.running = false
		if ok {
			l.last = l.now()
		}
	}, nil
}

func ceilSeconds(d time.Duration) int64 { return int64((d + time.Second - 1) / time.Second) }

// limitedCall runs fn if l admits it.
func limitedCall[R any](l *callLimiter, fn func() (R, error)) (res R, err error) {
	done, err := l.begin()
	if err != nil {
		return res, err
	}
	ok := false
	defer func() { done(ok) }()
	res, err = fn()
	ok = err == nil
	var low *backup.LowSpaceError
	if errors.As(err, &low) {
		return res, mcptools.Refused("%s", low.Error())
	}
	return res, err
}

// apply adds the services to the daemon's options.
func (sv services) apply(o *daemon.Options) {
	o.Attach = append(o.Attach, sv.Attach...)
	if o.Jobs == nil {
		o.Jobs = map[string]daemon.Job{}
	}
	for name, j := range sv.Jobs {
		o.Jobs[name] = j
	}
	if o.Reporters == nil {
		o.Reporters = map[string]daemon.Reporter{}
	}
	for name, r := range sv.Reporters {
		o.Reporters[name] = r
	}
	o.Tools = sv.Tools
	o.Reconfigure = append(o.Reconfigure, sv.Reconfigure...)
}

// backupService makes the backups and exports terminal commands ask the
// daemon for, and reports the backup state.
type backupService struct {
	// cfg is the backup configuration, replaced by a reload (mu).
	mu        sync.Mutex
	cfg       config.Backup
	dir       string
	exportDir string
	log       *slog.Logger
	// space is the free-space floor of backups and exports; its zero
	// value is backup's default (tests set their own).
	space backup.Space
}

// config is the backup configuration in force.
func (b *backupService) config() config.Backup {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cfg
}

// reconfigure takes the backup settings of a reloaded configuration.
func (b *backupService) reconfigure(_ context.Context, cfg config.Config) error {
	b.mu.Lock()
	b.cfg = cfg.Backup
	b.mu.Unlock()
	return nil
}

// How a manual backup is encrypted (backupJobArgs.Encryption).
const (
	// encConfigured: as unattended backups are, to the configured
	// recipients (or not at all when the config allows it).
	encConfigured = "configured"
	// encPassphrase: with the passphrase that comes with the request.
	encPassphrase = "passphrase"
	// encNone: not at all (refused when backup.encryption is required).
	encNone = "none"
)

// backupJobArgs are the arguments of the backup job. The terminal decides
// them (it asks for a passphrase when one is needed); the daemon applies
// them against its own config.
type backupJobArgs struct {
	Encryption string `json:"encryption"`
	// Passphrase is set only for encPassphrase.
	Passphrase wirePassphrase `json:"passphrase,omitempty"`
}

// wirePassphrase is a passphrase on its way from a terminal to the daemon,
// over the owner-only control socket. It prints and logs as [REDACTED];
// only its JSON encoding, which goes to that socket alone, carries it.
type wirePassphrase string

func (wirePassphrase) String() string       { return "[REDACTED]" }
func (wirePassphrase) GoString() string     { return "[REDACTED]" }
func (wirePassphrase) LogValue() slog.Value { return slog.StringValue("[REDACTED]") }

// encryption turns the arguments into the backup's encryption under cfg.
func (a backupJobArgs) encryption(cfg config.Backup) (backup.Encryption, error) {
	switch a.Encryption {
	case encConfigured, "":
		return backup.ConfiguredEncryption(cfg)
	case encPassphrase:
		p, err := backup.NewPassphrase(string(a.Passphrase))
		if err != nil {
			return backup.Encryption{}, err
		}
		return backup.Encryption{Passphrase: p, ScryptWorkFactor: testOnlyScryptWorkFactor}, nil
	case encNone:
		if cfg.Encryption == "required" {
			return backup.Encryption{}, errors.New("an unencrypted backup is refused: the config sets backup.encryption to required")
		}
		return backup.Encryption{}, nil
	}
	return backup.Encryption{}, fmt.Errorf("unknown backup encryption %q", a.Encryption)
}

// backupJob makes a manual backup of the open memory.
func (b *backupService) backupJob(ctx context.Context, s *daemon.Stack, raw json.RawMessage) (any, error) {
	var args backupJobArgs
	if len(raw) > 0 {
		// The decoder's message may quote part of its input, which can hold
		// a passphrase: say only that the request was malformed.
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, errors.New("the backup request is malformed")
		}
	}
	started := time.Now().UTC()
	enc, err := args.encryption(b.config())
	args.Passphrase = ""
	var res *backup.Result
	if err == nil {
		res, err = backup.Create(ctx, s.Store, backup.Options{Dir: b.dir, Kind: backup.KindManual, Encryption: enc, Logger: b.log,
			Progress: func(p backup.Progress) { control.ReportProgress(ctx, p) }, Space: b.space})
	}
	recordManualRun(ctx, s.Store, started, res, err, b.log)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// recordManualRun records how a manual backup went, for status and doctor
// (a failed one is recorded nowhere else). One the user interrupted is
// not a failure and is not recorded.
func recordManualRun(ctx context.Context, store *mongostore.Store, started time.Time, res *backup.Result, err error, log *slog.Logger) {
	if ctx.Err() != nil {
		log.Info("manual backup interrupted")
		return
	}
	run := backup.RunRecord{StartedAt: started, FinishedAt: time.Now().UTC(), OK: err == nil, Attempts: 1}
	if err != nil {
		run.Error = err.Error()
		log.Error("manual backup failed", "err", err)
	} else {
		run.File = res.File
	}
	if rerr := backup.RecordRun(context.WithoutCancel(ctx), store, backup.KindManual, run); rerr != nil {
		log.Warn("cannot record the manual backup", "err", rerr)
	}
}

// exportJobArgs are the arguments of the export job.
type exportJobArgs struct {
	// Scopes limits the export; empty exports every scope.
	Scopes []string `json:"scopes,omitempty"`
	// Format is all, json or markdown.
	Format string `json:"format"`
}

func (a exportJobArgs) options(dir string) backup.ExportOptions {
	return backup.ExportOptions{Dir: dir, Scopes: a.Scopes, JSON: a.Format != "markdown", Markdown: a.Format != "json"}
}

// exportJob writes an export of the open memory into export/.
func (b *backupService) exportJob(ctx context.Context, s *daemon.Stack, raw json.RawMessage) (any, error) {
	var args exportJobArgs
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("the export request is malformed: %w", err)
		}
	}
	switch args.Format {
	case "", "all", "json", "markdown":
	default:
		return nil, fmt.Errorf("export format %q is not one of all, json, markdown", args.Format)
	}
	eo := args.options(b.exportDir)
	eo.Progress = func(p backup.Progress) { control.ReportProgress(ctx, p) }
	eo.Space = b.space
	res, err := backup.Export(ctx, s.Store, eo)
	if err != nil {
		return nil, err
	}
	b.log.Info("export written", "dir", res.Dir, "memories", res.Memories, "summaries", res.Summaries)
	return res, nil
}

// report is the backup section of the daemon's status.
func (b *backupService) report(ctx context.Context, s *daemon.Stack) (any, error) {
	return readBackupState(ctx, s.Store, b.config())
}

// backupState is what status and doctor show about backups: the newest
// backup, the last run of each schedule (and the last manual backup the
// daemon made), and what is wrong with the configuration.
type backupState struct {
	// Enabled is backup.enabled; Scheduled lists the kinds with a schedule.
	Enabled   bool     `json:"enabled"`
	Scheduled []string `json:"scheduled,omitempty"`
	// LastBackup is the newest successful backup of any kind.
	LastBackup *backupRecordOut `json:"last_backup,omitempty"`
	// Runs holds the last run of each schedule (daily, weekly) and, from a
	// daemon, the last manual backup it made.
	Runs map[string]backupRun `json:"runs,omitempty"`
	// Failing lists the runs that failed after the newest backup was made.
	Failing []string `json:"failing,omitempty"`
	// Warnings are backup.ConfigWarnings.
	Warnings []string `json:"warnings,omitempty"`
	// MemorySince is when this memory was created, which tells how long
	// it has gone without a backup when there is none.
	MemorySince *time.Time `json:"memory_since,omitempty"`
}

// backupRecordOut is backup.BackupRecord as status prints it.
type backupRecordOut struct {
	File       string    `json:"file"`
	Kind       string    `json:"kind"`
	At         time.Time `json:"at"`
	Size       int64     `json:"size"`
	Encryption string    `json:"encryption"`
	Documents  int64     `json:"documents"`
}

// backupRun is the outcome of one backup run.
type backupRun struct {
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	OK         bool      `json:"ok"`
	Attempts   int       `json:"attempts,omitempty"`
	File       string    `json:"file,omitempty"`
	// Error is why it failed (it never holds a secret).
	Error          string `json:"error,omitempty"`
	RetentionError string `json:"retention_error,omitempty"`
}

// readBackupState reads the backup record of store and judges it against
// cfg; manual is the last manual backup a daemon made, if any.
func readBackupState(ctx context.Context, store *mongostore.Store, cfg config.Backup) (*backupState, error) {
	st, err := backup.ReadStatus(ctx, store)
	if err != nil {
		return nil, fmt.Errorf("cannot read the backup record: %w", err)
	}
	out := configBackupState(cfg)
	if lb := st.LastBackup; lb != nil {
		out.LastBackup = &backupRecordOut{File: lb.File, Kind: string(lb.Kind), At: lb.At, Size: lb.Size,
			Encryption: lb.Encryption, Documents: lb.Documents}
	}
	for kind, r := range st.Runs {
		if out.Runs == nil {
			out.Runs = map[string]backupRun{}
		}
		out.Runs[kind] = backupRun{StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, OK: r.OK, Attempts: r.Attempts,
			File: r.File, Error: r.Error, RetentionError: r.RetentionError}
	}
	for _, kind := range runKinds {
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

// configBackupState is what the configuration alone says about backups.
func configBackupState(cfg config.Backup) *backupState {
	out := &backupState{Enabled: cfg.Enabled, Warnings: backup.ConfigWarnings(cfg)}
	if sched, err := backup.Schedules(cfg); err == nil {
		for _, s := range sched {
			out.Scheduled = append(out.Scheduled, string(s.Kind))
		}
	}
	return out
}

// runKinds orders the runs in status and doctor.
var runKinds = []string{string(backup.KindDaily), string(backup.KindWeekly), string(backup.KindManual)}

// overdueAfter is how long backups may be missing before doctor fails:
// two days while a daily backup is scheduled, a week and a day when only
// a weekly one is.
func (b *backupState) overdueAfter() time.Duration {
	for _, k := range b.Scheduled {
		if k == string(backup.KindDaily) {
			return 48 * time.Hour
		}
	}
	if len(b.Scheduled) > 0 {
		return 8 * 24 * time.Hour
	}
	return 0
}

// overdue reports whether backups are enabled and scheduled but none was
// made for longer than overdueAfter, and since when.
func (b *backupState) overdue(now time.Time) (bool, time.Time) {
	limit := b.overdueAfter()
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
