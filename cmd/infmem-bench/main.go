// Command infmem-bench measures infmem: it seeds data roots with synthetic
// memories and drives the real infmem binary over MCP to time its tools,
// and it runs the LoCoMo recall benchmark. It is a development tool; it is
// not installed with infmem.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

const usage = `usage: infmem-bench <command> [flags]

  seed   --data-dir DIR --n N        insert N synthetic memories directly
  stdio  --data-dir DIR --bin PATH   time infmem mcp's tools over stdio
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "seed":
		err = runSeed(ctx, os.Args[2:])
	case "stdio":
		err = runStdio(ctx, os.Args[2:])
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "infmem-bench:", err)
		os.Exit(1)
	}
}
