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
  daemon --data-dir DIR --bin PATH   time the bridge and the shared daemon: launch to
                                     initialize (cold and warm), bridge overhead, throughput
  maintain --data-dir DIR --bin PATH  time a full maintenance pass while retrievals run
  locomo [--mcp BIN] [--minimal] [--modes keyword,vector,hybrid] [--calibrate] [--cross-validate] FILE
                                     LoCoMo Recall@k through the memory engine, or through
                                     BIN's infmem mcp as Claude gets it; held-out recall
  recall [--mcp BIN] [--sets a,b,c] [--modes keyword,vector,hybrid] [--bm25] [--cross-validate] [--kinds]
                                     every recall set (locomo, messy, beam, realmem, everyday) stored
                                     and asked as its protocol says; one table with plain BM25 beside
  everyday [--mcp BIN] [-v] [FILE]   the everyday set: hit@1, hit@3 and the never-stored rate
  updates [--mcp BIN] [-v] [FILE]    knowledge updates: the newer fact first, the older above the
                                     newer, the store result naming the older; look-alikes
  aged [--sets locomo,beam,realmem,everyday] [--mcp BIN] [--retention keep] [--max-items N]
                                     recall before and after the nightly maintenance pass, each set
                                     stored with its timestamps aged past keep_full_days
  archived-memory --data-dir DIR     heap of the index on a seeded root before and after the
                                     nightly pass archives its old conversations
  summaries [--sets locomo,beam,realmem] [--fact-chars N]
                                     every session's extractive summary: the share of its fact
                                     sentences kept, its length, parts over max_content_bytes
  import --bin PATH [--n N] [--mode in-process|daemon|both]
                                     time 'infmem import' of a synthetic ChatGPT export of N
                                     messages into an empty data root; peak RSS
  kernels [--sets a,b,c]             cosine between this CPU's USE-lite vectors (AMX bf16 where
                                     there is AMX) and the float32 ones, over the sets' texts
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
	case "daemon":
		err = runDaemonBench(ctx, os.Args[2:])
	case "locomo":
		err = runLocomo(ctx, os.Args[2:])
	case "recall":
		err = runRecall(ctx, os.Args[2:])
	case "everyday":
		err = runEveryday(ctx, os.Args[2:])
	case "updates":
		err = runUpdates(ctx, os.Args[2:])
	case "maintain":
		err = runMaintainBench(ctx, os.Args[2:])
	case "aged":
		err = runAged(ctx, os.Args[2:])
	case "archived-memory":
		err = runArchivedMemory(ctx, os.Args[2:])
	case "summaries":
		err = runSummaries(ctx, os.Args[2:])
	case "import":
		err = runImportBench(ctx, os.Args[2:])
	case "kernels":
		err = runKernels(ctx, os.Args[2:])
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "infmem-bench:", err)
		os.Exit(1)
	}
}
