package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	if runForeign() {
		return
	}
	// Under -race the launched binaries are race-built too; they write any
	// race they find to raceDir (GORACE is inherited), and the run fails.
	raceDir := ""
	if raceEnabled {
		dir, err := os.MkdirTemp("", "infmem-race")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		raceDir = dir
		// atexit_sleep_ms=0: a race-built process otherwise sleeps a
		// second as it exits, and these tests end hundreds of them.
		os.Setenv("GORACE", "log_path="+filepath.Join(dir, "race")+" atexit_sleep_ms=0")
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	if raceDir != "" {
		reports, _ := filepath.Glob(filepath.Join(raceDir, "race.*"))
		for _, r := range reports {
			b, _ := os.ReadFile(r)
			fmt.Fprintf(os.Stderr, "data race in a launched infmem process (%s):\n%s\n", filepath.Base(r), b)
			code = 1
		}
		os.RemoveAll(raceDir)
	}
	os.Exit(code)
}

// withRaceLog passes TestMain's GORACE on to a launched process, whose
// environment is otherwise built from scratch.
func withRaceLog(env []string) []string {
	if v := os.Getenv("GORACE"); v != "" {
		env = append(env, "GORACE="+v)
	}
	return env
}

// infmemBinary builds the real infmem binary once per test run.
func infmemBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "infmem-e2e")
		if err != nil {
			binErr = err
			return
		}
		binDir = dir
		binPath = filepath.Join(dir, "infmem")
		args := []string{"build", "-o", binPath}
		if raceEnabled {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			binErr = err
			binPath = string(out)
		}
	})
	if binErr != nil {
		t.Fatalf("build infmem: %v\n%s", binErr, binPath)
	}
	return binPath
}

// startMCP launches `infmem mcp` as Claude Desktop does (args ["mcp"]), with
// its data root and config chosen through the environment.
func startMCP(t *testing.T, root string) *client.Client {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(cfg, []byte(`{"logging": {"level": "debug"}}`), 0o600)
	env := withRaceLog([]string{"INFMEM_DATA_DIR=" + root, "INFMEM_CONFIG=" + cfg, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")})
	// 'infmem mcp' starts a daemon that outlives it; stop it after the client.
	t.Cleanup(func() { stopDaemon(t, root, env) })
	c, err := client.NewStdioMCPClient(infmemBinary(t), env, "mcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "infmem" || res.Instructions == "" {
		t.Fatalf("initialize: %+v", res)
	}
	return c
}

func callJSON(t *testing.T, c *client.Client, name string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text := res.Content[0].(mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("%s(%v): %s", name, args, text)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("%s: %v: %s", name, err, text)
	}
	return out
}

// resultTexts lists the texts of the results that clear the relevance bar
// (weak ones are returned too, marked).
func resultTexts(out map[string]any) []string {
	var s []string
	for _, r := range out["results"].([]any) {
		if m := r.(map[string]any); m["weak"] != true {
			s = append(s, m["text"].(string))
		}
	}
	return s
}

// TestEndToEndOverStdio walks remember → recall → tag → scope isolation →
// time recall → forget → recall nothing, through the built binary.
func TestEndToEndOverStdio(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	c := startMCP(t, root)

	tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) < 15 {
		t.Fatalf("tools/list: %d %v", len(tools.Tools), err)
	}

	// Remember.
	st := callJSON(t, c, "store_memory", map[string]any{"content": "My cat's name is Whiskers", "metadata": map[string]any{"tags": []any{"pets"}}})
	if st["status"] != "OK" || st["memory_id"] == "" || st["scope"] != "Global" {
		t.Fatalf("store: %v", st)
	}
	catID := st["memory_id"].(string)
	// Recall.
	rec := callJSON(t, c, "retrieve_memory", map[string]any{"query": "cat's name"})
	if got := resultTexts(rec); len(got) != 1 || got[0] != "My cat's name is Whiskers" {
		t.Fatalf("recall: %v", rec)
	}
	if rec["results"].([]any)[0].(map[string]any)["memory_id"] != catID {
		t.Fatalf("recall id: %v", rec)
	}
	// Tag.
	callJSON(t, c, "store_memory", map[string]any{"content": "The login for the router is admin", "metadata": map[string]any{"tags": []any{"#login"}}})
	tag := callJSON(t, c, "search_by_tag", map[string]any{"tag": "login"})
	if got := resultTexts(tag); len(got) != 1 || got[0] != "The login for the router is admin" {
		t.Fatalf("tag: %v", tag)
	}
	// Scope isolation.
	callJSON(t, c, "store_memory", map[string]any{"content": "Project A launch code is Falcon", "metadata": map[string]any{"scope": "Project A"}})
	callJSON(t, c, "store_memory", map[string]any{"content": "Project B launch code is Osprey", "metadata": map[string]any{"scope": "Project B"}})
	a := callJSON(t, c, "retrieve_memory", map[string]any{"query": "launch code", "filter": map[string]any{"scope": "Project A"}})
	if got := resultTexts(a); !slices.Equal(got, []string{"Project A launch code is Falcon"}) {
		t.Fatalf("scope A: %v", got)
	}
	callJSON(t, c, "set_active_scope", map[string]any{"scope": "Project B"})
	b := callJSON(t, c, "retrieve_memory", map[string]any{"query": "launch code"})
	if got := resultTexts(b); !slices.Equal(got, []string{"Project B launch code is Osprey"}) {
		t.Fatalf("active scope B: %v", got)
	}
	callJSON(t, c, "set_active_scope", map[string]any{"scope": ""})
	// Time recall.
	yesterday := time.Now().AddDate(0, 0, -1).Format("2006-01-02") + "T12:00:00"
	callJSON(t, c, "store_memory", map[string]any{"content": "We discussed the kitchen renovation", "metadata": map[string]any{"timestamp": yesterday}})
	tr := callJSON(t, c, "recall_memory_by_time", map[string]any{"time_query": "yesterday"})
	if got := resultTexts(tr); !slices.Equal(got, []string{"We discussed the kitchen renovation"}) {
		t.Fatalf("yesterday: %v", tr)
	}
	// Forget, then recall nothing.
	del := callJSON(t, c, "delete_memory", map[string]any{"target": map[string]any{"memory_id": catID}})
	if del["deleted_count"].(float64) != 1 {
		t.Fatalf("forget: %v", del)
	}
	gone := callJSON(t, c, "retrieve_memory", map[string]any{"query": "cat's name"})
	if len(resultTexts(gone)) != 0 || gone["nothing_relevant"] != true || gone["note"] == "" {
		t.Fatalf("forgotten memory recalled: %v", gone)
	}
	stats := callJSON(t, c, "get_memory_stats", nil)["stats"].(map[string]any)
	if stats["total_memories"].(float64) != 4 || stats["forgotten"].(float64) != 1 {
		t.Fatalf("stats: %v", stats)
	}

	// A new process on the same data root remembers everything.
	c.Close()
	c2 := startMCP(t, root)
	again := callJSON(t, c2, "retrieve_memory", map[string]any{"query": "launch code", "filter": map[string]any{"scope": "ALL"}, "top_k": 10})
	if len(resultTexts(again)) != 2 {
		t.Fatalf("after restart: %v", again)
	}
}
