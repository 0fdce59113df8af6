package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/infmem/infmem/internal/peercred"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/kardianos/service"

	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/flock"
	"github.com/infmem/infmem/internal/mcpserve"
)

// RunningError means another daemon already serves the data root.
type RunningError struct {
	// PID is the other daemon's process id (0 when it could not be read).
	PID  int
	Root string
}

func (e *RunningError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("another infmem daemon (pid %d) already serves %s", e.PID, e.Root)
	}
	return fmt.Sprintf("another infmem daemon already serves %s", e.Root)
}

// Lock takes the data root's daemon lock, which makes this process the one
// owner of the root; a holder is reported as a *RunningError. `infmem mcp
// --in-process` takes it too, so no daemon starts beside it.
func Lock(ep control.Endpoints) (*flock.Lock, error) {
	lock, err := flock.Acquire(ep.Lock)
	var held *flock.HeldError
	if errors.As(err, &held) {
		return nil, &RunningError{PID: held.PID, Root: ep.Root.Dir}
	}
	return lock, err
}

// Daemon is `infmem daemon`: the one owner of a data root. It holds the
// root's lock, serves an MCP session on every connection to its socket and
// the control protocol on the control socket, and runs a Runtime. It
// implements kardianos/service's Interface.
type Daemon struct {
	opts    Options
	log     *slog.Logger
	ep      control.Endpoints
	rt      *Runtime
	lock    *flock.Lock
	mcpLn   net.Listener
	ctlLn   net.Listener
	ctl     *control.Server
	started time.Time

	// ctx is what MCP sessions run under; cancelled only when a graceful
	// drain has run out of time.
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	stopping bool
	sessions sync.WaitGroup
	loops    sync.WaitGroup

	stopOnce  sync.Once
	stopErr   error
	requested chan struct{} // closed when a control client asks for a stop
	reqOnce   sync.Once

	// reloadMu serialises reloads and guards stamp, the version of the
	// configuration last read (ConfigSource.Stamp); cfgMu guards cfgState,
	// the record status reports. stopWatch ends watchConfig.
	reloadMu  sync.Mutex
	stamp     string
	cfgMu     sync.Mutex
	cfgState  control.ConfigStatus
	stopWatch chan struct{}

	// ui is the local web UI (ui.go).
	ui uiState
}

var _ service.Interface = (*Daemon)(nil)

// Open makes this process the daemon of opts.Root: it takes the lock,
// replaces a crashed daemon's leftovers (daemon.json, sockets) and listens
// on both sockets (0600). It returns *RunningError when another daemon
// holds the root. Nothing is served until Start.
func Open(opts Options) (*Daemon, error) {
	rt := NewRuntime(opts)
	opts = rt.opts
	ep, err := control.EndpointsFor(opts.Root)
	if err != nil {
		return nil, err
	}
	lock, err := Lock(ep)
	if err != nil {
		return nil, err
	}
	d := &Daemon{opts: opts, log: opts.Logger, ep: ep, rt: rt, lock: lock,
		conns: map[net.Conn]struct{}{}, requested: make(chan struct{})}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	d.initConfig()
	// We hold the lock, so anything a daemon left here is a dead one's.
	if info, err := control.ReadInfo(ep.Info); err == nil {
		d.log.Warn("replacing the leftovers of a daemon that did not stop cleanly", "pid", info.PID, "started_at", info.StartedAt)
	}
	if err := d.clearFiles(); err != nil {
		d.abort()
		return nil, err
	}
	if d.mcpLn, err = listen(ep.MCP); err != nil {
		d.abort()
		return nil, err
	}
	if d.ctlLn, err = listen(ep.Control); err != nil {
		d.abort()
		return nil, err
	}
	return d, nil
}

func listen(path string) (net.Listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w", path, err)
	}
	// run/ is 0700 already; the socket itself is the owner's only as well.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("cannot secure %s: %w", path, err)
	}
	return ln, nil
}

func (d *Daemon) clearFiles() error {
	if err := control.RemoveInfo(d.ep.Info); err != nil {
		return err
	}
	for _, p := range []string{d.ep.MCP, d.ep.Control} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cannot remove stale socket %s: %w", p, err)
		}
	}
	return nil
}

