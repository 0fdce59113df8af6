package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/peercred"
)

func TestMain(m *testing.M) {
	if path := os.Getenv("INFMEM_TEST_FOREIGN_LISTEN"); path != "" {
		foreignListen(path)
		return
	}
	os.Exit(m.Run())
}

// foreignListen runs as another user: it listens where infmem's control
// socket would be, and prints whatever a client sends it.
func foreignListen(path string) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(1)
	}
	os.Chmod(path, 0o777)
	fmt.Println("ready")
	c, err := ln.Accept()
	if err != nil {
		os.Exit(1)
	}
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	got, _ := io.ReadAll(c)
	fmt.Printf("received %q\n", got)
	os.Exit(0)
}

// TestDialRefusesAnotherUsersSocket: a control socket put in place by
// another user (the socket-folder takeover of issue 13) is refused before
// anything, a passphrase least of all, is written to it. Needs root.
func TestDialRefusesAnotherUsersSocket(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a listener as another user")
	}
	dir, err := os.MkdirTemp("", "infctl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o777)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "listener")
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "control.sock")
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "INFMEM_TEST_FOREIGN_LISTEN="+sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	if line, err := out.ReadString('\n'); line != "ready\n" {
		t.Fatalf("listener: %q %v", line, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, sock)
	if err == nil {
		c.Call(ctx, Request{Op: OpRun, Job: "backup", Args: []byte(`{"passphrase":"hunter2"}`)}, nil)
		c.Close()
		t.Fatal("Dial accepted a socket another user listens on")
	}
	if !errors.Is(err, peercred.ErrOtherUser) || !strings.Contains(err.Error(), "uid 65534") {
		t.Fatalf("Dial: %v", err)
	}
	rest, _ := io.ReadAll(out)
	if !strings.Contains(string(rest), `received ""`) {
		t.Fatalf("the other user's listener received: %s", rest)
	}
}
