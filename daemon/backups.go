package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/mcptools"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
)

// What the daemon offers terminal commands for backups, on its control
// socket (control.Client.Run).
const (
	// JobBackup makes a manual backup; its arguments are BackupJobArgs and
	// its result a *backup.Result.
	JobBackup = "backup"
	// JobExport writes an export; its arguments are ExportJobArgs and its
	// result a *backup.ExportResult.
	JobExport = "export"
)

// ScryptWorkFactor is the scrypt cost of passphrase-encrypted backups;
// 0 is age's default. Tests lower it.
var ScryptWorkFactor = 0

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

// How a manual backup is encrypted (BackupJobArgs.Encryption).
const (
	// EncConfigured: as unattended backups are, to the configured
	// recipients (or not at all when the config allows it).
	EncConfigured = "configured"
	// EncPassphrase: with the passphrase that comes with the request.
	EncPassphrase = "passphrase"
	// EncNone: not at all (refused when backup.encryption is required).
	EncNone = "none"
)

// BackupJobArgs are the arguments of the backup job. The terminal decides
// them (it asks for a passphrase when one is needed); the daemon applies
// them against its own config.
type BackupJobArgs struct {
	Encryption string `json:"encryption"`
	// Passphrase is set only for EncPassphrase.
	Passphrase WirePassphrase `json:"passphrase,omitempty"`
}

// WirePassphrase is a passphrase on its way from a terminal to the daemon,
// over the owner-only control socket. It prints and logs as [REDACTED];
// only its JSON encoding, which goes to that socket alone, carries it.
type WirePassphrase string

func (WirePassphrase) String() string       { return "[REDACTED]" }
func (WirePassphrase) GoString() string     { return "[REDACTED]" }
func (WirePassphrase) LogValue() slog.Value { return slog.StringValue("[REDACTED]") }

// EncryptionFor turns the arguments into the backup's encryption under cfg.
func (a BackupJobArgs) EncryptionFor(cfg config.Backup) (backup.Encryption, error) {
	switch a.Encryption {
	case EncConfigured, "":
		return backup.ConfiguredEncryption(cfg)
	case EncPassphrase:
		p, err := backup.NewPassphrase(string(a.Passphrase))
		if err != nil {
			return backup.Encryption{}, err
		}
		return backup.Encryption{Passphrase: p, ScryptWorkFactor: ScryptWorkFactor}, nil
	case EncNone:
		if cfg.Encryption == "required" {
			return backup.Encryption{}, errors.New("an unencrypted backup is refused: the config sets backup.encryption to required")
		}
		return backup.Encryption{}, nil
	}
	return backup.Encryption{}, fmt.Errorf("unknown backup encryption %q", a.Encryption)
}

// backupJob makes a manual backup of the open memory.
func (b *backupService) backupJob(ctx context.Context, s *Stack, raw json.RawMessage) (any, error) {
	var args BackupJobArgs
	if len(raw) > 0 {
		// The decoder's message may quote part of its input, which can hold
		// a passphrase: say only that the request was malformed.
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, errors.New("the backup request is malformed")
		}
	}
	started := time.Now().UTC()
	enc, err := args.EncryptionFor(b.config())
	args.Passphrase = ""
	var res *backup.Result
	if err == nil {
		if s.Memory != nil {
			s.Memory.WritePendingVectors(ctx) // new memories' embeddings wait up to a second
		}
		res, err = backup.Create(ctx, s.Store, backup.Options{Dir: b.dir, Kind: backup.KindManual, Encryption: enc, Logger: b.log,
			Progress: func(p backup.Progress) { control.ReportProgress(ctx, p) }, Space: b.space})
	}
	RecordManualRun(ctx, s.Store, started, res, err, b.log)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// recordManualRun records how a manual backup went, for status and doctor
