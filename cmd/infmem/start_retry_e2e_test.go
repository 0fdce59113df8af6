//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/flock"
)

// holdEmbeddedEngine takes the embedded engine's lock of root, as another
// process using the database (a terminal command) does: a daemon cannot
// open the database while it is held, and retries. mongostore's lock file
// is infmem-embedded.lock in mongo-data/.
func holdEmbeddedEngine(t *testing.T, root string) *flock.Lock {
	t.Helper()
	r, err := dataroot.Prepare(root)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := flock.Acquire(filepath.Join(r.MongoDataDir(), "infmem-embedded.lock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Release() })
	return lock
}

// startWatched runs `infmem start` with args in the background, its stderr
// read line by line through a pipe (lines), so that the test can act on
// what it says while it waits.
type startWatched struct {
	cmd   *exec.Cmd
	out   bytes.Buffer
	lines chan string // closed at the end of stderr
}

func startInBackground(t *testing.T, env []string, args ...string) *startWatched {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	s := &startWatched{cmd: exec.CommandContext(ctx, infmemBinary(t), append([]string{"start"}, args...)...), lines: make(chan string, 100)}
	s.cmd.Env = env
	s.cmd.Stdout = &s.out
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stderr = pw
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	go func() {
		defer close(s.lines)
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	return s
}

// waitFor reads stderr until a line contains want; it returns what was read.
func (s *startWatched) waitFor(t *testing.T, want string) string {
	t.Helper()
	var seen []string
	for line := range s.lines {
		seen = append(seen, line)
		if strings.Contains(line, want) {
			return strings.Join(seen, "\n")
		}
	}
	err := s.cmd.Wait()
	t.Fatalf("infmem start ended (%v) without saying %q:\nstdout: %s\nstderr:\n%s", err, want, s.out.String(), strings.Join(seen, "\n"))
	return ""
}

// end reads the rest of stderr and returns start's exit code and output.
func (s *startWatched) end(t *testing.T) (code int, stdout, stderr string) {
	t.Helper()
	var rest []string
	for line := range s.lines {
		rest = append(rest, line)
	}
	err := s.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), s.out.String(), strings.Join(rest, "\n")
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, s.out.String(), strings.Join(rest, "\n")
}

// daemonState is the running daemon's memory state and error ('infmem
// status --json').
func daemonState(t *testing.T, env []string) (state, errText string) {
	t.Helper()
	_, out, _ := runBin(t, env, "status", "--json")
	rep := statusJSON(t, out)
	if rep.Daemon.Presence != string(control.Running) {
		t.Fatalf("the daemon is %s: %s", rep.Daemon.Presence, out)
	}
	return rep.Daemon.State, rep.Daemon.Error
}

// A daemon whose first attempts to open the database fail retries by
// itself, and 'infmem start' waits for it instead of failing at the first
// failure (it used to exit 1 with "cannot open the database" and "fix the
// cause, then 'infmem restart'" while the daemon went on retrying):
//   - the database held by another process while start waits: start says
//     why on stderr and that the daemon retries, and once the database is
//     free it ends with 0 and the usual "started the daemon";
//   - still held when --wait is up: start fails with the reason, the log
//     path and that the daemon keeps retrying, which it does (released,
//     the daemon opens the database by itself); the same when the daemon
//     was already running (it used to say "already running", exit 0);
//   - the daemon stopped while start waits: start fails with the reason
//     and the log path.
//
// The fault is real: the test process holds the embedded engine's lock, as
// a terminal command using the database does.
func TestStartWaitsWhileTheDaemonRetries(t *testing.T) {
	root, env := faultRoot(t, faultConfig)
	ep, err := control.EndpointsFor(dataroot.Root{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	logFile := ep.LogFile()
	holder := fmt.Sprintf("in use by process %d", os.Getpid())

	// Freed while start waits.
	lock := holdEmbeddedEngine(t, root)
	s := startInBackground(t, env, "--wait", "4m")
	said := s.waitFor(t, "it keeps retrying")
	if !strings.Contains(said, "the daemon cannot open the database yet: ") || !strings.Contains(said, holder) {
		t.Fatalf("start while the database is held:\n%s", said)
	}
	lock.Release()
	code, out, errs := s.end(t)
	if code != 0 || !strings.Contains(out, "started the daemon (pid ") {
		t.Fatalf("start after the database was freed: %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if state, e := daemonState(t, env); state != control.StateReady {
		t.Fatalf("after start: %s %s", state, e)
	}
	stopDaemon(t, root, env)

	// Still held when the time is up; start again while the daemon
	// runs, failing (it was started by another start, as Claude's 'infmem
	// mcp' starts it): the same wait, the same report.
	lock = holdEmbeddedEngine(t, root)
	s = startInBackground(t, env, "--wait", "4m")
	s.waitFor(t, "it keeps retrying")
	s.cmd.Process.Kill()
	s.end(t)
	code, out, errs = runBin(t, env, "start", "--wait", "3s")
	if code != exitFailure || !strings.Contains(errs, "infmem: the daemon runs but cannot open the database: ") ||
		!strings.Contains(errs, holder) || !strings.Contains(errs, "it keeps retrying by itself") || !strings.Contains(errs, logFile) {
		t.Fatalf("start while the database stays held: %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if state, e := daemonState(t, env); state != control.StateFailed || !strings.Contains(e, holder) {
		t.Fatalf("the daemon after start gave up: %s %s", state, e)
	}
	lock.Release()
	pollUntil(t, 2*time.Minute, "the daemon to open the database by itself", func() bool {
		if state, _ := daemonState(t, env); state != control.StateReady {
			time.Sleep(200 * time.Millisecond)
			return false
		}
		return true
	})
	stopDaemon(t, root, env)

	// Stopped while start waits.
	lock = holdEmbeddedEngine(t, root)
	s = startInBackground(t, env, "--wait", "4m")
	s.waitFor(t, "it keeps retrying")
	if c, o, e := runBin(t, env, "stop"); c != 0 {
		t.Fatalf("stop: %d %s %s", c, o, e)
	}
	code, out, errs = s.end(t)
	if code != exitFailure || !regexp.MustCompile(`infmem: the daemon (exited|is shutting down) before it opened the database: `).MatchString(errs) ||
		!strings.Contains(errs, holder) || !strings.Contains(errs, logFile) {
		t.Fatalf("start when the daemon stopped: %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	lock.Release()
}
