package mcptools

import (
	"testing"
	"time"

	"github.com/infmem/infmem/internal/embed"
)

// TestKnowledgeUpdatesThroughTheTools: store_memory names the older fact
// a new one replaces (updates, with what differs), retrieve_memory gives
// the newer first with the older it supersedes, the older carries
// superseded_by, and update_memory's superseded_by "" makes it current
// again.
func TestKnowledgeUpdatesThroughTheTools(t *testing.T) {
	lite, err := embed.NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, lite)
	c := h.connect()
	ago := func(days int) string { return time.Now().AddDate(0, 0, -days).UTC().Format(time.RFC3339) }
	older := h.ok(c, "store_memory", map[string]any{"content": "The Apollo launch deadline is December 12.", "metadata": map[string]any{"timestamp": ago(40)}})
	h.ok(c, "store_memory", map[string]any{"content": "The Apollo team uses Jira for tracking.", "metadata": map[string]any{"timestamp": ago(60)}})
	newer := h.ok(c, "store_memory", map[string]any{"content": "The Apollo launch has been moved to December 19.", "metadata": map[string]any{"timestamp": ago(3)}})
	ups, _ := newer["updates"].([]any)
	if len(ups) != 1 {
		t.Fatalf("store result: %v", newer)
	}
	up := ups[0].(map[string]any)
	if up["memory_id"] != older["memory_id"] || up["text"] != "The Apollo launch deadline is December 12." || len(up["differs_in"].([]any)) != 1 || up["differs_in"].([]any)[0] != "date" {
		t.Fatalf("update: %v", up)
	}
	if newer["kind"] != "recalled_memory" {
		t.Fatalf("a store result carrying memory text is not labelled: %v", newer)
	}

	out := h.ok(c, "retrieve_memory", map[string]any{"query": "When is the Apollo launch?"})
	results := out["results"].([]any)
	first := results[0].(map[string]any)
	if first["memory_id"] != newer["memory_id"] {
		t.Fatalf("first result %v", first)
	}
	sup, _ := first["supersedes"].([]any)
	if len(sup) != 1 || sup[0].(map[string]any)["memory_id"] != older["memory_id"] || sup[0].(map[string]any)["text"] == "" {
		t.Fatalf("newer result supersedes %v", first["supersedes"])
	}
	for _, r := range results[1:] {
		if m := r.(map[string]any); m["memory_id"] == older["memory_id"] && m["superseded_by"] != newer["memory_id"] {
			t.Fatalf("older result: %v", m)
		}
	}
	listed := h.ok(c, "list_memories", map[string]any{})
	found := false
	for _, r := range listed["memories"].([]any) {
		if m := r.(map[string]any); m["memory_id"] == older["memory_id"] {
			found = m["superseded_by"] == newer["memory_id"]
		}
	}
	if !found {
		t.Fatalf("list_memories does not show the older memory superseded: %v", listed["memories"])
	}

	res := h.ok(c, "update_memory", map[string]any{"memory_id": older["memory_id"], "superseded_by": ""})
	if ch, _ := res["changed"].([]any); len(ch) != 1 || ch[0] != "superseded_by" {
		t.Fatalf("update_memory: %v", res)
	}
	out = h.ok(c, "retrieve_memory", map[string]any{"query": "When is the Apollo launch?"})
	for _, r := range out["results"].([]any) {
		m := r.(map[string]any)
		if m["superseded_by"] != nil || m["supersedes"] != nil {
			t.Fatalf("link cleared, yet %v", m)
		}
	}
	h.fails(c, "update_memory", map[string]any{"memory_id": older["memory_id"], "superseded_by": "nope"}, "is not a memory id")
}

// TestSimilarMemoriesLabels: issue 26's labels through store_memory: a name
// spelled nearly alike is flagged as a name, with both spellings.
func TestSimilarMemoriesLabels(t *testing.T) {
	lite, err := embed.NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, lite)
	c := h.connect()
	h.ok(c, "store_memory", map[string]any{"content": "Appointment with Dr. Patel on Monday at 10:00."})
	out := h.ok(c, "store_memory", map[string]any{"content": "Appointment with Dr. Patil on Monday at 10:00."})
	sims, _ := out["similar_memories"].([]any)
	if len(sims) != 1 {
		t.Fatalf("similar: %v", out)
	}
	s := sims[0].(map[string]any)
	d, _ := s["differs_in"].([]any)
	sp, _ := s["spellings"].([]any)
	if len(d) != 1 || d[0] != "name" || len(sp) != 2 || sp[0] != "Patel" || sp[1] != "Patil" {
		t.Fatalf("similar memory: %v", s)
	}
}
