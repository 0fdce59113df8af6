package flock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSecondAcquireFailsWithPID(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	l, err := Acquire(p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(p)
	var held *HeldError
	if !errors.As(err, &held) || held.PID != os.Getpid() {
		t.Fatalf("second Acquire: %v", err)
	}
	if !strings.Contains(err.Error(), strconv.Itoa(os.Getpid())) {
		t.Fatalf("message does not name the pid: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := Acquire(p)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l2.Release()
}

// TestLockDiesWithHolder runs a real holder process, kills it, and takes the lock.
func TestLockDiesWithHolder(t *testing.T) {
	if os.Getenv("FLOCK_HOLDER") != "" {
		if _, err := Acquire(os.Getenv("FLOCK_HOLDER")); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("locked\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	p := filepath.Join(t.TempDir(), "lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockDiesWithHolder$")
	cmd.Env = append(os.Environ(), "FLOCK_HOLDER="+p)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil || string(buf) != "locked\n" {
		t.Fatalf("holder did not lock: %q %v", buf, err)
	}
	_, err := Acquire(p)
	var held *HeldError
	if !errors.As(err, &held) || held.PID != cmd.Process.Pid {
		t.Fatalf("want held by %d, got %v", cmd.Process.Pid, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := Acquire(p)
	if err != nil {
		t.Fatalf("after holder died: %v", err)
	}
	l.Release()
}
