package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/infmem/infmem/internal/mcptools"
)

// TestPipelinedCallsReadTheirWrites: a client that sends its calls without
// waiting for the answers (store then retrieve, a scope change then a
// store) gets them carried out in the order it sent them.
func TestPipelinedCallsReadTheirWrites(t *testing.T) {
	d := startDaemon(t, testOptions(t, testRoot(t)))
	// Wait until memory has loaded, so no call is told "still loading".
	callOK(t, connect(t, d), "store_memory", map[string]any{"content": "warm-up note"})

	conn, err := net.Dial("unix", d.Endpoints().MCP)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Minute))
	send := func(v map[string]any) {
		v["jsonrpc"] = "2.0"
		b, _ := json.Marshal(v)
		if _, err := conn.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	tool := func(id int, name string, args map[string]any) {
		send(map[string]any{"id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	}
	send(map[string]any{"id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "pipeline", "version": "1"}}})
	send(map[string]any{"method": "notifications/initialized"})

	const pairs = 12
	word := func(k int) string { return fmt.Sprintf("quillfen%c%c", 'a'+k, 'k'+k) }
	tool(1, "set_active_scope", map[string]any{"scope": "Garden", "create": true})
	for k := range pairs {
		tool(100+k, "store_memory", map[string]any{"content": fmt.Sprintf("The %s seedlings went into bed %d", word(k), k)})
		tool(200+k, "retrieve_memory", map[string]any{"query": word(k) + " seedlings"})
	}

	answers := map[int]string{}
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	for len(answers) < 2+2*pairs && sc.Scan() {
		var msg struct {
			ID     *int `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
			Error *struct{ Message string } `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.ID == nil {
			continue
		}
		if msg.Error != nil || msg.Result.IsError {
			t.Fatalf("call %d failed: %s", *msg.ID, sc.Text())
		}
		text := ""
		if len(msg.Result.Content) > 0 {
			text = msg.Result.Content[0].Text
		}
		answers[*msg.ID] = text
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for k := range pairs {
		var st struct{ Scope string }
		json.Unmarshal([]byte(answers[100+k]), &st)
		if st.Scope != "Garden" {
			t.Errorf("store %d sent after the scope change landed in %q", k, st.Scope)
		}
		var got struct {
			Results []struct{ Text string }
		}
		json.Unmarshal([]byte(answers[200+k]), &got)
		if len(got.Results) == 0 || !strings.Contains(got.Results[0].Text, word(k)) {
			t.Errorf("retrieve %d sent after its store did not find it first: %.300s", k, answers[200+k])
		}
	}
}

// TestToolsBesideExist: the tools that run beside a session's order are
// tools the daemon serves, none read-only (a rename would silently put a
// backup back in line).
func TestToolsBesideExist(t *testing.T) {
	d := startDaemon(t, testOptions(t, testRoot(t)))
	list, err := connect(t, d).ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	beside := 0
	for _, tl := range list.Tools {
		if !mcptools.RunsBeside(tl.Name) {
			continue
		}
		beside++
		if ro := tl.Annotations.ReadOnlyHint; ro != nil && *ro {
			t.Errorf("%s is read-only: it needs no place beside the order", tl.Name)
		}
	}
	if beside != 3 {
		t.Fatalf("%d of the daemon's tools run beside the order, want backup_memory, export_memory, optimize_memory", beside)
	}
}
