package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/logging"
	"github.com/infmem/infmem/internal/mcptools"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/memsync"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// Options configures a Runtime (and the Daemon that wraps one).
type Options struct {
	// Config is the loaded configuration.
	Config config.Config
	// Root is the prepared data root.
	Root dataroot.Root
	// Version is reported to MCP clients and in status.
	Version string
	Logger  *slog.Logger

	// CallWait bounds how long a tool call waits for the memory to become
	// available (database starting, paused for a restore) before it is told
	// to try again (default 5 s). The memory engine's own wait for its
	// index comes on top.
	CallWait time.Duration
	// RetryMax caps the back-off between attempts to open the database
	// (default 30 s).
	RetryMax time.Duration
	// ShutdownTimeout bounds a graceful stop (default 20 s).
	ShutdownTimeout time.Duration
	// OneShot makes a runtime for one terminal command (maintenance when
	// no daemon runs): no schedule starts and no scheduled backup runs.
	OneShot bool

	// LogLevel, when set, is the level of Logger; Reconfigure sets it to
	// a changed logging.level.
	LogLevel *slog.LevelVar
	// ConfigSource, when set, lets a Daemon read its configuration again
	// (see Daemon.Reload); without it the daemon keeps Config.
	ConfigSource *ConfigSource
}

// Stack is the open memory: the database, the scope registry and the memory
// engine built on them.
type Stack struct {
	Store  *mongostore.Store
	Scopes *scopes.Registry
	Memory *memory.Engine
	// Sync is the engine's sync with the other devices (nil with sync
	// off); Others, with sync off, looks for devices with sync on writing
	// to the same database (nil with sync on).
	Sync   *memsync.Sync
	Others *memsync.Others
	// Embedder is the engine's embedder (nil: keyword search only).
	Embedder embed.Embedder
	// Sessions are the connected MCP sessions.
	Sessions *Sessions

	cancel context.CancelFunc // ends the engine's background work
	stops  []func(context.Context) error
}

// Runtime owns the memory of one data root for one process: it opens the
// database in the background and keeps retrying, builds the memory engine
// and the MCP server on it, holds tool calls while the memory is not
// available, pauses for restores, and closes everything in order. Both
// `infmem daemon` and `infmem mcp --in-process` run one.
type Runtime struct {
	opts Options
	log  *slog.Logger
	srv  *server.MCPServer

	// transition serialises pause, resume and close with each other.
	transition sync.Mutex
	// reconfigure serialises Reconfigure; cfgMu guards cfg, the
	// configuration the runtime runs with (Options.Config with the live
	// keys of the last Reconfigure).
	reconfigure sync.Mutex
	cfgMu       sync.Mutex
	cfg         config.Config
	// uris holds the open store's connection string and its redacted form.
	uris atomic.Pointer[[2]string]
	// cfgProblem is why the configuration file is refused (nil: it
	// loads); onInitialize runs at each MCP initialize (configwarn.go).
	cfgProblem   atomic.Pointer[string]
	onInitialize atomic.Pointer[func()]

	mu       sync.Mutex
	state    string
	lastErr  error
	stack    *Stack
	inflight int
	// changed is closed, and replaced, whenever state or inflight change.
	changed    chan struct{}
	openCancel context.CancelFunc
	openDone   chan struct{}

	// sessions are the MCP sessions connected through Serve.
	sessions Sessions
	// calls bounds the tool calls running at once across all sessions.
	calls chan struct{}

	// svc are the services beside the memory: maintenance, backups.
	svc *services

	// embedder is shared by every engine this runtime starts; nil means
	// keyword search only.
	embedder embed.Embedder
	modelID  string
	dim      int
}

