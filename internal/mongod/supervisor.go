// Package mongod owns the lifecycle of a local mongod process for the
// "managed" database engine: finding the binary, the flags it runs with, the
// generated admin credential, waiting until it answers, restarting it after
// a crash within a rate limit, stale lock files, and a graceful stop.
//
// Flags, and why (see args):
//
//	--dbpath <root>/mongo_data           all data under the data root
//	--port <free loopback port>          chosen per Start; kept across crash restarts while free
//	--bind_ip <sock>/mongodl-<port>.sock a socket path only: no network listener
//	                                     (127.0.0.1 where unix sockets cannot be used)
//	--unixSocketPrefix <sock>            socket <sock>/mongodb-<port>.sock (Unix only)
//	--filePermissions 0700               socket usable by this user only (Unix only)
//	--nounixsocket                       instead of the two above on Unix without a usable socket path
//	--logpath <root>/logs/mongo.log      with --logappend, so restarts keep history
//	--auth                               access control on; infmem's user is created through
//	                                     the localhost exception on first start
//
// <sock> is <root>/run, or, when that path is too long for a socket, the
// private per-root folder package sockdir picks for every infmem socket.
//
// Deliberately not passed: --journal / --nojournal (journaling is always on
// with WiredTiger and both flags are gone from mongod 7+, which would refuse
// to start), --enableFreeMonitoring (free monitoring was opt-in only and the
// flag was removed in 7.0), --setParameter enableLocalhostAuthBypass (it
// defaults to true, which first-user creation needs, and mongod closes the
// exception by itself once a user exists).
//
// The credential lives in <root>/mongo_data/infmem-credential.json (0600):
// it unlocks the users stored in that same directory, so it is copied,
// restored or deleted together with them, and a fresh mongo_data gets a
// fresh credential.
//
// On Unix the returned URI points at <sock>/mongod.sock, a symlink the
// supervisor repoints at mongod's socket on every start, so the URI stays
// the same even when a restart has to move to another port. Over TCP
// (Windows, where mongod has no unix socket, or a data root path with a
// ':') a port change changes the URI; Config.OnURIChange reports it.
package mongod

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/infmem/infmem/internal/sockdir"
)

var (
	// ErrNotReady means mongod did not start answering: it timed out, or
	// refused its options. The error includes the tail of logs/mongo.log.
	ErrNotReady = errors.New("mongod did not become ready")
	// ErrCrashLoop means mongod kept exiting and the supervisor gave up.
	ErrCrashLoop = errors.New("mongod keeps crashing")
	// ErrStopped is what Err reports after Stop.
	ErrStopped = errors.New("mongod supervisor stopped")
	// ErrKilled means mongod ignored the shutdown request for the whole grace
	// period and was killed.
	ErrKilled = errors.New("mongod was killed")
)

// Config configures a Supervisor. Zero durations and counts take the
// defaults given on each field.
type Config struct {
	// Binary is mongo.mongod_path; empty means "mongod" on PATH.
	Binary string
	// DataRoot holds mongo_data/, logs/ and run/.
	DataRoot string
	// ReadyTimeout bounds each wait for mongod to answer ping (30 s).
	ReadyTimeout time.Duration
	// StopGrace is how long a stop waits after the shutdown request before
	// killing mongod (10 s).
	StopGrace time.Duration
	// MaxRestarts is how many restarts RestartWindow allows (5); one crash
	// more and the supervisor gives up. Negative means never restart.
	MaxRestarts int
	// RestartWindow is the window the restart limit counts in (60 s).
	RestartWindow time.Duration
	// RestartBackoff is the wait before the first restart in a window; it
	// doubles with each further crash (500 ms).
	RestartBackoff time.Duration
	// MaxRestartBackoff caps the doubling (8 s).
	MaxRestartBackoff time.Duration
	// OnURIChange, if set, is called (from the supervisor's goroutine) when
	// a restart changed URI(); a driver client must then be rebuilt from the
	// new URI. It never fires on Unix, where the URI names a stable symlink.
	OnURIChange func()
	// Logger receives lifecycle events; nil means slog.Default().
	Logger *slog.Logger
}

