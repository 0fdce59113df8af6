package memory

import (
	"slices"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
)

func memIDs(ms []Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// Relations names the duplicates merged into a memory (newest merge
// first, also after the kept one moved scope), the memory a duplicate was
// merged into, and nothing once the merge is undone.
func TestRelationsMerges(t *testing.T) {
	e, _, clk := newEngine(t)
	ctx := testenv.Context(t)
	t0 := clk.Now()
	keep := mustStore(t, e, StoreRequest{Content: "My sister Alice lives in Porto", Scope: "Family"}).ID
	a := mustStore(t, e, StoreRequest{Content: "Alice, my sister, lives in Porto", Scope: "Family"}).ID
	b := mustStore(t, e, StoreRequest{Content: "My sister Alice lives in Porto now", Scope: "Family"}).ID
	// Forgotten by hand, and merged elsewhere: neither was merged into keep.
	byHand := mustStore(t, e, StoreRequest{Content: "Alice's old flat was in Lisbon", Scope: "Family"}).ID
	other := mustStore(t, e, StoreRequest{Content: "Bob is Alice's husband", Scope: "Family"}).ID
	otherDup := mustStore(t, e, StoreRequest{Content: "Alice's husband is Bob", Scope: "Family"}).ID
	clk.Set(t0.Add(time.Hour))
	if n, err := e.Merge(ctx, keep, []string{a}); err != nil || n != 1 {
		t.Fatalf("merge a: %d %v", n, err)
	}
	clk.Set(t0.Add(2 * time.Hour))
	if n, err := e.Merge(ctx, keep, []string{b}); err != nil || n != 1 {
		t.Fatalf("merge b: %d %v", n, err)
	}
	if _, err := e.Merge(ctx, other, []string{otherDup}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Forget(ctx, ForgetRequest{ID: byHand}); err != nil {
		t.Fatal(err)
	}

	rel, err := e.Relations(ctx, keep)
	if err != nil {
		t.Fatal(err)
	}
	if got := memIDs(rel.Merged); !slices.Equal(got, []string{b, a}) || rel.MergedInto != nil || rel.MergedUnchecked != 0 {
		t.Fatalf("merged into keep: %v (want %v), into %v, unchecked %d", got, []string{b, a}, rel.MergedInto, rel.MergedUnchecked)
	}
	if rel.Merged[0].Text != "My sister Alice lives in Porto now" || rel.Merged[0].ForgottenAt == nil {
		t.Fatalf("merged memory as read: %+v", rel.Merged[0])
	}
	rel, err = e.Relations(ctx, a)
	if err != nil || rel.MergedInto == nil || rel.MergedInto.ID != keep || len(rel.Merged) != 0 {
		t.Fatalf("relations of a merged memory: %+v %v", rel, err)
	}
	if rel, _ := e.Relations(ctx, other); !slices.Equal(memIDs(rel.Merged), []string{otherDup}) {
		t.Fatalf("merged into other: %v", memIDs(rel.Merged))
	}

	// Moved to another scope after the merges: still found.
	home := "Home"
	if _, err := e.Update(ctx, UpdateRequest{ID: keep, Scope: &home}); err != nil {
		t.Fatal(err)
	}
	if rel, _ := e.Relations(ctx, keep); !slices.Equal(memIDs(rel.Merged), []string{b, a}) {
		t.Fatalf("after a move: %v", memIDs(rel.Merged))
	}

	// Past the bound of candidates, the unchecked ones are counted.
	defer func(n int) { mergeCandidates = n }(mergeCandidates)
	mergeCandidates = 2
	if rel, _ := e.Relations(ctx, keep); rel.MergedUnchecked != 2 || len(rel.Merged) != 1 {
		t.Fatalf("bounded: %v, unchecked %d (4 forgotten, 2 read)", memIDs(rel.Merged), rel.MergedUnchecked)
	}
	mergeCandidates = 200

	if _, err := e.UndoMerge(ctx, UndoMergeRequest{Keep: keep, Merged: []string{a, b}}); err != nil {
		t.Fatal(err)
	}
	if rel, _ := e.Relations(ctx, keep); len(rel.Merged) != 0 {
		t.Fatalf("after the undo: %v", memIDs(rel.Merged))
	}
	if rel, _ := e.Relations(ctx, a); rel.MergedInto != nil {
		t.Fatalf("a after the undo: merged into %s", rel.MergedInto.ID)
	}
}

// A summary lists the messages it was made from (archived ones included,
// in the order they happened; a message deleted for good counted as
// gone), and a message lists its conversation's summaries.
func TestRelationsSummaries(t *testing.T) {
	e, _, clk := newEngine(t)
	ctx := testenv.Context(t)
	t0 := clk.Now().Add(-48 * time.Hour)
	var msgs []string
	for i, text := range []string{"user: shall we move the Apollo launch?", "assistant: July 1 works for the team", "user: fine, July 1 it is"} {
		msgs = append(msgs, mustStore(t, e, StoreRequest{Content: text, Scope: "Work", Source: "conversation", ConversationID: "conv-1",
			Timestamp: t0.Add(time.Duration(i) * time.Minute)}).ID)
	}
	mustStore(t, e, StoreRequest{Content: "user: unrelated chat", Scope: "Work", Source: "conversation", ConversationID: "conv-2", Timestamp: t0})
	// Refs in another order than the messages happened.
	sum, err := e.AddSummary(ctx, SummaryInput{ConversationID: "conv-1", Scope: "Work", Text: "The Apollo launch moved to July 1.",
		Method: "extractive", Refs: []string{msgs[2], msgs[0], msgs[1]}, From: t0, To: t0.Add(2 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := e.Archive(ctx, msgs, "summarized:"+sum); err != nil || n != 3 {
		t.Fatalf("archive: %d %v", n, err)
	}

	rel, err := e.Relations(ctx, sum)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(memIDs(rel.Sources), msgs) || rel.SourcesTotal != 3 || rel.SourcesGone != 0 || len(rel.Summaries) != 0 {
		t.Fatalf("sources: %v (want %v), total %d gone %d", memIDs(rel.Sources), msgs, rel.SourcesTotal, rel.SourcesGone)
	}
	if !rel.Sources[0].Archived || rel.Sources[0].Text != "user: shall we move the Apollo launch?" {
		t.Fatalf("first source as read: %+v", rel.Sources[0])
	}
	for _, m := range msgs {
		rel, err := e.Relations(ctx, m)
		if err != nil || !slices.Equal(memIDs(rel.Summaries), []string{sum}) || len(rel.Sources) != 0 {
			t.Fatalf("summaries of message %s: %v %v", m, memIDs(rel.Summaries), err)
		}
	}

	if _, err := e.Forget(ctx, ForgetRequest{ID: msgs[1], Hard: true}); err != nil {
		t.Fatal(err)
	}
	rel, _ = e.Relations(ctx, sum)
	if !slices.Equal(memIDs(rel.Sources), []string{msgs[0], msgs[2]}) || rel.SourcesTotal != 3 || rel.SourcesGone != 1 {
		t.Fatalf("after a hard delete: %v, total %d gone %d", memIDs(rel.Sources), rel.SourcesTotal, rel.SourcesGone)
	}

	// A summary stored without refs: its conversation's messages.
	bare := mustStore(t, e, StoreRequest{Content: "Chat about nothing much.", Scope: "Work", Source: "summary", ConversationID: "conv-2"}).ID
	if rel, _ := e.Relations(ctx, bare); len(rel.Sources) != 1 || rel.Sources[0].Text != "user: unrelated chat" || rel.SourcesTotal != 1 {
		t.Fatalf("sources of a summary without refs: %v", texts(rel.Sources))
	}
}
