package mcptools

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/scopes"
)

// TestResultBounded (issue 22, item 5): however long the stored memories
// (up to memory.max_content_bytes' 1 MiB ceiling, which another device may
// use), one tool result stays under MaxResultBytes, and says what to ask
// for instead.
func TestResultBounded(t *testing.T) {
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	eng := memory.New(store, reg, memory.Options{Location: time.UTC, Logger: testenv.Logger(t), MaxContentBytes: 1 << 20})
	eng.Start(ctx)
	t.Cleanup(func() { eng.Close(context.Background()) })
	h := &harness{t: t, eng: eng, store: store, srv: NewServer(Deps{Memory: Ready(eng), Logger: testenv.Logger(t)}, "test", server.WithOutputSchemaValidation())}
	c := h.connect()
	for i := range 3 {
		text := fmt.Sprintf("pelican report %d: ", i) + strings.Repeat(fmt.Sprintf("word%d ", i), 900<<10/6)
		if _, err := eng.Store(ctx, memory.StoreRequest{Content: text, Tags: []string{"big"}}); err != nil {
			t.Fatal(err)
		}
	}
	r := h.call(c, "retrieve_memory", map[string]any{"query": "pelican report", "top_k": 3})
	if len(r.text) > MaxResultBytes {
		t.Fatalf("retrieve_memory answered %d bytes", len(r.text))
	}
	if !r.isError || !strings.Contains(r.text, "ask for fewer results") {
		t.Fatalf("retrieve_memory of 3 long memories: error %v, %.200s", r.isError, r.text)
	}
	// One of them fits.
	if d := h.ok(c, "retrieve_memory", map[string]any{"query": "pelican report", "top_k": 1}); len(d["results"].([]any)) != 1 {
		t.Fatalf("top_k 1: %d results", len(d["results"].([]any)))
	}
}