// Supervisor runs one mongod for one data root.
type Supervisor struct {
	cfg        Config
	log        *slog.Logger
	dbPath     string
	logPath    string
	runDir     string
	credPath   string
	unixSocket bool
	// sockDir holds mongod's sockets: run/, or the private per-root folder
	// sockdir picks when run/'s path is too long for a socket.
	sockDir string
	linked  bool // this supervisor created <sock>/mongod.sock; touched only by run

	stopCh   chan struct{} // closed by Stop
	stopOnce sync.Once
	killCh   chan struct{} // closed when Stop's context ends before the grace period
	killOnce sync.Once
	done     chan struct{}

	mu      sync.Mutex
	state   int // stateIdle, stateRunning, stateFinished
	pid     int
	port    int
	cred    *credential // set once mongod accepted it
	err     error       // why the supervisor finished
	stopErr error       // what stopping mongod ran into
}

const (
	stateIdle = iota
	stateRunning
	stateFinished
)

// New checks the configuration and finds the binary; it starts nothing.
func New(cfg Config) (*Supervisor, error) {
	if cfg.DataRoot == "" {
		return nil, errors.New("mongod supervisor: data root is empty")
	}
	root, err := filepath.Abs(cfg.DataRoot)
	if err != nil {
		return nil, fmt.Errorf("mongod supervisor: resolve data root: %w", err)
	}
	cfg.DataRoot = root
	if cfg.Binary, err = Find(cfg.Binary); err != nil {
		return nil, err
	}
	setDefault := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	setDefault(&cfg.ReadyTimeout, 30*time.Second)
	setDefault(&cfg.StopGrace, 10*time.Second)
	setDefault(&cfg.RestartWindow, 60*time.Second)
	setDefault(&cfg.RestartBackoff, 500*time.Millisecond)
	setDefault(&cfg.MaxRestartBackoff, 8*time.Second)
	if cfg.MaxRestarts == 0 {
		cfg.MaxRestarts = 5
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Supervisor{
		cfg:      cfg,
		log:      log.With("component", "mongod"),
		dbPath:   filepath.Join(root, "mongo_data"),
		logPath:  filepath.Join(root, "logs", "mongo.log"),
		runDir:   filepath.Join(root, "run"),
		credPath: filepath.Join(root, "mongo_data", "infmem-credential.json"),
		stopCh:   make(chan struct{}),
		killCh:   make(chan struct{}),
		done:     make(chan struct{}),
	}
	// mongod's sockets go where infmem's own do (sockdir): run/, or a
	// private per-root folder when run/'s path is too long. The driver
	// splits a URI host at ':' even when it is percent-encoded, so a socket
	// path with a colon cannot be named in a URI; then, and on Windows
	// (mongod has no unix sockets there), mongod listens on 127.0.0.1.
	s.sockDir = s.runDir
	if unixSocketsSupported {
		p, err := sockdir.Path(s.runDir, s.socketName(65535))
		switch {
		case err != nil:
			s.log.Warn("no private folder for mongod's unix socket; mongod will listen on 127.0.0.1 only", "data_root", root, "err", err)
		case strings.Contains(p, ":"):
			s.log.Warn("the data root path contains ':', which a MongoDB URI cannot name in a socket path; mongod will listen on 127.0.0.1 only", "data_root", root)
		default:
			s.sockDir, s.unixSocket = filepath.Dir(p), true
		}
	}
	return s, nil
}

// socketName is the name mongod gives its socket for a port.
func (s *Supervisor) socketName(port int) string { return fmt.Sprintf("mongodb-%d.sock", port) }

// socketPath is where mongod puts its socket for --unixSocketPrefix sockDir.
func (s *Supervisor) socketPath(port int) string {
	return filepath.Join(s.sockDir, s.socketName(port))
}

// bindSocketPath is the socket --bind_ip names: beside mongod's default
// one, under another name (binding one path twice would fail), the same
// length so the length check above covers it.
func (s *Supervisor) bindSocketPath(port int) string {
	return filepath.Join(s.sockDir, fmt.Sprintf("mongodl-%d.sock", port))
}

// linkPath is the stable name the URI uses for mongod's socket.
func (s *Supervisor) linkPath() string { return filepath.Join(s.sockDir, "mongod.sock") }

// args builds mongod's command line; the package comment explains each flag.
func (s *Supervisor) args(port int) []string {
	// With a unix socket, mongod listens on no network address at all:
	// --bind_ip takes full socket paths, and one in the private run folder
	// replaces 127.0.0.1, so no other local user can reach mongod (or win
	// the localhost exception before infmem creates its user). The TCP
	// loopback is used only where sockets cannot be (Windows, a run path
	// too long for a socket).
	bind := "127.0.0.1"
	if s.unixSocket {
		bind = s.bindSocketPath(port)
	}
	a := []string{
		"--dbpath", s.dbPath,
		"--port", strconv.Itoa(port),
		"--bind_ip", bind,
		"--logpath", s.logPath,
		"--logappend",
		"--auth",
	}
	switch {
	case s.unixSocket:
		a = append(a, "--unixSocketPrefix", s.sockDir, "--filePermissions", "0700")
	case runtime.GOOS != "windows":
		a = append(a, "--nounixsocket")
	}
	return a
}

// child is one mongod process.
type child struct {
	cmd         *exec.Cmd
	port        int
	exited      chan struct{} // closed once Wait returned
	waitErr     error         // valid after exited is closed
	portChanged bool
}

func (c *child) exitStatus() string {
	if c.cmd.ProcessState != nil {
		return c.cmd.ProcessState.String()
	}
	if c.waitErr != nil {
		return c.waitErr.Error()
	}
	return "unknown exit status"
}

// Start launches mongod and returns once it answers ping and has accepted
// infmem's credential (created on the first start). The monitor it starts
// keeps running after Start returns, until Stop or until it gives up; ctx
// bounds only the start itself. Start may be called once.
func (s *Supervisor) Start(ctx context.Context) error {
	s.mu.Lock()
	switch s.state {
	case stateRunning:
		s.mu.Unlock()
		return errors.New("mongod supervisor already started")
	case stateFinished:
		s.mu.Unlock()
		return ErrStopped
	}
	s.state = stateRunning
	s.mu.Unlock()

	for _, d := range []string{s.cfg.DataRoot, s.dbPath, filepath.Dir(s.logPath), s.runDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			err = fmt.Errorf("create %s: %w", d, err)
			s.finish(err)
			return err
		}
	}

	ready := make(chan error, 1)
	go s.run(ready)
	select {
	case err := <-ready:
		return err
	case <-ctx.Done():
		_ = s.Stop(context.Background())
		return fmt.Errorf("start mongod: %w", ctx.Err())
	}
}

