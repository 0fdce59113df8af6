package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// blockingServer has one tool, "wait", that runs until release is closed or
// its call's context ends; running counts the calls inside it.
func blockingServer(running *atomic.Int32, release <-chan struct{}, cancelled chan<- struct{}) *server.MCPServer {
	srv := server.NewMCPServer("t", "1")
	h := func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		running.Add(1)
		defer running.Add(-1)
		select {
		case <-release:
		case <-ctx.Done():
			cancelled <- struct{}{}
		}
		return mcp.NewToolResultText("done"), nil
	}
	// "wait" may write (mcp-go's default annotations); "peek" only reads.
	srv.AddTool(mcp.NewTool("wait"), h)
	srv.AddTool(mcp.NewTool("peek", mcp.WithReadOnlyHintAnnotation(true)), h)
	return srv
}

func startSession(t *testing.T, ctx context.Context, srv *server.MCPServer, opts Options) (*io.PipeWriter, *io.PipeReader) {
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	go func() {
		Serve(ctx, srv, c2sR, s2cW, opts)
		s2cW.Close()
	}()
	go io.Copy(io.Discard, s2cR)
	return c2sW, s2cR
}

func callWait(w io.Writer, id int) { callTool(w, id, "wait") }

func callTool(w io.Writer, id int, name string) {
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`+"\n", id, name)
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestSharedBoundAcrossSessions: three sessions sharing a two-slot bound
// run two calls at once, never three.
func TestSharedBoundAcrossSessions(t *testing.T) {
	var running atomic.Int32
	release := make(chan struct{})
	srv := blockingServer(&running, release, make(chan struct{}, 8))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	shared := make(chan struct{}, 2)
	for i := range 3 {
		w, _ := startSession(t, ctx, srv, Options{Shared: shared})
		callWait(w, i+1)
	}
	eventually(t, "two calls running", func() bool { return running.Load() == 2 })
	time.Sleep(100 * time.Millisecond)
	if n := running.Load(); n != 2 {
		t.Fatalf("%d calls running with a shared bound of 2", n)
	}
	close(release)
	eventually(t, "every call finished", func() bool { return running.Load() == 0 && len(shared) == 0 })
}

// TestPerSessionBound: one session runs at most MaxConcurrent calls (reads:
// a session's writes take turns, see TestWritesTakeTurns).
func TestPerSessionBound(t *testing.T) {
	var running atomic.Int32
	release := make(chan struct{})
	srv := blockingServer(&running, release, make(chan struct{}, 16))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, _ := startSession(t, ctx, srv, Options{})
	// The session stops reading while its slots are full, so the client's
	// writes block: send from a goroutine.
	go func() {
		for i := range 12 {
			callTool(w, i+1, "peek")
		}
	}()
	eventually(t, "eight calls running", func() bool { return running.Load() == 8 })
	time.Sleep(100 * time.Millisecond)
	if n := running.Load(); n != 8 {
		t.Fatalf("%d calls running in one session (default bound 8)", n)
	}
	close(release)
}

// TestReadsStopWhenTheClientLeaves: a client that closes its side while a
// read-only call runs gets the call's context cancelled once the drain
// time passes, so its work stops instead of running on.
func TestReadsStopWhenTheClientLeaves(t *testing.T) {
	var running atomic.Int32
	cancelled := make(chan struct{}, 1)
	srv := blockingServer(&running, make(chan struct{}), cancelled)
	w, _ := startSession(t, context.Background(), srv, Options{DrainTimeout: 50 * time.Millisecond})
	callTool(w, 1, "peek")
	eventually(t, "the call running", func() bool { return running.Load() == 1 })
	w.Close()
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the call's context was not cancelled after its client left")
	}
}

// TestWritesOutliveTheClient: a call that may write (a store) is never
// cancelled because its client left: not when the client closes its side
// and the drain time passes, not when the client is gone (its answers
// cannot be written), not when Serve's context ends. It runs to its end,
// long after the drain time; Serve waits for it unless its context ended.
func TestWritesOutliveTheClient(t *testing.T) {
	for _, how := range []string{"closes its side", "is gone", "context ends"} {
		t.Run(how, func(t *testing.T) {
			var running atomic.Int32
			release := make(chan struct{})
			cancelled := make(chan struct{}, 4)
			srv := blockingServer(&running, release, cancelled)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c2sR, w := io.Pipe()
			s2cR, s2cW := io.Pipe()
			answers := make(chan []byte, 1)
			if how == "is gone" {
				s2cR.Close()
				answers <- nil
			} else {
				go func() {
					b, _ := io.ReadAll(s2cR)
					answers <- b
				}()
			}
			served := make(chan error, 1)
			go func() {
				served <- Serve(ctx, srv, c2sR, s2cW, Options{DrainTimeout: 50 * time.Millisecond})
				s2cW.Close()
			}()
			callWait(w, 1)
			callTool(w, 2, "peek") // waits for the write
			eventually(t, "the write running", func() bool { return running.Load() == 1 })
			switch how {
			case "closes its side", "is gone":
				w.Close()
			case "context ends":
				cancel()
				select {
				case <-served:
				case <-time.After(10 * time.Second):
					t.Fatal("Serve did not return when its context ended")
				}
			}
			// Many drain times pass: the write still runs.
			time.Sleep(500 * time.Millisecond)
			if running.Load() != 1 || len(cancelled) != 0 {
				t.Fatalf("the write was cancelled after its client left (running %d, cancelled %d)", running.Load(), len(cancelled))
			}
			if how != "context ends" {
				select {
				case err := <-served:
					t.Fatalf("Serve returned (%v) with a write running", err)
				default:
				}
			}
			close(release)
			eventually(t, "the write finished", func() bool { return running.Load() == 0 })
			if len(cancelled) != 0 {
				t.Fatal("the write was cancelled")
			}
			if how != "context ends" {
				if err := <-served; err != nil {
					t.Fatal(err)
				}
				if b := <-answers; how == "closes its side" && !strings.Contains(string(b), `"id":1,"result"`) {
					t.Fatalf("the write was not answered: %q", b)
				}
			}
			w.Close()
		})
	}
}

// TestWritesEndAtTheirBound: a write that never ends is cancelled once it
// has run WriteTimeout, and Serve returns.
func TestWritesEndAtTheirBound(t *testing.T) {
	var running atomic.Int32
	cancelled := make(chan struct{}, 1)
	srv := blockingServer(&running, make(chan struct{}), cancelled)
	c2sR, w := io.Pipe()
	served := make(chan struct{})
	var out strings.Builder
	go func() {
		Serve(context.Background(), srv, c2sR, &out, Options{DrainTimeout: 50 * time.Millisecond, WriteTimeout: 300 * time.Millisecond})
		close(served)
	}()
	callWait(w, 1)
	w.Close()
	select {
	case <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve still waits for a write past its bound")
	}
	if len(cancelled) != 1 {
		t.Fatal("the write was not cancelled at its bound")
	}
}

// TestEveryRequestAnsweredAfterTheClientClosesItsSide: a client that
// writes its requests and closes its side at once (`printf ... | infmem
// mcp`, a socket half-closed) still reads every answer: the reads and the
// writes in flight when its input ends run to the end, none is cancelled,
// and Serve returns only once every answer is written.
func TestEveryRequestAnsweredAfterTheClientClosesItsSide(t *testing.T) {
	var running atomic.Int32
	release := make(chan struct{})
	cancelled := make(chan struct{}, 16)
	srv := blockingServer(&running, release, cancelled)
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), srv, c2sR, s2cW, Options{DrainTimeout: time.Minute})
		s2cW.Close()
	}()
	answers := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(s2cR)
		answers <- b
	}()
	calls := []string{"peek", "peek", "wait", "peek", "wait", "peek"}
	fmt.Fprintln(c2sW, `{"jsonrpc":"2.0","id":100,"method":"ping"}`)
	for i, c := range calls {
		callTool(c2sW, i+1, c)
	}
	// The first two reads run when the input ends; the rest wait their turn.
	eventually(t, "the first reads running", func() bool { return running.Load() == 2 })
	c2sW.Close()
	time.Sleep(200 * time.Millisecond)
	select {
	case err := <-served:
		t.Fatalf("Serve returned (%v) with calls still running", err)
	default:
	}
	close(release)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if len(cancelled) != 0 {
		t.Fatalf("%d calls cancelled after the client closed its side", len(cancelled))
	}
	got := map[float64]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(<-answers)), "\n") {
		var m struct {
			ID     float64         `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result == nil || got[m.ID] {
			t.Fatalf("answer %q: %v", line, err)
		}
		got[m.ID] = true
	}
	if len(got) != len(calls)+1 || !got[100] {
		t.Fatalf("answered %v, want ids 1..%d and 100", got, len(calls))
	}
}

// TestDrainWaitsWhileCallsKeepFinishing: the drain bound is the time
// without progress, not the total: calls that each finish within it are
// all answered, although together they take longer.
func TestDrainWaitsWhileCallsKeepFinishing(t *testing.T) {
	srv := server.NewMCPServer("t", "1")
	var cancelled atomic.Int32
	srv.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			cancelled.Add(1)
		}
		return mcp.NewToolResultText("done"), nil
	})
	c2sR, c2sW := io.Pipe()
	served := make(chan struct{})
	var out strings.Builder
	go func() {
		Serve(context.Background(), srv, c2sR, &out, Options{DrainTimeout: 3 * time.Second})
		close(served)
	}()
	// Writes take turns: four take four seconds, past the drain bound.
	for i := range 4 {
		callTool(c2sW, i+1, "slow")
	}
	c2sW.Close()
	<-served
	if n := cancelled.Load(); n != 0 {
		t.Fatalf("%d calls cancelled although each finished within the drain bound", n)
	}
	if n := strings.Count(out.String(), `"done"`); n != 4 {
		t.Fatalf("%d of 4 calls answered: %s", n, out.String())
	}
}

// TestReadsStopWhenTheClientIsGone: once an answer cannot be written (the
// client stopped reading), a read-only call is cancelled at once, without
// waiting for the drain time; a call that may write, sent after it, then
// runs and is not cut short, so a store is not cut in half.
func TestReadsStopWhenTheClientIsGone(t *testing.T) {
	var running atomic.Int32
	release := make(chan struct{})
	defer close(release)
	cancelled := make(chan struct{}, 2)
	srv := blockingServer(&running, release, cancelled)
	c2sR, w := io.Pipe()
	s2cR, s2cW := io.Pipe()
	go Serve(context.Background(), srv, c2sR, s2cW, Options{DrainTimeout: time.Minute})
	s2cR.Close()
	callTool(w, 1, "peek")
	eventually(t, "the read running", func() bool { return running.Load() == 1 })
	// Its answer cannot be written: the session learns the client is gone.
	fmt.Fprintln(w, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the read was not cancelled when its client was gone")
	}
	callWait(w, 3)
	w.Close()
	// The write waited for the read; now it runs, and keeps running.
	eventually(t, "the write running", func() bool { return running.Load() == 1 && len(cancelled) == 0 })
	time.Sleep(100 * time.Millisecond)
	if running.Load() != 1 || len(cancelled) != 0 {
		t.Fatal("the write was cancelled before the drain time")
	}
}

// TestWritesTakeTurns: in one session a call that may write waits for the
// calls sent before it, and the calls sent after it wait for it (a client
// pipelining store then retrieve finds what it stored); reads run together;
// a tool Beside names runs beside the others.
func TestWritesTakeTurns(t *testing.T) {
	for _, tc := range []struct {
		name   string
		calls  []string // sent in this order without waiting
		at     int32    // how many run at once before the release
		beside bool
	}{
		{"read after write", []string{"wait", "peek"}, 1, false},
		{"write after read", []string{"peek", "wait"}, 1, false},
		{"write after write", []string{"wait", "wait"}, 1, false},
		{"reads together", []string{"peek", "peek", "peek"}, 3, false},
		{"read after a write beside", []string{"wait", "peek"}, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var running atomic.Int32
			release := make(chan struct{})
			srv := blockingServer(&running, release, make(chan struct{}, 8))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := Options{}
			if tc.beside {
				opts.Beside = func(tool string) bool { return tool == "wait" }
			}
			w, _ := startSession(t, ctx, srv, opts)
			for i, c := range tc.calls {
				callTool(w, i+1, c)
			}
			eventually(t, "the first calls running", func() bool { return running.Load() == tc.at })
			time.Sleep(100 * time.Millisecond)
			if n := running.Load(); n != tc.at {
				t.Fatalf("%d calls running at once, want %d", n, tc.at)
			}
			close(release)
			eventually(t, "every call finished", func() bool { return running.Load() == 0 })
		})
	}
}

// TestServeEndsWithItsContext: when ctx ends (SIGTERM on stdio) Serve
// returns although the client's side is still open and blocks reading;
// the read running is cancelled and answers.
func TestServeEndsWithItsContext(t *testing.T) {
	var running atomic.Int32
	cancelled := make(chan struct{}, 1)
	srv := blockingServer(&running, make(chan struct{}), cancelled)
	ctx, cancel := context.WithCancel(context.Background())
	c2sR, w := io.Pipe()
	defer w.Close()
	s2cR, s2cW := io.Pipe()
	answers := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(s2cR)
		answers <- b
	}()
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, srv, c2sR, s2cW, Options{DrainTimeout: time.Minute})
		s2cW.Close()
	}()
	callTool(w, 1, "peek")
	eventually(t, "the call running", func() bool { return running.Load() == 1 })
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return when its context ended while the client's side stayed open")
	}
	if len(cancelled) != 1 {
		t.Fatal("the running call was not cancelled")
	}
	if b := <-answers; !strings.Contains(string(b), `"id":1`) {
		t.Fatalf("the cancelled call was not answered: %q", b)
	}
}

// TestOnLineSeesEachLineFirst: Options.OnLine is called with every line
// read, whole, before its request runs, and the answers are unchanged.
func TestOnLineSeesEachLineFirst(t *testing.T) {
	var seen atomic.Int32
	var lines []string
	linesMu := make(chan struct{}, 1)
	srv := server.NewMCPServer("t", "1")
	var early atomic.Int32
	srv.AddTool(mcp.NewTool("probe", mcp.WithReadOnlyHintAnnotation(true)), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if int(seen.Load()) < int(r.GetFloat("n", 0)) {
			early.Add(1)
		}
		return mcp.NewToolResultText("ok"), nil
	})
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), srv, c2sR, s2cW, Options{OnLine: func(line []byte) {
			linesMu <- struct{}{}
			lines = append(lines, string(line))
			<-linesMu
			seen.Add(1)
		}})
		s2cW.Close()
	}()
	answers := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(s2cR)
		answers <- b
	}()
	const n = 20
	var sent []string
	for i := 1; i <= n; i++ {
		l := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"probe","arguments":{"n":%d}}}`, i, i)
		sent = append(sent, l)
		fmt.Fprintln(c2sW, l)
	}
	c2sW.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSpace(string(<-answers))
	if got := strings.Count(out, `"ok"`); got != n {
		t.Fatalf("%d answers ok, want %d: %s", got, n, out)
	}
	if early.Load() != 0 {
		t.Fatalf("%d calls ran before OnLine saw their line", early.Load())
	}
	if strings.Join(lines, "\n") != strings.Join(sent, "\n") {
		t.Fatalf("OnLine saw %q, want %q", lines, sent)
	}
}
