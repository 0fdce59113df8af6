package mcpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/internal/clip"
)

// Options tunes a served stream.
type Options struct {
	// MaxConcurrent bounds requests handled at once (default 8).
	MaxConcurrent int
	// Shared, when set, is a semaphore shared by every session of a
	// process: a request holds one slot while it runs, so many clients
	// together cannot run more than its capacity at once. Requests wait
	// for a slot (or for their session to end).
	Shared chan struct{}
	// MaxLineBytes bounds one message (default 8 MiB).
	MaxLineBytes int
	// DrainTimeout bounds waiting for the requests still running after the
	// client closes its side: the session waits while they keep finishing,
	// and gives up once none has finished for DrainTimeout (default 10 s).
	// Only calls that read are given up on: a call that may write is
	// waited for (see WriteTimeout).
	DrainTimeout time.Duration
	// WriteTimeout bounds a call that may write, from when it is read: it
	// is never cancelled because its client left or the session ended,
	// only once it has run this long (default 10 min), so that a store a
	// client sent is not lost.
	WriteTimeout time.Duration
	// OnSession is called with the session once it is registered.
	OnSession func(*Session)
	// Beside, when set, names tools that are not read-only but change
	// nothing a later call reads soon (a backup, an export, a maintenance
	// pass): they run beside the session's other calls instead of in
	// order (see Serve).
	Beside func(tool string) bool
	// OnLine, when set, is called with each line as soon as it is read,
	// before it is decoded, on the session's reading goroutine: a hint
	// for work that a request is likely to need (it must be quick, must
	// not keep line, and cannot change how the line is handled).
	OnLine func(line []byte)
	Logger *slog.Logger
}

// Serve runs one MCP session over r and w until r ends or ctx is done.
// Requests run concurrently, so responses may leave in a different order
// than their requests came; each is written whole on one line. A session
// still reads its own writes: a call that may write (a tool not annotated
// read-only, unless opts.Beside names it) starts once every earlier call
// of the session has ended, and every later call starts once it has ended;
// calls that only read run together. A client that sends store_memory and
// then retrieve_memory without waiting for the first answer finds the
// stored memory.
//
// When r ends, every request read is still run and answered before Serve
// returns: a client may write its requests, close its side at once and
// read the answers (`printf ... | infmem mcp`), as a stdio client or a
// socket client that half-closes. The wait is bounded by
// opts.DrainTimeout (see Options); what is still running then is
// cancelled, and answers with an error. A client is gone only once an
// answer cannot be written to w: its reads are then cancelled at once
// (nobody is left to read them).
//
// A call that may write (every tools/call not annotated read-only) is
// never cancelled because the client left, whether it closed its side or
// is gone, nor when the session or ctx ends: it runs on a context detached
// from them, bounded by opts.WriteTimeout, and Serve waits for it before
// returning unless ctx ends (the process is stopping: Serve then returns
// after a short grace, and the write goes on; the caller's shutdown waits
// for the calls it is running). A store a client sent is not lost because
// the client did not wait for its answer.
func Serve(ctx context.Context, srv *server.MCPServer, r io.Reader, w io.Writer, opts Options) error {
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = 8
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = 8 << 20
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 10 * time.Second
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = defaultWriteTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	sess := newSession()
	out := &lineWriter{w: w}
	sess.send = out.send
	if err := srv.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("cannot register MCP session: %w", err)
	}
	defer srv.UnregisterSession(context.WithoutCancel(ctx), sess.id)
	if opts.OnSession != nil {
		opts.OnSession(sess)
	}
	sctx, cancel := context.WithCancel(srv.WithContext(ctx, sess))
	defer cancel()
	// lctx ends as soon as the client is gone (an answer could not be
	// written): reads run under it, since nobody is left to read their
	// answer. The end of r is not the client going: it may still read.
	// Writes run under wctx, which neither ends: only their own bound
	// (WriteTimeout) cuts them, so a store the client sent is not lost.
	lctx, leave := context.WithCancel(sctx)
	defer leave()
	out.gone = leave
	wctx := context.WithoutCancel(sctx)

	notifDone := make(chan struct{})
	go func() {
		defer close(notifDone)
		for {
			select {
			case n := <-sess.notifications:
				if err := out.send(n); err != nil {
					opts.Logger.Debug("cannot send notification", "err", err)
				}
			case <-sctx.Done():
				return
			}
		}
	}()

	var inflight, writes running
	var ord order
	sem := make(chan struct{}, opts.MaxConcurrent)
	// Lines are read beside the loop, so that the session ends when ctx
	// does (SIGTERM on stdio) even while r blocks: a read cannot be
	// interrupted. That reader ends with r (closed by the caller, or the
	// process exits).
	lines := make(chan lineRead)
	stopReading := make(chan struct{})
	defer close(stopReading)
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := readLine(br, opts.MaxLineBytes)
			if len(line) > 0 && opts.OnLine != nil {
				opts.OnLine(line)
			}
			select {
			case lines <- lineRead{line, err}:
			case <-stopReading:
				return
			}
			if err != nil && !errors.Is(err, errLineTooLong) {
				return
			}
		}
	}()
	var readErr error
	for {
		var line []byte
		var err error
		select {
		case lr := <-lines:
			line, err = lr.line, lr.err
		case <-ctx.Done():
			err = ctx.Err()
		}
		if errors.Is(err, errLineTooLong) {
			_ = out.send(errorResponse(nil, mcp.INVALID_REQUEST, fmt.Sprintf("message longer than %d bytes", opts.MaxLineBytes)))
			continue
		}
		if len(line) > 0 {
			handle(sctx, lctx, wctx, srv, sess, out, line, sem, &ord, &opts, &inflight, &writes)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
	}
	// The client closed its side (or reading failed): answer every request
	// read, waiting while they keep finishing. The reads still running when
	// none has finished for DrainTimeout (or when ctx ends) are cancelled,
	// and given a moment to answer that. The writes are not: they are
	// waited for (each is bounded by WriteTimeout) unless ctx ends.
	if n := inflight.wait(ctx, opts.DrainTimeout); n > 0 {
		if w := writes.count(); n > w && ctx.Err() == nil {
			opts.Logger.Warn("requests still running after the client closed its side; cancelling the reads", "session", sess.id, "reads", n-w, "writes", w, "waited", opts.DrainTimeout.String())
		}
		cancel()
		inflight.wait(context.Background(), cancelGrace)
		if n := writes.wait(ctx, opts.WriteTimeout); n > 0 && ctx.Err() == nil {
			opts.Logger.Warn("writes still running after their time bound", "session", sess.id, "writes", n)
		}
	}
	cancel()
	<-notifDone
	if readErr != nil && ctx.Err() == nil {
		return fmt.Errorf("reading from the client: %w", readErr)
	}
	return nil
}