// finish records why the supervisor ended and closes Done.
func (s *Supervisor) finish(err error) {
	s.mu.Lock()
	s.state = stateFinished
	s.err = err
	s.pid = 0
	s.mu.Unlock()
	close(s.done)
}

// Stop asks mongod to shut down (SIGTERM; the shutdown command on Windows),
// waits StopGrace or until ctx ends, then kills it. After Stop nothing is
// restarted. The error wraps ErrKilled when mongod had to be killed.
func (s *Supervisor) Stop(ctx context.Context) error {
	s.mu.Lock()
	if s.state == stateIdle {
		s.state = stateFinished
		s.err = ErrStopped
		close(s.done)
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	s.stopOnce.Do(func() { close(s.stopCh) })
	select {
	case <-s.done:
	case <-ctx.Done():
		s.killOnce.Do(func() { close(s.killCh) })
		<-s.done
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopErr
}

// Done is closed when the supervisor has finished: after Stop, after a
// failed Start, or when it gave up restarting mongod.
func (s *Supervisor) Done() <-chan struct{} { return s.done }

// Err is nil while the supervisor runs; after Done it says why it finished
// (ErrStopped after Stop).
func (s *Supervisor) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// PID is the running mongod's process id, or 0.
func (s *Supervisor) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pid
}

// URI is the connection string, with credentials, for the driver only:
// never log it (use RedactedURI). It is empty until Start succeeded.
func (s *Supervisor) URI() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cred == nil {
		return ""
	}
	return s.uriLocked(s.cred.User, s.cred.Password.reveal())
}

