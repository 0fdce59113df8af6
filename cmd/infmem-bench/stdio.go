package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// runStdio launches `infmem mcp` on a seeded data root and times its tools
// over stdio, as Claude Desktop would call them.
func runStdio(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("stdio", flag.ContinueOnError)
	dir := fs.String("data-dir", "", "seeded data root")
	bin := fs.String("bin", "infmem", "infmem binary")
	calls := fs.Int("calls", 500, "calls per measured tool")
	extra := fs.String("args", "", "extra arguments for infmem mcp, space-separated")
	statsCalls := fs.Int("stats-calls", 20, "calls of get_memory_stats measured (at most --calls)")
	tools := fs.String("tools", "", "comma-separated tools to measure (default all: store_memory,retrieve_memory,recall_memory_by_time,get_memory_stats); e.g. store_memory alone to profile a store burst")
	seed := fs.Uint64("seed", 0, "seed of the generated texts (0: the clock, texts unique to the run)")
	results := fs.String("results", "", "write every store_memory and retrieve_memory result to this file, one JSON text a line (compare two builds' answers)")
	cfgJSON := fs.String("config-json", `{"logging": {"level": "warn"}}`, "the server's config file, as JSON (e.g. to try memory.gc_limit_mb)")
	crashAfter := fs.Int("crash-after", 0, "instead of measuring, store this many new memories, then kill the server (SIGKILL) to leave a crash behind")
	if err := fs.Parse(args); err != nil {
		return err
	}
	abs, _ := filepath.Abs(*dir)
	cfgDir, _ := os.MkdirTemp("", "infmem-bench")
	defer os.RemoveAll(cfgDir)
	cfg := filepath.Join(cfgDir, "config.json")
	os.WriteFile(cfg, []byte(*cfgJSON), 0o600)
	env := append(os.Environ(), "INFMEM_DATA_DIR="+abs, "INFMEM_CONFIG="+cfg)
	margs := []string{"mcp"}
	if *extra != "" {
		margs = append(margs, strings.Fields(*extra)...)
	}

	launched := time.Now()
	c, err := client.NewStdioMCPClient(*bin, env, margs...)
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
	initDone := time.Since(launched)
	fmt.Printf("initialize answered %v after launch\n", initDone.Round(time.Millisecond))

	// First retrieval: how long after launch a tool answers (it waits for the index).
	var firstRetrieval time.Duration
	for {
		res, _, err := callTool(ctx, c, "retrieve_memory", map[string]any{"query": "project deadline"})
		if err != nil {
			return err
		}
		if !res.IsError {
			firstRetrieval = time.Since(launched)
			break
		}
		if !strings.Contains(text(res), "still loading") {
			return fmt.Errorf("retrieve_memory: %s", text(res))
		}
	}
	fmt.Printf("first retrieval answered %v after launch\n", firstRetrieval.Round(time.Millisecond))
	st, _, err := callTool(ctx, c, "get_memory_stats", nil)
	if err != nil {
		return err
	}
	var stats struct {
		Stats struct {
			Total int `json:"total_memories"`
			Index struct {
				Ready  bool  `json:"ready"`
				Loaded int64 `json:"loaded"`
			} `json:"index"`
		} `json:"stats"`
	}
	json.Unmarshal([]byte(text(st)), &stats)
	fmt.Printf("memories %d, index ready %v\n", stats.Stats.Total, stats.Stats.Index.Ready)

	// Texts unique to this run: re-storing an earlier run's texts would only
	// hit the duplicate check and time nothing.
	// --seed repeats a run's texts on another copy of the same root.
	genSeed := uint64(time.Now().UnixNano())
	if *seed != 0 {
		genSeed = *seed
	}
	gen := newSynth(genSeed)
	var resultsOut *os.File
	if *results != "" {
		if resultsOut, err = os.Create(*results); err != nil {
			return err
		}
		defer resultsOut.Close()
	}
	if *crashAfter > 0 {
		return storeThenKill(ctx, c, gen, *crashAfter)
	}
	measure := func(name string, args func(i int) map[string]any) error {
		if *tools != "" && !slices.Contains(strings.Split(*tools, ","), name) {
			return nil
		}
		n := *calls
		if name == "get_memory_stats" {
			n = min(n, *statsCalls)
		}
		lat := make([]time.Duration, 0, n)
		// CPU time per call of the daemon and of the bridge: on a loaded
		// machine a call's wall time says more about the others than about
		// infmem; its CPU time does not (background work it causes, such as
		// recording uses, counts too).
		dpid, bpid := daemonPID(abs), serverPID()
		d0, b0 := procCPU(dpid), procCPU(bpid)
		for i := 0; i < n; i++ {
			res, d, err := callTool(ctx, c, name, args(i))
			if err != nil {
				return err
			}
			if res.IsError {
				return fmt.Errorf("%s: %s", name, text(res))
			}
			lat = append(lat, d)
			if (name == "store_memory" || name == "retrieve_memory") && resultsOut != nil {
				if _, err := fmt.Fprintln(resultsOut, strings.ReplaceAll(text(res), "\n", " ")); err != nil {
					return err
				}
			}
		}
		slices.Sort(lat)
		pct := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
		cpu := ""
		if dpid > 0 {
			cpu = fmt.Sprintf(" cpu/call daemon=%.2fms", float64(procCPU(dpid)-d0)/float64(time.Millisecond)/float64(n))
		}
		if bpid > 0 && bpid != dpid {
			cpu += fmt.Sprintf(" bridge=%.2fms", float64(procCPU(bpid)-b0)/float64(time.Millisecond)/float64(n))
		}
		fmt.Printf("%-22s n=%d p50=%v p99=%v%s\n", name, len(lat), pct(0.5).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), cpu)
		return nil
	}
	if err := measure("store_memory", func(i int) map[string]any {
		return map[string]any{"content": gen.sentence(1_000_000 + i), "metadata": map[string]any{"scope": gen.scope(), "tags": gen.tags()}}
	}); err != nil {
		return err
	}
	if err := measure("retrieve_memory", func(i int) map[string]any {
		return map[string]any{"query": gen.query(), "filter": map[string]any{"scope": "ALL"}, "top_k": 5}
	}); err != nil {
		return err
	}
	if err := measure("recall_memory_by_time", func(i int) map[string]any {
		phrases := []string{"yesterday", "last week", "March 2025", "3 days ago", "last month"}
		return map[string]any{"time_query": phrases[i%len(phrases)], "scope": "ALL", "limit": 20}
	}); err != nil {
		return err
	}
	if err := measure("get_memory_stats", func(i int) map[string]any { return map[string]any{} }); err != nil {
		return err
	}
	if rss, peak := childRSS(c); rss > 0 {
		fmt.Printf("server RSS %d MB (peak %d MB)\n", rss>>20, peak>>20)
	}
	// Through the bridge the server is the daemon it reached or started.
	if pid := daemonPID(abs); pid > 0 {
		if rss, peak := procRSS(pid); rss > 0 {
			fmt.Printf("daemon (pid %d) RSS %d MB (peak %d MB)\n", pid, rss>>20, peak>>20)
		}
	}
	return nil
}

