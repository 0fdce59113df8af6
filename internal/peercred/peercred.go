// Package peercred owns checking who is at the other end of a local
// socket: infmem's sockets (the daemon's MCP and control sockets) only
// ever talk to processes of the user who runs infmem, in both directions.
// A client checks the daemon before sending it anything (a passphrase for
// a backup, say) and the daemon checks each client it accepts.
package peercred

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// ErrOtherUser means the peer runs as another user.
var ErrOtherUser = errors.New("the process at the other end of the socket runs as another user")

// Check returns nil when the peer of conn runs as the current user (or when
// the platform cannot tell: Windows, where the socket's folder ACL guards
// it), and an error wrapping ErrOtherUser otherwise.
func Check(conn net.Conn) error {
	uid, ok, err := peerUID(conn)
	if err != nil {
		return fmt.Errorf("cannot tell who is at the other end of the socket: %w", err)
	}
	if !ok {
		return nil
	}
	return compare(uid, os.Getuid())
}

func compare(peer, self int) error {
	if peer != self {
		return fmt.Errorf("%w (uid %d, not %d)", ErrOtherUser, peer, self)
	}
	return nil
}
