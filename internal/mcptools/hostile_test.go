package mcptools

import (
	"strings"
	"testing"
	"time"
)

// TestHostileQueriesRefused: a query of megabytes is refused at once with a
// result naming the limit, on every tool that searches by query. Before
// the limit, a 5.6 MB query kept a core busy for minutes (issue 13).
func TestHostileQueriesRefused(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	h.ok(c, "store_memory", map[string]any{"content": "Project Apollo ships in June", "metadata": map[string]any{"scope": "Work"}})
	huge := strings.Repeat("apollo launch window slip ", 40_000) // 1 MB, 160k words
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"retrieve_memory", map[string]any{"query": huge}},
		{"search_by_tag", map[string]any{"tag": "x", "query": huge}},
		{"search_by_scope", map[string]any{"scope": "Work", "query": huge}},
		{"delete_memory", map[string]any{"target": map[string]any{"query": huge}}},
	} {
		start := time.Now()
		h.fails(c, tc.tool, tc.args, "the limit is 4096 bytes")
		t.Logf("%s refused in %v", tc.tool, time.Since(start))
	}
	// A query at the limit still answers.
	r := h.ok(c, "retrieve_memory", map[string]any{"query": "apollo " + strings.Repeat("x", 4000)})
	if r == nil {
		t.Fatal("no result at the limit")
	}
}
