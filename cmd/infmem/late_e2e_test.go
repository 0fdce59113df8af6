//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/control"
)

// TestWritesWhileTheDaemonLoads: a store, an update, a profile change and
// a memory file piped through
// `infmem mcp` (stdin closed at once) to a daemon whose index load is held
// (-tags faultpoints, INFMEM_FAULTHOLD) for longer than a call waits
// (CallWait, 5 s) are not refused: the store is answered while the load is
// held, saying it was not compared; the update and the file wait for the
// load. Each is in the memory exactly once after the load and after a
// restart. The old daemon answered all "memory is still loading; try
// again", to a client that had left.
func TestWritesWhileTheDaemonLoads(t *testing.T) {
	bin := faultpointBinary(t)
	root, env := faultRoot(t, faultConfig)
	c := bridgeClient(t, env)
	res, err := tryCall(c, "store_memory", map[string]any{"content": "The garage door code is 4417"})
	if err != nil {
		t.Fatal(err)
	}
	old, _ := res["memory_id"].(string)
	c.Close()
	stopDaemon(t, root, env)

	hold := filepath.Join(t.TempDir(), "hold")
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(hold) })
	held := append(slices.Clone(env), "INFMEM_FAULTHOLD=index-load="+hold)
	if code, out, errs := runBinEnv(t, bin, held, "start"); code != 0 {
		t.Fatalf("start: %d %s %s", code, out, errs)
	}
	pollUntil(t, 2*time.Minute, "the memory to open", func() bool {
		_, out, _ := runBin(t, env, "status", "--json")
		rep := statusJSON(t, out)
		return rep.Daemon.State == control.StateReady && rep.Index != nil && !rep.Index.Ready
	})

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "mcp")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"store_memory","arguments":{"content":"The spare key is under the blue flowerpot"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"update_memory","arguments":{"memory_id":"` + old + `","content":"The garage door code is 5521"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"update_user_profile","arguments":{"add_notes":["allergic to penicillin"]}}}` + "\n" +
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memory","arguments":{"command":"create","path":"/memories/plan.md","file_text":"Paint the fence in May"}}}` + "\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Held past CallWait, when the old daemon refused both.
	time.Sleep(7 * time.Second)
	os.Remove(hold)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("bridge: %v\n%s", err, errb.String())
	}
	answers := map[float64]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var msg map[string]any
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("bridge output %q: %v", line, err)
		}
		id, _ := msg["id"].(float64)
		answers[id] = msg
	}
	for _, id := range []float64{2, 3, 4, 5} {
		r, _ := answers[id]["result"].(map[string]any)
		if r == nil || r["isError"] == true {
			t.Fatalf("answer %v: %v\n%s", id, answers[id], errb.String())
		}
	}
	if !strings.Contains(out.String(), "still loading") {
		t.Fatalf("the store does not say it was not compared: %s", out.String())
	}

	check := func(when string) {
		t.Helper()
		statusAndDoctorClean(t, env)
		c := bridgeClient(t, env)
		defer c.Close()
		got, err := tryCall(c, "retrieve_memory", map[string]any{"query": "spare key flowerpot"})
		if texts := resultTexts(got); err != nil || len(texts) != 1 || !strings.Contains(texts[0], "flowerpot") {
			t.Fatalf("%s: %v %v", when, texts, err)
		}
		got, err = tryCall(c, "retrieve_memory", map[string]any{"query": "garage door code"})
		if texts := resultTexts(got); err != nil || len(texts) != 1 || !strings.Contains(texts[0], "5521") {
			t.Fatalf("%s: %v %v", when, texts, err)
		}
		got, err = tryCall(c, "get_user_profile", map[string]any{})
		if b, _ := json.Marshal(got); err != nil || strings.Count(string(b), "penicillin") != 1 {
			t.Fatalf("%s: profile %s %v", when, b, err)
		}
		got, err = tryCall(c, "memory", map[string]any{"command": "view", "path": "/memories/plan.md"})
		if b, _ := json.Marshal(got); err != nil || !strings.Contains(string(b), "Paint the fence") {
			t.Fatalf("%s: memory file %s %v", when, b, err)
		}
	}
	check("after the load")
	stopDaemon(t, root, env)
	if code, out, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %s %s", code, out, errs)
	}
	check("after a restart")
}
