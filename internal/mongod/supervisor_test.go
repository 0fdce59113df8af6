//go:build unix

package mongod

import (
	"bytes"
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
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/infmem/infmem/internal/sockdir"
)

// These tests run real processes: the supervisor starts fakemongod (built
// once in TestMain and named "mongod"), which serves FerretDB behind
// mongod's flags, lock file and authentication contract.

var fakeMongod string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakemongod-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeMongod = filepath.Join(dir, "mongod")
	build := exec.Command("go", "build", "-o", fakeMongod, "./internal/fakemongod")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build fakemongod:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// syncBuffer collects the supervisor's log for assertions.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

type harness struct {
	t    *testing.T
	root string
	logs *syncBuffer
}

func newHarness(t *testing.T) *harness {
	return &harness{t: t, root: t.TempDir(), logs: &syncBuffer{}}
}

// supervisor builds a Supervisor with test-sized limits; tweak adjusts them.
func (h *harness) supervisor(tweak func(*Config)) *Supervisor {
	h.t.Helper()
	cfg := Config{
		Binary:         fakeMongod,
		DataRoot:       h.root,
		ReadyTimeout:   20 * time.Second,
		StopGrace:      5 * time.Second,
		RestartBackoff: 20 * time.Millisecond,
		Logger:         slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if tweak != nil {
		tweak(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() {
		if err := s.Stop(context.Background()); err != nil {
			h.t.Logf("cleanup stop: %v", err)
		}
		if h.t.Failed() {
			h.t.Logf("supervisor log:\n%s", h.logs.String())
			h.t.Logf("mongo.log:\n%s", tail(filepath.Join(h.root, "logs", "mongo.log")))
		}
	})
	return s
}

func (h *harness) start(s *Supervisor) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		h.t.Fatalf("Start: %v", err)
	}
}

func (h *harness) lockPath() string { return filepath.Join(h.root, "mongo_data", "mongod.lock") }

