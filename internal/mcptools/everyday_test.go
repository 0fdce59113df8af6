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

// "Forget everything about Lena": the preview names the profile contact,
// and everything: true removes it with the memories (issue 26.2).
func TestDeleteEverythingAboutTool(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	h.ok(c, "store_memory", map[string]any{"content": "Lena's birthday is March 3"})
	h.ok(c, "store_memory", map[string]any{"content": "Kickoff notes", "metadata": map[string]any{"scope": "Work/Apollo"}})
	h.ok(c, "update_user_profile", map[string]any{"add_contacts": []any{map[string]any{"name": "Lena", "relation": "sister"}}})
	out := h.ok(c, "delete_memory", map[string]any{"target": map[string]any{"query": "Lena"}, "dry_run": true})
	prof, _ := out["profile"].([]any)
	if out["matched"] != 1.0 || len(prof) != 1 || prof[0].(map[string]any)["text"] != "Lena (sister)" || !strings.Contains(out["note"].(string), "everything: true") {
		t.Fatalf("preview: %v", out)
	}
	out = h.ok(c, "delete_memory", map[string]any{"target": map[string]any{"query": "Apollo"}, "dry_run": true})
	if sc, _ := out["scopes"].([]any); len(sc) != 1 || sc[0].(map[string]any)["scope"] != "Work/Apollo" {
		t.Fatalf("scope preview: %v", out)
	}
	out = h.ok(c, "delete_memory", map[string]any{"target": map[string]any{"query": "Lena"}, "everything": true})
	if out["deleted_count"] != 1.0 {
		t.Fatalf("forget everything: %v", out)
	}
	p := h.ok(c, "get_user_profile", map[string]any{})["profile"].(map[string]any)
	if cs, ok := p["contacts"].([]any); !ok || len(cs) != 0 {
		t.Fatalf("contact kept: %v", p)
	}
}

// Results carry the local time, with its offset, beside UTC, in the
// profile's time zone (issue 26.4).
func TestResultsCarryLocalTime(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	h.ok(c, "update_user_profile", map[string]any{"set_preferences": map[string]any{"time_zone": "America/Los_Angeles"}})
	h.ok(c, "store_memory", map[string]any{"content": "Dinner with Sam at the harbour", "metadata": map[string]any{"timestamp": "2026-11-20T02:00:00Z"}})
	for _, call := range []struct {
		tool string
		args map[string]any
		list string
	}{
		{"retrieve_memory", map[string]any{"query": "dinner with Sam"}, "results"},
		{"list_memories", map[string]any{}, "memories"},
	} {
		out := h.ok(c, call.tool, call.args)
		items, _ := out[call.list].([]any)
		if len(items) != 1 {
			t.Fatalf("%s: %v", call.tool, out)
		}
		m := items[0].(map[string]any)
		if m["timestamp"] != "2026-11-20T02:00:00Z" || m["local_time"] != "2026-11-19T18:00:00-08:00" || out["time_zone"] != "America/Los_Angeles" {
			t.Fatalf("%s: %v", call.tool, out)
		}
	}
}
