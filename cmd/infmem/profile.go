package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Profiles for BENCHMARKS.md, off unless asked for by the environment:
//
//   - INFMEM_CPUPROFILE=PREFIX: each infmem process writes a CPU profile of
//     its whole run to PREFIX.PID (`go tool pprof -top BIN PREFIX.PID`).
//   - INFMEM_HEAPPROFILE=PREFIX: each infmem process writes a heap profile
//     to PREFIX.PID.N each time it gets SIGUSR1 (unix), and to PREFIX.PID
//     when it exits (`go tool pprof -sample_index=inuse_space -top BIN
//     FILE`).
const (
	cpuProfileEnv  = "INFMEM_CPUPROFILE"
	heapProfileEnv = "INFMEM_HEAPPROFILE"
)

// startProfiles starts what the environment asks for and returns what
// writes it out, to call before exiting.
func startProfiles() (stop func()) {
	cpu := os.Getenv(cpuProfileEnv)
	if cpu != "" {
		if f, err := os.Create(fmt.Sprintf("%s.%d", cpu, os.Getpid())); err == nil {
			_ = pprof.StartCPUProfile(f)
		}
	}
	heap := os.Getenv(heapProfileEnv)
	if heap != "" {
		heapOnSignal(func(n int) { writeHeapProfile(fmt.Sprintf("%s.%d.%d", heap, os.Getpid(), n)) })
	}
	return func() {
		if cpu != "" {
			pprof.StopCPUProfile()
		}
		if heap != "" {
			writeHeapProfile(fmt.Sprintf("%s.%d", heap, os.Getpid()))
		}
	}
}

func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	runtime.GC()
	_ = pprof.WriteHeapProfile(f)
}