// NewRuntime builds the runtime and its MCP server; Start opens the memory.
func NewRuntime(opts Options) *Runtime {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.CallWait <= 0 {
		opts.CallWait = 5 * time.Second
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = 30 * time.Second
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 20 * time.Second
	}
	r := &Runtime{opts: opts, log: opts.Logger, state: control.StateStarting, changed: make(chan struct{}), cfg: opts.Config,
		calls: make(chan struct{}, MaxConcurrentCalls), svc: newServices(opts.Config, opts.Root, opts.OneShot, opts.Logger)}
	// The model loads in the background (USE-lite: ~15 ms); the first
	// embedding waits for it, nothing else does. One embedder serves every
	// engine this runtime starts (a resume after restore builds a new one).
	var err error
	if r.embedder, r.modelID, r.dim, err = embed.Load(opts.Config.Embedding.Model); err != nil {
		r.log.Error("embedding model unavailable; keyword search only", "model", opts.Config.Embedding.Model, "err", err)
	}
	if l, ok := r.embedder.(*embed.Lazy); ok {
		// A model that cannot load (a build without embedded weights that
		// lacks its weight file) leaves search keyword-only: say so once,
		// as it happens; status reports it too.
		go func() {
			if _, err := l.Wait(context.Background()); err != nil {
				r.log.Error("embedding model unavailable; search ranks by keywords only until the daemon restarts with a model that loads (memories stored meanwhile are embedded then)",
					"model", opts.Config.Embedding.Model, "err", err)
			}
		}()
	}
	deps := mcptools.Deps{
		Memory:     r.memoryFor,
		Write:      r.memoryToWrite,
		Logger:     opts.Logger,
		LastBackup: r.lastBackup,
		Redact:     r.redact,
	}
	if h := r.svc.tools.Backup; h != nil {
		deps.Backup = func(ctx context.Context) (res mcptools.BackupResult, err error) {
			err = r.Do(ctx, func(st *Stack) error { res, err = h(ctx, st); return err })
			return res, err
		}
	}
	if h := r.svc.tools.Export; h != nil {
		deps.Export = func(ctx context.Context, req mcptools.ExportRequest) (res mcptools.ExportResult, err error) {
			err = r.Do(ctx, func(st *Stack) error { res, err = h(ctx, st, req); return err })
			return res, err
		}
	}
	if h := r.svc.tools.Optimize; h != nil {
		deps.Optimize = func(ctx context.Context, job string, dryRun bool) (res mcptools.OptimizeResult, err error) {
			err = r.Do(ctx, func(st *Stack) error { res, err = h(ctx, st, job, dryRun); return err })
			return res, err
		}
	}
	if h := r.svc.tools.MaintenanceRuns; h != nil {
		deps.MaintenanceRuns = func(ctx context.Context) (res map[string]mcptools.MaintenanceRun, err error) {
			err = r.Do(ctx, func(st *Stack) error { res, err = h(ctx, st); return err })
			return res, err
		}
	}
	r.srv = mcptools.NewServer(deps, opts.Version, r.configWarningOptions()...)
	return r
}

// Config is the configuration the runtime runs with: the one it was built
// with, with the live keys of the last Reconfigure.
func (r *Runtime) Config() config.Config {
	r.cfgMu.Lock()
	defer r.cfgMu.Unlock()
	return r.cfg
}

// Reconfigure takes the live keys of next (config.Live) into the
// configuration the runtime runs with and tells the services (backups,
// maintenance) and Options.LogLevel about them. It returns the keys it applied and the keys
// of next that still differ from what runs, which take effect only after
// a restart. The error says what a component could not apply; the new
// values are in place all the same.
func (r *Runtime) Reconfigure(ctx context.Context, next config.Config) (applied, restart []string, err error) {
	r.reconfigure.Lock()
	defer r.reconfigure.Unlock()
	r.cfgMu.Lock()
	old := r.cfg
	cur := config.ApplyLive(old, next)
	r.cfg = cur
	r.cfgMu.Unlock()
	applied = config.Diff(old, cur)
	restart = config.Diff(cur, next)
	if len(applied) == 0 {
		return nil, restart, nil
	}
	if r.opts.LogLevel != nil && cur.Logging.Level != old.Logging.Level {
		if l, perr := logging.ParseLevel(cur.Logging.Level); perr == nil {
			r.opts.LogLevel.Set(l)
		}
	}
	var errs []error
	for _, h := range r.svc.reconfigure {
		if herr := h(ctx, cur); herr != nil {
			errs = append(errs, herr)
		}
	}
	return applied, restart, errors.Join(errs...)
}