// RedactedURI is URI with the password replaced by REDACTED, for logs and
// status output.
func (s *Supervisor) RedactedURI() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cred == nil {
		return ""
	}
	return s.uriLocked(s.cred.User, redacted)
}

func (s *Supervisor) uriLocked(user, pass string) string {
	userinfo := ""
	if user != "" {
		userinfo = escapeURIComponent(user) + ":" + escapeURIComponent(pass) + "@"
	}
	return "mongodb://" + userinfo + s.hostLocked() + "/?authSource=admin"
}

// hostLocked is the URI host: the socket symlink, or 127.0.0.1:port.
func (s *Supervisor) hostLocked() string {
	if s.unixSocket {
		return escapeURIComponent(s.linkPath())
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
}

// escapeURIComponent percent-encodes everything but RFC 3986 unreserved
// characters; a socket path must lose its '/' and ':' to be a URI host.
func escapeURIComponent(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// anonURI reaches mongod without credentials: for readiness pings and for
// creating the first user through the localhost exception.
func (s *Supervisor) anonURI() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.uriLocked("", "")
}

// scrub removes the password from an error's text, in case a driver error
// ever echoes part of a connection string.
func (s *Supervisor) scrub(err error) error {
	s.mu.Lock()
	var pw string
	if s.cred != nil {
		pw = s.cred.Password.reveal()
	}
	s.mu.Unlock()
	return scrubString(err, pw)
}

// withTail appends the end of mongo.log to an error message, with any
// password occurrence masked.
func (s *Supervisor) withTail(msg string) string {
	t := tail(s.logPath)
	s.mu.Lock()
	if s.cred != nil {
		t = strings.ReplaceAll(t, s.cred.Password.reveal(), redacted)
	}
	s.mu.Unlock()
	return fmt.Sprintf("%s; last lines of %s:\n%s", msg, s.logPath, t)
}

var (
	errExited        = errors.New("mongod exited")
	errStopRequested = errors.New("stop requested")
)

// run owns the mongod processes from the first spawn to the end: it reports
// the first start's outcome on ready, then restarts mongod after each
// unexpected exit until the rate limit is hit or Stop is called.
func (s *Supervisor) run(ready chan<- error) {
	reported := false
	report := func(err error) {
		if !reported {
			reported = true
			ready <- err
		}
	}
	var final error
	defer func() {
		if s.linked {
			// mongod removed its socket on the way out; a dangling link
			// would only suggest a server that is not there.
			_ = os.Remove(s.linkPath())
		}
		s.finish(final)
		report(final)
	}()

	var crashes []time.Time
	for {
		c, err := s.spawn()
		if err != nil {
			final = err
			return
		}
		readyErr := s.waitReady(c)
		early := false
		switch {
		case errors.Is(readyErr, errStopRequested):
			s.setStopErr(s.stopChild(c))
			final = ErrStopped
			return
		case errors.Is(readyErr, errExited):
			early = true
		case readyErr != nil:
			s.stopChild(c)
			final = readyErr
			return
		default:
			if err := s.ensureCredential(); err != nil {
				if s.exitedSoon(c) {
					// It died under the credential check: a crash like any other.
					early = true
					break
				}
				s.stopChild(c)
				final = err
				return
			}
			s.log.Info("mongod is ready", "pid", c.cmd.Process.Pid, "uri", s.RedactedURI())
			if c.portChanged && reported && s.cfg.OnURIChange != nil && !s.unixSocket {
				s.cfg.OnURIChange()
			}
			report(nil)
			select {
			case <-c.exited:
			case <-s.stopCh:
				s.setStopErr(s.stopChild(c))
				final = ErrStopped
				return
			}
		}

		// mongod exited without being asked to.
		s.mu.Lock()
		s.pid = 0
		s.mu.Unlock()
		now := time.Now()
		kept := crashes[:0]
		for _, t := range crashes {
			if now.Sub(t) < s.cfg.RestartWindow {
				kept = append(kept, t)
			}
		}
		crashes = append(kept, now)
		status := c.exitStatus()

		if early && c.cmd.ProcessState != nil && c.cmd.ProcessState.ExitCode() == 2 {
			final = fmt.Errorf("%w: %s", ErrNotReady, s.withTail(fmt.Sprintf(
				"mongod %s rejected its command-line options (%s); "+
					"hint: make sure mongo.mongod_path names a MongoDB server (mongod) binary", s.cfg.Binary, status)))
			return
		}
		if len(crashes) > s.cfg.MaxRestarts {
			what := "crashed"
			if early {
				what = "exited before it was ready"
			}
			final = fmt.Errorf("%w: %s", ErrCrashLoop, s.withTail(fmt.Sprintf(
				"mongod %s %d times within %s (last: %s); giving up, see %s",
				what, len(crashes), s.cfg.RestartWindow, status, s.logPath)))
			s.log.Error("mongod keeps crashing; giving up", "crashes", len(crashes), "window", s.cfg.RestartWindow.String(), "log", s.logPath)
			return
		}
		backoff := s.cfg.RestartBackoff
		for i := 1; i < len(crashes) && backoff < s.cfg.MaxRestartBackoff; i++ {
			backoff *= 2
		}
		backoff = min(backoff, s.cfg.MaxRestartBackoff)
		s.log.Warn("mongod exited unexpectedly; restarting", "pid", c.cmd.Process.Pid, "status", status,
			"before_ready", early, "crashes_in_window", len(crashes), "restart_in", backoff.String())
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-s.stopCh:
			t.Stop()
			final = ErrStopped
			return
		}
	}
}

