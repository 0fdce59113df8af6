package mcptools

import (
	"strings"
	"testing"
)

// update_memory to the text of another live memory merges the two instead
// of answering duplicate_of and keeping both (issue 26.1).
func TestUpdateToDuplicateMergesTool(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	a := h.ok(c, "store_memory", map[string]any{"content": "Dentist on December 2 at 9:30", "metadata": map[string]any{"tags": []any{"health"}}})
	b := h.ok(c, "store_memory", map[string]any{"content": "Dentist on December 2 at 10:30"})
	out := h.ok(c, "update_memory", map[string]any{"memory_id": b["memory_id"], "content": "Dentist on December 2 at 9:30"})
	if out["merged_into"] != a["memory_id"] || !strings.Contains(out["note"].(string), "unforget_memory") {
		t.Fatalf("update to a duplicate: %v", out)
	}
	list := h.ok(c, "list_memories", map[string]any{})
	if got := texts(list, "memories"); len(got) != 1 {
		t.Fatalf("both copies still live: %q", got)
	}
	h.ok(c, "unforget_memory", map[string]any{"memory_ids": []any{b["memory_id"]}})
	list = h.ok(c, "list_memories", map[string]any{})
	if got := texts(list, "memories"); len(got) != 2 {
		t.Fatalf("unforget did not bring the edited memory back: %q", got)
	}
}