// abort undoes a failed Open.
func (d *Daemon) abort() {
	if d.mcpLn != nil {
		d.mcpLn.Close()
	}
	if d.ctlLn != nil {
		d.ctlLn.Close()
	}
	d.lock.Release()
}

// Endpoints are the daemon's files.
func (d *Daemon) Endpoints() control.Endpoints { return d.ep }

// Runtime is the daemon's runtime.
func (d *Daemon) Runtime() *Runtime { return d.rt }

// Start begins serving and opening the memory, and returns at once
// (kardianos/service's Interface).
func (d *Daemon) Start(service.Service) error {
	d.started = time.Now()
	d.ctl = control.NewServer(controlHandler{d}, control.Pong{PID: os.Getpid(), Version: d.opts.Version}, d.log)
	d.loops.Add(2)
	go func() {
		defer d.loops.Done()
		d.acceptMCP()
	}()
	go func() {
		defer d.loops.Done()
		if err := d.ctl.Serve(d.ctlLn); err != nil {
			d.log.Error("control socket failed", "err", err)
		}
	}()
	if d.stopWatch != nil {
		d.watchConfig()
	}
	d.rt.Start()
	info := control.Info{PID: os.Getpid(), Socket: d.ep.MCP, ControlSocket: d.ep.Control,
		Version: d.opts.Version, StartedAt: d.started.UTC(), DataRoot: d.opts.Root.Dir}
	if err := control.WriteInfo(d.ep.Info, info); err != nil {
		// The sockets are where everyone looks; daemon.json is for people.
		d.log.Error("cannot write daemon.json", "err", err)
	}
	d.log.Info("daemon serving", "pid", info.PID, "socket", d.ep.MCP, "data_root", d.opts.Root.Dir, "version", d.opts.Version)
	return nil
}

// Stop shuts down gracefully (kardianos/service's Interface): it stops
// accepting, lets running calls finish (bounded), flushes and closes the
// memory, stops the engine, removes daemon.json and releases the lock.
func (d *Daemon) Stop(service.Service) error {
	d.stopOnce.Do(func() { d.stopErr = d.shutdown() })
	return d.stopErr
}

// Requested is closed when a control client has asked the daemon to stop;
// whoever runs the daemon then calls Stop.
func (d *Daemon) Requested() <-chan struct{} { return d.requested }

// Run serves until ctx ends or a stop is requested, then stops. It is how
// the daemon runs without a service manager (and in tests).
func (d *Daemon) Run(ctx context.Context) error {
	if err := d.Start(nil); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case <-d.requested:
	}
	return d.Stop(nil)
}

