package bridge

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/flock"
)

// The test binary doubles as a fake daemon when BRIDGE_FAKE_DAEMON is set.
func TestMain(m *testing.M) {
	if mode := os.Getenv("BRIDGE_FAKE_DAEMON"); mode != "" {
		os.Exit(fakeDaemon(mode, os.Getenv("BRIDGE_ROOT")))
	}
	os.Exit(m.Run())
}

// fakeDaemon behaves like infmem daemon as far as the bridge can tell:
// one per root by the lock, a socket that answers each line.
func fakeDaemon(mode, dir string) int {
	ep, err := control.EndpointsFor(dataroot.Root{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if mode == "fail" {
		fmt.Fprintln(os.Stderr, "infmem: config is broken")
		return 3
	}
	lock, err := flock.Acquire(ep.Lock)
	if err != nil {
		return 0 // another daemon serves the root
	}
	defer lock.Release()
	if mode == "mute" {
		time.Sleep(time.Minute)
		return 0
	}
	time.Sleep(20 * time.Millisecond) // a daemon takes a moment to listen
	os.Remove(ep.MCP)
	ln, err := net.Listen("unix", ep.MCP)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for {
		conn, err := ln.Accept()
		if err != nil {
			return 1
		}
		go func() {
			defer conn.Close()
			sc := bufio.NewScanner(conn)
			for sc.Scan() {
				fmt.Fprintf(conn, "%d:%s\n", os.Getpid(), sc.Text())
			}
		}()
	}
}

func testEndpoints(t *testing.T) control.Endpoints {
	t.Helper()
	dir, err := os.MkdirTemp("", "brg")
	if err != nil {
		t.Fatal(err)
	}
	root, err := dataroot.Prepare(dir)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := control.EndpointsFor(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Stop the fake daemon the test started, whose pid is in the lock.
		if b, err := os.ReadFile(ep.Lock); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
			}
		}
		os.RemoveAll(dir)
	})
	return ep
}

func fakeOptions(ep control.Endpoints, mode string) Options {
	return Options{Endpoints: ep, Daemon: func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "BRIDGE_FAKE_DAEMON="+mode, "BRIDGE_ROOT="+ep.Root.Dir)
		return cmd
	}}
}

// echoServer answers on a unix socket with handle, one connection at a time.
func echoServer(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	dir, _ := os.MkdirTemp("", "brg")
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); handle(c) }()
		}
	}()
	return path
}

func dialPath(t *testing.T, path string) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPipeIsTransparent(t *testing.T) {
	path := echoServer(t, func(c net.Conn) { io.Copy(c, c) })
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(rand.IntN(256))
	}
	copy(data[1000:], strings.Repeat("x", 1<<20)) // a line longer than any buffer
	var out bytes.Buffer
	if err := Pipe(context.Background(), dialPath(t, path), bytes.NewReader(data), &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), data) {
		t.Fatalf("got %d bytes back of %d, or different ones", out.Len(), len(data))
	}
}

// After the client's input ends, responses the daemon still owes arrive.
func TestPipeDeliversLateResponses(t *testing.T) {
	path := echoServer(t, func(c net.Conn) {
		b, _ := io.ReadAll(c) // until the bridge half-closes
		time.Sleep(200 * time.Millisecond)
		c.Write(append([]byte("answered:"), b...))
	})
	var out bytes.Buffer
	if err := Pipe(context.Background(), dialPath(t, path), strings.NewReader("question\n"), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "answered:question\n" {
		t.Fatalf("%q", out.String())
	}
}

func TestPipeReportsDaemonGone(t *testing.T) {
	path := echoServer(t, func(c net.Conn) {
		bufio.NewReader(c).ReadString('\n')
		// Hang up mid-session, as a killed daemon does.
	})
	in, inw := io.Pipe()
	defer inw.Close()
	go inw.Write([]byte("first\n"))
	err := Pipe(context.Background(), dialPath(t, path), in, io.Discard)
	if !errors.Is(err, ErrDaemonGone) {
		t.Fatalf("got %v", err)
	}
}

func TestPipeEndsWithContext(t *testing.T) {
	path := echoServer(t, func(c net.Conn) { io.Copy(c, c) })
	in, inw := io.Pipe()
	defer inw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Pipe(ctx, dialPath(t, path), in, io.Discard) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestConnectUsesRunningDaemon(t *testing.T) {
	ep := testEndpoints(t)
	ln, err := net.Listen("unix", ep.MCP)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	opts := Options{Endpoints: ep, Daemon: func() *exec.Cmd {
		t.Error("started a daemon although one answers")
		return exec.Command("false")
	}}
	c, err := Connect(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// Bridges that start at once start daemons at once; one keeps the root and
// every bridge ends up talking to it.
func TestConcurrentConnectsShareOneDaemon(t *testing.T) {
	ep := testEndpoints(t)
	var wg sync.WaitGroup
	pids := make([]string, 6)
	for i := range pids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := Connect(context.Background(), fakeOptions(ep, "serve"))
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "hello %d\n", i)
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil {
				t.Error(err)
				return
			}
			pid, rest, _ := strings.Cut(strings.TrimSpace(line), ":")
			if rest != fmt.Sprintf("hello %d", i) {
				t.Errorf("answer %q", line)
			}
			pids[i] = pid
		}()
	}
	wg.Wait()
	for _, p := range pids {
		if p != pids[0] {
			t.Fatalf("bridges reached different daemons: %v", pids)
		}
	}
}

func TestConnectFailsFastWhenTheDaemonRefusesToRun(t *testing.T) {
	ep := testEndpoints(t)
	opts := fakeOptions(ep, "fail")
	opts.Timeout = time.Minute
	_, err := Connect(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "exited with status 3") || !strings.Contains(err.Error(), "config is broken") ||
		!strings.Contains(err.Error(), "hint: see "+ep.LogFile()) {
		t.Fatalf("got %v", err)
	}
}

func TestConnectGivesUpOnASilentDaemon(t *testing.T) {
	ep := testEndpoints(t)
	opts := fakeOptions(ep, "mute")
	opts.Timeout = 500 * time.Millisecond
	_, err := Connect(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "did not answer") || !strings.Contains(err.Error(), ep.LogFile()) {
		t.Fatalf("got %v", err)
	}
}

// BenchmarkRoundTrip compares a request/response over the daemon's socket
// directly with the same through Pipe (what `infmem mcp` adds: one more
// hop through this process).
func BenchmarkRoundTrip(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	echo := func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			c.Write(line)
		}
	}
	dir, _ := os.MkdirTemp("", "brg")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go echo(c)
		}
	}()
	roundTrips := func(b *testing.B, w io.Writer, r *bufio.Reader) {
		for b.Loop() {
			if _, err := w.Write(msg); err != nil {
				b.Fatal(err)
			}
			if _, err := r.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("direct", func(b *testing.B) {
		c, err := net.Dial("unix", path)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		roundTrips(b, c, bufio.NewReader(c))
	})
	b.Run("bridged", func(b *testing.B) {
		c, err := net.Dial("unix", path)
		if err != nil {
			b.Fatal(err)
		}
		// The client's pipes to the bridge, as Claude's are to `infmem mcp`.
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- Pipe(context.Background(), c, inR, outW) }()
		roundTrips(b, inW, bufio.NewReader(outR))
		inW.Close()
		go io.Copy(io.Discard, outR)
		<-done
	})
}