// exitedSoon tells a mongod that crashed while being talked to (its
// socket breaks a moment before the process is reaped) from one that is
// alive and refusing.
func (s *Supervisor) exitedSoon(c *child) bool {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-c.exited:
		return true
	case <-t.C:
		return false
	}
}

func (s *Supervisor) setStopErr(err error) {
	s.mu.Lock()
	s.stopErr = err
	s.mu.Unlock()
}

// spawn starts one mongod after clearing a stale lock and choosing a port.
func (s *Supervisor) spawn() (*child, error) {
	if err := s.clearStaleLock(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	prev := s.port
	s.mu.Unlock()
	port := prev
	if port == 0 || !portFree(port) {
		var err error
		if port, err = freePort(); err != nil {
			return nil, err
		}
		if prev != 0 {
			s.log.Warn("mongod's previous port is taken; using another", "old_port", prev, "port", port)
		}
	}
	if s.unixSocket {
		if err := s.prepareSocket(port); err != nil {
			return nil, err
		}
	}

	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open mongod log: %w", err)
	}
	cmd := exec.Command(s.cfg.Binary, s.args(port)...)
	cmd.Dir = s.cfg.DataRoot
	// mongod writes little outside --logpath, but what it does write (early
	// option errors, crashes before logging starts) belongs in the same file.
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", s.cfg.Binary, err)
	}
	c := &child{cmd: cmd, port: port, exited: make(chan struct{}), portChanged: prev != 0 && prev != port}
	go func() {
		c.waitErr = cmd.Wait()
		logf.Close()
		close(c.exited)
	}()
	s.mu.Lock()
	s.pid, s.port = cmd.Process.Pid, port
	s.mu.Unlock()
	s.log.Info("started mongod", "pid", cmd.Process.Pid, "port", port, "binary", s.cfg.Binary)
	return c, nil
}

