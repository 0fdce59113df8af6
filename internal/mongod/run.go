package mongod

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"time"
)

// The supervisor's goroutine. Each pass of the loop in supervise is one
// mongod process: spawn it, bring it up, watch it, and, once it has exited
// without being asked to, decide whether to restart it.

var (
	errExited        = errors.New("mongod exited")
	errStopRequested = errors.New("stop requested")
)

// run owns the mongod processes from the first spawn to the end: it reports
// the first start's outcome to Start, then restarts mongod after each
// unexpected exit until the rate limit is hit or Stop is called.
func (s *Supervisor) run() {
	err := s.supervise()
	s.removeSocketLink()
	s.finish(err)
	s.reportStart(err)
}

// supervise runs one mongod after another and returns why the supervisor
// ends: ErrStopped after Stop, or what made it give up. No mongod of its
// own is left running then.
func (s *Supervisor) supervise() error {
	for {
		c, err := s.spawn()
		if err != nil {
			return err
		}
		beforeReady, err := s.superviseOne(c)
		if err != nil {
			return err
		}
		if err := s.waitToRestart(c, beforeReady); err != nil {
			return err
		}
	}
}

// superviseOne brings c up and watches it. It returns a nil error once c
// has exited without being asked to (beforeReady tells whether it had
// become ready), or, with c stopped, the error that ends the supervisor.
func (s *Supervisor) superviseOne(c *child) (beforeReady bool, err error) {
	switch err := s.bringUp(c); {
	case errors.Is(err, errExited):
		return true, nil
	case errors.Is(err, errStopRequested):
		return true, s.stopOnRequest(c)
	case err != nil:
		s.stopChild(c) // the reason it could not start is the error worth reporting
		return true, err
	}
	s.announceReady(c)
	select {
	case <-c.exited:
		return false, nil
	case <-s.stopCh:
		return false, s.stopOnRequest(c)
	}
}

// bringUp waits until c answers ping and accepts infmem's credential.
// errExited means c died first, errStopRequested that Stop was called
// first; any other error means c runs but cannot be used.
func (s *Supervisor) bringUp(c *child) error {
	if err := s.waitReady(c); err != nil {
		return err
	}
	if err := s.ensureCredential(); err != nil {
		if c.exitsWithin(time.Second, nil) {
			// It died under the credential check (its socket breaks a
			// moment before it is reaped): a crash like any other.
			return errExited
		}
		return err
	}
	return nil
}

// announceReady logs that c is ready and tells whoever waits for that:
// Start after the first start, OnURIChange after a restart that changed
// the URI (only over TCP: on Unix the URI names the stable socket link).
func (s *Supervisor) announceReady(c *child) {
	s.log.Info("mongod is ready", "pid", c.cmd.Process.Pid, "uri", s.RedactedURI())
	if s.startResult != nil {
		s.reportStart(nil)
		return
	}
	if c.portChanged && !s.unixSocket && s.cfg.OnURIChange != nil {
		s.cfg.OnURIChange()
	}
}

// reportStart hands Start the outcome of the first start; later calls do
// nothing.
func (s *Supervisor) reportStart(err error) {
	if s.startResult == nil {
		return
	}
	result := s.startResult
	s.startResult = nil // before the send, so Start's return finds it written
	result <- err
}

// stopOnRequest stops c because Stop was called, keeps what the stop ran
// into for Stop to return, and ends the supervisor with ErrStopped.
func (s *Supervisor) stopOnRequest(c *child) error {
	err := s.stopChild(c)
	s.mu.Lock()
	s.stopErr = err
	s.mu.Unlock()
	return ErrStopped
}

// waitToRestart follows a mongod that exited without being asked to: it
// counts the crash, gives up when mongod rejected its options or crashed
// more often than the restart limit allows, and otherwise waits the
// backoff. nil means: start the next mongod now.
func (s *Supervisor) waitToRestart(c *child, beforeReady bool) error {
	s.clearPID()
	crashes := s.recordCrash(time.Now())
	if err := s.giveUp(c, beforeReady, crashes); err != nil {
		return err
	}
	backoff := s.restartBackoff(crashes)
	s.log.Warn("mongod exited unexpectedly; restarting", "pid", c.cmd.Process.Pid, "status", c.exitStatus(),
		"before_ready", beforeReady, "crashes_in_window", crashes, "restart_in", backoff.String())
	if closesWithin(s.stopCh, backoff, nil) { // Stop was called during the backoff
		return ErrStopped
	}
	return nil
}

// recordCrash adds a crash at now to those within RestartWindow, forgets
// older ones, and returns how many the window holds.
func (s *Supervisor) recordCrash(now time.Time) int {
	s.crashes = slices.DeleteFunc(s.crashes, func(t time.Time) bool { return now.Sub(t) >= s.cfg.RestartWindow })
	s.crashes = append(s.crashes, now)
	return len(s.crashes)
}

// giveUp returns the error that ends the supervisor after a crash, or nil
// when mongod may be restarted: a mongod that exits 2 before it is ready
// rejected its command line, which no restart can change; and more than
// MaxRestarts crashes within RestartWindow are a crash loop.
func (s *Supervisor) giveUp(c *child, beforeReady bool, crashes int) error {
	status := c.exitStatus()
	if beforeReady && c.exitCode() == 2 {
		return fmt.Errorf("%w: %s", ErrNotReady, s.withTail(fmt.Sprintf(
			"mongod %s rejected its command-line options (%s); "+
				"hint: make sure mongo.mongod_path names a MongoDB server (mongod) binary", s.cfg.Binary, status)))
	}
	if crashes <= s.cfg.MaxRestarts {
		return nil
	}
	what := "crashed"
	if beforeReady {
		what = "exited before it was ready"
	}
	err := fmt.Errorf("%w: %s", ErrCrashLoop, s.withTail(fmt.Sprintf(
		"mongod %s %d times within %s (last: %s); giving up, see %s",
		what, crashes, s.cfg.RestartWindow, status, s.logPath)))
	s.log.Error("mongod keeps crashing; giving up", "crashes", crashes, "window", s.cfg.RestartWindow.String(), "log", s.logPath)
	return err
}

// restartBackoff is RestartBackoff doubled for each earlier crash in the
// window, at most MaxRestartBackoff.
func (s *Supervisor) restartBackoff(crashes int) time.Duration {
	backoff := s.cfg.RestartBackoff
	for i := 1; i < crashes && backoff < s.cfg.MaxRestartBackoff; i++ {
		backoff *= 2
	}
	return min(backoff, s.cfg.MaxRestartBackoff)
}

// removeSocketLink removes <sock>/mongod.sock if this supervisor made it:
// mongod removed its socket on the way out, and a dangling link would only
// suggest a server that is not there.
func (s *Supervisor) removeSocketLink() {
	if s.linked {
		_ = os.Remove(s.linkPath())
	}
}

// clearPID records that no mongod of this supervisor is running.
func (s *Supervisor) clearPID() {
	s.mu.Lock()
	s.pid = 0
	s.mu.Unlock()
}