// Server is the MCP server; serve it on any number of streams.
func (r *Runtime) Server() *server.MCPServer { return r.srv }

// Start opens the memory in the background and returns at once; tool
// calls wait for it (bounded by CallWait).
func (r *Runtime) Start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.openDone != nil || r.state != control.StateStarting {
		return
	}
	r.startOpeningLocked()
}

func (r *Runtime) startOpeningLocked() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	r.openCancel, r.openDone = cancel, done
	r.setStateLocked(control.StateStarting, nil)
	go func() {
		defer close(done)
		r.openLoop(ctx)
	}()
}

// cancelOpeningLocked cancels the open loop, under the same lock the loop
// takes to publish what it opened, so it cannot publish afterwards; the
// returned channel closes when the loop has gone.
func (r *Runtime) cancelOpeningLocked() <-chan struct{} {
	cancel, done := r.openCancel, r.openDone
	r.openCancel, r.openDone = nil, nil
	if cancel == nil {
		return nil
	}
	cancel()
	return done
}

// transitions lists, for each state of a runtime's memory, the states it
// may go to. Opening: starting → ready, or failed (retried: failed again,
// or ready). A pause (a restore) from any of those: pausing → paused →
// ready (resumed) or starting (reopened after a release, or after a
// resume that could not rebuild); a pause that cannot wait for its calls
// goes back to ready, or to starting when the memory was not open.
// Stopping ends everything.
var transitions = map[string][]string{
	control.StateStarting: {control.StateStarting, control.StateReady, control.StateFailed, control.StatePausing, control.StateStopping},
	control.StateFailed:   {control.StateFailed, control.StateReady, control.StatePausing, control.StateStopping},
	control.StateReady:    {control.StatePausing, control.StateStopping},
	control.StatePausing:  {control.StatePaused, control.StateReady, control.StateStarting, control.StateStopping},
	control.StatePaused:   {control.StateReady, control.StateStarting, control.StateStopping},
	control.StateStopping: {},
}

// invalidTransitions counts moves the table does not allow (a bug; tests
// check it stays zero).
var invalidTransitions atomic.Int64

// setStateLocked moves to state (err says why it failed) and wakes whoever
// waits for a change.
func (r *Runtime) setStateLocked(state string, err error) {
	if !slices.Contains(transitions[r.state], state) {
		invalidTransitions.Add(1)
		r.log.Error("invalid memory state transition", "from", r.state, "to", state)
	}
	r.state, r.lastErr = state, err
	close(r.changed)
	r.changed = make(chan struct{})
}

// pauseHeldLocked reports whether a pause (a restore) holds the memory.
func (r *Runtime) pauseHeldLocked() bool {
	return r.state == control.StatePausing || r.state == control.StatePaused
}

