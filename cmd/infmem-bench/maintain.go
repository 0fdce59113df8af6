package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// runMaintainBench runs a full maintenance pass (optimize_memory) on a
// seeded data root while another client keeps calling retrieve_memory, and
// reports the pass's duration, the server's peak memory, and the retrieval
// latency during the pass.
func runMaintainBench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("maintain", flag.ContinueOnError)
	dir := fs.String("data-dir", "", "seeded data root")
	bin := fs.String("bin", "infmem", "infmem binary")
	job := fs.String("job", "maintenance", "maintenance job to time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	abs, _ := filepath.Abs(*dir)
	cfgDir, _ := os.MkdirTemp("", "infmem-bench")
	defer os.RemoveAll(cfgDir)
	cfg := filepath.Join(cfgDir, "config.json")
	// No scheduled work may start during the measurement.
	os.WriteFile(cfg, []byte(`{"logging": {"level": "warn"}, "maintenance": {"schedule": "off"}, "backup": {"enabled": false}}`), 0o600)
	env := append(os.Environ(), "INFMEM_DATA_DIR="+abs, "INFMEM_CONFIG="+cfg)
	c, err := client.NewStdioMCPClient(*bin, env, "mcp", "--in-process")
	if err != nil {
		return err
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "infmem-bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return err
	}
	for {
		res, _, err := callTool(ctx, c, "get_memory_stats", nil)
		if err != nil {
			return err
		}
		if !res.IsError && strings.Contains(text(res), `"ready":true`) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	gen := newSynth(uint64(time.Now().UnixNano()))

	// Retrieval latency without maintenance, for comparison.
	idle := retrieveLoop(ctx, c, gen, 200, nil)

	stop := make(chan struct{})
	var during []time.Duration
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		during = retrieveLoop(ctx, c, gen, 0, stop)
	}()
	start := time.Now()
	res, _, err := callTool(ctx, c, "optimize_memory", map[string]any{"job": *job})
	elapsed := time.Since(start)
	close(stop)
	wg.Wait()
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("optimize_memory: %s", text(res))
	}
	var out struct {
		Operations []string       `json:"operations"`
		Counts     map[string]int `json:"counts"`
		Warnings   []string       `json:"warnings"`
	}
	json.Unmarshal([]byte(text(res)), &out)
	fmt.Printf("maintenance job %q over the data root took %v\n", *job, elapsed.Round(time.Millisecond))
	fmt.Printf("operations: %s\n", strings.Join(out.Operations, ", "))
	if len(out.Warnings) > 0 {
		fmt.Printf("warnings: %s\n", strings.Join(out.Warnings, "; "))
	}
	report := func(name string, lat []time.Duration) {
		if len(lat) == 0 {
			return
		}
		slices.Sort(lat)
		pct := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
		fmt.Printf("retrieve_memory %-26s n=%d p50=%v p99=%v max=%v\n", name, len(lat), pct(0.5).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), lat[len(lat)-1].Round(time.Millisecond))
	}
	report("before maintenance", idle)
	report("during maintenance", during)
	if rss, peak := childRSS(c); rss > 0 {
		fmt.Printf("server RSS %d MB, peak %d MB\n", rss>>20, peak>>20)
	}
	return nil
}

// retrieveLoop calls retrieve_memory n times (n 0: until stop closes).
func retrieveLoop(ctx context.Context, c *client.Client, gen *synth, n int, stop chan struct{}) []time.Duration {
	var lat []time.Duration
	for i := 0; n == 0 || i < n; i++ {
		if stop != nil {
			select {
			case <-stop:
				return lat
			default:
			}
		}
		res, d, err := callTool(ctx, c, "retrieve_memory", map[string]any{"query": gen.query(), "filter": map[string]any{"scope": "ALL"}})
		if err != nil || res.IsError {
			continue
		}
		lat = append(lat, d)
	}
	return lat
}
