// Package mongod runs the local mongod behind the "managed" database engine
// (package mongostore starts it and owns what is stored in it). It owns:
//
//   - finding the mongod binary (Find, find.go) and the command line mongod
//     runs with (args, below);
//   - what mongod keeps under the data root: mongo_data/ as its dbpath, with
//     the stale mongod.lock check (lock.go) and infmem's credential file
//     (secret.go), logs/mongo.log, whose tail goes into errors (logtail.go),
//     and the socket folder with the stable mongod.sock link;
//   - infmem's admin user in mongod: generated, saved, created through the
//     localhost exception and checked on every start (user.go);
//   - the process lifecycle (run.go, child.go): start and wait until mongod
//     answers, restart it after a crash with a growing backoff until a
//     restart-rate limit is hit, keep its port across restarts while the
//     port is free, and stop it with SIGTERM (the shutdown command on
//     Windows), killing it after a grace period;
//   - the connection string for the driver (Supervisor.URI, RedactedURI).
//
// internal/fakemongod is a stand-in mongod for this package's tests only.
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
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

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
	// new URI. It fires only over TCP: the socket link keeps a unix-socket
	// URI the same (see the package comment).
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

	// Touched only by run's goroutine (Start sets startResult before it
	// starts run):
	startResult chan<- error // receives the first start's outcome; nil once it has
	crashes     []time.Time  // mongod's unexpected exits within RestartWindow, oldest first
	linked      bool         // this supervisor created <sock>/mongod.sock

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
	if s.sockDir, s.unixSocket, err = s.chooseSocketDir(); err != nil {
		return nil, err
	}
	return s, nil
}

// chooseSocketDir puts mongod's sockets where infmem's own go (sockdir):
// run/, or a private per-root folder when run/'s path is too long. The
// driver splits a URI host at ':' even when it is percent-encoded, so a
// socket path with a colon cannot be named in a URI; then, and on Windows
// (mongod has no unix sockets there), mongod listens on 127.0.0.1 and
// unixSocket is false. A private folder that cannot be had (another user
// made it first, to push mongod onto TCP where they can reach it) is an
// error, never a reason to listen on TCP (issue 22).
func (s *Supervisor) chooseSocketDir() (dir string, unixSocket bool, err error) {
	if !unixSocketsSupported {
		return s.runDir, false, nil
	}
	p, err := sockdir.Path(s.runDir, s.socketName(65535))
	switch {
	case err != nil:
		return "", false, fmt.Errorf("mongod supervisor: no private folder for mongod's socket: %w", err)
	case strings.Contains(p, ":"):
		s.log.Warn("the data root path contains ':', which a MongoDB URI cannot name in a socket path; mongod will listen on 127.0.0.1 only", "data_root", s.cfg.DataRoot)
	default:
		return filepath.Dir(p), true, nil
	}
	return s.runDir, false, nil
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

	if err := s.makeDirs(); err != nil {
		s.finish(err)
		return err
	}
	result := make(chan error, 1) // run never waits for a Start that gave up
	s.startResult = result
	go s.run()
	select {
	case err := <-result:
		return err
	case <-ctx.Done():
		_ = s.Stop(context.Background())
		return fmt.Errorf("start mongod: %w", ctx.Err())
	}
}

// makeDirs creates the data root and the folders under it that mongod and
// the supervisor write to, private to this user.
func (s *Supervisor) makeDirs() error {
	for _, d := range []string{s.cfg.DataRoot, s.dbPath, filepath.Dir(s.logPath), s.runDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
	}
	return nil
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

// knownCredential is the credential mongod accepted, or nil before that.
func (s *Supervisor) knownCredential() *credential {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cred
}

// knownPassword is the accepted credential's password, or "".
func (s *Supervisor) knownPassword() string {
	if c := s.knownCredential(); c != nil {
		return c.Password.reveal()
	}
	return ""
}

// scrub removes the password from an error's text, in case a driver error
// ever echoes part of a connection string.
func (s *Supervisor) scrub(err error) error { return scrubString(err, s.knownPassword()) }

// withTail appends the end of mongo.log to an error message, with any
// password occurrence masked.
func (s *Supervisor) withTail(msg string) string {
	t := tail(s.logPath)
	if pw := s.knownPassword(); pw != "" {
		t = strings.ReplaceAll(t, pw, redacted)
	}
	return fmt.Sprintf("%s; last lines of %s:\n%s", msg, s.logPath, t)
}
