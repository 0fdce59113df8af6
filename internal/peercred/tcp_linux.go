package peercred

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// procNetTCP is the kernel's table of IPv4 TCP sockets, with the uid of
// each socket's owner.
const procNetTCP = "/proc/net/tcp"

// tcpPeerUID finds who owns the other end of a TCP connection between two
// addresses of this machine (the local page's loopback connections): the
// socket whose local address is conn's remote one and whose remote
// address is conn's local one, in /proc/net/tcp. Connections to other
// machines, and IPv6 ones, are not looked up (ok false). A loopback peer
// that is not in the table (it has gone) is an error.
func tcpPeerUID(conn *net.TCPConn) (int, bool, error) {
	la, _ := conn.LocalAddr().(*net.TCPAddr)
	ra, _ := conn.RemoteAddr().(*net.TCPAddr)
	if la == nil || ra == nil || la.IP.To4() == nil || ra.IP.To4() == nil || !ra.IP.IsLoopback() {
		return 0, false, nil
	}
	f, err := os.Open(procNetTCP)
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil // no /proc: the system cannot tell
	}
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	want := [2]string{procAddr(ra), procAddr(la)}
	sc := bufio.NewScanner(f)
	sc.Scan() // the header line
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 || fields[1] != want[0] || fields[2] != want[1] {
			continue
		}
		uid, err := strconv.Atoi(fields[7])
		if err != nil {
			return 0, false, fmt.Errorf("%s: bad uid %q", procNetTCP, fields[7])
		}
		return uid, true, nil
	}
	if err := sc.Err(); err != nil {
		return 0, false, err
	}
	return 0, false, fmt.Errorf("the peer %s is not in %s (it has gone)", ra, procNetTCP)
}

// procAddr writes an IPv4 address and port as /proc/net/tcp does: the
// address as the 32-bit number its bytes make in this machine's byte
// order, and the port, both in upper-case hex.
func procAddr(a *net.TCPAddr) string {
	return fmt.Sprintf("%08X:%04X", binary.NativeEndian.Uint32(a.IP.To4()), a.Port)
}
