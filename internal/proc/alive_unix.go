//go:build unix

package proc

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// Alive reports whether a process with pid exists and has not exited.
// A zombie (exited, not yet reaped, as a daemon whose parent is gone may
// stay for a while where pid 1 reaps lazily) counts as gone.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// pid (comm) state ...; comm may hold spaces and parentheses.
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
			return stat[i+2] != 'Z'
		}
	}
	return true
}
