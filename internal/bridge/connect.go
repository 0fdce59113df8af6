package bridge

import (
	"context"
	"errors"
	"fmt"
	"github.com/infmem/infmem/internal/peercred"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/logging"
)

// Options says how to reach a data root's daemon.
type Options struct {
	// Endpoints are the data root's daemon files.
	Endpoints control.Endpoints
	// Daemon returns the command that starts a daemon for the same data
	// root and config (`infmem daemon --data-dir … [--config …]`). Connect
	// runs it detached, with its output going to the service log.
	Daemon func() *exec.Cmd
	// Timeout bounds waiting for a started daemon to answer (default 10 s).
	Timeout time.Duration
	Logger  *slog.Logger
}

// Connect returns a connection to the daemon's MCP socket. When nothing
// answers it starts a daemon and waits, bounded by Timeout, until one does.
// Several bridges starting at once may each start a daemon; the data
// root's lock keeps one and the others exit, and every bridge connects to
// the one that stayed.
func Connect(ctx context.Context, opts Options) (net.Conn, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if conn, err := dial(ctx, opts.Endpoints.MCP); err == nil {
		return conn, nil
	}
	deadline := time.Now().Add(opts.Timeout)
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	exited := make(chan error, 1)
	spawn := func() error {
		cmd := opts.Daemon()
		if err := start(cmd, opts.Endpoints.LogFile()); err != nil {
			return err
		}
		opts.Logger.Info("started the infmem daemon", "pid", cmd.Process.Pid, "data_root", opts.Endpoints.Root.Dir)
		go func() { exited <- cmd.Wait() }()
		return nil
	}
	if err := spawn(); err != nil {
		return nil, err
	}
	interval := 5 * time.Millisecond
	for {
		if conn, err := dial(wctx, opts.Endpoints.MCP); err == nil {
			return conn, nil
		}
		select {
		case err := <-exited:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				// It refused to run (bad config, unusable data root): no
				// point in waiting.
				return nil, startFailed(opts.Endpoints, fmt.Sprintf("the infmem daemon exited with status %d", ee.ExitCode()))
			}
			if err != nil {
				return nil, startFailed(opts.Endpoints, fmt.Sprintf("the infmem daemon failed: %v", err))
			}
			// It exited cleanly: another daemon held the root's lock. That
			// one is either about to answer or stopping; try again shortly
			// so a stopping one gets replaced.
			time.AfterFunc(100*time.Millisecond, func() {
				if wctx.Err() == nil {
					if err := spawn(); err != nil {
						exited <- err
					}
				}
			})
		case <-time.After(interval):
			interval = min(interval*2, 100*time.Millisecond)
		case <-wctx.Done():
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, startFailed(opts.Endpoints, fmt.Sprintf("the infmem daemon did not answer on %s within %v", opts.Endpoints.MCP, opts.Timeout))
		}
	}
}

// Dial connects to the MCP socket at path without starting a daemon,
// refusing a socket that another user holds.
func Dial(ctx context.Context, path string) (net.Conn, error) { return dial(ctx, path) }

func dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	if err := peercred.Check(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("refusing the MCP socket %s: %w", path, err)
	}
	return conn, nil
}

// start runs cmd detached from this process: its own session, no terminal,
// stdin and stdout on the null device, stderr appended to the service log
// (so a crash before logging starts still leaves a trace there).
func start(cmd *exec.Cmd, logFile string) error {
	logf, err := os.OpenFile(logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("cannot open the service log to start the daemon: %w", err)
	}
	defer logf.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, logf
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start the infmem daemon: %w", err)
	}
	return nil
}

// startFailed says what went wrong, where the log is, and its last lines.
func startFailed(ep control.Endpoints, what string) error {
	log := ep.LogFile()
	msg := what + "\nhint: see " + log
	if lines, err := logging.Tail(log, 8); err == nil && len(lines) > 0 {
		msg += "; its last lines:\n  " + strings.Join(lines, "\n  ")
	}
	return errors.New(msg)
}