var errLineTooLong = errors.New("line too long")

// lineRead is one line read from the client, or why none was.
type lineRead struct {
	line []byte
	err  error
}

// cancelGrace bounds waiting for cancelled requests to send their answer.
const cancelGrace = time.Second

// defaultWriteTimeout is Options.WriteTimeout's default: long enough for a
// backup or an export of a large memory on a loaded machine.
const defaultWriteTimeout = 10 * time.Minute

// running counts a session's requests in flight.
type running struct {
	mu      sync.Mutex
	n       int
	changed chan struct{} // closed when a request ends
}

func (r *running) add() {
	r.mu.Lock()
	r.n++
	if r.changed == nil {
		r.changed = make(chan struct{})
	}
	r.mu.Unlock()
}

func (r *running) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

func (r *running) done() {
	r.mu.Lock()
	r.n--
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// wait waits until no request runs, as long as one ends at least every
// idle, and until ctx ends; it returns how many still run.
func (r *running) wait(ctx context.Context, idle time.Duration) int {
	t := time.NewTimer(idle)
	defer t.Stop()
	for {
		r.mu.Lock()
		n, changed := r.n, r.changed
		r.mu.Unlock()
		if n == 0 {
			return 0
		}
		select {
		case <-changed:
			t.Reset(idle)
		case <-t.C:
			return n
		case <-ctx.Done():
			return n
		}
	}
}

// readLine reads one newline-terminated line, discarding the rest of one
// longer than max.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > max {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, errLineTooLong
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(buf), err
	}
}

