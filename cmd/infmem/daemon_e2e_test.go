package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/proc"
	"github.com/infmem/infmem/mongostore"
)

// shortRoot is a data root whose sockets fit in run/.
func shortRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ime")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "root")
}

// processEnv is a private environment for infmem processes on root: their
// own config, home and Claude config directory.
func processEnv(t *testing.T, root string) []string {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"logging": {"level": "debug"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return withRaceLog([]string{"INFMEM_DATA_DIR=" + root, "INFMEM_CONFIG=" + cfg, "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")})
}

// runBin runs the infmem binary and returns its exit code and output.
func runBin(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	// Built first (once per run, minutes under -race at load): the time
	// limit is the process's.
	code, stdout, stderr = runBinEnv(t, infmemBinary(t), env, args...)
	if code == -1 {
		t.Fatalf("infmem %v: %s", args, stderr)
	}
	return code, stdout, stderr
}

// runBinEnv runs bin with env and args and returns its exit code and
// output; -1 when it did not run or end by itself (the error then ends
// its stderr).
func runBinEnv(t *testing.T, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		return -1, out.String(), errb.String() + err.Error()
	}
	return 0, out.String(), errb.String()
}

// stopDaemon stops the daemon serving root, as a person would.
func stopDaemon(t *testing.T, root string, env []string) {
	t.Helper()
	if _, err := os.Stat(root); err != nil {
		return
	}
	if code, out, errs := runBin(t, env, "stop", "--data-dir", root); code != 0 {
		t.Errorf("infmem stop: %d %s %s", code, out, errs)
	}
}

func daemonInfo(t *testing.T, root string) *control.Info {
	t.Helper()
	ep, err := control.EndpointsFor(dataroot.Root{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	// A new daemon answers on its socket a moment before it writes
	// daemon.json: wait for the file.
	var info *control.Info
	deadline := time.Now().Add(10 * time.Second)
	for info, err = control.ReadInfo(ep.Info); err != nil; info, err = control.ReadInfo(ep.Info) {
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return info
}

// bridgeClient launches `infmem mcp` the way Claude Desktop does and
// initializes a session.
func bridgeClient(t *testing.T, env []string) *client.Client {
	t.Helper()
	return bridgeClientVersion(t, env, mcp.LATEST_PROTOCOL_VERSION)
}

// bridgeClientVersion is bridgeClient speaking the given protocol version
// (before 2026-07-28 a session starts with initialize, as Claude Desktop's
// do; from then on with server/discover).
func bridgeClientVersion(t *testing.T, env []string, version string) *client.Client {
	t.Helper()
	c, err := client.NewStdioMCPClient(infmemBinary(t), env, "mcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

// tryCall calls a tool; loading is retried, anything else is returned.
func tryCall(c *client.Client, name string, args map[string]any) (map[string]any, error) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		req := mcp.CallToolRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		res, err := c.CallTool(ctx, req)
		cancel()
		if err != nil {
			return nil, err
		}
		text := res.Content[0].(mcp.TextContent).Text
		if res.IsError {
			if strings.Contains(text, "still loading") {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			return nil, fmt.Errorf("%s: %s", name, text)
		}
		var out map[string]any
		err = json.Unmarshal([]byte(text), &out)
		return out, err
	}
}

// indexedIDs pages through list_memories.
func indexedIDs(t *testing.T, c *client.Client) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	for offset := 0; ; {
		out, err := tryCall(c, "list_memories", map[string]any{"scope": "ALL", "limit": 100, "offset": offset})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out["memories"].([]any) {
			seen[m.(map[string]any)["memory_id"].(string)] = true
		}
		next, ok := out["next_offset"].(float64)
		if !ok || next == 0 {
			return seen
		}
		offset = int(next)
	}
}

// storedIDs checks the database itself, with no daemon running.
func checkStored(t *testing.T, root string, ids map[string]string) {
	t.Helper()
	r, err := dataroot.Prepare(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: r})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(ctx)
	for id, text := range ids {
		oid, err := bson.ObjectIDFromHex(id)
		if err != nil {
			t.Fatal(err)
		}
		m, err := store.Memories.Get(ctx, oid)
		if err != nil || m.Text != text {
			t.Fatalf("acknowledged store %s (%q) not in the database: %v", id, text, err)
		}
	}
}

// Several Claude windows at once: their `infmem mcp` processes start
// together, share one daemon, and every acknowledged store survives, in the
// index and in the database.
func TestConcurrentBridgesLoseNoWrite(t *testing.T) {
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("%d_clients", n), func(t *testing.T) {
			const each = 250
			root := shortRoot(t)
			env := processEnv(t, root)
			t.Cleanup(func() { stopDaemon(t, root, env) })
			clients := make([]*client.Client, n)
			var wg sync.WaitGroup
			for i := range clients {
				wg.Add(1)
				go func() { defer wg.Done(); clients[i] = bridgeClient(t, env) }()
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			var mu sync.Mutex
			acked := map[string]string{}
			for i, c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := 0; j < each; j++ {
						text := fmt.Sprintf("client %d wrote note %d about the kumquat harvest", i, j)
						out, err := tryCall(c, "store_memory", map[string]any{"content": text})
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						acked[out["memory_id"].(string)] = text
						mu.Unlock()
						if j%5 == 0 {
							if _, err := tryCall(c, "retrieve_memory", map[string]any{"query": "kumquat harvest", "top_k": 3}); err != nil {
								t.Error(err)
								return
							}
						}
					}
				}()
			}
			wg.Wait()
			if len(acked) != n*each {
				t.Fatalf("%d distinct acknowledged stores, want %d", len(acked), n*each)
			}
			seen := indexedIDs(t, bridgeClient(t, env))
			for id, text := range acked {
				if !seen[id] {
					t.Fatalf("acknowledged store %s (%q) missing from the index", id, text)
				}
			}
			log, _ := os.ReadFile(filepath.Join(root, "logs", "memory_service.log"))
			if k := strings.Count(string(log), `msg="daemon serving"`); k != 1 {
				t.Fatalf("%d daemons served the root, want 1", k)
			}
			for _, c := range clients {
				c.Close()
			}
			stopDaemon(t, root, env)
			checkStored(t, root, acked)
		})
	}
}

