//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// runImportBench measures 'infmem import' of a synthetic ChatGPT export of
// n messages into an empty data root: in a process of its own (no daemon)
// and through a running daemon. It prints the wall time, messages per
// second and the peak RSS of the process that did the work.
func runImportBench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	bin := fs.String("bin", "infmem", "infmem binary")
	n := fs.Int("n", 50000, "messages in the export")
	perConv := fs.Int("per-conversation", 20, "messages per conversation")
	mode := fs.String("mode", "both", "in-process, daemon or both")
	keep := fs.String("dir", "", "work in this folder and keep it (default: a temporary one, removed after)")
	bombMiB := fs.Int("bomb-mib", 1024, "through the daemon, first import a zip bomb inflating to this many MiB (0: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "infmem-importbench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	export := filepath.Join(dir, "conversations.json")
	t0 := time.Now()
	size, err := writeChatGPTExport(export, *n, *perConv)
	if err != nil {
		return err
	}
	fmt.Printf("export: %d messages in %d conversations, %.1f MB, written in %v\n", *n, (*n+*perConv-1) / *perConv, float64(size)/1e6, time.Since(t0).Round(time.Millisecond))
	fmt.Printf("machine: %s/%s, %d CPUs, %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuModel())
	for _, m := range []string{"in-process", "daemon"} {
		if *mode != "both" && *mode != m {
			continue
		}
		root := filepath.Join(dir, "root-"+m)
		os.RemoveAll(root)
		cfg := filepath.Join(dir, "config.json")
		if err := os.WriteFile(cfg, []byte(`{"logging": {"level": "warn"}}`), 0o600); err != nil {
			return err
		}
		env := append(os.Environ(), "INFMEM_DATA_DIR="+root, "INFMEM_CONFIG="+cfg)
		// Other work on the machine changes the figures: the load average
		// is printed with them.
		fmt.Printf("%s: load average before: %s\n", m, loadAvg())
		if m == "in-process" {
			err = benchImportInProcess(ctx, *bin, env, export, *n)
		} else {
			err = benchImportDaemon(ctx, *bin, env, export, *n, dir, *bombMiB)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		fmt.Printf("%s: load average after: %s\n", m, loadAvg())
	}
	return nil
}

// importReport is the part of 'infmem import --json' the bench reads.
type importReport struct {
	Added           int     `json:"added"`
	AlreadyPresent  int     `json:"already_present"`
	AlreadyImported int     `json:"already_imported"`
	Seconds         float64 `json:"seconds"`
}

func runImportCmd(ctx context.Context, bin string, env []string, export string) (importReport, time.Duration, *syscall.Rusage, error) {
	var rep importReport
	cmd := exec.CommandContext(ctx, bin, "import", export, "--json")
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	if err != nil {
		return rep, wall, nil, fmt.Errorf("infmem import: %v: %s", err, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return rep, wall, nil, fmt.Errorf("infmem import printed %q: %v", out.String(), err)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return rep, wall, ru, nil
}

func benchImportInProcess(ctx context.Context, bin string, env []string, export string, n int) error {
	rep, wall, ru, err := runImportCmd(ctx, bin, env, export)
	if err != nil {
		return err
	}
	peak, cpu := "?", "?"
	if ru != nil {
		peak = fmt.Sprintf("%.0f MB", float64(ru.Maxrss)/1024) // kB on Linux
		cpu = fmt.Sprintf("%.0f s", time.Duration(ru.Utime.Nano()+ru.Stime.Nano()).Seconds())
	}
	fmt.Printf("in-process: %d added (%d already present) in %v: %.0f messages/s; CPU %s; peak RSS %s\n",
		rep.Added, rep.AlreadyPresent, wall.Round(time.Millisecond), float64(n)/wall.Seconds(), cpu, peak)
	// The same again: everything is already imported.
	rep2, wall2, _, err := runImportCmd(ctx, bin, env, export)
	if err != nil {
		return err
	}
	fmt.Printf("in-process, again: %d added, %d already imported, in %v\n", rep2.Added, rep2.AlreadyImported, wall2.Round(time.Millisecond))
	return nil
}

func benchImportDaemon(ctx context.Context, bin string, env []string, export string, n int, dir string, bombMiB int) error {
	d := exec.CommandContext(ctx, bin, "daemon")
	d.Env = env
	var derr bytes.Buffer
	d.Stderr = &derr
	if err := d.Start(); err != nil {
		return err
	}
	defer func() {
		d.Process.Signal(syscall.SIGTERM)
		d.Wait()
	}()
	// Ready when status says so.
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := exec.CommandContext(ctx, bin, "status", "--json")
		st.Env = env
		out, _ := st.Output()
		if strings.Contains(string(out), `"state": "ready"`) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the daemon is not ready after 60 s: %s %s", out, derr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if bombMiB > 0 {
		if err := benchImportBomb(ctx, bin, env, dir, d.Process.Pid, bombMiB); err != nil {
			return err
		}
	}
	rssBefore, _ := procRSS(d.Process.Pid)
	cpuBefore := procCPU(d.Process.Pid)
	rep, wall, cru, err := runImportCmd(ctx, bin, env, export)
	if err != nil {
		return err
	}
	rss, peak := procRSS(d.Process.Pid)
	cpu := procCPU(d.Process.Pid) - cpuBefore
	cli := "?"
	if cru != nil {
		cli = fmt.Sprintf("%.0f MB", float64(cru.Maxrss)/1024)
	}
	fmt.Printf("daemon: %d added (%d already present) in %v: %.0f messages/s; daemon CPU %.0f s; daemon RSS %.0f MB before, %.0f MB after, peak %.0f MB; the terminal's peak RSS %s\n",
		rep.Added, rep.AlreadyPresent, wall.Round(time.Millisecond), float64(n)/wall.Seconds(), cpu.Seconds(), mb(rssBefore), mb(rss), mb(peak), cli)
	rep2, wall2, _, err := runImportCmd(ctx, bin, env, export)
	if err != nil {
		return err
	}
	fmt.Printf("daemon, again: %d added, %d already imported, in %v\n", rep2.Added, rep2.AlreadyImported, wall2.Round(time.Millisecond))
	return nil
}

// loadAvg is the first three fields of /proc/loadavg (Linux), or "?".
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// cpuModel is the CPU's model name from /proc/cpuinfo (Linux), or "".
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// writeChatGPTExport writes a ChatGPT conversations.json of n messages,
// perConv to a conversation, alternating user and assistant, in the shape
// of the real export (a root node, then one node per message), and
// returns its size.
func writeChatGPTExport(path string, n, perConv int) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	gen := newSynth(15)
	w := &bytes.Buffer{}
	w.WriteString("[")
	start := time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC)
	for c, msg := 0, 0; msg < n; c++ {
		type node struct {
			ID       string         `json:"id"`
			Message  map[string]any `json:"message"`
			Parent   *string        `json:"parent"`
			Children []string       `json:"children"`
		}
		convID := fmt.Sprintf("%08x-0000-4000-8000-%012x", c, c)
		t := start.Add(time.Duration(c) * 3 * time.Hour)
		mapping := map[string]*node{}
		root := fmt.Sprintf("root-%d", c)
		mapping[root] = &node{ID: root, Children: []string{}}
		prev := root
		for j := 0; j < perConv && msg < n; j, msg = j+1, msg+1 {
			id := fmt.Sprintf("m-%d-%d", c, j)
			role := "user"
			if j%2 == 1 {
				role = "assistant"
			}
			p := prev
			mapping[id] = &node{ID: id, Parent: &p, Children: []string{}, Message: map[string]any{
				"id": id, "author": map[string]any{"role": role, "name": nil, "metadata": map[string]any{}},
				"create_time": float64(t.Add(time.Duration(j)*time.Minute).UnixMilli()) / 1000,
				"content":     map[string]any{"content_type": "text", "parts": []string{gen.sentence(msg)}},
				"status":      "finished_successfully", "weight": 1.0, "metadata": map[string]any{}, "recipient": "all",
			}}
			mapping[prev].Children = append(mapping[prev].Children, id)
			prev = id
		}
		conv := map[string]any{
			"title": fmt.Sprintf("Conversation %d", c), "create_time": float64(t.Unix()), "update_time": float64(t.Unix() + 3600),
			"mapping": mapping, "moderation_results": []any{}, "current_node": prev, "conversation_id": convID, "id": convID,
		}
		b, err := json.Marshal(conv)
		if err != nil {
			return 0, err
		}
		if c > 0 {
			w.WriteString(",\n")
		}
		w.Write(b)
		if w.Len() > 1<<20 {
			if _, err := f.Write(w.Bytes()); err != nil {
				return 0, err
			}
			w.Reset()
		}
	}
	w.WriteString("]\n")
	if _, err := f.Write(w.Bytes()); err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), f.Sync()
}
