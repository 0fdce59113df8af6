package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/infmem/infmem/internal/clip"
	"github.com/infmem/infmem/internal/peercred"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"
)

// Handler is what the control socket serves; the daemon implements it.
type Handler interface {
	Status(ctx context.Context) (*Status, error)
	// Pause pauses the daemon until resume is called.
	Pause(ctx context.Context, release bool) (resume func(reload bool) error, err error)
	// Run runs a named job and returns its JSON-encodable result.
	Run(ctx context.Context, job string, args json.RawMessage) (any, error)
	// Reload reads the configuration again, applies what can change while
	// the daemon runs, and reports the outcome. A configuration that is
	// refused is reported in the result, not as an error.
	Reload(ctx context.Context) (*ConfigStatus, error)
	// Shutdown begins a graceful stop and returns at once.
	Shutdown()
}

// UIHandler is a Handler that also serves the local web UI (OpUI).
type UIHandler interface {
	// OpenUI starts the UI if it is not running and returns a URL that
	// opens it once.
	OpenUI(ctx context.Context) (*UIInfo, error)
}

// maxRequest bounds one request line.
const maxRequest = 1 << 20

// Server serves the control protocol on a listener.
type Server struct {
	h    Handler
	pong Pong
	log  *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// NewServer makes a server for h; pong is what ping answers.
func NewServer(h Handler, pong Pong, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{h: h, pong: pong, log: log, ctx: ctx, cancel: cancel, conns: map[net.Conn]struct{}{}}
}

// Serve accepts connections on ln until ln is closed.
func (s *Server) Serve(ln net.Listener) error {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("control socket: %w", err)
		}
		if err := peercred.Check(conn); err != nil {
			s.log.Warn("control connection refused", "err", err)
			conn.Close()
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			conn.Close()
			continue
		}
		s.conns[conn] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.serveConn(conn)
			s.mu.Lock()
			delete(s.conns, conn)
			s.mu.Unlock()
		}()
	}
}

// closeWait bounds how long Close waits for handlers (jobs) to end once
// they are cancelled.
const closeWait = 5 * time.Second

// Close ends every connection and cancels their jobs, and waits for their
// handlers, at most closeWait (a job that does not heed cancellation is
// left behind, and logged). Pauses they hold are dropped without a
// resume: the daemon is going away.
func (s *Server) Close() {
	s.cancel()
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(closeWait):
		s.log.Warn("control requests still running after they were cancelled; not waiting for them", "waited", closeWait)
	}
}

func (s *Server) serveConn(conn net.Conn) {
	defer conn.Close()
	var resume func(bool) error
	defer func() {
		if resume == nil || s.ctx.Err() != nil {
			return
		}
		// The client left without resuming (it crashed, or was killed):
		// never stay paused. The data may have changed, so reload.
		s.log.Warn("control client left a pause open; resuming")
		if err := resume(true); err != nil {
			s.log.Error("cannot resume after an abandoned pause", "err", err)
		}
	}()
	br := bufio.NewReaderSize(conn, 64<<10)
	w := bufio.NewWriter(conn)
	for {
		line, err := readRequest(br)
		if err != nil {
			if errors.Is(err, errTooLong) {
				s.reply(w, nil, err)
			}
			return
		}
		var req Request
		if err := json.Unmarshal(line, &req); err != nil {
			s.reply(w, nil, fmt.Errorf("request is not JSON: %v", err))
			return
		}
		var result any
		if req.Op == OpRun {
			result, err = s.run(conn, br, w, req)
		} else {
			result, err = s.handle(req, &resume)
		}
		if !s.reply(w, result, err) {
			return
		}
	}
}

func (s *Server) handle(req Request, resume *func(bool) error) (any, error) {
	switch req.Op {
	case OpPing:
		return s.pong, nil
	case OpStatus:
		return s.h.Status(s.ctx)
	case OpPause:
		if *resume != nil {
			return nil, errors.New("this connection already holds a pause")
		}
		r, err := s.h.Pause(s.ctx, req.Release)
		if err != nil {
			return nil, err
		}
		*resume = r
		s.log.Info("paused by a control client", "release", req.Release)
		return nil, nil
	case OpResume:
		if *resume == nil {
			return nil, errors.New("nothing to resume: this connection holds no pause")
		}
		r := *resume
		*resume = nil
		s.log.Info("resumed by a control client", "reload", req.Reload)
		return nil, r(req.Reload)
	case OpReload:
		return s.h.Reload(s.ctx)
	case OpShutdown:
		s.h.Shutdown()
		return nil, nil
	case OpUI:
		u, ok := s.h.(UIHandler)
		if !ok {
			return nil, errors.New("this daemon has no web UI")
		}
		return u.OpenUI(s.ctx)
	}
	return nil, fmt.Errorf("unknown operation %q", req.Op)
}

// run runs a job for the client on conn: it is cancelled if the client
// goes away meanwhile, and streams progress lines if asked to.
func (s *Server) run(conn net.Conn, br *bufio.Reader, w *bufio.Writer, req Request) (any, error) {
	if req.Job == "" {
		return nil, errors.New("run needs a job name")
	}
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	// A client waits silently for the answer; the end of its connection
	// (Ctrl-C, a crash) cancels the job. Peek reads nothing away.
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		if _, err := br.Peek(1); err != nil && ctx.Err() == nil {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				s.log.Info("control client left; cancelling its job", "job", req.Job)
				cancel()
			}
		}
	}()
	defer func() {
		conn.SetReadDeadline(time.Now())
		<-watched
		conn.SetReadDeadline(time.Time{})
	}()
	if req.Progress {
		var mu sync.Mutex
		done := false
		defer func() { mu.Lock(); done = true; mu.Unlock() }()
		ctx = WithProgress(ctx, func(v any) {
			b, err := json.Marshal(v)
			if err != nil {
				return
			}
			line, _ := json.Marshal(Response{OK: true, Progress: b})
			mu.Lock()
			defer mu.Unlock()
			if done {
				return
			}
			conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
			w.Write(append(line, '\n'))
			w.Flush()
			conn.SetWriteDeadline(time.Time{})
		})
	}
	return s.h.Run(ctx, req.Job, req.Args)
}

// reply writes one response; it reports whether the connection is usable.
func (s *Server) reply(w *bufio.Writer, result any, err error) bool {
	resp := Response{OK: err == nil}
	if err != nil {
		resp.Error = clip.Text(err.Error()) // it may quote an argument of any size
	} else if result != nil {
		b, merr := json.Marshal(result)
		if merr != nil {
			resp = Response{Error: fmt.Sprintf("cannot encode the result: %v", merr)}
		} else {
			resp.Result = b
		}
	}
	b, _ := json.Marshal(resp)
	if _, err := w.Write(append(b, '\n')); err != nil {
		return false
	}
	return w.Flush() == nil
}

var errTooLong = fmt.Errorf("request longer than %d bytes", maxRequest)

func readRequest(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxRequest {
			return nil, errTooLong
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf, nil
	}
}
