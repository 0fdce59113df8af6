package mongostore

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"sync"

	"github.com/infmem/infmem/internal/peercred"
	"github.com/infmem/infmem/internal/sockdir"
)

// The embedded engine's socket is guarded like the daemon's own (issue
// 22): FerretDB listens on an inner socket (engine.sock, 0600), which the
// process's own driver uses, and run/mongo.sock, the one other processes
// of the user reach (a second daemon trying sync on this one's engine),
// is 0600 too and passes on only connections whose peer runs as this
// user (peercred), byte for byte. FerretDB itself has no way to refuse a
// peer.

// innerSocketPath is where FerretDB listens.
func innerSocketPath(runDir string) (string, error) { return sockdir.Path(runDir, "engine.sock") }

// guardedSocket accepts on path and relays each connection of this
// user's processes to inner.
type guardedSocket struct {
	ln    net.Listener
	path  string
	inner string
	log   *slog.Logger

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// privateSocket makes a socket file owner-only (0600): connecting to a
// unix socket needs write permission on it.
func privateSocket(path string) error {
	if runtime.GOOS == "windows" {
		return nil // the data root's access list keeps it private
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("cannot make the socket %s private: %w", path, err)
	}
	return nil
}

func listenGuarded(path, inner string, log *slog.Logger) (*guardedSocket, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("cannot remove stale socket %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w", path, err)
	}
	if err := privateSocket(path); err != nil {
		ln.Close()
		return nil, err
	}
	g := &guardedSocket{ln: ln, path: path, inner: inner, log: log, conns: map[net.Conn]struct{}{}}
	g.wg.Add(1)
	go g.accept()
	return g, nil
}

func (g *guardedSocket) accept() {
	defer g.wg.Done()
	for {
		c, err := g.ln.Accept()
		if err != nil {
			return
		}
		if err := peercred.Check(c); err != nil {
			g.log.Warn("connection to the embedded engine's socket refused", "socket", g.path, "err", err)
			c.Close()
			continue
		}
		in, err := net.Dial("unix", g.inner)
		if err != nil {
			g.log.Error("cannot reach the embedded engine", "err", err)
			c.Close()
			continue
		}
		if !g.track(c, in) {
			c.Close()
			in.Close()
			return
		}
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			relay(c, in)
			g.untrack(c, in)
		}()
	}
}

func (g *guardedSocket) track(cs ...net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	for _, c := range cs {
		g.conns[c] = struct{}{}
	}
	return true
}

func (g *guardedSocket) untrack(cs ...net.Conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range cs {
		delete(g.conns, c)
	}
}

// relay copies both ways until either side ends, then closes both.
func relay(a, b net.Conn) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		io.Copy(dst, src)
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	a.Close()
	b.Close()
	<-done
}

// close stops accepting, ends every relayed connection and removes the
// socket.
func (g *guardedSocket) close() {
	g.mu.Lock()
	g.closed = true
	for c := range g.conns {
		c.Close()
	}
	g.mu.Unlock()
	g.ln.Close()
	g.wg.Wait()
	os.Remove(g.path)
}
