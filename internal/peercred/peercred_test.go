package peercred

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestCompare(t *testing.T) {
	if err := compare(1000, 1000); err != nil {
		t.Fatal(err)
	}
	if err := compare(0, 1000); !errors.Is(err, ErrOtherUser) {
		t.Fatalf("root peer of a user's process: %v", err)
	}
	if err := compare(1001, 0); !errors.Is(err, ErrOtherUser) {
		t.Fatalf("another user's peer of root's process: %v", err)
	}
}

// TestCheckSameUser reads the real peer credentials of both ends of a unix
// socket connection.
func TestCheckSameUser(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no peer credentials on Windows")
	}
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-accepted
	defer s.Close()
	for _, conn := range []net.Conn{c, s} {
		uid, ok, err := peerUID(conn)
		if err != nil || !ok || uid != os.Getuid() {
			t.Fatalf("peer uid %d %v %v, want %d", uid, ok, err, os.Getuid())
		}
		if err := Check(conn); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckTCPSameUser finds the owner of both ends of a loopback TCP
// connection (Linux: /proc/net/tcp).
func TestCheckTCPSameUser(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("TCP peers are looked up on Linux only")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-accepted
	defer s.Close()
	for _, conn := range []net.Conn{c, s} {
		uid, ok, err := peerUID(conn)
		if err != nil || !ok || uid != os.Getuid() {
			t.Fatalf("peer uid %d %v %v, want %d", uid, ok, err, os.Getuid())
		}
	}
}