// kill -9 in the middle of a write burst loses no acknowledged write, and
// the next `infmem mcp` replaces the dead daemon.
// TestKilledDaemonLosesNoAcknowledgedWrite kills the daemon (kill -9) in a
// write burst twice: first while its index came from the database, then
// after a clean restart, when it came from the snapshot and the burst went
// into the change journal. Every acknowledged store is served afterwards.
func TestKilledDaemonLosesNoAcknowledgedWrite(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	acked := map[string]string{}
	burstAndKill := func(round int) {
		c := bridgeClient(t, env)
		pid := daemonInfo(t, root).PID
		var mu sync.Mutex
		n := 0
		done := make(chan struct{})
		go func() {
			defer close(done)
			for j := 0; ; j++ {
				text := fmt.Sprintf("burst %d note %d", round, j)
				out, err := tryCall(c, "store_memory", map[string]any{"content": text})
				if err != nil {
					return // the daemon died under us
				}
				mu.Lock()
				acked[out["memory_id"].(string)] = text
				n++
				mu.Unlock()
			}
		}()
		for {
			mu.Lock()
			enough := n >= 40
			mu.Unlock()
			if enough {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		proc, err := os.FindProcess(pid)
		if err != nil {
			t.Fatal(err)
		}
		if err := proc.Kill(); err != nil { // SIGKILL: kill -9
			t.Fatal(err)
		}
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatal("stores went on after the daemon was killed")
		}
		c2 := bridgeClient(t, env)
		if again := daemonInfo(t, root).PID; again == pid {
			t.Fatalf("no new daemon: pid %d", again)
		}
		seen := indexedIDs(t, c2)
		for id, text := range acked {
			if !seen[id] {
				t.Fatalf("round %d: acknowledged store %s (%q) lost in the crash", round, id, text)
			}
		}
		t.Logf("round %d: %d acknowledged stores before kill -9, all present", round, len(acked))
	}
	burstAndKill(1)
	stopDaemon(t, root, env) // a clean stop writes the index snapshot
	burstAndKill(2)
	log := serviceLog(t, root)
	i := strings.LastIndex(log, `msg="index loaded from snapshot"`)
	if i < 0 {
		t.Fatalf("no restart used the index snapshot:\n%s", log)
	}
	line, _, _ := strings.Cut(log[i:], "\n")
	if !strings.Contains(line, "journaled_changes=") || strings.Contains(line, "journaled_changes=0 ") {
		t.Fatalf("the restart after the second crash did not replay the change journal: %s", line)
	}
	t.Log(line)
}

// A crashed daemon's daemon.json and sockets are seen as stale and
// replaced by the next daemon.
func TestStaleDaemonFilesAreReplaced(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	r, err := dataroot.Prepare(root)
	if err != nil {
		t.Fatal(err)
	}
	ep, _ := control.EndpointsFor(r)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	control.WriteInfo(ep.Info, control.Info{PID: dead.Process.Pid, Socket: ep.MCP, ControlSocket: ep.Control, Version: "old"})
	for _, p := range []string{ep.MCP, ep.Control} {
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
		ln.Close()
	}
	code, out, errs := runBin(t, env, "status", "--json")
	if code != 0 {
		t.Fatalf("status: %d %s", code, errs)
	}
	var rep statusReport
	json.Unmarshal([]byte(out), &rep)
	if rep.Daemon.Presence != "stale" || !strings.Contains(rep.Daemon.Problem, "not running") {
		t.Fatalf("stale daemon reported as %+v", rep.Daemon)
	}
	c := bridgeClient(t, env)
	if _, err := tryCall(c, "store_memory", map[string]any{"content": "written after the crash"}); err != nil {
		t.Fatal(err)
	}
	info := daemonInfo(t, root)
	if info.PID == dead.Process.Pid || info.Version == "old" || !proc.Alive(info.PID) {
		t.Fatalf("daemon.json not replaced: %+v", info)
	}
}

func TestSecondDaemonExitsNamingTheFirst(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	if code, out, errs := runBin(t, env, "start"); code != 0 || !strings.Contains(out, "started the daemon (pid ") {
		t.Fatalf("start: %d %q %q", code, out, errs)
	}
	pid := daemonInfo(t, root).PID
	code, _, errs := runBin(t, env, "daemon")
	if code != 0 || !strings.Contains(errs, fmt.Sprintf("another infmem daemon (pid %d) already serves %s", pid, root)) {
		t.Fatalf("second daemon: %d %q", code, errs)
	}
	code, _, errs = runBin(t, env, "mcp", "--in-process")
	if code != exitFailure || !strings.Contains(errs, "--in-process refused") || !strings.Contains(errs, "pid "+strconv.Itoa(pid)) {
		t.Fatalf("--in-process beside a daemon: %d %q", code, errs)
	}
	if code, out, _ := runBin(t, env, "start"); code != 0 || !strings.Contains(out, "already running (pid "+strconv.Itoa(pid)) {
		t.Fatalf("start again: %d %q", code, out)
	}
}

// Claude quitting closes the bridge's stdin: the bridge ends, the daemon
// stays, and the next bridge finds the same daemon.
func TestBridgeEndsButDaemonStays(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	cmd := exec.Command(infmemBinary(t), "mcp")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"store_memory","arguments":{"content":"said just before quitting"}}}` + "\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("bridge: %v\n%s", err, errb.String())
	}
	// Both answers arrived although stdin ended right after the requests.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(out.String(), `"id":2`) || !strings.Contains(out.String(), `\"status\":\"OK\"`) {
		t.Fatalf("bridge output: %s", out.String())
	}
	pid := daemonInfo(t, root).PID
	if !proc.Alive(pid) {
		t.Fatal("the daemon ended with the bridge")
	}
	c := bridgeClient(t, env)
	got, err := tryCall(c, "retrieve_memory", map[string]any{"query": "quitting"})
	if err != nil || len(resultTexts(got)) != 1 {
		t.Fatalf("%v %v", got, err)
	}
	if daemonInfo(t, root).PID != pid {
		t.Fatal("a second daemon was started")
	}
}

