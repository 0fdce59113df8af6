package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the master end to read what is
// written to the terminal, the slave end to give a process as its
// terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatalf("open the terminal: %v", err)
	}
	return m, s
}

// runBinTTY runs the infmem binary with its standard error on a terminal
// and its standard output on a pipe, and returns what each received.
func runBinTTY(t *testing.T, env []string, args ...string) (code int, stdout, tty string) {
	t.Helper()
	master, slave := openPTY(t)
	defer master.Close()
	// Built first (once per run, minutes under -race at load): the time
	// limit is the process's.
	bin := infmemBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, slave
	var term bytes.Buffer
	done := make(chan struct{})
	go func() {
		// Ends with EIO once the process and this one have closed the
		// terminal.
		io.Copy(&term, master)
		close(done)
	}()
	err := cmd.Start()
	slave.Close()
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal was not closed")
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), term.String()
	}
	if err != nil {
		t.Fatalf("infmem %v: %v", args, err)
	}
	return 0, out.String(), term.String()
}

// On a terminal, import draws a progress bar on standard error, in
// process and through the daemon; on a pipe it draws none.
func TestImportProgressBar(t *testing.T) {
	conv, err := filepath.Abs(filepath.Join(fixtures, "chatgpt", "conversations.json"))
	if err != nil {
		t.Fatal(err)
	}
	notes, err := filepath.Abs(filepath.Join(fixtures, "notes"))
	if err != nil {
		t.Fatal(err)
	}
	root := shortRoot(t)
	env := processEnv(t, root)
	wantBar := func(t *testing.T, tty string) {
		t.Helper()
		if !strings.Contains(tty, "\r\033[Kimport: storing") || !strings.Contains(tty, "[########################] 100%") {
			t.Fatalf("no progress bar on the terminal: %q", tty)
		}
	}

	code, out, tty := runBinTTY(t, env, "import", conv, "--json")
	if code != 0 || !strings.Contains(out, `"added": 7`) {
		t.Fatalf("in process: %d %q %q", code, out, tty)
	}
	wantBar(t, tty)
	if strings.Contains(out, "\r") || strings.Contains(out, "[##") {
		t.Fatalf("progress on standard output: %q", out)
	}
	// Piped: no bar, no control characters.
	code, out, errs := runBin(t, env, "import", notes)
	if code != 0 || !strings.Contains(out, "Global  9") {
		t.Fatalf("piped: %d %q %q", code, out, errs)
	}
	if strings.ContainsAny(errs+out, "\r\033") {
		t.Fatalf("control characters on a pipe: %q %q", out, errs)
	}

	// Through the daemon.
	t.Cleanup(func() { stopDaemon(t, root, env) })
	c := bridgeClient(t, env)
	storeText(t, c, "The daemon is up")
	mj, err := filepath.Abs(filepath.Join(fixtures, "memory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, tty = runBinTTY(t, env, "import", mj)
	if code != 0 || !strings.Contains(out, "Global  14") {
		t.Fatalf("through the daemon: %d %q %q", code, out, tty)
	}
	if !strings.Contains(tty, "import: running in the daemon (pid ") {
		t.Fatalf("the import did not run in the daemon: %q", tty)
	}
	wantBar(t, tty)
}