// prepareSocket removes a socket file a crashed mongod left for this port
// (the lock check has ruled out a live owner; run/ is private to this data
// root) and points the stable symlink at the socket mongod will create.
func (s *Supervisor) prepareSocket(port int) error {
	if err := os.Remove(s.socketPath(port)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove stale mongod socket: %w", err)
	}
	tmp := s.linkPath() + ".tmp"
	_ = os.Remove(tmp)
	if err := os.Symlink(filepath.Base(s.socketPath(port)), tmp); err != nil {
		return fmt.Errorf("link mongod socket: %w", err)
	}
	if err := os.Rename(tmp, s.linkPath()); err != nil {
		return fmt.Errorf("link mongod socket: %w", err)
	}
	s.linked = true
	return nil
}

func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free loopback port for mongod: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls until mongod answers ping, exits, the stop is requested,
// or ReadyTimeout passes. It dials first because a driver ping against a
// socket that does not exist yet only fails after its own timeout.
func (s *Supervisor) waitReady(c *child) error {
	deadline := time.Now().Add(s.cfg.ReadyTimeout)
	timeout := time.NewTimer(s.cfg.ReadyTimeout)
	defer timeout.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()

	network, addr := "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port))
	if s.unixSocket {
		network, addr = "unix", s.linkPath()
	}
	var client *mongo.Client
	defer func() {
		if client != nil {
			_ = client.Disconnect(context.Background())
		}
	}()
	var lastErr error
	for {
		select {
		case <-c.exited:
			return errExited
		case <-s.stopCh:
			return errStopRequested
		case <-timeout.C:
			msg := fmt.Sprintf("mongod (pid %d) did not answer ping within %s", c.cmd.Process.Pid, s.cfg.ReadyTimeout)
			if lastErr != nil {
				msg += fmt.Sprintf(" (last attempt: %v)", s.scrub(lastErr))
			}
			return fmt.Errorf("%w: %s", ErrNotReady, s.withTail(msg))
		case <-tick.C:
		}
		conn, err := net.DialTimeout(network, addr, 200*time.Millisecond)
		if err != nil {
			lastErr = err
			continue
		}
		conn.Close()
		if client == nil {
			client, err = mongo.Connect(options.Client().ApplyURI(s.anonURI()).
				SetServerSelectionTimeout(time.Second).SetConnectTimeout(time.Second))
			if err != nil {
				return fmt.Errorf("mongod readiness check: %w", err)
			}
		}
		probeEnd := time.Now().Add(time.Second)
		if deadline.Before(probeEnd) {
			probeEnd = deadline
		}
		ctx, cancel := context.WithDeadline(context.Background(), probeEnd)
		lastErr = client.Ping(ctx, readpref.Primary())
		cancel()
		if lastErr == nil {
			return nil
		}
	}
}

// stopChild asks mongod to shut down and waits StopGrace (or until Stop's
// context ends) before killing it.
func (s *Supervisor) stopChild(c *child) error {
	defer func() {
		s.mu.Lock()
		s.pid = 0
		s.mu.Unlock()
	}()
	select {
	case <-c.exited:
		return nil
	default:
	}
	pid := c.cmd.Process.Pid
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-c.exited:
		case <-s.killCh:
		}
		cancel()
	}()
	if err := s.requestShutdown(ctx, c); err != nil {
		s.log.Warn("could not ask mongod to shut down", "pid", pid, "error", err)
	}
	grace := time.NewTimer(s.cfg.StopGrace)
	defer grace.Stop()
	select {
	case <-c.exited:
		s.log.Info("mongod stopped", "pid", pid, "status", c.exitStatus())
		return nil
	case <-grace.C:
	case <-s.killCh:
	}
	c.kill()
	<-c.exited
	s.log.Warn("mongod did not shut down in time and was killed", "pid", pid, "grace", s.cfg.StopGrace.String())
	return fmt.Errorf("%w: mongod (pid %d) did not exit within %s of the shutdown request; "+
		"it will run journal recovery on its next start", ErrKilled, pid, s.cfg.StopGrace)
}

