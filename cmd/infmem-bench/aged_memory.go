package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/summarize"
	"github.com/infmem/infmem/maintenance"
)

// runArchivedMemory measures what keeping archived messages in the index
// costs (issue 25): on a seeded data root (infmem-bench seed), the heap
// with the engine open and its index loaded, then the nightly pass
// (summarize and archive every conversation older than keep_full_days),
// then the heap with the engine reopened on the result. Archived messages
// keep their slot, keyword terms and embedding, so each costs what a live
// memory costs; the pass adds its summaries.
func runArchivedMemory(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("archived-memory", flag.ContinueOnError)
	dir := fs.String("data-dir", "", "seeded data root (infmem-bench seed); it is changed")
	def := config.Defaults()
	keepFull := fs.Int("keep-full-days", def.Retention.KeepFullDays, "retention.keep_full_days for the pass (a seeded root's conversations of 20 are spread over two years: 30 archives about 43 % of them, the default 180 almost none)")
	pass := fs.Bool("pass", true, "run the nightly pass between the two measures (false: measure the root as it is, once)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return fmt.Errorf("--data-dir is required")
	}
	open := func(dir string) (*benchStack, uint64, error) {
		stack, err := openBenchStack(ctx, dir)
		if err != nil {
			return nil, 0, err
		}
		for !stack.eng.Ready() {
			select {
			case <-ctx.Done():
				stack.close()
				return nil, 0, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
		// The embedder loads lazily: embed once so both measures hold it.
		if _, err := stack.eng.Search(ctx, memory.SearchRequest{Query: "warm up the model", NoTouch: true}); err != nil {
			stack.close()
			return nil, 0, err
		}
		h := heapInUse()
		rss, _ := procRSS(os.Getpid())
		fmt.Fprintf(os.Stderr, "opened %s: heap in use %.1f MiB, process RSS %.1f MiB\n", dir, mib(h), mib(uint64(rss)))
		return stack, h, nil
	}
	// The heap of an engine with an empty index, the embedder loaded: the
	// base the index's own memory is measured from.
	tmp, err := os.MkdirTemp("", "infmem-archmem")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	empty, base, err := open(filepath.Join(tmp, "root"))
	if err != nil {
		return err
	}
	empty.close()
	stack, before, err := open(*dir)
	if err != nil {
		return err
	}
	c0, err := stack.eng.Counts(ctx)
	if err != nil {
		stack.close()
		return err
	}
	if !*pass {
		defer stack.close()
		rss, peak := procRSS(os.Getpid())
		n0 := c0.Live + c0.Archived + c0.Forgotten
		fmt.Printf("empty index, embedder loaded: heap in use %.1f MiB\n", mib(base))
		fmt.Printf("%d memories (%d live, %d archived, %d forgotten; %d summaries); heap in use %.1f MiB: the index %.1f MiB, %.0f bytes a memory; process RSS %.1f MiB, peak %.1f MiB\n",
			n0, c0.Live, c0.Archived, c0.Forgotten, c0.Summaries, mib(before), mib(before)-mib(base), (float64(before)-float64(base))/float64(max(n0, 1)), mib(uint64(rss)), mib(uint64(peak)))
		return nil
	}
	cfg := config.Defaults()
	cfg.Retention.KeepFullDays = *keepFull
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	env := &maintenance.Env{Engine: stack.eng, Store: stack.store, Config: cfg, Log: log,
		Summarizer: summarize.NewExtractive(stack.embedder, summarize.ExtractiveOptions{Logger: log}),
		Pause:      func(time.Duration) time.Duration { return 0 }}
	start := time.Now()
	rep, err := env.All(ctx, false)
	stack.close()
	if err != nil {
		// A job that failed (a write timing out on a loaded machine) left
		// the root as far as it got: measure that.
		fmt.Printf("the pass did not finish: %v\n", err)
	}
	took := time.Since(start)
	stack, after, err := open(*dir)
	if err != nil {
		return err
	}
	defer stack.close()
	c1, err := stack.eng.Counts(ctx)
	if err != nil {
		return err
	}
	_, peak := procRSS(os.Getpid())
	rss, _ := procRSS(os.Getpid())
	n0, n1 := c0.Live+c0.Archived+c0.Forgotten, c1.Live+c1.Archived+c1.Forgotten
	fmt.Printf("empty index, embedder loaded: heap in use %.1f MiB\n", mib(base))
	fmt.Printf("before the pass: %d memories (%d archived); heap in use %.1f MiB: the index %.1f MiB, %.0f bytes a memory\n",
		n0, c0.Archived, mib(before), mib(before)-mib(base), (float64(before)-float64(base))/float64(max(n0, 1)))
	fmt.Printf("nightly pass (keep_full_days %d) in %v: %d conversations summarized, %d messages archived\n", *keepFull, took.Round(time.Second),
		rep.Counts["conversations_summarized"], rep.Counts["messages_archived"])
	fmt.Printf("after, reopened: %d memories (%d summaries, %d archived); heap in use %.1f MiB: the index %.1f MiB, %.0f bytes a memory\n",
		n1, c1.Summaries, c1.Archived, mib(after), mib(after)-mib(base), (float64(after)-float64(base))/float64(max(n1, 1)))
	fmt.Printf("an archived message stays in the index at the cost of a live one; the pass changed the index by %+.1f MiB (%d summaries added)\n",
		mib(after)-mib(before), c1.Summaries-c0.Summaries)
	fmt.Printf("process RSS after, reopened: %.1f MiB; peak over the whole run (pass included): %.1f MiB\n", mib(uint64(rss)), mib(uint64(peak)))
	return nil
}

// heapInUse is the live heap after two collections.
func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