// daemonPID is the pid daemon.json names in the data root, if that
// process runs.
func daemonPID(root string) int {
	data, err := os.ReadFile(filepath.Join(root, "run", "daemon.json"))
	if err != nil {
		return 0
	}
	var info struct {
		PID int `json:"pid"`
	}
	if json.Unmarshal(data, &info) != nil || info.PID <= 0 {
		return 0
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", info.PID)); err != nil {
		return 0
	}
	return info.PID
}

func callTool(ctx context.Context, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, time.Duration, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	t0 := time.Now()
	res, err := c.CallTool(ctx, req)
	return res, time.Since(t0), err
}

func text(r *mcp.CallToolResult) string {
	if r == nil || len(r.Content) == 0 {
		return ""
	}
	if tc, ok := r.Content[0].(mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// childRSS reads the server process's resident and peak memory (Linux).
func childRSS(c *client.Client) (rss, peak int64) {
	if runtime.GOOS != "linux" {
		return 0, 0
	}
	if pid := serverPID(); pid > 0 {
		return procRSS(pid)
	}
	return 0, 0
}

// procRSS reads a process's resident and peak memory (Linux).
func procRSS(pid int) (rss, peak int64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb int64
		if n, _ := fmt.Sscanf(line, "VmRSS: %d kB", &kb); n == 1 {
			rss = kb << 10
		}
		if n, _ := fmt.Sscanf(line, "VmHWM: %d kB", &kb); n == 1 {
			peak = kb << 10
		}
	}
	return rss, peak
}

// procCPU is a process's user and system CPU time so far (Linux; 0
// elsewhere or for pid 0).
func procCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	rest := string(stat)
	i := strings.LastIndexByte(rest, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(rest[i+1:])
	if len(f) < 13 {
		return 0
	}
	var ut, st int64
	fmt.Sscanf(f[11], "%d", &ut)
	fmt.Sscanf(f[12], "%d", &st)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// serverPID finds the infmem child of this process.
func serverPID() int {
	entries, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		rest := string(stat)
		if i := strings.LastIndexByte(rest, ')'); i > 0 {
			var state string
			var ppid int
			fmt.Sscanf(rest[i+2:], "%s %d", &state, &ppid)
			if ppid == self && strings.Contains(rest[:i], "infmem") {
				return pid
			}
		}
	}
	return 0
}

// storeThenKill stores n new memories (each one a change the index snapshot
// must account for), then kills the server as a crash would.
func storeThenKill(ctx context.Context, c *client.Client, gen *synth, n int) error {
	for i := 0; i < n; i++ {
		res, _, err := callTool(ctx, c, "store_memory", map[string]any{"content": gen.sentence(2_000_000 + i), "metadata": map[string]any{"scope": gen.scope(), "tags": gen.tags()}})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("store_memory: %s", text(res))
		}
	}
	pid := serverPID()
	if pid == 0 {
		return errors.New("cannot find the server process to kill")
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	if err := p.Kill(); err != nil {
		return err
	}
	fmt.Printf("stored %d memories, then killed the server (pid %d)\n", n, pid)
	return nil
}
