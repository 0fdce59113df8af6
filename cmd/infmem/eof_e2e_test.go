package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/bridge"
)

// pipedFacts are stored one per store_memory, each retrieved right after by
// its own words; distinct enough that none is taken for a repeat of another.
var pipedFacts = []string{
	"The blue heron nests by the old mill pond every spring.",
	"Our landlord Mr Okonkwo raised the rent to 1840 euros in March.",
	"Priya's sourdough starter is called Gerald and lives in the fridge.",
	"The staging database password rotates on the first Monday of each quarter.",
	"Tomas broke his left wrist skateboarding in Lisbon last August.",
	"The bicycle lock combination was changed to the year grandma was born.",
}

// pipedScript is what a client that does not wait for answers writes:
// initialize, initialized, then for each fact a store_memory and a
// retrieve_memory, and a ping. Each fact is tagged with tag, so that two
// scripts store different memories. ids maps each request id to the fact
// it carries ("" for initialize and ping).
func pipedScript(tag string) (script []byte, ids map[int]string) {
	var b bytes.Buffer
	ids = map[int]string{1: ""}
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"piped","version":"1"}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	id := 2
	for _, f := range pipedFacts {
		fact := f + " (" + tag + ")"
		q, _ := json.Marshal(fact)
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"store_memory","arguments":{"content":%s}}}`+"\n", id, q)
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"retrieve_memory","arguments":{"query":%s,"top_k":10}}}`+"\n", id+1, q)
		ids[id], ids[id+1] = fact, fact
		id += 2
	}
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", id)
	ids[id] = ""
	return b.Bytes(), ids
}

// checkPipedAnswers checks that out answers every request of the script
// once, without error: every store stored its fact, and every retrieve,
// sent right after its store without waiting, found it. It returns the
// stored memories' ids and texts.
func checkPipedAnswers(t *testing.T, out []byte, ids map[int]string) map[string]string {
	t.Helper()
	stored := map[string]string{}
	seen := map[int]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var resp struct {
			ID     *int `json:"id"`
			Error  any  `json:"error"`
			Result *struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil || resp.ID == nil {
			t.Fatalf("not an answer: %q (%v)", line, err)
		}
		id := *resp.ID
		fact, ok := ids[id]
		if !ok || seen[id] {
			t.Fatalf("unexpected or repeated answer to id %d: %s", id, line)
		}
		seen[id] = true
		if resp.Error != nil || resp.Result == nil || resp.Result.IsError {
			t.Fatalf("request %d failed: %s", id, line)
		}
		if fact == "" {
			continue
		}
		var tool struct {
			Status   string `json:"status"`
			MemoryID string `json:"memory_id"`
			Results  []struct {
				MemoryID string `json:"memory_id"`
				Text     string `json:"text"`
			} `json:"results"`
		}
		if len(resp.Result.Content) == 0 || json.Unmarshal([]byte(resp.Result.Content[0].Text), &tool) != nil {
			t.Fatalf("request %d: tool result does not read: %s", id, line)
		}
		if id%2 == 0 { // store_memory
			if tool.Status != "OK" || tool.MemoryID == "" {
				t.Fatalf("store %d: %s", id, line)
			}
			stored[tool.MemoryID] = fact
			continue
		}
		found := false
		for _, r := range tool.Results {
			found = found || r.Text == fact
		}
		if !found {
			t.Fatalf("retrieve %d, sent right after its store, did not find %q: %s", id, fact, line)
		}
	}
	if len(seen) != len(ids) {
		t.Fatalf("%d of %d requests answered:\n%s", len(seen), len(ids), out)
	}
	if len(stored) != len(pipedFacts) {
		t.Fatalf("%d distinct memories stored, want %d", len(stored), len(pipedFacts))
	}
	return stored
}

// TestPipedRequestsAnsweredAfterInputEnds: a client may write its requests
// and close its side at once, as `printf ... | infmem mcp` does: every
// request is still run and answered (initialize, each store, each
// retrieve sent right after its store), 'infmem mcp' exits 0, and every
// store is in the memory afterwards, through another 'infmem mcp' and in
// the database itself. The same holds on the daemon's socket for a client
// that half-closes it after writing. Before the fix, the answers were
// "the session ended before the request could run" and "context canceled".
func TestPipedRequestsAnsweredAfterInputEnds(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	// A daemon that has loaded its memory, so that no call is answered
	// "still loading, try again" (an answer, but no store).
	warm := bridgeClient(t, env)
	if _, err := tryCall(warm, "list_memories", map[string]any{"scope": "ALL"}); err != nil {
		t.Fatal(err)
	}
	warm.Close()

	stored := map[string]string{}
	t.Run("stdio", func(t *testing.T) {
		script, ids := pipedScript("stdio")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, infmemBinary(t), "mcp")
		cmd.Env = env
		// exec closes the child's stdin as soon as the script is written.
		cmd.Stdin = bytes.NewReader(script)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("infmem mcp: %v\n%s", err, errb.String())
		}
		for id, text := range checkPipedAnswers(t, out.Bytes(), ids) {
			stored[id] = text
		}
	})
	t.Run("socket half-closed", func(t *testing.T) {
		script, ids := pipedScript("socket")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		conn, err := bridge.Dial(ctx, mustEndpoints(t, root).MCP)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(2 * time.Minute))
		if _, err := conn.Write(script); err != nil {
			t.Fatal(err)
		}
		if err := conn.(*net.UnixConn).CloseWrite(); err != nil {
			t.Fatal(err)
		}
		// The daemon closes the connection once every answer is written.
		out, err := io.ReadAll(conn)
		if err != nil {
			t.Fatalf("reading the answers: %v\n%s", err, out)
		}
		for id, text := range checkPipedAnswers(t, out, ids) {
			stored[id] = text
		}
	})
	if t.Failed() {
		return
	}

	// Another client finds every memory stored.
	c := bridgeClient(t, env)
	have := indexedIDs(t, c)
	for id, text := range stored {
		if !have[id] {
			t.Fatalf("stored memory %s (%q) is not in the memory", id, text)
		}
	}
	c.Close()
	// And the database holds them.
	stopDaemon(t, root, env)
	checkStored(t, root, stored)
}

// TestInProcessStopsOnSIGTERMWithInputOpen: 'infmem mcp --in-process'
// ends on SIGTERM although its client keeps stdin open (it waited for
// stdin to end before), with exit status 0, after answering what it read.
func TestInProcessStopsOnSIGTERMWithInputOpen(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	cmd := exec.Command(infmemBinary(t), "mcp", "--in-process")
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	}()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	first := make([]byte, 64<<10)
	n, err := stdout.Read(first)
	if err != nil || !bytes.Contains(first[:n], []byte(`"id":1`)) {
		t.Fatalf("no answer to initialize: %v %q\n%s", err, first[:n], errb.String())
	}
	go io.Copy(io.Discard, stdout)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Closing the runtime is bounded by its shutdown timeout (20 s).
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", waitErr, errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("still running a minute after SIGTERM with stdin open\n%s", errb.String())
	}
}
