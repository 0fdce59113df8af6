//go:build unix

package mongod

import (
	"context"
	"errors"
	"syscall"
)

// Unix domain sockets are how infmem reaches a managed mongod on Unix: they
// sit in the 0700 run/ directory, so only this user can connect.
const unixSocketsSupported = true

// sysProcAttr puts mongod in its own process group, so a Ctrl-C aimed at the
// daemon's terminal does not reach mongod; the supervisor stops it in order.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// processAlive reports whether pid exists (EPERM means it exists but belongs
// to someone else).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// requestShutdown asks mongod to shut down cleanly; mongod treats SIGTERM as
// a clean shutdown request.
func (s *Supervisor) requestShutdown(_ context.Context, c *child) error {
	return c.cmd.Process.Signal(syscall.SIGTERM)
}

// kill ends mongod and anything left in its process group.
func (c *child) kill() {
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	_ = c.cmd.Process.Kill()
}
