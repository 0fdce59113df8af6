package control

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/proc"
)

var _ backup.Pauser = Pauser{}

// fakeHandler records what the server asked of it.
type fakeHandler struct {
	mu       sync.Mutex
	paused   int
	resumed  []bool
	shutdown int
	reloads  int
	resumeCh chan bool
	// started and cancelled report on the "block" job.
	started   chan struct{}
	cancelled chan error
}

func (f *fakeHandler) Status(ctx context.Context) (*Status, error) {
	return &Status{PID: 42, State: StateReady, Memories: &MemoryCounts{Total: 7}}, nil
}

func (f *fakeHandler) Pause(ctx context.Context, release bool) (func(bool) error, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.paused > len(f.resumed) {
		return nil, errors.New("already paused")
	}
	f.paused++
	return func(reload bool) error {
		f.mu.Lock()
		f.resumed = append(f.resumed, reload)
		f.mu.Unlock()
		if f.resumeCh != nil {
			f.resumeCh <- reload
		}
		return nil
	}, nil
}

func (f *fakeHandler) Run(ctx context.Context, job string, args json.RawMessage) (any, error) {
	switch job {
	case "echo":
		return args, nil
	case "count":
		for i := 1; i <= 3; i++ {
			ReportProgress(ctx, map[string]int{"step": i})
		}
		return "counted", nil
	case "block":
		f.started <- struct{}{}
		<-ctx.Done()
		f.cancelled <- ctx.Err()
		return nil, ctx.Err()
	}
	return nil, errors.New("no job " + job)
}

func (f *fakeHandler) Reload(ctx context.Context) (*ConfigStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reloads++
	return &ConfigStatus{Path: "/cfg.json", Reloads: f.reloads, Applied: []string{"backup.recipients"}, RestartNeeded: []string{"mongo.mode"}}, nil
}

func (f *fakeHandler) Shutdown() { f.mu.Lock(); f.shutdown++; f.mu.Unlock() }