func (h *harness) lockContent() string {
	b, err := os.ReadFile(h.lockPath())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		h.t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func connect(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

func testDB(t *testing.T, c *mongo.Client) *mongo.Database {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	return c.Database(name)
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// waitFor polls cond until it holds or the (generous) limit passes.
func waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	end := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func storedPassword(t *testing.T, root string) string {
	t.Helper()
	c, exists, _, err := loadCredential(filepath.Join(root, "mongo_data", "infmem-credential.json"))
	if err != nil || !exists {
		t.Fatalf("credential file: exists=%v err=%v", exists, err)
	}
	return c.Password.reveal()
}

func TestStartPingInsertFind(t *testing.T) {
	h := newHarness(t)
	s := h.supervisor(nil)
	h.start(s)

	if s.PID() == 0 || strconv.Itoa(s.PID()) != h.lockContent() {
		t.Errorf("PID() = %d, lock file says %q", s.PID(), h.lockContent())
	}
	c := connect(t, s.URI())
	if err := c.Ping(ctxT(t, 10*time.Second), readpref.Primary()); err != nil {
		t.Fatalf("ping through URI(): %v", err)
	}
	coll := testDB(t, c).Collection("notes")
	if _, err := coll.InsertOne(ctxT(t, 10*time.Second), bson.D{{Key: "_id", Value: "a"}, {Key: "text", Value: "hello"}}); err != nil {
		t.Fatalf("insert: %v", err)
	}
	var got bson.M
	if err := coll.FindOne(ctxT(t, 10*time.Second), bson.D{{Key: "_id", Value: "a"}}).Decode(&got); err != nil {
		t.Fatalf("find: %v", err)
	}
	if got["text"] != "hello" {
		t.Errorf("found %v", got)
	}

	pw := storedPassword(t, h.root)
	st, err := os.Stat(filepath.Join(h.root, "mongo_data", "infmem-credential.json"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("credential file mode %v, want 0600", st.Mode().Perm())
	}
	if !strings.Contains(s.URI(), pw) {
		t.Error("URI() does not carry the stored password")
	}
	for name, text := range map[string]string{
		"RedactedURI": s.RedactedURI(),
		"%+v":         fmt.Sprintf("%+v", s),
		"%#v":         fmt.Sprintf("%#v", s),
		"log":         h.logs.String(),
		"mongo.log":   tail(filepath.Join(h.root, "logs", "mongo.log")),
	} {
		if strings.Contains(text, pw) {
			t.Errorf("%s leaks the password: %s", name, text)
		}
	}

	// The credential is what lets the client in: without it, or with a
	// wrong password, the same server refuses.
	anon := connect(t, s.anonURI())
	err = anon.Database("x").Collection("y").FindOne(ctxT(t, 10*time.Second), bson.D{}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 13 {
		t.Errorf("unauthenticated find: %v, want Unauthorized (13)", err)
	}
	wrong := connect(t, strings.Replace(s.URI(), pw, "wrong-password", 1))
	if err := wrong.Ping(ctxT(t, 10*time.Second), readpref.Primary()); err == nil {
		t.Error("ping with a wrong password succeeded")
	}
}

func TestCredentialReusedAndStopIsGraceful(t *testing.T) {
	h := newHarness(t)
	s1 := h.supervisor(nil)
	h.start(s1)
	pw := storedPassword(t, h.root)
	uri := s1.URI()
	pid := s1.PID()
	c := connect(t, uri)
	coll := testDB(t, c).Collection("notes")
	if _, err := coll.InsertOne(ctxT(t, 10*time.Second), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}

	if err := s1.Stop(ctxT(t, 10*time.Second)); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-s1.Done():
	default:
		t.Error("Done not closed after Stop")
	}
	if !errors.Is(s1.Err(), ErrStopped) {
		t.Errorf("Err() after Stop = %v", s1.Err())
	}
	if processAlive(pid) {
		t.Errorf("mongod %d still alive after Stop", pid)
	}
	if got := h.lockContent(); got != "" {
		t.Errorf("lock file after a graceful stop = %q, want empty or absent", got)
	}
	if s1.PID() != 0 {
		t.Errorf("PID() after Stop = %d", s1.PID())
	}
	if err := s1.Stop(ctxT(t, time.Second)); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(h.root, "run", "mongod.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket link left behind after Stop: %v", err)
	}
	if !strings.Contains(tail(filepath.Join(h.root, "logs", "mongo.log")), `"signal":"terminated"`) {
		t.Error("mongo.log does not show a SIGTERM shutdown")
	}

	s2 := h.supervisor(nil)
	h.start(s2)
	if got := storedPassword(t, h.root); got != pw {
		t.Error("second start generated a new password instead of reusing the file")
	}
	if s2.URI() != uri {
		t.Errorf("URI changed across starts: %s -> %s", s1.RedactedURI(), s2.RedactedURI())
	}
	if n, err := coll.CountDocuments(ctxT(t, 15*time.Second), bson.D{}); err != nil || n != 1 {
		t.Errorf("after restart count = %d, %v; want 1", n, err)
	}
	if strings.Count(h.logs.String(), "created the infmem user") != 1 {
		t.Error("the user should be created on the first start only")
	}
}

func TestStopKillsMongodThatIgnoresSIGTERM(t *testing.T) {
	t.Setenv("FAKEMONGOD_IGNORE_SIGTERM", "1")
	h := newHarness(t)
	s := h.supervisor(func(c *Config) { c.StopGrace = 300 * time.Millisecond })
	h.start(s)
	pid := s.PID()
	err := s.Stop(ctxT(t, 10*time.Second))
	if !errors.Is(err, ErrKilled) || !strings.Contains(err.Error(), strconv.Itoa(pid)) {
		t.Fatalf("Stop = %v, want ErrKilled naming pid %d", err, pid)
	}
	if processAlive(pid) {
		t.Errorf("mongod %d survived the kill", pid)
	}
}

func TestStopContextCutsTheGraceShort(t *testing.T) {
	t.Setenv("FAKEMONGOD_IGNORE_SIGTERM", "1")
	h := newHarness(t)
	s := h.supervisor(func(c *Config) { c.StopGrace = time.Hour })
	h.start(s)
	pid := s.PID()
	if err := s.Stop(ctxT(t, 200*time.Millisecond)); !errors.Is(err, ErrKilled) {
		t.Fatalf("Stop = %v, want ErrKilled", err)
	}
	if processAlive(pid) {
		t.Errorf("mongod %d survived", pid)
	}
}

func TestNeverReadyReportsLogTail(t *testing.T) {
	t.Setenv("FAKEMONGOD_NEVER_READY", "1")
	h := newHarness(t)
	s := h.supervisor(func(c *Config) { c.ReadyTimeout = time.Second })
	err := s.Start(ctxT(t, 30*time.Second))
	if !errors.Is(err, ErrNotReady) {
		t.Fatalf("Start = %v, want ErrNotReady", err)
	}
	for _, want := range []string{"did not answer ping within 1s", "never accepting connections", "mongo.log"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	<-s.Done()
	if !errors.Is(s.Err(), ErrNotReady) {
		t.Errorf("Err() = %v", s.Err())
	}
	if h.lockContent() != "" {
		t.Error("the unready mongod was not shut down cleanly")
	}
}

func TestCrashOnStartGivesUpAfterLimit(t *testing.T) {
	t.Setenv("FAKEMONGOD_CRASH_ON_START", "1")
	h := newHarness(t)
	s := h.supervisor(func(c *Config) { c.MaxRestarts = 2 })
	err := s.Start(ctxT(t, 30*time.Second))
	if !errors.Is(err, ErrCrashLoop) {
		t.Fatalf("Start = %v, want ErrCrashLoop", err)
	}
	for _, want := range []string{"exited before it was ready 3 times", "exit status 1", "simulated crash on start", "logs/mongo.log"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(h.root, "logs", "mongo.log"))
	if n := strings.Count(string(b), "simulated crash on start"); n != 3 {
		t.Errorf("mongod was started %d times, want 3 (1 + MaxRestarts)", n)
	}
	// Each crash left its pid in mongod.lock; without clearing it the retries
	// would have been refused as "unclean shutdown" instead.
	if n := strings.Count(h.logs.String(), "removed a stale mongod.lock"); n != 2 {
		t.Errorf("stale lock removed %d times, want 2", n)
	}
}

func TestOptionsRejectedFailsWithoutRetry(t *testing.T) {
	h := newHarness(t)
	// A wrapper that adds a flag the stand-in (like an old or new mongod)
	// does not know.
	wrapper := filepath.Join(t.TempDir(), "mongod")
	script := "#!/bin/sh\nexec " + fakeMongod + " --noSuchOption \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := h.supervisor(func(c *Config) { c.Binary = wrapper })
	err := s.Start(ctxT(t, 30*time.Second))
	if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "unrecognised option '--noSuchOption'") {
		t.Fatalf("Start = %v, want ErrNotReady quoting the bad option", err)
	}
	if strings.Contains(h.logs.String(), "restarting") {
		t.Error("a rejected command line must not be retried")
	}
}

func TestRestartAfterCrashKeepsDataAndURI(t *testing.T) {
	h := newHarness(t)
	var uriChanges atomic.Int32
	s := h.supervisor(func(c *Config) { c.OnURIChange = func() { uriChanges.Add(1) } })
	h.start(s)
	uri := s.URI()
	c := connect(t, uri)
	coll := testDB(t, c).Collection("notes")
	if _, err := coll.InsertOne(ctxT(t, 10*time.Second), bson.D{{Key: "_id", Value: "before-crash"}}); err != nil {
		t.Fatal(err)
	}

	old := s.PID()
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a restarted mongod", 20*time.Second, func() bool { p := s.PID(); return p != 0 && p != old })

	// The client made before the crash reconnects through the same URI.
	var err error
	waitFor(t, "the old client to read again", 20*time.Second, func() bool {
		err = coll.FindOne(ctxT(t, 2*time.Second), bson.D{{Key: "_id", Value: "before-crash"}}).Err()
		return err == nil
	})
	if s.URI() != uri {
		t.Error("URI changed after a restart on the same port")
	}
	if n := uriChanges.Load(); n != 0 {
		t.Errorf("OnURIChange called %d times", n)
	}
	if _, err := coll.InsertOne(ctxT(t, 10*time.Second), bson.D{{Key: "_id", Value: "after-crash"}}); err != nil {
		t.Errorf("write after restart: %v", err)
	}
	logs := h.logs.String()
	for _, want := range []string{"mongod exited unexpectedly; restarting", "removed a stale mongod.lock"} {
		if !strings.Contains(logs, want) {
			t.Errorf("supervisor log lacks %q", want)
		}
	}
	select {
	case <-s.Done():
		t.Fatalf("supervisor finished: %v", s.Err())
	default:
	}
}

// crashOntoTakenPort kills mongod and takes its port before the supervisor
// restarts it (the caller's RestartBackoff gives it the time), so the
// restart has to move to another port. It returns the old port, which stays
// taken until the test ends.
func crashOntoTakenPort(t *testing.T, s *Supervisor) int {
	t.Helper()
	s.mu.Lock()
	port := s.port
	s.mu.Unlock()
	if err := syscall.Kill(s.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the crash to be noticed", 10*time.Second, func() bool { return s.PID() == 0 })
	var l net.Listener
	waitFor(t, "the old port to be free for the squatter", 5*time.Second, func() bool {
		var err error
		l, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		return err == nil
	})
	t.Cleanup(func() { l.Close() })
	return port
}

func TestRestartOnAnotherPortWhenTheOldOneIsTaken(t *testing.T) {
	h := newHarness(t)
	s := h.supervisor(func(c *Config) { c.RestartBackoff = 500 * time.Millisecond })
	h.start(s)
	if !s.unixSocket {
		t.Skip("the data root is too long for a unix socket")
	}
	uri := s.URI()
	c := connect(t, uri)
	coll := testDB(t, c).Collection("notes")
	if _, err := coll.InsertOne(ctxT(t, 10*time.Second), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	port := crashOntoTakenPort(t, s)

	waitFor(t, "a restarted mongod", 20*time.Second, func() bool { return s.PID() != 0 })
	s.mu.Lock()
	newPort := s.port
	s.mu.Unlock()
	if newPort == port {
		t.Fatalf("restarted on the taken port %d", port)
	}
	if s.URI() != uri {
		t.Error("URI changed although the socket symlink should keep it stable")
	}
	var err error
	waitFor(t, "the old client to read again", 20*time.Second, func() bool {
		_, err = coll.CountDocuments(ctxT(t, 2*time.Second), bson.D{})
		return err == nil
	})
}

// TestRestartOverTCPOnAnotherPortReportsURIChange: without a unix socket
// (here: a ':' in the data root) the URI names the port, so a restart that
// has to move reports the new URI through OnURIChange, once.
func TestRestartOverTCPOnAnotherPortReportsURIChange(t *testing.T) {
	h := newHarness(t)
	h.root = filepath.Join(h.root, "a:b")
	var uriChanges atomic.Int32
	s := h.supervisor(func(c *Config) {
		c.RestartBackoff = time.Second
		c.OnURIChange = func() { uriChanges.Add(1) }
	})
	h.start(s)
	if s.unixSocket {
		t.Fatal("a data root with ':' must fall back to TCP")
	}
	uri := s.URI()
	port := crashOntoTakenPort(t, s)

	waitFor(t, "OnURIChange", 20*time.Second, func() bool { return uriChanges.Load() > 0 })
	if n := uriChanges.Load(); n != 1 {
		t.Errorf("OnURIChange called %d times, want 1", n)
	}
	if s.URI() == uri || strings.Contains(s.URI(), ":"+strconv.Itoa(port)+"/") {
		t.Fatalf("URI still names the old port %d: %s", port, s.RedactedURI())
	}
	if err := connect(t, s.URI()).Ping(ctxT(t, 10*time.Second), readpref.Primary()); err != nil {
		t.Errorf("ping through the new URI: %v", err)
	}
}

func TestCrashLoopGivesUp(t *testing.T) {
	h := newHarness(t)
	s := h.supervisor(func(c *Config) { c.MaxRestarts = 2 })
	h.start(s)
	t.Setenv("FAKEMONGOD_CRASH_AFTER_MS", "100") // every restart crashes
	if err := syscall.Kill(s.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("supervisor did not give up")
	}
	err := s.Err()
	if !errors.Is(err, ErrCrashLoop) {
		t.Fatalf("Err() = %v, want ErrCrashLoop", err)
	}
	for _, want := range []string{" 3 times within 1m0s", "logs/mongo.log", "simulated crash"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if s.PID() != 0 {
		t.Errorf("PID() = %d after giving up", s.PID())
	}
	if err := s.Stop(ctxT(t, time.Second)); err != nil {
		t.Errorf("Stop after giving up: %v", err)
	}
}

func TestStopDuringBackoffPreventsRestart(t *testing.T) {
	h := newHarness(t)
	s := h.supervisor(func(c *Config) { c.RestartBackoff = time.Hour; c.MaxRestartBackoff = time.Hour })
	h.start(s)
	if err := syscall.Kill(s.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the crash to be noticed", 10*time.Second, func() bool {
		return strings.Contains(h.logs.String(), "restarting")
	})
	if err := s.Stop(ctxT(t, 10*time.Second)); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	<-s.Done()
	if n := strings.Count(h.logs.String(), "started mongod"); n != 1 {
		t.Errorf("mongod started %d times, want 1", n)
	}
}

func TestStaleLockFromDeadProcessIsCleared(t *testing.T) {
	h := newHarness(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(h.root, "mongo_data"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.lockPath(), []byte(strconv.Itoa(dead.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := h.supervisor(nil)
	h.start(s)
	if !strings.Contains(h.logs.String(), "removed a stale mongod.lock") {
		t.Error("stale lock removal was not logged")
	}
	if h.lockContent() != strconv.Itoa(s.PID()) {
		t.Errorf("lock file = %q, want the new pid %d", h.lockContent(), s.PID())
	}
}

func TestLockHeldByReusedPIDIsCleared(t *testing.T) {
	if _, known := processName(os.Getpid()); !known {
		t.Skip("this OS cannot tell what a pid runs")
	}
	h := newHarness(t)
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	if err := os.MkdirAll(filepath.Join(h.root, "mongo_data"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.lockPath(), []byte(strconv.Itoa(other.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	s := h.supervisor(nil)
	h.start(s)
	if !strings.Contains(h.logs.String(), "pid was reused") {
		t.Error("reused pid was not recognised")
	}
}

func TestLiveMongodOwningTheDataDirIsAnError(t *testing.T) {
	h := newHarness(t)
	a := h.supervisor(nil)
	h.start(a)
	b := h.supervisor(nil)
	err := b.Start(ctxT(t, 30*time.Second))
	if !errors.Is(err, ErrDBPathInUse) || !strings.Contains(err.Error(), fmt.Sprintf("process %d", a.PID())) {
		t.Fatalf("second Start = %v, want ErrDBPathInUse naming pid %d", err, a.PID())
	}
	if h.lockContent() != strconv.Itoa(a.PID()) {
		t.Error("the live mongod's lock file was touched")
	}
	<-b.Done()
	if _, err := os.Lstat(filepath.Join(h.root, "run", "mongod.sock")); err != nil {
		t.Errorf("the failed supervisor removed the live mongod's socket link: %v", err)
	}
	if err := connect(t, a.URI()).Ping(ctxT(t, 10*time.Second), readpref.Primary()); err != nil {
		t.Errorf("first mongod no longer answers: %v", err)
	}
}

func TestCredentialSavedButUserMissingIsRepaired(t *testing.T) {
	h := newHarness(t)
	// What a crash between saving the credential and creating the user
	// leaves behind.
	if err := os.MkdirAll(filepath.Join(h.root, "mongo_data"), 0o700); err != nil {
		t.Fatal(err)
	}
	cred := newCredential()
	if err := saveCredential(filepath.Join(h.root, "mongo_data", "infmem-credential.json"), cred); err != nil {
		t.Fatal(err)
	}
	s := h.supervisor(nil)
	h.start(s)
	if !strings.Contains(s.URI(), cred.Password.reveal()) {
		t.Error("the saved credential was not used")
	}
	if err := connect(t, s.URI()).Ping(ctxT(t, 10*time.Second), readpref.Primary()); err != nil {
		t.Error(err)
	}
}

func TestWrongStoredCredentialIsAClearError(t *testing.T) {
	h := newHarness(t)
	s1 := h.supervisor(nil)
	h.start(s1)
	if err := s1.Stop(ctxT(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	bad := newCredential()
	credPath := filepath.Join(h.root, "mongo_data", "infmem-credential.json")
	if err := saveCredential(credPath, bad); err != nil {
		t.Fatal(err)
	}
	s2 := h.supervisor(nil)
	err := s2.Start(ctxT(t, 30*time.Second))
	if err == nil {
		t.Fatal("Start accepted a credential mongod does not know")
	}
	for _, want := range []string{credPath, "already has users"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), bad.Password.reveal()) {
		t.Error("error leaks the password")
	}
	<-s2.Done()
	if h.lockContent() != "" || s2.PID() != 0 {
		t.Error("mongod left running after the failed start")
	}
}

func TestStartContextCancelled(t *testing.T) {
	t.Setenv("FAKEMONGOD_NEVER_READY", "1")
	h := newHarness(t)
	s := h.supervisor(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := s.Start(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Start = %v, want DeadlineExceeded", err)
	}
	<-s.Done()
	if h.lockContent() != "" {
		t.Error("mongod was not stopped after the cancelled start")
	}
}

// TestNoNetworkListener: with a unix socket available, managed mongod is
// told to listen on a socket path in the private run folder only, so no
// other local user can reach it over 127.0.0.1 or win the localhost
// exception before infmem's user exists (issue 13).
func TestNoNetworkListener(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("mongod has no unix socket on Windows")
	}
	for _, long := range []bool{false, true} {
		t.Run(fmt.Sprintf("long root %v", long), func(t *testing.T) {
			h := newHarness(t)
			sockDir := filepath.Join(h.root, "run")
			if long {
				// Too long for a socket in run/: the sockets move to the
				// private per-root folder, still with no TCP listener.
				t.Setenv("XDG_RUNTIME_DIR", "")
				h.root = filepath.Join(h.root, strings.Repeat("a-long-folder-name/", 6))
				p, err := sockdir.Path(filepath.Join(h.root, "run"), "mongodb-65535.sock")
				if err != nil {
					t.Fatal(err)
				}
				sockDir = filepath.Dir(p)
				t.Cleanup(func() { os.RemoveAll(sockDir) })
			}
			s := h.supervisor(nil)
			h.start(s)
			s.mu.Lock()
			port := s.port
			s.mu.Unlock()
			args := strings.Join(s.args(port), " ")
			if strings.Contains(args, "127.0.0.1") || !strings.Contains(args, "--bind_ip "+sockDir+"/") {
				t.Fatalf("mongod args: %s", args)
			}
			if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second); err == nil {
				c.Close()
				t.Fatalf("mongod answers on 127.0.0.1:%d", port)
			}
			c := connect(t, s.URI())
			if err := c.Ping(ctxT(t, 10*time.Second), readpref.Primary()); err != nil {
				t.Fatalf("ping through the socket: %v", err)
			}
		})
	}
}