// ensureCredential makes sure mongod accepts infmem's credential. First
// start: generate it, save it, then create the user through the localhost
// exception. Saving first means a crash in between leaves a credential whose
// user is missing, which the next start repairs the same way; the reverse
// order could leave a user nobody knows the password of.
func (s *Supervisor) ensureCredential() error {
	s.mu.Lock()
	known := s.cred
	s.mu.Unlock()
	if known != nil { // a restart: the user is in the data files already
		if err := s.authPing(*known); err != nil {
			return fmt.Errorf("mongod rejected infmem's credential after a restart: %w", err)
		}
		return nil
	}

	cred, exists, widened, err := loadCredential(s.credPath)
	if widened {
		s.log.Warn("mongod credential file was readable by others; restricted it to 0600", "path", s.credPath)
	}
	if err != nil {
		return err
	}
	if !exists {
		cred = newCredential()
		if err := saveCredential(s.credPath, cred); err != nil {
			return err
		}
		s.log.Info("generated the mongod credential", "path", s.credPath, "user", cred.User)
		if err := s.createUser(cred); err != nil {
			return err
		}
	}
	if err := s.authPing(cred); err != nil {
		if !exists {
			return fmt.Errorf("mongod rejected the user it just created: %w", err)
		}
		// Perhaps the previous start saved the credential and died before
		// creating the user; the localhost exception is then still open.
		if cerr := s.createUser(cred); cerr != nil {
			return fmt.Errorf("mongod rejected the credential in %s (%v), and it could not be recreated: %w",
				s.credPath, err, cerr)
		}
		if err := s.authPing(cred); err != nil {
			return fmt.Errorf("mongod rejected the user it just created: %w", err)
		}
	}
	s.mu.Lock()
	s.cred = &cred
	s.mu.Unlock()
	return nil
}

// createUser creates infmem's admin user through the localhost exception,
// which mongod grants to unauthenticated local clients while no user exists.
// root covers everything infmem does: its databases, backup and restore
// through mongodump/mongorestore, and server status.
func (s *Supervisor) createUser(cred credential) error {
	client, err := mongo.Connect(options.Client().ApplyURI(s.anonURI()).SetServerSelectionTimeout(5 * time.Second))
	if err != nil {
		return fmt.Errorf("connect to create the infmem user: %w", err)
	}
	defer client.Disconnect(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = client.Database("admin").RunCommand(ctx, bson.D{
		{Key: "createUser", Value: cred.User},
		{Key: "pwd", Value: cred.Password.reveal()},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}},
		{Key: "mechanisms", Value: bson.A{"SCRAM-SHA-256"}},
	}).Err()
	if err == nil {
		s.log.Info("created the infmem user in mongod", "user", cred.User)
		return nil
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) && (ce.Code == 13 || ce.Code == 51003) { // Unauthorized, user exists
		return fmt.Errorf("create the infmem user in mongod: %w; the database in %s already has users, "+
			"so the localhost exception is closed; hint: put the user and password of a root user into %s "+
			`as {"user": "...", "password": "..."}, or move mongo_data aside to start with an empty database`,
			scrubString(err, cred.Password.reveal()), s.dbPath, s.credPath)
	}
	return fmt.Errorf("create the infmem user in mongod: %w", scrubString(err, cred.Password.reveal()))
}

// authPing checks that mongod accepts cred.
func (s *Supervisor) authPing(cred credential) error {
	s.mu.Lock()
	uri := s.uriLocked(cred.User, cred.Password.reveal())
	s.mu.Unlock()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(5 * time.Second))
	if err != nil {
		return fmt.Errorf("connect to mongod: %w", scrubString(err, cred.Password.reveal()))
	}
	defer client.Disconnect(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.Ping(ctx, readpref.Primary()); err != nil {
		return fmt.Errorf("authenticated ping: %w", scrubString(err, cred.Password.reveal()))
	}
	return nil
}

// scrubString returns err, or, if its text contains pw, a plain error with
// the password masked. The original is dropped on purpose: unwrapping it
// would bring the password back.
func scrubString(err error, pw string) error {
	if err == nil || pw == "" || !strings.Contains(err.Error(), pw) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), pw, redacted))
}