func serve(t *testing.T, h Handler) (path string, srv *Server) {
	t.Helper()
	dir, err := os.MkdirTemp("", "ctl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path = filepath.Join(dir, "c.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	srv = NewServer(h, Pong{PID: 42, Version: "test"}, nil)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ln.Close()
		srv.Close()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return path, srv
}

func dial(t *testing.T, path string) *Client {
	t.Helper()
	c, err := Dial(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestOperations(t *testing.T) {
	h := &fakeHandler{}
	path, _ := serve(t, h)
	c := dial(t, path)
	ctx := context.Background()
	pong, err := c.Ping(ctx)
	if err != nil || pong.PID != 42 || pong.Version != "test" {
		t.Fatalf("ping: %+v %v", pong, err)
	}
	st, err := c.Status(ctx)
	if err != nil || st.State != StateReady || st.Memories.Total != 7 {
		t.Fatalf("status: %+v %v", st, err)
	}
	var echoed map[string]int
	if err := c.Run(ctx, "echo", map[string]int{"n": 3}, &echoed); err != nil || echoed["n"] != 3 {
		t.Fatalf("run: %v %v", echoed, err)
	}
	if err := c.Run(ctx, "nope", nil, nil); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "no job nope") {
		t.Fatalf("unknown job: %v", err)
	}
	if err := c.Call(ctx, Request{Op: "frobnicate"}, nil); err == nil || !strings.Contains(err.Error(), `unknown operation "frobnicate"`) {
		t.Fatalf("unknown op: %v", err)
	}
	if err := c.Call(ctx, Request{Op: OpResume}, nil); err == nil || !strings.Contains(err.Error(), "holds no pause") {
		t.Fatalf("resume without pause: %v", err)
	}
	resume, err := c.Pause(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, Request{Op: OpPause}, nil); err == nil || !strings.Contains(err.Error(), "already holds a pause") {
		t.Fatalf("second pause: %v", err)
	}
	if err := resume(false); err != nil {
		t.Fatal(err)
	}
	rs, err := c.Reload(ctx)
	if err != nil || rs.Path != "/cfg.json" || rs.Reloads != 1 || len(rs.Applied) != 1 || rs.RestartNeeded[0] != "mongo.mode" {
		t.Fatalf("reload: %+v %v", rs, err)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.paused != 1 || len(h.resumed) != 1 || h.resumed[0] || h.shutdown != 1 || h.reloads != 1 {
		t.Fatalf("handler saw %+v", h)
	}
}

// A pause whose connection drops without a resume ends by itself, with a
// reload, and the daemon can be paused again.
func TestAbandonedPauseResumes(t *testing.T) {
	h := &fakeHandler{resumeCh: make(chan bool, 1)}
	path, _ := serve(t, h)
	c, err := Dial(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pause(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	c.Close()
	select {
	case reload := <-h.resumeCh:
		if !reload {
			t.Fatal("abandoned pause resumed without reload")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("abandoned pause never resumed")
	}
	p := Pauser{Control: path, Release: true}
	resume, err := p.Pause(context.Background())
	if err != nil {
		t.Fatalf("pause after abandoned pause: %v", err)
	}
	if err := resume(true); err != nil {
		t.Fatal(err)
	}
	<-h.resumeCh
}

// When the server closes, pauses are dropped, not resumed.
func TestCloseDropsPauses(t *testing.T) {
	h := &fakeHandler{}
	path, srv := serve(t, h)
	c := dial(t, path)
	if _, err := c.Pause(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if _, err := c.Ping(context.Background()); err == nil {
		t.Fatal("ping after close answered")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.resumed) != 0 {
		t.Fatalf("resumed on close: %v", h.resumed)
	}
}

func TestCallHonoursContext(t *testing.T) {
	dir, _ := os.MkdirTemp("", "ctl")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mute.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		// Accept and never answer, like a hung daemon.
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	c := dial(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Ping(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hung daemon: %v", err)
	}
}

func TestInfoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), InfoName)
	if _, err := ReadInfo(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("absent: %v", err)
	}
	in := Info{PID: 7, Socket: "/s", ControlSocket: "/c", Version: "v", StartedAt: time.Now().UTC().Truncate(time.Second), DataRoot: "/r"}
	if err := WriteInfo(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadInfo(path)
	if err != nil || *out != in {
		t.Fatalf("%+v %v", out, err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("temp file left: %v", entries)
	}
	if err := RemoveInfo(path); err != nil {
		t.Fatal(err)
	}
	if err := RemoveInfo(path); err != nil {
		t.Fatalf("second remove: %v", err)
	}
}

func TestEndpointsFallBackForLongPaths(t *testing.T) {
	short, _ := os.MkdirTemp("", "r")
	defer os.RemoveAll(short)
	root, err := dataroot.Prepare(short)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := EndpointsFor(root)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(ep.MCP) != root.RunDir() || filepath.Dir(ep.Control) != root.RunDir() || ep.Info != filepath.Join(root.RunDir(), InfoName) {
		t.Fatalf("short root: %+v", ep)
	}
	long := filepath.Join(short, strings.Repeat("d", 60), strings.Repeat("e", 60))
	lroot, err := dataroot.Prepare(long)
	if err != nil {
		t.Fatal(err)
	}
	lep, err := EndpointsFor(lroot)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(filepath.Dir(lep.MCP))
	if len(lep.MCP) > 104 || filepath.Dir(lep.MCP) != filepath.Dir(lep.Control) || strings.HasPrefix(lep.MCP, long) {
		t.Fatalf("long root: %+v", lep)
	}
	fi, err := os.Stat(filepath.Dir(lep.MCP))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket dir: %v %v", fi, err)
	}
	// The same root always maps to the same place.
	again, _ := EndpointsFor(lroot)
	if again != lep {
		t.Fatalf("%+v != %+v", again, lep)
	}
}

func TestProbe(t *testing.T) {
	dir, _ := os.MkdirTemp("", "r")
	defer os.RemoveAll(dir)
	root, _ := dataroot.Prepare(dir)
	ep, _ := EndpointsFor(root)
	ctx := context.Background()
	if p := ProbeDaemon(ctx, ep); p.Presence != Absent {
		t.Fatalf("empty root: %+v", p)
	}
	// A crashed daemon's leftovers: daemon.json naming a dead process.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	WriteInfo(ep.Info, Info{PID: cmd.Process.Pid, Socket: ep.MCP, ControlSocket: ep.Control})
	if p := ProbeDaemon(ctx, ep); p.Presence != Stale || !strings.Contains(p.Problem, "not running") {
		t.Fatalf("dead pid: %+v", p)
	}
	// A live process that does not answer.
	WriteInfo(ep.Info, Info{PID: os.Getpid(), Socket: ep.MCP, ControlSocket: ep.Control})
	if p := ProbeDaemon(ctx, ep); p.Presence != Stale || !strings.Contains(p.Problem, "does not answer") {
		t.Fatalf("mute pid: %+v", p)
	}
	// A daemon that answers.
	ln, err := net.Listen("unix", ep.Control)
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(&fakeHandler{}, Pong{PID: os.Getpid(), Version: "x"}, nil)
	go srv.Serve(ln)
	defer func() { ln.Close(); srv.Close() }()
	if p := ProbeDaemon(ctx, ep); p.Presence != Running || p.Pong.PID != os.Getpid() || p.Info == nil {
		t.Fatalf("running: %+v", p)
	}
}

// An exited child not yet reaped is a zombie; it counts as gone.
func TestPIDAliveTreatsZombiesAsGone(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for proc.Alive(cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("an exited, unreaped child still counts as alive")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !proc.Alive(os.Getpid()) {
		t.Fatal("this process counts as gone")
	}
}

func TestRunProgress(t *testing.T) {
	path, _ := serve(t, &fakeHandler{})
	c := dial(t, path)
	ctx := context.Background()
	var steps []string
	var out string
	if err := c.RunWithProgress(ctx, "count", nil, &out, func(p json.RawMessage) { steps = append(steps, string(p)) }); err != nil || out != "counted" {
		t.Fatalf("run: %q %v", out, err)
	}
	if strings.Join(steps, " ") != `{"step":1} {"step":2} {"step":3}` {
		t.Fatalf("progress: %v", steps)
	}
	// Without asking, no progress lines come, and the connection goes on.
	if err := c.Run(ctx, "count", nil, &out); err != nil || out != "counted" {
		t.Fatalf("run without progress: %q %v", out, err)
	}
	if _, err := c.Ping(ctx); err != nil {
		t.Fatalf("connection unusable after a run: %v", err)
	}
}

// TestRunCancelledWhenClientLeaves: a job stops when the client that runs
// it goes away (Ctrl-C on the terminal), and only then.
func TestRunCancelledWhenClientLeaves(t *testing.T) {
	h := &fakeHandler{started: make(chan struct{}, 1), cancelled: make(chan error, 1)}
	path, _ := serve(t, h)
	c := dial(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Run(ctx, "block", nil, nil) }()
	<-h.started
	select {
	case err := <-h.cancelled:
		t.Fatalf("job cancelled while its client waits: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	cancel() // the client gives up and hangs up
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("client: %v", err)
	}
	c.Close()
	select {
	case err := <-h.cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("job ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("job still running after its client left")
	}
}