// openLoop opens the memory, retrying with back-off (a managed mongod that
// is slow to start, an external server not up yet, a terminal command that
// holds the embedded engine for a moment) until it succeeds or ctx ends.
func (r *Runtime) openLoop(ctx context.Context) {
	backoff := 500 * time.Millisecond
	for attempt := 1; ; attempt++ {
		start := time.Now()
		st, err := r.open(ctx)
		r.mu.Lock()
		if ctx.Err() != nil {
			r.mu.Unlock()
			if st != nil {
				r.closeStackBounded(st)
			}
			return
		}
		if err == nil {
			r.stack = st
			r.uris.Store(&[2]string{st.Store.URI(), st.Store.RedactedURI()})
			r.setStateLocked(control.StateReady, nil)
			r.mu.Unlock()
			r.log.Info("memory opened", "engine", st.Store.Engine, "duration", time.Since(start).Round(time.Millisecond))
			return
		}
		r.setStateLocked(control.StateFailed, err)
		r.mu.Unlock()
		r.log.Error("cannot open the memory; retrying", "attempt", attempt, "retry_in", backoff, "err", r.redact(err.Error()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, r.opts.RetryMax)
	}
}

// open builds the stack: the database (recovering an interrupted restore
// first), the scopes, the memory engine, then the attached components.
func (r *Runtime) open(ctx context.Context) (*Stack, error) {
	cfg := r.opts.Config
	store, err := mongostore.Open(ctx, mongostore.Options{
		Mode:       cfg.Mongo.Mode,
		URI:        cfg.Mongo.URI,
		MongodPath: cfg.Mongo.MongodPath,
		Root:       r.opts.Root,
		Database:   cfg.Database,
		Device:     syncDevice(cfg),
		Logger:     r.log,
	})
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Stack, error) {
		cctx, cancel := context.WithTimeout(context.Background(), r.opts.ShutdownTimeout)
		defer cancel()
		store.Close(cctx)
		return nil, err
	}
	if recovered, err := backup.RecoverRestore(ctx, store, r.opts.Root.RunDir(), r.log); err != nil {
		return fail(fmt.Errorf("cannot recover an interrupted restore: %w", err))
	} else if recovered {
		store.ForgetSnapshotToken()
		r.log.Warn("rolled back a restore that was interrupted")
	}
	if _, err := backup.RemoveLeftovers(r.log, time.Now(), r.opts.Root.BackupsDir(), r.opts.Root.ExportDir(), r.opts.Root.RunDir()); err != nil {
		r.log.Warn("cannot delete what an interrupted backup, restore or export left", "err", err)
	}
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: cfg.Scopes.AutoCreate})
	if err != nil {
		return fail(err)
	}
	st := &Stack{Store: store, Scopes: reg, Embedder: r.embedder, Sessions: &r.sessions}
	r.startEngine(st)
	if err := r.attach(ctx, st); err != nil {
		r.closeStackBounded(st)
		return nil, err
	}
	return st, nil
}

// syncPoll is how often a daemon with sync on reads the change feed.
var syncPoll = 500 * time.Millisecond

// otherWritersCheck is how often a daemon with sync off looks for devices
// with sync on writing to its database.
var otherWritersCheck = time.Minute

// syncDevice is the device the store is opened as: none without sync.
func syncDevice(cfg config.Config) string {
	if !cfg.Sync.Enabled {
		return ""
	}
	return cfg.DeviceName()
}

// startEngine builds the memory engine on st and starts its index load.
func (r *Runtime) startEngine(st *Stack) {
	cfg := r.opts.Config
	ectx, cancel := context.WithCancel(context.Background())
	st.cancel = cancel
	opts := engineOptions(cfg, r.opts.Root, st.Store.Engine, r.embedder, r.modelID, r.dim, r.log)
	if cfg.Sync.Enabled {
		st.Sync = memsync.New(st.Store, memsync.Options{Device: cfg.DeviceName(), Poll: syncPoll,
			KeepFor: time.Duration(cfg.Sync.FeedKeepDays) * 24 * time.Hour, KeepEntries: int64(cfg.Sync.FeedKeepEntries),
			ChangeStreams: cfg.Sync.ChangeStreams != "off"})
		opts.Follower = st.Sync
	} else {
		// Before the index loads, so that the first request can already
		// be told.
		st.Others = memsync.NewOthers(st.Store, r.log)
		go st.Others.Watch(ectx, otherWritersCheck)
	}
	st.Memory = memory.New(st.Store, st.Scopes, opts)
	st.Memory.Start(ectx)
}

