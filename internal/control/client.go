package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/infmem/infmem/internal/peercred"
)

// ErrRefused wraps an error the daemon answered with.
var ErrRefused = errors.New("the daemon refused")

// Client is one control connection to a daemon. Calls on it are
// serialised; a pause lasts until Resume or until the client is closed.
type Client struct {
	mu   sync.Mutex
	conn net.Conn
	r    *bufio.Reader
}

// Dial connects to the control socket at path.
func Dial(ctx context.Context, path string) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the daemon's control socket %s: %w", path, err)
	}
	// Nothing (a passphrase least of all) goes to a socket another user
	// put there.
	if err := peercred.Check(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("refusing the control socket %s: %w", path, err)
	}
	return &Client{conn: conn, r: bufio.NewReaderSize(conn, 64<<10)}, nil
}

// Close ends the connection (and any pause it holds).
func (c *Client) Close() error { return c.conn.Close() }

// Call sends req and decodes the result into out (if not nil).
func (c *Client) Call(ctx context.Context, req Request, out any) error {
	return c.call(ctx, req, out, nil)
}

// call is Call that hands progress lines to progress.
func (c *Client) call(ctx context.Context, req Request, out any, progress func(json.RawMessage)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := ctx.Deadline(); ok {
		c.conn.SetDeadline(d)
	} else {
		c.conn.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { c.conn.SetDeadline(time.Now()) })
	defer stop()
	b, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("cannot encode %s request: %w", req.Op, err)
	}
	if _, err := c.conn.Write(append(b, '\n')); err != nil {
		return c.fail(ctx, req.Op, err)
	}
	var resp Response
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			return c.fail(ctx, req.Op, err)
		}
		resp = Response{}
		if err := json.Unmarshal(line, &resp); err != nil {
			return fmt.Errorf("daemon's answer to %s is not JSON: %w", req.Op, err)
		}
		if len(resp.Progress) == 0 {
			break
		}
		if progress != nil {
			progress(resp.Progress)
		}
	}
	if !resp.OK {
		return fmt.Errorf("%w %s: %s", ErrRefused, req.Op, resp.Error)
	}
	if out != nil && len(resp.Result) > 0 {
		if err := json.Unmarshal(resp.Result, out); err != nil {
			return fmt.Errorf("cannot read the daemon's answer to %s: %w", req.Op, err)
		}
	}
	return nil
}

func (c *Client) fail(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		err = ctx.Err()
	} else if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		// The socket's deadline (set from ctx) fired before ctx noticed.
		err = context.DeadlineExceeded
	}
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("the daemon closed the connection before it answered %s (it stopped or crashed; its log says why, and 'infmem status' whether it runs again): %w", op, err)
	}
	return fmt.Errorf("control %s: %w", op, err)
}

// Ping checks that the daemon answers and says who it is.
func (c *Client) Ping(ctx context.Context) (*Pong, error) {
	var p Pong
	if err := c.Call(ctx, Request{Op: OpPing}, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Status asks for the daemon's status.
func (c *Client) Status(ctx context.Context) (*Status, error) {
	var s Status
	if err := c.Call(ctx, Request{Op: OpStatus}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Pause pauses the daemon: it finishes running tool calls, then holds new
// ones (they wait briefly and are then told memory is paused); with release
// it also closes its database. resume ends the pause; it must be called on
// this client, which stays open until then. reload says the data changed.
func (c *Client) Pause(ctx context.Context, release bool) (resume func(reload bool) error, err error) {
	if err := c.Call(ctx, Request{Op: OpPause, Release: release}, nil); err != nil {
		return nil, err
	}
	return func(reload bool) error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		return c.Call(ctx, Request{Op: OpResume, Reload: reload}, nil)
	}, nil
}

// Run runs a job the daemon offers and decodes its result into out.
func (c *Client) Run(ctx context.Context, job string, args any, out any) error {
	return c.RunWithProgress(ctx, job, args, out, nil)
}

// RunWithProgress is Run that hands the job's progress reports, as JSON,
// to progress while it runs.
func (c *Client) RunWithProgress(ctx context.Context, job string, args any, out any, progress func(json.RawMessage)) error {
	var raw json.RawMessage
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return fmt.Errorf("cannot encode the arguments of %s: %w", job, err)
		}
		raw = b
	}
	return c.call(ctx, Request{Op: OpRun, Job: job, Args: raw, Progress: progress != nil}, out, progress)
}

// Reload asks the daemon to read its configuration again and apply what
// can change while it runs. A refused configuration comes back in the
// result's Error; the daemon then runs on with its previous one.
func (c *Client) Reload(ctx context.Context) (*ConfigStatus, error) {
	var s ConfigStatus
	if err := c.Call(ctx, Request{Op: OpReload}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// UI asks the daemon to start its web UI (if it is not running) and
// returns a URL that opens it once.
func (c *Client) UI(ctx context.Context) (*UIInfo, error) {
	var u UIInfo
	if err := c.Call(ctx, Request{Op: OpUI}, &u); err != nil {
		return nil, err
	}
	return &u, nil
}

// Shutdown asks the daemon to stop; it answers before it begins.
func (c *Client) Shutdown(ctx context.Context) error {
	return c.Call(ctx, Request{Op: OpShutdown}, nil)
}

// Pauser pauses the daemon serving a data root, for backup.Restore: its
// Pause dials the control socket and holds the connection until resume.
type Pauser struct {
	// Control is the control socket.
	Control string
	// Release makes the daemon close its database while paused.
	Release bool
}

// Pause implements backup.Pauser.
func (p Pauser) Pause(ctx context.Context) (func(reload bool) error, error) {
	c, err := Dial(ctx, p.Control)
	if err != nil {
		return nil, err
	}
	resume, err := c.Pause(ctx, p.Release)
	if err != nil {
		c.Close()
		return nil, err
	}
	return func(reload bool) error {
		err := resume(reload)
		c.Close()
		return err
	}, nil
}
