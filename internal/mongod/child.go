package mongod

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

// child is one mongod process.
type child struct {
	cmd         *exec.Cmd
	port        int
	exited      chan struct{} // closed once Wait returned
	waitErr     error         // valid after exited is closed
	portChanged bool          // it runs on another port than the mongod before it
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

// exitCode is the exit code of an exited mongod; -1 when a signal ended it
// or it is unknown. mongod exits 2 for options it does not accept.
func (c *child) exitCode() int {
	if c.cmd.ProcessState == nil {
		return -1
	}
	return c.cmd.ProcessState.ExitCode()
}

// exitsWithin waits until c exits (true), d passes or cut is closed
// (false). A nil cut never closes.
func (c *child) exitsWithin(d time.Duration, cut <-chan struct{}) bool {
	return closesWithin(c.exited, d, cut)
}

// closesWithin waits until ch is closed (true), d passes or cut is closed
// (false). A nil cut never closes.
func closesWithin(ch <-chan struct{}, d time.Duration, cut <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	case <-cut:
		return false
	}
}

// spawn starts one mongod after clearing a stale lock and choosing a port.
func (s *Supervisor) spawn() (*child, error) {
	if err := s.clearStaleLock(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	prev := s.port
	s.mu.Unlock()
	port, err := s.choosePort(prev)
	if err != nil {
		return nil, err
	}
	if s.unixSocket {
		if err := s.prepareSocket(port); err != nil {
			return nil, err
		}
	}
	c, err := s.startProcess(port)
	if err != nil {
		return nil, err
	}
	c.portChanged = prev != 0 && prev != port
	s.mu.Lock()
	s.pid, s.port = c.cmd.Process.Pid, port
	s.mu.Unlock()
	s.log.Info("started mongod", "pid", c.cmd.Process.Pid, "port", port, "binary", s.cfg.Binary)
	return c, nil
}

// choosePort keeps prev, the previous mongod's port, while it is free, so
// the URI stays as it was; on the first start, or when something else took
// prev, it picks a free loopback port.
func (s *Supervisor) choosePort(prev int) (int, error) {
	if prev != 0 && portFree(prev) {
		return prev, nil
	}
	port, err := freePort()
	if err != nil {
		return 0, err
	}
	if prev != 0 {
		s.log.Warn("mongod's previous port is taken; using another", "old_port", prev, "port", port)
	}
	return port, nil
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

// startProcess starts mongod on port with its output appended to
// mongo.log, and reaps it in the background: c.exited closes once it is
// gone.
func (s *Supervisor) startProcess(port int) (*child, error) {
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
	c := &child{cmd: cmd, port: port, exited: make(chan struct{})}
	go func() {
		c.waitErr = cmd.Wait()
		logf.Close()
		close(c.exited)
	}()
	return c, nil
}

// waitReady polls until mongod answers ping (nil), exits (errExited), Stop
// is called (errStopRequested), or ReadyTimeout passes (ErrNotReady).
func (s *Supervisor) waitReady(c *child) error {
	timeout := time.NewTimer(s.cfg.ReadyTimeout)
	defer timeout.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	p := s.newReadinessProbe(c, time.Now().Add(s.cfg.ReadyTimeout))
	defer p.close()

	var lastErr error
	for {
		select {
		case <-c.exited:
			return errExited
		case <-s.stopCh:
			return errStopRequested
		case <-timeout.C:
			return s.notReadyError(c, lastErr)
		case <-tick.C:
		}
		if lastErr = p.dial(); lastErr != nil {
			continue
		}
		if err := p.connect(); err != nil {
			return fmt.Errorf("mongod readiness check: %w", err)
		}
		if lastErr = p.ping(); lastErr == nil {
			return nil
		}
	}
}

func (s *Supervisor) notReadyError(c *child, lastErr error) error {
	msg := fmt.Sprintf("mongod (pid %d) did not answer ping within %s", c.cmd.Process.Pid, s.cfg.ReadyTimeout)
	if lastErr != nil {
		msg += fmt.Sprintf(" (last attempt: %v)", s.scrub(lastErr))
	}
	return fmt.Errorf("%w: %s", ErrNotReady, s.withTail(msg))
}

// readinessProbe asks a starting mongod, without credentials, whether it
// answers. It dials before each ping because a driver ping against a socket
// that does not exist yet only fails after its own timeout, and it makes
// its driver client only once mongod accepts connections.
type readinessProbe struct {
	network, addr string    // the socket link, or 127.0.0.1:port
	uri           string    // without credentials
	deadline      time.Time // no ping runs past it
	client        *mongo.Client
}

func (s *Supervisor) newReadinessProbe(c *child, deadline time.Time) *readinessProbe {
	p := &readinessProbe{network: "tcp", addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		uri: s.anonURI(), deadline: deadline}
	if s.unixSocket {
		p.network, p.addr = "unix", s.linkPath()
	}
	return p
}

// dial checks that mongod accepts connections.
func (p *readinessProbe) dial() error {
	conn, err := net.DialTimeout(p.network, p.addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	conn.Close()
	return nil
}

// connect makes the driver client, once.
func (p *readinessProbe) connect() error {
	if p.client != nil {
		return nil
	}
	var err error
	p.client, err = mongo.Connect(options.Client().ApplyURI(p.uri).
		SetServerSelectionTimeout(time.Second).SetConnectTimeout(time.Second))
	return err
}

// ping asks mongod for an answer, for a second at most.
func (p *readinessProbe) ping() error {
	end := time.Now().Add(time.Second)
	if p.deadline.Before(end) {
		end = p.deadline
	}
	ctx, cancel := context.WithDeadline(context.Background(), end)
	defer cancel()
	return p.client.Ping(ctx, readpref.Primary())
}

func (p *readinessProbe) close() {
	if p.client != nil {
		_ = p.client.Disconnect(context.Background())
	}
}

// stopChild asks mongod to shut down and waits StopGrace (or until Stop's
// context ends) before killing it.
func (s *Supervisor) stopChild(c *child) error {
	defer s.clearPID()
	select {
	case <-c.exited:
		return nil
	default:
	}
	s.askToShutDown(c)
	if c.exitsWithin(s.cfg.StopGrace, s.killCh) {
		s.log.Info("mongod stopped", "pid", c.cmd.Process.Pid, "status", c.exitStatus())
		return nil
	}
	c.kill()
	<-c.exited
	pid := c.cmd.Process.Pid
	s.log.Warn("mongod did not shut down in time and was killed", "pid", pid, "grace", s.cfg.StopGrace.String())
	return fmt.Errorf("%w: mongod (pid %d) did not exit within %s of the shutdown request; "+
		"it will run journal recovery on its next start", ErrKilled, pid, s.cfg.StopGrace)
}

// askToShutDown sends mongod the shutdown request. Where that request is a
// command (Windows), it is given up when mongod exits or Stop's context
// ends.
func (s *Supervisor) askToShutDown(c *child) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-c.exited:
		case <-s.killCh:
		}
		cancel()
	}()
	if err := s.requestShutdown(ctx, c); err != nil {
		s.log.Warn("could not ask mongod to shut down", "pid", c.cmd.Process.Pid, "error", err)
	}
}
