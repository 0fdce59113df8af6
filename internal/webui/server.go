package webui

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/maintenance"
)

// Defaults of Options.
const (
	DefaultIdleTimeout = 15 * time.Minute
	// DefaultLaunchTTL bounds how long a launch URL may wait to be opened.
	DefaultLaunchTTL = 10 * time.Minute
)

// Options configures a Server.
type Options struct {
	// Memory is the runtime's one wait for the memory (what the MCP tools
	// get as Deps.Memory): the engine and a release to call when done.
	Memory func(context.Context) (*memory.Engine, func(), error)
	Logger *slog.Logger
	// Redact removes secrets (a database password) from error text.
	Redact func(string) string
	// Version is shown on the page.
	Version string
	// IdleTimeout closes the listener after this long without a request
	// (default DefaultIdleTimeout).
	IdleTimeout time.Duration
	// LaunchTTL bounds how long a launch secret stays valid unused
	// (default DefaultLaunchTTL).
	LaunchTTL time.Duration
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
	// LaunchDir, when set, is a private folder (the data root's run/)
	// where OpenLaunch writes each launch as a small HTML file that sends
	// the browser on to the link: a browser opened on the file's path
	// never has the secret on a command line, where other users of the
	// machine could read it (/proc/PID/cmdline, ps).
	LaunchDir string

	// What the maintenance and backups views need besides the engine: the
	// daemon's own services (its maintenance scheduler, its backup
	// service), never a second way to write. Each may be nil: the view
	// then says it is not available.

	// Audit reads the maintenance audit trail, newest first, at most
	// limit entries (as 'infmem maintain --log').
	Audit func(ctx context.Context, limit int) ([]maintenance.AuditEntry, error)
	// Maintain runs a maintenance job now (as 'infmem maintain'): the
	// scheduler's RunNow, which records the run in the trail.
	Maintain func(ctx context.Context, job string, dryRun bool) (*maintenance.Report, error)
	// Backup makes a manual backup, encrypted as the configuration says
	// (as the backup_memory tool does), reporting its progress.
	Backup func(ctx context.Context, progress func(backup.Progress)) (*backup.Result, error)
	// BackupSetup says where backups go, how they are encrypted and how the
	// scheduled ones went.
	BackupSetup func(ctx context.Context) (BackupSetup, error)
}

// BackupSetup is what the backups view shows of the configuration: paths
// and modes, never a key or a passphrase.
type BackupSetup struct {
	// Dir is the backups directory.
	Dir string
	// Encryption is backup.encryption (auto, required, off).
	Encryption string
	// Recipients is how many age recipients backups are encrypted to;
	// with none (and encryption on) they go to the identity in
	// IdentityFile, whose path alone is shown.
	Recipients   int
	IdentityFile string
	// State is the backup section of the daemon's status.
	State *backup.State
}

// Server serves the UI on a loopback listener it opens on demand.
type Server struct {
	opts Options
	log  *slog.Logger
	mux  http.Handler

	mu       sync.Mutex
	ln       net.Listener
	srv      *http.Server
	host     string // 127.x.y.z:PORT, what Host must say
	bound    string // the address still accepting connections, "" once Close has shut it
	origin   string // http://127.x.y.z:PORT, what Origin must say
	launches map[digest]launchEntry
	sessions map[digest]*session
	lastUse  time.Time
	idle     *time.Timer
	served   chan struct{} // closed when the current listener's Serve returns

	tasks tasks
	// verified holds the outcome of each backup verified from the page,
	// by file name, while the server runs.
	verifyMu sync.Mutex
	verified map[string]verifyOut
}

// launchEntry is an unspent launch secret: when it expires, and the
// launch file that holds it ("" for none).
type launchEntry struct {
	expires time.Time
	file    string
}

// session is one browser that exchanged a launch secret.
type session struct {
	csrf secret
}

// secret is a random token. It prints as redacted so it cannot reach a
// log or an error by accident; only its digest is stored.
type secret string

func (secret) String() string               { return "[redacted]" }
func (secret) LogValue() slog.Value         { return slog.StringValue("[redacted]") }
func (s secret) GoString() string           { return s.String() }
func (s secret) Format(f fmt.State, _ rune) { f.Write([]byte(s.String())) }

type digest [sha256.Size]byte

func (s secret) digest() digest { return sha256.Sum256([]byte(s)) }

func newSecret() secret {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return secret(base64.RawURLEncoding.EncodeToString(b))
}

// New makes a server; nothing listens until Open.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Redact == nil {
		opts.Redact = func(s string) string { return s }
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.LaunchTTL <= 0 {
		opts.LaunchTTL = DefaultLaunchTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{opts: opts, log: opts.Logger}
	s.mux = s.routes()
	return s
}

// cookieName is the session cookie.
const cookieName = "infmem_ui"

// launchPath is where a launch secret is exchanged for a session.
const launchPath = "/launch"

// Launch is a way into the page, good once.
type Launch struct {
	// URL carries a fresh launch secret.
	URL string
	// File, when Options.LaunchDir is set, is a private (0600) HTML file
	// that sends the browser on to URL: what to open it on, so that the
	// secret is on no command line. It is deleted once the secret is
	// spent, expires, or the listener closes.
	File string
}

