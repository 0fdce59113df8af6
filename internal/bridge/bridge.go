// Package bridge owns the client side of `infmem mcp`: reaching the daemon
// of a data root, starting one in the background when none answers, and
// piping stdio to the daemon's MCP socket byte for byte. The bridge never
// parses MCP and never stops the daemon: when the client goes away, only
// the bridge ends.
package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// ErrDaemonGone means the daemon closed the connection while the client
// was still talking (it crashed or was stopped).
var ErrDaemonGone = errors.New("the infmem daemon closed the connection")

// Pipe copies in to conn and conn to out until the client is done and the
// daemon has answered: when in ends, the write half of conn is closed, and
// Pipe returns once the daemon has flushed its responses and closed its
// side. It returns early, with ErrDaemonGone, if the daemon hangs up while
// in is still open, and with nil when ctx ends. Pipe closes conn.
func Pipe(ctx context.Context, conn net.Conn, in io.Reader, out io.Writer) error {
	defer conn.Close()
	fromDaemon := make(chan error, 1)
	go func() {
		_, err := io.Copy(out, conn)
		fromDaemon <- err
	}()
	fromClient := make(chan error, 1)
	go func() {
		_, err := io.Copy(conn, in)
		if hc, ok := conn.(interface{ CloseWrite() error }); ok {
			hc.CloseWrite()
		}
		fromClient <- err
	}()
	clientDone := false
	for {
		select {
		case err := <-fromDaemon:
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%w: %v", ErrDaemonGone, err)
			}
			if !clientDone {
				// The daemon hung up on its own while the client's input was
				// open (a crash looks like this too) — unless the client's
				// end-of-input is just about to be reported.
				select {
				case <-fromClient:
				case <-time.After(100 * time.Millisecond):
					return ErrDaemonGone
				}
			}
			return nil
		case err := <-fromClient:
			clientDone = true
			fromClient = nil
			if err != nil && ctx.Err() == nil {
				// Reading stdin failed: nothing more can reach the daemon, but
				// what it still owes the client is delivered.
				continue
			}
		case <-ctx.Done():
			return nil
		}
	}
}
