// Command infmem is a local-first long-term memory for Claude Desktop and any
// MCP client. main only dispatches to the subcommands, one per file.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

// cpuProfileEnv names a file prefix: each infmem process started with it
// set writes a CPU profile of its whole run to PREFIX.PID (for
// BENCHMARKS.md: `go tool pprof -top BIN PREFIX.PID`).
const cpuProfileEnv = "INFMEM_CPUPROFILE"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if prefix := os.Getenv(cpuProfileEnv); prefix != "" {
		if f, err := os.Create(fmt.Sprintf("%s.%d", prefix, os.Getpid())); err == nil {
			// Stopped (and so written out) before exiting below.
			_ = pprof.StartCPUProfile(f)
		}
	}
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	pprof.StopCPUProfile()
	os.Exit(code)
}
