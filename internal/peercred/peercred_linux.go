package peercred

import (
	"net"

	"golang.org/x/sys/unix"
)

func peerUID(conn net.Conn) (int, bool, error) {
	if tc, ok := conn.(*net.TCPConn); ok {
		return tcpPeerUID(tc)
	}
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return 0, false, nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, false, err
	}
	var cred *unix.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, false, err
	}
	if serr != nil {
		return 0, false, serr
	}
	return int(cred.Uid), true, nil
}
