package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// runDaemonBench measures the shared daemon as Claude reaches it: the time
// from launching `infmem mcp` to the initialize answer with no daemon
// running (cold: the bridge starts one) and with one running (warm), the
// latency a call pays for the bridge compared with `--in-process`, and
// throughput with several clients at once.
func runDaemonBench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	dir := fs.String("data-dir", "", "seeded data root")
	bin := fs.String("bin", "infmem", "infmem binary")
	calls := fs.Int("calls", 1000, "calls per latency measurement")
	launches := fs.Int("launches", 5, "launches per cold and warm measurement")
	clients := fs.Int("clients", 4, "clients for the throughput measurement")
	stores := fs.Int("stores", 250, "stores per client in the throughput measurement")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return fmt.Errorf("--data-dir is required")
	}
	abs, _ := filepath.Abs(*dir)
	cfgDir, _ := os.MkdirTemp("", "infmem-bench")
	defer os.RemoveAll(cfgDir)
	cfg := filepath.Join(cfgDir, "config.json")
	os.WriteFile(cfg, []byte(`{"logging": {"level": "warn"}}`), 0o600)
	b := &daemonBench{bin: *bin, env: append(os.Environ(), "INFMEM_DATA_DIR="+abs, "INFMEM_CONFIG="+cfg)}
	defer b.stop()
	b.stop()

	// Cold: no daemon; the bridge starts one, which must load every memory.
	var cold, coldReady []time.Duration
	for i := 0; i < *launches; i++ {
		c, initd, err := b.launch(ctx, "mcp")
		if err != nil {
			return err
		}
		ready, err := waitReady(ctx, c)
		c.Close()
		if err != nil {
			return err
		}
		cold, coldReady = append(cold, initd), append(coldReady, initd+ready)
		b.stop()
	}
	fmt.Printf("cold launch → initialize   %s\n", summary(cold))
	fmt.Printf("cold launch → first recall %s (daemon start and index load)\n", summary(coldReady))

	// Warm: the daemon runs and has its index.
	c0, _, err := b.launch(ctx, "mcp")
	if err != nil {
		return err
	}
	if _, err := waitReady(ctx, c0); err != nil {
		return err
	}
	var warm []time.Duration
	for i := 0; i < *launches; i++ {
		c, initd, err := b.launch(ctx, "mcp")
		if err != nil {
			return err
		}
		c.Close()
		warm = append(warm, initd)
	}
	fmt.Printf("warm launch → initialize   %s\n", summary(warm))

	pingLat, err := pings(ctx, c0, *calls)
	if err != nil {
		return err
	}
	fmt.Printf("bridge     %-20s p50 %v p99 %v\n", "ping", pct(pingLat, 0.5), pct(pingLat, 0.99))
	gen := newSynth(11)
	recall := func(int) map[string]any {
		return map[string]any{"query": gen.query(), "filter": map[string]any{"scope": "ALL"}, "top_k": 5}
	}
	scopes := func(int) map[string]any { return nil }
	bridged := map[string]time.Duration{}
	for _, m := range []struct {
		tool string
		args func(int) map[string]any
	}{{"list_memory_scopes", scopes}, {"retrieve_memory", recall}} {
		lat, err := latencies(ctx, c0, m.tool, m.args, *calls)
		if err != nil {
			return err
		}
		bridged[m.tool] = pct(lat, 0.5)
		fmt.Printf("bridge     %-20s p50 %v p99 %v\n", m.tool, pct(lat, 0.5), pct(lat, 0.99))
	}

	// Throughput: clients store (and every fifth time recall) at once.
	for _, n := range []int{1, *clients} {
		ops, elapsed, err := b.throughput(ctx, n, *stores)
		if err != nil {
			return err
		}
		fmt.Printf("throughput %d client(s): %d calls in %v = %.0f calls/s\n", n, ops, elapsed.Round(time.Millisecond), float64(ops)/elapsed.Seconds())
	}
	c0.Close()
	b.stop()

	// In-process: the same calls without the bridge and the socket.
	ci, _, err := b.launch(ctx, "mcp", "--in-process")
	if err != nil {
		return err
	}
	defer ci.Close()
	if _, err := waitReady(ctx, ci); err != nil {
		return err
	}
	inPing, err := pings(ctx, ci, *calls)
	if err != nil {
		return err
	}
	fmt.Printf("in-process %-20s p50 %v p99 %v (bridge adds %v at p50)\n", "ping", pct(inPing, 0.5), pct(inPing, 0.99), pct(pingLat, 0.5)-pct(inPing, 0.5))
	for _, m := range []struct {
		tool string
		args func(int) map[string]any
	}{{"list_memory_scopes", scopes}, {"retrieve_memory", recall}} {
		lat, err := latencies(ctx, ci, m.tool, m.args, *calls)
		if err != nil {
			return err
		}
		p50 := pct(lat, 0.5)
		fmt.Printf("in-process %-20s p50 %v p99 %v (bridge adds %v at p50)\n", m.tool, p50, pct(lat, 0.99), bridged[m.tool]-p50)
	}
	return nil
}

