//go:build !linux && !darwin

package peercred

import "net"

// Elsewhere (Windows) the socket folder's owner-only access guards the
// socket; the peer cannot be asked.
func peerUID(net.Conn) (int, bool, error) { return 0, false, nil }
