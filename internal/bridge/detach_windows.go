//go:build windows

package bridge

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// detach starts the daemon without a console and in a process group of its
// own, so closing the client's console or Ctrl-C never reaches it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS,
		HideWindow:    true,
	}
}
