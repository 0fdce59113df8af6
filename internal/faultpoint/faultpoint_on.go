//go:build faultpoints && unix

package faultpoint

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Enabled reports whether this build has fault points.
const Enabled = true

var (
	mu     sync.Mutex
	passes = map[string]int{}
)

// Crash kills this process with SIGKILL if INFMEM_FAULTPOINT names this
// pass of the point name.
func Crash(name string) {
	want, nth, _ := strings.Cut(os.Getenv("INFMEM_FAULTPOINT"), ":")
	if want != name {
		return
	}
	n := 1
	if nth != "" {
		if v, err := strconv.Atoi(nth); err == nil {
			n = v
		}
	}
	mu.Lock()
	passes[name]++
	hit := passes[name] == n
	mu.Unlock()
	if hit {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
}