// engineOptions are the options of every memory engine on a data root's
// database of the given engine (mongostore's Mode): the daemon's, and the
// one that writes a restore's snapshot (WriteIndexSnapshot), whose index
// must be the one the daemon would load.
func engineOptions(cfg config.Config, root dataroot.Root, engine string, emb embed.Embedder, modelID string, dim int, log *slog.Logger) memory.Options {
	opts := memory.Options{
		MaxContentBytes: cfg.Memory.MaxContentBytes,
		DefaultScope:    cfg.Scopes.Default,
		Location:        location(cfg.TimeZone),
		Embedder:        emb,
		ModelID:         modelID,
		Dim:             dim,
		QueryCache:      cfg.Embedding.CacheEntries,
		Logger:          log,
	}
	// Only a database this data root owns can vouch for a snapshot: an
	// external one may be written by others while the daemon is down,
	// unless sync is on: the change feed replays what others wrote since
	// the snapshot's feed position.
	if engine != mongostore.ModeExternal || cfg.Sync.Enabled {
		opts.SnapshotPath = root.Path(dataroot.MongoData, memory.SnapshotFile)
	}
	return opts
}

// WriteIndexSnapshot reads the memory index of store's database as the
// daemon's engine would and writes it as the index snapshot the daemon's
// next engine starts from (memory.SnapshotDatabase): for a restore, which
// replaced the database by other means than an engine, so that the first
// start after it (or the resume of a daemon it paused) does not read every
// memory before it answers (at 100k memories 3-6 s). It writes none
// (false) where the daemon keeps none (an external database) and none with
// sync on, whose snapshots carry a change feed position (the restore's feed
// entry makes every daemon reload anyway). The caller changes no memory
// through store after it.
func WriteIndexSnapshot(ctx context.Context, root dataroot.Root, cfg config.Config, store *mongostore.Store, log *slog.Logger) (bool, error) {
	if store.Engine == mongostore.ModeExternal || cfg.Sync.Enabled {
		return false, nil
	}
	// The model is only described (its identity and dimension, which the
	// snapshot names), not loaded: no memory is embedded here.
	emb, modelID, dim, err := embed.Load(cfg.Embedding.Model)
	if err != nil {
		emb, modelID, dim = nil, "", 0
	}
	opts := engineOptions(cfg, root, store.Engine, emb, modelID, dim, log)
	if err := memory.SnapshotDatabase(ctx, store, opts); err != nil {
		return false, err
	}
	return true, nil
}

func (r *Runtime) attach(ctx context.Context, st *Stack) error {
	for i, a := range r.svc.attach {
		stop, err := a(ctx, st)
		if err != nil {
			return fmt.Errorf("cannot start component %d: %w", i+1, err)
		}
		if stop != nil {
			st.stops = append(st.stops, stop)
		}
	}
	return nil
}

// detach stops the attached components, last started first.
func (r *Runtime) detach(ctx context.Context, st *Stack) error {
	var errs []error
	for i := len(st.stops) - 1; i >= 0; i-- {
		errs = append(errs, st.stops[i](ctx))
	}
	st.stops = nil
	return errors.Join(errs...)
}

// stopEngine flushes the engine's pending access updates and ends its
// background work.
func (r *Runtime) stopEngine(ctx context.Context, st *Stack) error {
	err := st.Memory.Close(ctx)
	st.cancel()
	return err
}

// closeStack stops everything on st and closes the database (stopping an
// embedded engine or a managed mongod).
func (r *Runtime) closeStack(ctx context.Context, st *Stack) {
	if err := r.detach(ctx, st); err != nil {
		r.log.Error("a component did not stop cleanly", "err", err)
	}
	if err := r.stopEngine(ctx, st); err != nil {
		r.log.Error("cannot flush the memory engine", "err", err)
	}
	if err := st.Store.Close(ctx); err != nil {
		r.log.Error("cannot close the database", "err", r.redact(err.Error()))
	}
}

// closeStackBounded closes st when no caller's deadline applies.
func (r *Runtime) closeStackBounded(st *Stack) {
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.ShutdownTimeout)
	defer cancel()
	r.closeStack(ctx, st)
}

// unavailable is why a call cannot have the memory right now. It wraps
// memory.ErrLoading so callers treat it like the index still loading: an
// isError result that says to try again.
type unavailable struct{ msg string }