// envelope is the part of a JSON-RPC message that routes it.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// callEnvelope is the part of a tools/call request that names the tool.
type callEnvelope struct {
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// classify reports whether a request only reads (a tools/call of a tool
// annotated read-only, or any method but tools/call: lists, ping, prompts,
// resources) and whether it takes its turn in the session's order (every
// request that may write, but the tools beside names).
func classify(srv *server.MCPServer, method string, line []byte, beside func(string) bool) (readOnly, ordered bool) {
	if method != string(mcp.MethodToolsCall) {
		return true, false
	}
	var call callEnvelope
	if json.Unmarshal(line, &call) != nil {
		return false, true
	}
	t := srv.GetTool(call.Params.Name)
	if t != nil && t.Tool.Annotations.ReadOnlyHint != nil && *t.Tool.Annotations.ReadOnlyHint {
		return true, false
	}
	return false, beside == nil || !beside(call.Params.Name)
}

// order keeps a session's calls in the order read-your-writes needs: a
// write waits for every earlier call, any call waits for the writes before
// it. It is used by the session's reading loop only.
type order struct {
	write chan struct{}   // closed when the session's latest write has ended
	reads []chan struct{} // calls since that write, open while they run
}

// next places a call: it returns what the call must wait for and the
// channel it closes when it ends.
func (o *order) next(write bool) (wait []chan struct{}, done chan struct{}) {
	done = make(chan struct{})
	if o.write != nil {
		wait = append(wait, o.write)
	}
	if write {
		wait = append(wait, o.reads...)
		o.write, o.reads = done, nil
		return wait, done
	}
	// Keep only the calls still running (at most the session's bound).
	open := o.reads[:0]
	for _, r := range o.reads {
		select {
		case <-r:
		default:
			open = append(open, r)
		}
	}
	o.reads = append(open, done)
	return wait, done
}

// handle routes one message. Requests that only read run under lctx,
// which ends when the client is gone; notifications under ctx; calls that
// may write under wctx, which the session's end does not cancel, each
// bounded by opts.WriteTimeout.
func handle(ctx, lctx, wctx context.Context, srv *server.MCPServer, sess *Session, out *lineWriter, line []byte, sem chan struct{}, ord *order, opts *Options, inflight, writes *running) {
	log := opts.Logger
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		_ = out.send(errorResponse(nil, mcp.PARSE_ERROR, "parse error: each line must be one JSON-RPC message"))
		return
	}
	hasID := len(env.ID) > 0 && string(env.ID) != "null"
	if env.Method == "" && hasID {
		// A response to a request this server sent (sampling).
		var id string
		if json.Unmarshal(env.ID, &id) == nil && sess.deliver(id, json.RawMessage(bytes.Clone(line))) {
			return
		}
		log.Debug("response to an unknown request", "id", string(env.ID))
		return
	}
	msg := json.RawMessage(bytes.Clone(line))
	if !hasID {
		// Notifications are quick and ordered: handle them inline.
		dispatch(ctx, srv, out, msg, nil, log)
		return
	}
	readOnly, ordered := classify(srv, env.Method, line, opts.Beside)
	var stop context.CancelFunc = func() {}
	if readOnly {
		ctx = lctx
	} else {
		ctx, stop = context.WithTimeout(wctx, opts.WriteTimeout)
		writes.add()
	}
	wait, done := ord.next(ordered)
	shared := opts.Shared
	sem <- struct{}{}
	inflight.add()
	go func() {
		defer inflight.done()
		if !readOnly {
			defer writes.done()
		}
		defer stop()
		defer func() { <-sem }()
		defer close(done)
		for _, w := range wait {
			select {
			case <-w:
			case <-ctx.Done():
				_ = out.send(errorResponse(env.ID, mcp.INTERNAL_ERROR, "the session ended before the request could run"))
				return
			}
		}
		if shared != nil {
			select {
			case shared <- struct{}{}:
				defer func() { <-shared }()
			case <-ctx.Done():
				_ = out.send(errorResponse(env.ID, mcp.INTERNAL_ERROR, "the session ended before the request could run"))
				return
			}
		}
		dispatch(ctx, srv, out, msg, env.ID, log)
	}()
}

func dispatch(ctx context.Context, srv *server.MCPServer, out *lineWriter, msg json.RawMessage, id json.RawMessage, log *slog.Logger) {
	var resp mcp.JSONRPCMessage
	func() {
		defer func() {
			if r := recover(); r != nil {
				log.Error("MCP handler panicked", "panic", fmt.Sprint(r))
				if id != nil {
					resp = errorResponse(id, mcp.INTERNAL_ERROR, "internal error")
				}
			}
		}()
		resp = srv.HandleMessage(ctx, msg)
	}()
	if resp == nil {
		return
	}
	// A protocol error may quote what it was sent (a resource URI of a
	// megabyte): bounded, as every error infmem sends.
	if e, ok := resp.(mcp.JSONRPCError); ok {
		e.Error.Message = clip.Text(e.Error.Message)
		if s, ok := e.Error.Data.(string); ok {
			e.Error.Data = clip.Text(s)
		}
		resp = e
	}
	if err := out.send(resp); err != nil {
		log.Debug("cannot send response", "err", err)
	}
}

func errorResponse(id json.RawMessage, code int, msg string) map[string]any {
	var idv any
	if id != nil {
		idv = id
	}
	return map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": idv, "error": map[string]any{"code": code, "message": msg}}
}

// lineWriter writes whole messages, one per line, never interleaved. The
// first write that fails calls gone: the client no longer reads.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	gone   func()
	failed bool
}

// sendBufs are the buffers of tool answers written (appendToolResponse):
// an answer is ~10 KB at top_k 5, and grown from nothing it allocated
// about twice that a call.
var sendBufs = sync.Pool{New: func() any { return new([]byte) }}

// sendBufMax is the largest buffer kept for the next answer.
const sendBufMax = 256 << 10

func (l *lineWriter) send(v any) error {
	bp := sendBufs.Get().(*[]byte)
	b, ok := appendToolResponse((*bp)[:0], v)
	if ok {
		defer func() {
			if cap(b) <= sendBufMax {
				*bp = b[:0]
				sendBufs.Put(bp)
			}
		}()
	} else {
		sendBufs.Put(bp)
		var err error
		if b, err = json.Marshal(v); err != nil {
			return fmt.Errorf("cannot encode message: %w", err)
		}
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(b)
	if err != nil && !l.failed {
		l.failed = true
		if l.gone != nil {
			l.gone()
		}
	}
	return err
}