type daemonBench struct {
	bin string
	env []string
}

// stop stops the data root's daemon, if one runs.
func (b *daemonBench) stop() {
	cmd := exec.Command(b.bin, "stop")
	cmd.Env = b.env
	cmd.Run()
}

// launch starts `infmem <args>` as Claude would and times initialize.
func (b *daemonBench) launch(ctx context.Context, args ...string) (*client.Client, time.Duration, error) {
	t0 := time.Now()
	c, err := client.NewStdioMCPClient(b.bin, b.env, args...)
	if err != nil {
		return nil, 0, err
	}
	init := mcp.InitializeRequest{}
	// The protocol Claude Desktop speaks today; with it, ping is a real
	// round trip (the newest protocol drops it).
	init.Params.ProtocolVersion = "2025-06-18"
	init.Params.ClientInfo = mcp.Implementation{Name: "infmem-bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		return nil, 0, err
	}
	return c, time.Since(t0), nil
}

// waitReady retries a recall until the memory has loaded, and says how long
// that took.
func waitReady(ctx context.Context, c *client.Client) (time.Duration, error) {
	t0 := time.Now()
	for {
		res, _, err := callTool(ctx, c, "retrieve_memory", map[string]any{"query": "project deadline"})
		if err != nil {
			return 0, err
		}
		if !res.IsError {
			return time.Since(t0), nil
		}
		if !strings.Contains(text(res), "still loading") {
			return 0, fmt.Errorf("retrieve_memory: %s", text(res))
		}
	}
}

// pings times MCP ping round trips: the protocol and transport alone.
func pings(ctx context.Context, c *client.Client, n int) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := c.Ping(ctx); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	return lat, nil
}

func latencies(ctx context.Context, c *client.Client, tool string, args func(int) map[string]any, n int) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		res, d, err := callTool(ctx, c, tool, args(i))
		if err != nil {
			return nil, err
		}
		if res.IsError {
			return nil, fmt.Errorf("%s: %s", tool, text(res))
		}
		lat = append(lat, d)
	}
	slices.Sort(lat)
	return lat, nil
}

// throughput runs n bridges at once, each storing `stores` memories and
// recalling after every fifth; it returns the calls made and the time.
func (b *daemonBench) throughput(ctx context.Context, n, stores int) (int, time.Duration, error) {
	cs := make([]*client.Client, n)
	for i := range cs {
		c, _, err := b.launch(ctx, "mcp")
		if err != nil {
			return 0, 0, err
		}
		defer c.Close()
		cs[i] = c
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ops := 0
	var firstErr error
	// A run-unique prefix: a text stored before is a duplicate, which the
	// engine acknowledges without writing.
	run := time.Now().UnixNano()
	t0 := time.Now()
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gen := newSynth(uint64(100 + i))
			for j := 0; j < stores; j++ {
				calls := []struct {
					tool string
					args map[string]any
				}{{"store_memory", map[string]any{"content": fmt.Sprintf("run %d: %s", run, gen.sentence(2_000_000+i*stores+j)), "metadata": map[string]any{"scope": gen.scope()}}}}
				if j%5 == 0 {
					calls = append(calls, struct {
						tool string
						args map[string]any
					}{"retrieve_memory", map[string]any{"query": gen.query(), "filter": map[string]any{"scope": "ALL"}, "top_k": 5}})
				}
				for _, cl := range calls {
					res, _, err := callTool(ctx, c, cl.tool, cl.args)
					if err == nil && res.IsError {
						err = fmt.Errorf("%s: %s", cl.tool, text(res))
					}
					mu.Lock()
					if err != nil && firstErr == nil {
						firstErr = err
					}
					ops++
					mu.Unlock()
					if err != nil {
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	return ops, time.Since(t0), firstErr
}

func pct(sorted []time.Duration, q float64) time.Duration {
	return sorted[int(q*float64(len(sorted)-1))].Round(10 * time.Microsecond)
}

func summary(d []time.Duration) string {
	s := slices.Clone(d)
	slices.Sort(s)
	return fmt.Sprintf("min %v  median %v  max %v  (n=%d)", s[0].Round(time.Millisecond), s[len(s)/2].Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond), len(s))
}