// Open starts the listener if it is not running and returns a URL that
// opens the page once (OpenLaunch's URL).
func (s *Server) Open() (string, error) {
	l, err := s.OpenLaunch()
	return l.URL, err
}

// OpenLaunch starts the listener if it is not running and returns a new
// launch: a URL carrying a fresh launch secret, spent by its first use,
// and the file that leads to it. Every call makes a new one; earlier ones
// stay valid until used, LaunchTTL passes or the listener closes.
func (s *Server) OpenLaunch() (Launch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		if err := s.listenLocked(); err != nil {
			return Launch{}, err
		}
	}
	now := s.opts.Now()
	for d, l := range s.launches {
		if now.After(l.expires) {
			removeLaunchFile(l.file)
			delete(s.launches, d)
		}
	}
	k := newSecret()
	out := Launch{URL: s.origin + launchPath + "?k=" + string(k)}
	if s.opts.LaunchDir != "" {
		f, err := writeLaunchFile(s.opts.LaunchDir, out.URL)
		if err != nil {
			return Launch{}, err
		}
		out.File = f
	}
	s.launches[k.digest()] = launchEntry{expires: now.Add(s.opts.LaunchTTL), file: out.File}
	s.touchLocked()
	return out, nil
}

// listenLocked opens the loopback listener and serves on it.
func (s *Server) listenLocked() error {
	// A loopback address, not "localhost", which a hosts file may point
	// elsewhere; port 0: the system picks a free one.
	ln, err := listenLoopback()
	if err != nil {
		return err
	}
	s.ln = peerListener{Listener: ln, log: s.log}
	s.host = ln.Addr().String()
	s.bound = s.host
	s.origin = "http://" + s.host
	s.launches = map[digest]launchEntry{}
	if s.opts.LaunchDir != "" {
		// A dead daemon's launch files.
		removeLaunchFiles(s.opts.LaunchDir)
	}
	s.sessions = map[digest]*session{}
	s.srv = &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	served := make(chan struct{})
	s.served = served
	srv := s.srv
	pln := s.ln
	go func() {
		defer close(served)
		if err := srv.Serve(pln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("the UI listener failed", "err", err)
		}
	}()
	s.idle = time.AfterFunc(s.opts.IdleTimeout, s.checkIdle)
	s.log.Info("UI listening", "addr", s.host)
	return nil
}

// touchLocked records a request, pushing the idle close back.
func (s *Server) touchLocked() {
	s.lastUse = s.opts.Now()
	if s.idle != nil {
		s.idle.Reset(s.opts.IdleTimeout)
	}
}

func (s *Server) touch() {
	s.mu.Lock()
	s.touchLocked()
	s.mu.Unlock()
}

// checkIdle closes the listener when no request came for IdleTimeout.
func (s *Server) checkIdle() {
	s.mu.Lock()
	if s.ln == nil {
		s.mu.Unlock()
		return
	}
	if wait := s.opts.IdleTimeout - s.opts.Now().Sub(s.lastUse); wait > 0 {
		s.idle.Reset(wait)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.log.Info("UI closed after being idle", "idle", s.opts.IdleTimeout)
	s.Close()
}

// Addr is the listener's address (127.x.y.z:PORT), "" once it is closed:
// not before Close has shut the socket, so "" means nothing accepts there.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bound
}

// unbound records that the listener Close shut no longer accepts, unless
// Open started another meanwhile.
func (s *Server) unbound() {
	s.mu.Lock()
	if s.srv == nil {
		s.bound = ""
	}
	s.mu.Unlock()
}

// Close stops the listener (waiting briefly for requests in flight) and
// forgets every launch secret and session. Open starts afresh.
func (s *Server) Close() error {
	s.mu.Lock()
	srv, served := s.srv, s.served
	if s.idle != nil {
		s.idle.Stop()
	}
	for _, l := range s.launches {
		removeLaunchFile(l.file)
	}
	s.ln, s.srv, s.idle, s.served = nil, nil, nil, nil
	s.launches, s.sessions = nil, nil
	s.mu.Unlock()
	if srv == nil {
		s.stopTasks()
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(ctx)
	if err != nil {
		srv.Close()
	}
	<-served
	s.unbound()
	s.stopTasks()
	return err
}

// spendLaunch exchanges a launch secret for a new session: the secret is
// spent whether or not it was still valid.
func (s *Server) spendLaunch(k secret) (cookie secret, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := k.digest()
	l, found := s.launches[d]
	if !found {
		return "", false
	}
	delete(s.launches, d)
	removeLaunchFile(l.file)
	if s.opts.Now().After(l.expires) {
		return "", false
	}
	cookie = newSecret()
	s.sessions[cookie.digest()] = &session{csrf: newSecret()}
	s.touchLocked()
	return cookie, true
}

// sessionFor is the session a request's cookie names, if any.
func (s *Server) sessionFor(r *http.Request) *session {
	c, err := r.Cookie(cookieName)
	if err != nil || c.Value == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[secret(c.Value).digest()]
}

// expected is the Host and Origin the listener answers to.
func (s *Server) expected() (host, origin string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.host, s.origin
}