func (e *unavailable) Error() string { return e.msg }
func (e *unavailable) Unwrap() error { return memory.ErrLoading }

// ErrStopped means the runtime has shut down.
var ErrStopped = errors.New("infmem is shutting down")

func (r *Runtime) unavailableLocked() error {
	switch r.state {
	case control.StateStarting:
		return &unavailable{"memory is still loading (the database is starting); try again in a few seconds"}
	case control.StatePausing, control.StatePaused:
		return &unavailable{"memory is paused while a backup is restored; try again in a few seconds"}
	case control.StateFailed:
		return &unavailable{fmt.Sprintf("memory is unavailable: %s; infmem keeps retrying (details in %s)",
			firstLine(r.redact(r.lastErr.Error())), r.opts.Root.Path(dataroot.Logs, logging.FileName))}
	}
	return &unavailable{"memory is shutting down; try again in a few seconds"}
}

// enter waits (at most wait) for the memory to be ready and counts the
// caller in, so a pause or shutdown waits for it; leave counts it out.
func (r *Runtime) enter(ctx context.Context, wait time.Duration) (*Stack, func(), error) {
	var timer <-chan time.Time
	for {
		r.mu.Lock()
		if r.state == control.StateReady {
			r.inflight++
			st := r.stack
			r.mu.Unlock()
			return st, r.leave, nil
		}
		if r.state == control.StateStopping || wait <= 0 {
			err := r.unavailableLocked()
			r.mu.Unlock()
			return nil, nil, err
		}
		changed := r.changed
		r.mu.Unlock()
		if timer == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-changed:
		case <-timer:
			// Time is up, unless the memory became ready just now.
			wait = 0
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

func (r *Runtime) leave() {
	r.mu.Lock()
	r.inflight--
	if r.inflight == 0 {
		close(r.changed)
		r.changed = make(chan struct{})
	}
	r.mu.Unlock()
}

// waitIdle waits until no call is in flight.
func (r *Runtime) waitIdle(ctx context.Context) error {
	for {
		r.mu.Lock()
		n, changed := r.inflight, r.changed
		r.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%d calls still running: %w", n, ctx.Err())
		}
	}
}

// memoryFor is mcptools' Deps.Memory, the one place a tool call waits:
// for the memory to open and then for its index to load, within CallWait
// in all, holding the call in (a pause or shutdown waits for release).
// When the wait runs out it says which of the two it was waiting for.
func (r *Runtime) memoryFor(ctx context.Context) (*memory.Engine, func(), error) {
	start := time.Now()
	st, leave, err := r.enter(ctx, r.opts.CallWait)
	if err != nil {
		return nil, nil, err
	}
	select {
	case <-st.Memory.Loaded():
		return st.Memory, leave, nil
	default:
	}
	t := time.NewTimer(max(r.opts.CallWait-time.Since(start), 0))
	defer t.Stop()
	select {
	case <-st.Memory.Loaded():
		return st.Memory, leave, nil
	case <-t.C:
		loaded, expected := st.Memory.LoadProgress()
		leave()
		return nil, nil, &unavailable{fmt.Sprintf("memory is still loading (%d of about %d memories indexed); try again in a few seconds", loaded, expected)}
	case <-ctx.Done():
		leave()
		return nil, nil, ctx.Err()
	}
}

// memoryToWrite is mcptools' Deps.Write, for the tools that write a
// memory: the memory once open (waiting within CallWait, as memoryFor),
// without waiting for its index. The engine stores at once while the
// index loads and makes the other writes wait for it (memory/late.go): a
// write refused because the load outlasted CallWait was lost when its
// client had left.
func (r *Runtime) memoryToWrite(ctx context.Context) (*memory.Engine, func(), error) {
	st, leave, err := r.enter(ctx, r.opts.CallWait)
	if err != nil {
		return nil, nil, err
	}
	return st.Memory, leave, nil
}

// lastBackup is mcptools' Deps.LastBackup.
func (r *Runtime) lastBackup(ctx context.Context) (at time.Time, ok bool) {
	r.Do(ctx, func(st *Stack) error {
		at, ok = backup.LastBackupAt(ctx, st.Store)
		return nil
	})
	return at, ok
}

// redact removes the database password from text.
func (r *Runtime) redact(s string) string {
	u := r.uris.Load()
	if u == nil || u[0] == "" || u[0] == u[1] {
		return s
	}
	return strings.ReplaceAll(s, u[0], u[1])
}

// Do runs fn on the open stack, waiting (bounded by CallWait) for it like
// a tool call; a pause or shutdown waits for fn to return.
func (r *Runtime) Do(ctx context.Context, fn func(*Stack) error) error {
	st, leave, err := r.enter(ctx, r.opts.CallWait)
	if err != nil {
		return err
	}
	defer leave()
	return fn(st)
}

// commandOpenWait bounds how long a terminal command waits for the
// database to open: longer than a tool call (CallWait), since the command
// has nothing else to do and a loaded machine can take more than a few
// seconds; still bounded, so a database that cannot open is reported.
const commandOpenWait = time.Minute

// WaitLoaded waits until the memory is open (at most commandOpenWait, or
// CallWait if longer) and its index loaded (until ctx ends): what a
// terminal command that reads the whole index (maintenance, an import)
// needs first.
func (r *Runtime) WaitLoaded(ctx context.Context) error {
	st, leave, err := r.enter(ctx, max(r.opts.CallWait, commandOpenWait))
	if err != nil {
		return err
	}
	loaded := st.Memory.Loaded()
	leave()
	select {
	case <-loaded:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ErrPaused means a pause is already held.
var ErrPaused = errors.New("memory is already paused by another client")

// Pause implements backup.Pauser for a restore that runs in this process
// on the runtime's own database: it lets running calls finish, holds new
// ones, and stops the attached components; the database stays open.
// resume(true) rebuilds the scopes and the memory engine from the
// database; resume(false) carries on as before.
func (r *Runtime) Pause(ctx context.Context) (func(reload bool) error, error) {
	return r.pause(ctx, false)
}

// Release pauses like Pause and also closes the database, so that another
// process (a restore run from a terminal) can open the data root; resume
// opens it again, which always rebuilds the memory from it.
func (r *Runtime) Release(ctx context.Context) (func(reload bool) error, error) {
	return r.pause(ctx, true)
}

func (r *Runtime) pause(ctx context.Context, release bool) (func(bool) error, error) {
	r.transition.Lock()
	defer r.transition.Unlock()
	r.mu.Lock()
	switch {
	case r.pauseHeldLocked():
		r.mu.Unlock()
		return nil, ErrPaused
	case r.state == control.StateStopping:
		r.mu.Unlock()
		return nil, ErrStopped
	}
	prev := r.state
	r.setStateLocked(control.StatePausing, nil)
	// Whatever is still opening stops trying until resumed.
	opening := r.cancelOpeningLocked()
	r.mu.Unlock()
	if opening != nil {
		<-opening
	}
	if err := r.waitIdle(ctx); err != nil {
		r.mu.Lock()
		if r.state == control.StateStopping {
			// A shutdown began meanwhile: it goes on.
			r.mu.Unlock()
			return nil, ErrStopped
		}
		if prev == control.StateReady {
			r.setStateLocked(control.StateReady, nil)
		} else {
			r.startOpeningLocked()
		}
		r.mu.Unlock()
		return nil, fmt.Errorf("cannot pause: %w", err)
	}
	r.mu.Lock()
	st := r.stack
	if release {
		r.stack = nil
	}
	r.mu.Unlock()
	if st != nil {
		if release {
			r.closeStack(ctx, st)
		} else {
			if err := r.detach(ctx, st); err != nil {
				r.log.Error("a component did not stop cleanly", "err", err)
			}
			// The engine closes now, while the database is still the one
			// its index mirrors: closing writes its snapshot, and one
			// written after a restore changed the database would be
			// trusted by the next start (see memory/snapshot.go).
			if err := r.stopEngine(ctx, st); err != nil {
				r.log.Error("cannot flush the memory engine", "err", err)
			}
		}
	}
	r.mu.Lock()
	if r.state == control.StateStopping {
		// A shutdown began meanwhile: it goes on, and closes what is left.
		r.mu.Unlock()
		return nil, ErrStopped
	}
	r.setStateLocked(control.StatePaused, nil)
	r.mu.Unlock()
	r.log.Info("memory paused", "release", release)
	var once sync.Once
	return func(reload bool) error {
		err := errors.New("already resumed")
		once.Do(func() { err = r.resume(reload) })
		return err
	}, nil
}

// resume ends a pause. A released (or never opened) stack is opened anew
// and resume waits, bounded, for the database to answer; on a kept stack a
// new engine starts (its scopes read again when reload is set).
func (r *Runtime) resume(reload bool) error {
	r.transition.Lock()
	r.mu.Lock()
	if r.state != control.StatePaused {
		r.mu.Unlock()
		r.transition.Unlock()
		return ErrStopped
	}
	st := r.stack
	if st == nil {
		r.startOpeningLocked()
		r.mu.Unlock()
		r.transition.Unlock()
		r.log.Info("memory resuming: opening the database again")
		return r.waitOpened(r.opts.ShutdownTimeout)
	}
	r.mu.Unlock()
	defer r.transition.Unlock()
	ctx := context.Background()
	// The pause closed the engine: a new one reads its index again, from
	// the snapshot the old one left when nothing changed, else (a restore
	// withdrew it) from the database.
	var err error
	if reload {
		err = st.Scopes.Reload(ctx)
	}
	if err == nil {
		r.startEngine(st)
		err = r.attach(ctx, st)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		// Start over from the database rather than serve a half-rebuilt stack.
		r.stack = nil
		go r.closeStackBounded(st)
		r.startOpeningLocked()
		return fmt.Errorf("cannot resume; reopening the database: %w", err)
	}
	r.setStateLocked(control.StateReady, nil)
	r.log.Info("memory resumed", "reload", reload)
	return nil
}

// waitOpened waits until the open loop succeeds or fails once.
func (r *Runtime) waitOpened(timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		r.mu.Lock()
		state, err, changed := r.state, r.lastErr, r.changed
		r.mu.Unlock()
		switch state {
		case control.StateReady:
			return nil
		case control.StateFailed:
			return fmt.Errorf("cannot open the database (infmem keeps retrying): %s", r.redact(err.Error()))
		case control.StateStarting:
		default:
			return ErrStopped
		}
		select {
		case <-changed:
		case <-t.C:
			return fmt.Errorf("the database did not open within %v (infmem keeps trying)", timeout)
		}
	}
}

// Close lets running calls finish (bounded by ctx), stops the attached
// components and the engine, and closes the database.
func (r *Runtime) Close(ctx context.Context) error {
	r.transition.Lock()
	defer r.transition.Unlock()
	r.BeginStop()
	idleErr := r.waitIdle(ctx)
	if idleErr != nil {
		r.log.Warn("closing with calls still running", "err", idleErr)
	}
	r.mu.Lock()
	st := r.stack
	r.stack = nil
	r.mu.Unlock()
	if st != nil {
		r.closeStack(ctx, st)
	}
	return idleErr
}

// BeginStop refuses new calls from now on (calls waiting for the memory
// are answered at once) and stops trying to open the database.
func (r *Runtime) BeginStop() {
	r.mu.Lock()
	if r.state != control.StateStopping {
		r.setStateLocked(control.StateStopping, nil)
	}
	opening := r.cancelOpeningLocked()
	r.mu.Unlock()
	if opening != nil {
		<-opening
	}
}

// State reports the runtime's state (a control.State* constant) and, when
// it failed, why.
func (r *Runtime) State() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state, r.lastErr
}

func location(tz string) *time.Location {
	if tz == "" {
		return time.Local
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return time.Local
	}
	return loc
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
