package daemon

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"
)

// TestWritesOutliveTheirClient: a client that sends a store and a forget
// and leaves at once (closes its connection without reading an answer)
// loses neither, however long they wait to run. The writes are held here
// by a real pause of the runtime (what a restore does) for longer than the
// session's drain time, the point where the session gives up on what is
// still running after its client left; then the runtime resumes, the
// writes run, and they are in the database after a restart.
func TestWritesOutliveTheirClient(t *testing.T) {
	root := testRoot(t)
	opts := testOptions(t, root)
	opts.CallWait = time.Minute // the writes wait through the pause
	d := startDaemon(t, opts)
	old := callOK(t, connect(t, d), "store_memory", map[string]any{"content": "The boat is called Nimbus"})
	if old == nil {
		t.FailNow()
	}
	oldID := old["memory_id"].(string)

	resume, err := d.Runtime().Pause(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("unix", d.Endpoints().MCP)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []map[string]any{
		{"id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "leaver", "version": "1"}}},
		{"method": "notifications/initialized"},
		{"id": 2, "method": "tools/call", "params": map[string]any{"name": "store_memory",
			"arguments": map[string]any{"content": "The heron nests by the old weir"}}},
		{"id": 3, "method": "tools/call", "params": map[string]any{"name": "delete_memory",
			"arguments": map[string]any{"target": map[string]any{"memory_id": oldID}}}},
	} {
		m["jsonrpc"] = "2.0"
		b, _ := json.Marshal(m)
		if _, err := conn.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close() // the client leaves
	// Past the drain time (ShutdownTimeout/2): the session has given up on
	// what still ran by now, had it been reads.
	time.Sleep(opts.ShutdownTimeout/2 + 2*time.Second)
	if err := resume(false); err != nil {
		t.Fatal(err)
	}

	c := connect(t, d)
	want := func(seen map[string]bool) bool { return len(seen) == 1 && !seen[oldID] }
	deadline := time.Now().Add(time.Minute)
	for seen := listAll(t, c); !want(seen); seen = listAll(t, c) {
		if time.Now().After(deadline) {
			t.Fatalf("the store and the forget of a client that left did not land: %v (forgot %s)", seen, oldID)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := d.Stop(nil); err != nil {
		t.Fatal(err)
	}
	c = connect(t, startDaemon(t, opts))
	if seen := listAll(t, c); !want(seen) {
		t.Fatalf("after a restart: %v (forgot %s)", seen, oldID)
	}
	got := callOK(t, c, "retrieve_memory", map[string]any{"query": "where does the heron nest"})
	if len(relevantResults(got)) != 1 {
		t.Fatalf("the stored memory is not found after a restart: %v", got)
	}
}