// (a failed one is recorded nowhere else). One the user interrupted is
// not a failure and is not recorded.
func RecordManualRun(ctx context.Context, store *mongostore.Store, started time.Time, res *backup.Result, err error, log *slog.Logger) {
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

// ExportJobArgs are the arguments of the export job.
type ExportJobArgs struct {
	// Scopes limits the export; empty exports every scope.
	Scopes []string `json:"scopes,omitempty"`
	// Format is all, json or markdown.
	Format string `json:"format"`
}

// Options are the export options of the request, writing into dir.
func (a ExportJobArgs) Options(dir string) backup.ExportOptions {
	return backup.ExportOptions{Dir: dir, Scopes: a.Scopes, JSON: a.Format != "markdown", Markdown: a.Format != "json"}
}

// exportJob writes an export of the open memory into export/.
func (b *backupService) exportJob(ctx context.Context, s *Stack, raw json.RawMessage) (any, error) {
	var args ExportJobArgs
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("the export request is malformed: %w", err)
		}
	}
	switch args.Format {
	case "", "all", "both", "json", "markdown":
	default:
		return nil, fmt.Errorf("export format %q is not one of all, json, markdown", args.Format)
	}
	eo := args.Options(b.exportDir)
	eo.Progress = func(p backup.Progress) { control.ReportProgress(ctx, p) }
	eo.Space = b.space
	eo.Location = userLocation(ctx, s, b.log)
	if s.Memory != nil {
		s.Memory.WritePendingVectors(ctx) // and the use counts not yet written
	}
	res, err := backup.Export(ctx, s.Store, eo)
	if err != nil {
		return nil, err
	}
	b.log.Info("export written", "dir", res.Dir, "memories", res.Memories, "summaries", res.Summaries)
	return res, nil
}

// userLocation is the zone an export gives local times in: the engine's
// reading of the user's zone (the profile's, else the configured one).
func userLocation(ctx context.Context, st *Stack, log *slog.Logger) *time.Location {
	if st.Memory == nil {
		// No engine (a stack with the database only): the profile's zone,
		// else the system's.
		loc, _ := memory.StoreLocation(ctx, st.Store, time.Local)
		return loc
	}
	loc, err := st.Memory.UserLocation(ctx)
	if err != nil {
		log.Warn("cannot use the user profile's time zone; using the configured one", "err", err)
	}
	return loc
}

// ExportLocation is userLocation for an export the CLI writes itself,
// without an engine: the profile's zone, else timeZone (the config's),
// else the system's.
func ExportLocation(ctx context.Context, store *mongostore.Store, timeZone string) *time.Location {
	loc, _ := memory.StoreLocation(ctx, store, location(timeZone))
	return loc
}

// backupTools are the backup_memory and export_memory tools: backups to
// the configured recipients (made as terminal backups are, with the
// free-space floor), exports into export/.
func (b *backupService) backupTool(ctx context.Context, st *Stack) (mcptools.BackupResult, error) {
	enc, err := backup.ConfiguredEncryption(b.config())
	if errors.Is(err, backup.ErrNoRecipients) {
		return mcptools.BackupResult{}, fmt.Errorf("%w: %v; add an age recipient to backup.recipients in the config (make one with 'infmem backup keygen'), or set backup.encryption to auto", mcptools.ErrBackupNotConfigured, err)
	}
	if err != nil {
		return mcptools.BackupResult{}, err
	}
	if st.Memory != nil {
		st.Memory.WritePendingVectors(ctx) // new memories' embeddings wait up to a second
	}
	res, err := backup.Create(ctx, st.Store, backup.Options{Dir: b.dir, Kind: backup.KindManual, Encryption: enc, Logger: b.log, Space: b.space})
	if err != nil {
		return mcptools.BackupResult{}, err
	}
	return mcptools.BackupResult{File: res.File, Encrypted: res.Manifest.Encryption != "none", Documents: int(res.Documents())}, nil
}

func (b *backupService) exportTool(ctx context.Context, st *Stack, req mcptools.ExportRequest) (mcptools.ExportResult, error) {
	if st.Memory != nil {
		st.Memory.WritePendingVectors(ctx) // and the use counts not yet written
	}
	res, err := backup.Export(ctx, st.Store, backup.ExportOptions{Dir: b.exportDir, Scopes: req.Scopes,
		JSON: req.Format != "markdown", Markdown: req.Format != "json", Space: b.space, Location: userLocation(ctx, st, b.log)})
	if err != nil {
		return mcptools.ExportResult{}, err
	}
	return mcptools.ExportResult{Dir: res.Dir, Files: res.Files, Memories: res.Memories + res.Summaries, Notice: res.Notice}, nil
}

// state is the backup section of the daemon's status.
func (b *backupService) state(ctx context.Context, st *Stack) (*backup.State, error) {
	return backup.ReadState(ctx, st.Store, b.config())
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
func limitTools(h toolHooks, l toolLimits) toolHooks {
	if next := h.Backup; next != nil {
		h.Backup = func(ctx context.Context, st *Stack) (mcptools.BackupResult, error) {
			return limitedCall(l.backup, func() (mcptools.BackupResult, error) { return next(ctx, st) })
		}
	}
	if next := h.Export; next != nil {
		h.Export = func(ctx context.Context, st *Stack, req mcptools.ExportRequest) (mcptools.ExportResult, error) {
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