func TestInProcessMode(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	c, err := client.NewStdioMCPClient(infmemBinary(t), env, "mcp", "--in-process")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	if _, err := c.Initialize(context.Background(), init); err != nil {
		t.Fatal(err)
	}
	if _, err := tryCall(c, "store_memory", map[string]any{"content": "served in-process"}); err != nil {
		t.Fatal(err)
	}
	// It owns the root: a daemon refuses to start beside it.
	if code, _, errs := runBin(t, env, "daemon"); code != 0 || !strings.Contains(errs, "already serves") {
		t.Fatalf("daemon beside --in-process: %d %q", code, errs)
	}
	if p := control.ProbeDaemon(context.Background(), mustEndpoints(t, root)); p.Presence != control.Absent {
		t.Fatalf("in-process mode left daemon files: %+v", p)
	}
}

func mustEndpoints(t *testing.T, root string) control.Endpoints {
	ep, err := control.EndpointsFor(dataroot.Root{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

func TestStartStatusStop(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	if code, out, errs := runBin(t, env, "stop"); code != 0 || !strings.Contains(out, "not running") {
		t.Fatalf("stop with nothing running: %d %q %q", code, out, errs)
	}
	if code, _, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %q", code, errs)
	}
	code, out, errs := runBin(t, env, "status", "--json")
	if code != 0 {
		t.Fatalf("status: %d %s", code, errs)
	}
	var rep statusReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	info := daemonInfo(t, root)
	if rep.Daemon.Presence != "running" || rep.Daemon.PID != info.PID || rep.Engine != "embedded" || rep.SchemaVersion != 1 ||
		rep.Service.State != "unavailable" && rep.Service.State != "not installed" {
		t.Fatalf("status: %+v", rep)
	}
	if code, out, _ = runBin(t, env, "status"); code != 0 || !strings.Contains(out, fmt.Sprintf("running, pid %d", info.PID)) {
		t.Fatalf("status text: %s", out)
	}
	// The daemon's first run made the backup identity (issue 13), so the
	// first scheduled backup is encrypted and status names the key at once.
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	ident := filepath.Join(home, ".config", "infmem", "backup-identity.txt")
	if fi, err := os.Stat(ident); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the daemon's first run made no private backup identity: %v %v", fi, err)
	}
	if !strings.Contains(out, ident) {
		t.Fatalf("status does not name the backup identity %s: %s", ident, out)
	}
	if code, out, errs = runBin(t, env, "stop"); code != 0 || !strings.Contains(out, fmt.Sprintf("stopped the daemon (pid %d)", info.PID)) {
		t.Fatalf("stop: %d %q %q", code, out, errs)
	}
	if proc.Alive(info.PID) {
		t.Fatal("daemon still alive after stop")
	}
	if _, err := os.Stat(filepath.Join(root, "run", control.InfoName)); !os.IsNotExist(err) {
		t.Fatalf("daemon.json left after stop: %v", err)
	}
}

// install --no-service registers infmem with Claude Desktop (this machine
// has no systemd user instance); doctor then finds the entry; uninstall
// removes it and keeps the data.
func TestInstallDoctorUninstall(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	home := strings.TrimPrefix(env[2], "HOME=")
	claude := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")

	code, out, errs := runBin(t, env, "doctor")
	if code != exitFailure || !strings.Contains(out, "FAIL  claude config") || !strings.Contains(out, "fix: run 'infmem install'") ||
		!strings.Contains(errs, "checks failed") {
		t.Fatalf("doctor before install: %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ = runBin(t, env, "install", "--no-service", "--dry-run"); code != 0 || !strings.Contains(out, "Dry run") {
		t.Fatalf("dry run: %d %s", code, out)
	}
	if _, err := os.Stat(claude); !os.IsNotExist(err) {
		t.Fatalf("dry run wrote the Claude config: %v", err)
	}
	if code, out, errs = runBin(t, env, "install", "--no-service"); code != 0 {
		t.Fatalf("install: %d %s %s", code, out, errs)
	}
	raw, err := os.ReadFile(claude)
	if err != nil {
		t.Fatal(err)
	}
	entry, err := readClaudeEntry(raw)
	if err != nil || entry == nil || !samePath(entry.Command, infmemBinary(t)) || entry.Args[0] != "mcp" || !strings.Contains(string(raw), root) {
		t.Fatalf("claude config: %s (%v)", raw, err)
	}
	// Without --no-service, this machine (no systemd user instance) gets
	// the same install, said plainly, and a daemon started at once: the
	// README's install command works here.
	if code, out, errs = runBin(t, env, "install"); code != 0 || !strings.Contains(out, "Skipping the login service: no per-user service manager") ||
		!strings.Contains(out, "started the daemon (pid ") {
		t.Fatalf("install without a service manager: %d %s %s", code, out, errs)
	}
	if info := daemonInfo(t, root); !proc.Alive(info.PID) {
		t.Fatalf("install did not leave a daemon running: %+v", info)
	}
	code, out, errs = runBin(t, env, "doctor")
	if !strings.Contains(out, "ok    claude config") || !strings.Contains(out, "ok    data root") || !strings.Contains(out, "ok    engine") {
		t.Fatalf("doctor after install: %d\n%s\n%s", code, out, errs)
	}
	if code != 0 {
		t.Fatalf("doctor after install failed: %s", out)
	}
	if code, out, errs = runBin(t, env, "uninstall", "--no-service"); code != 0 || !strings.Contains(out, "was kept") {
		t.Fatalf("uninstall: %d %s %s", code, out, errs)
	}
	raw, _ = os.ReadFile(claude)
	if entry, _ := readClaudeEntry(raw); entry != nil {
		t.Fatalf("entry left after uninstall: %s", raw)
	}
	if _, err := os.Stat(filepath.Join(root, "mongo_data")); err != nil {
		t.Fatalf("uninstall touched the data: %v", err)
	}
}
