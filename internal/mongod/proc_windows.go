//go:build windows

package mongod

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"golang.org/x/sys/windows"
)

// mongod on Windows has no Unix-socket listener, so infmem reaches it on
// 127.0.0.1 only.
const unixSocketsSupported = false

// sysProcAttr gives mongod its own process group so console Ctrl-C events
// aimed at the daemon do not reach it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

const stillActive = 259 // GetExitCodeProcess's STILL_ACTIVE

func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return err == windows.ERROR_ACCESS_DENIED
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}

func processName(pid int) (string, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return "", false
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(h, 0, &buf[0], &n); err != nil {
		return "", false
	}
	return filepath.Base(windows.UTF16ToString(buf[:n])), true
}

// requestShutdown sends mongod the shutdown command: Windows has no SIGTERM,
// and the command gives mongod the same clean shutdown. Before the
// credential is known (mongod not ready yet) there is no clean way, and the
// caller's grace period ends in a kill.
func (s *Supervisor) requestShutdown(ctx context.Context, _ *child) error {
	uri := s.URI()
	if uri == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(2 * time.Second))
	if err != nil {
		return fmt.Errorf("connect to send shutdown: %w", s.scrub(err))
	}
	defer client.Disconnect(context.Background())
	// mongod closes the connection while answering, so an error here is expected.
	_ = client.Database("admin").RunCommand(ctx, bson.D{{Key: "shutdown", Value: 1}}).Err()
	return nil
}

func (c *child) kill() {
	_ = c.cmd.Process.Kill()
}
