package mcptools

import (
	"testing"

	"github.com/infmem/infmem/internal/memory"
)

// TestRetrieveShowsFoldedTurns: a reply that ranks only by the turn before
// it comes back inside that turn's result, as its context (id, text,
// speaker, timestamp), not as a result of its own; the result passes the
// tool's output schema (the harness validates every result).
func TestRetrieveShowsFoldedTurns(t *testing.T) {
	h := newHarness(t)
	h.eng.SetRankOptions(memory.RankOptions{FoldShare: 0.01}) // off by default
	c := h.connect()
	meta := func(speaker, ts string) map[string]any {
		return map[string]any{"conversation_id": "chat-1", "speaker": speaker, "timestamp": ts}
	}
	h.ok(c, "store_memory", map[string]any{"content": "did you get the bike brakes fixed?", "metadata": meta("Lena", "2025-04-05T18:00:00Z")})
	reply := h.ok(c, "store_memory", map[string]any{"content": "yes! saturday morning", "metadata": meta("Sam", "2025-04-05T18:01:00Z")})
	out := h.ok(c, "retrieve_memory", map[string]any{"query": "bike brakes"})
	if got := texts(out, "results"); len(got) != 1 || got[0] != "did you get the bike brakes fixed?" {
		t.Fatalf("results %q, want the question turn alone (the reply folded into it)", got)
	}
	ctx, _ := out["results"].([]any)[0].(map[string]any)["context"].([]any)
	if len(ctx) != 1 {
		t.Fatalf("context %v, want the reply", ctx)
	}
	turn := ctx[0].(map[string]any)
	if turn["memory_id"] != reply["memory_id"] || turn["text"] != "yes! saturday morning" || turn["speaker"] != "Sam" || turn["timestamp"] != "2025-04-05T18:01:00Z" {
		t.Errorf("context turn %v, want the reply %v with its speaker and time", turn, reply["memory_id"])
	}
}
