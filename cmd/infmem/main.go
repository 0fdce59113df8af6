// Command infmem is a local-first long-term memory for Claude Desktop and any
// MCP client. main only dispatches to the subcommands, one per file.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stopProfile := startProfiles()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	stopProfile()
	os.Exit(code)
}
