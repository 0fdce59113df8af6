package mongod

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// processName returns the executable name of pid, from /proc.
func processName(pid int) (string, bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	if exe, err := os.Readlink(filepath.Join(dir, "exe")); err == nil {
		return filepath.Base(strings.TrimSuffix(exe, " (deleted)")), true
	}
	// exe is unreadable for other users' processes; comm is not (but is cut to 15 bytes).
	if comm, err := os.ReadFile(filepath.Join(dir, "comm")); err == nil {
		return strings.TrimSpace(string(comm)), true
	}
	return "", false
}