func (d *Daemon) acceptMCP() {
	for {
		conn, err := d.mcpLn.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			d.log.Error("MCP socket failed", "err", err)
			return
		}
		if err := peercred.Check(conn); err != nil {
			d.log.Warn("MCP connection refused", "err", err)
			conn.Close()
			continue
		}
		d.mu.Lock()
		if d.stopping {
			d.mu.Unlock()
			conn.Close()
			continue
		}
		if len(d.conns) >= MaxSessions {
			d.mu.Unlock()
			d.log.Warn("MCP connection refused: too many sessions", "max", MaxSessions)
			conn.SetWriteDeadline(time.Now().Add(time.Second))
			fmt.Fprintf(conn, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"infmem: too many MCP sessions (%d); close some clients"}}`+"\n", MaxSessions)
			conn.Close()
			continue
		}
		d.conns[conn] = struct{}{}
		d.sessions.Add(1)
		d.mu.Unlock()
		go d.serveMCP(conn)
	}
}

// MaxSessions bounds the MCP connections served at once.
const MaxSessions = 64

// writeTimeout bounds one write to a client that stopped reading.
const writeTimeout = 30 * time.Second

func (d *Daemon) serveMCP(conn net.Conn) {
	defer d.sessions.Done()
	defer func() {
		conn.Close()
		d.mu.Lock()
		delete(d.conns, conn)
		d.mu.Unlock()
	}()
	d.log.Debug("MCP session opened")
	err := d.rt.Serve(d.ctx, conn, deadlineWriter{conn}, mcpserve.Options{
		Logger:       d.log,
		DrainTimeout: d.opts.ShutdownTimeout / 2,
	})
	d.mu.Lock()
	stopping := d.stopping
	d.mu.Unlock()
	if err != nil && !stopping {
		d.log.Debug("MCP session ended", "err", err)
		return
	}
	d.log.Debug("MCP session closed")
}

type deadlineWriter struct{ c net.Conn }

func (w deadlineWriter) Write(p []byte) (int, error) {
	w.c.SetWriteDeadline(time.Now().Add(writeTimeout))
	return w.c.Write(p)
}

func (d *Daemon) shutdown() error {
	d.log.Info("daemon stopping")
	ctx, cancel := context.WithTimeout(context.Background(), d.opts.ShutdownTimeout)
	defer cancel()
	d.mu.Lock()
	d.stopping = true
	conns := make([]net.Conn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()

	if d.stopWatch != nil {
		close(d.stopWatch)
	}
	// Stop accepting; closing a listener removes its socket file.
	d.mcpLn.Close()
	d.ctlLn.Close()
	if d.ctl != nil {
		d.ctl.Close()
	}
	d.closeUI()
	// Calls still waiting for the memory are answered now; calls running
	// go on. Sessions stop reading requests, answer those in flight, and end.
	d.rt.BeginStop()
	for _, c := range conns {
		c.SetReadDeadline(time.Now())
	}
	drained := make(chan struct{})
	go func() { d.sessions.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-ctx.Done():
		d.log.Warn("sessions still busy at the shutdown deadline; closing them")
		d.cancel()
		d.mu.Lock()
		for c := range d.conns {
			c.Close()
		}
		d.mu.Unlock()
		<-drained
	}
	d.loops.Wait()
	d.cancel()

	var errs []error
	if err := d.rt.Close(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := control.RemoveInfo(d.ep.Info); err != nil {
		errs = append(errs, err)
	}
	// The sockets are gone with their listeners; remove any the OS kept.
	for _, p := range []string{d.ep.MCP, d.ep.Control} {
		os.Remove(p)
	}
	if err := d.lock.Release(); err != nil {
		errs = append(errs, err)
	}
	err := errors.Join(errs...)
	if err != nil {
		d.log.Error("daemon stopped with errors", "err", err)
	} else {
		d.log.Info("daemon stopped")
	}
	return err
}

// controlHandler serves the control protocol for d.
type controlHandler struct{ d *Daemon }

// Status implements control.Handler. A config file changed since it was
// last read is read first, so status never reports a stale configuration.
func (h controlHandler) Status(ctx context.Context) (*control.Status, error) {
	d := h.d
	var cs *control.ConfigStatus
	if d.opts.ConfigSource != nil {
		d.reloadIfChanged(ctx)
		s := d.ConfigStatus()
		cs = &s
	}
	st := d.rt.Status(ctx)
	st.Config = cs
	st.PID = os.Getpid()
	st.StartedAt = d.started.UTC()
	st.Socket = d.ep.MCP
	st.UI = d.uiStatus()
	d.mu.Lock()
	st.Sessions = len(d.conns)
	d.mu.Unlock()
	return st, nil
}

// Pause implements control.Handler.
func (h controlHandler) Pause(ctx context.Context, release bool) (func(bool) error, error) {
	pctx, cancel := context.WithTimeout(ctx, h.d.opts.ShutdownTimeout)
	defer cancel()
	if release {
		return h.d.rt.Release(pctx)
	}
	return h.d.rt.Pause(pctx)
}

// Run implements control.Handler: it runs a registered job on the open
// memory, counted like a tool call so a pause waits for it.
func (h controlHandler) Run(ctx context.Context, job string, args json.RawMessage) (any, error) {
	return h.d.rt.RunJob(ctx, job, args)
}

// Reload implements control.Handler.
func (h controlHandler) Reload(ctx context.Context) (*control.ConfigStatus, error) {
	if h.d.opts.ConfigSource == nil {
		return nil, errors.New("this daemon was started without a configuration source and cannot reload")
	}
	s := h.d.Reload(ctx, "requested by a control client")
	return &s, nil
}

// Shutdown implements control.Handler.
func (h controlHandler) Shutdown() {
	h.d.log.Info("stop requested by a control client")
	h.d.reqOnce.Do(func() { close(h.d.requested) })
}
