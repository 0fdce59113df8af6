//go:build faultpoints && unix

package faultpoint

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
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

// Hold waits while the file INFMEM_FAULTHOLD names exists, if it names
// this point ("name=path").
func Hold(name string) {
	want, path, ok := strings.Cut(os.Getenv("INFMEM_FAULTHOLD"), "=")
	if !ok || want != name {
		return
	}
	for {
		if _, err := os.Stat(path); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
