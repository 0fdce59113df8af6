//go:build unix

package bridge

import (
	"os/exec"
	"syscall"
)

// detach puts the daemon in a session of its own, so the signals that end
// the client's process group (Claude quitting, Ctrl-C) never reach it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
