package memory

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
)

// Undoing a merge brings the merged memories back and, given what the
// kept one was before, takes back the tags and importance they brought,
// but not what was changed since.
func TestUndoMerge(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	keep := mustStore(t, e, StoreRequest{Content: "The Apollo launch is on June 12", Tags: []string{"apollo"}}).ID
	other := mustStore(t, e, StoreRequest{Content: "Apollo launch: June 12", Tags: []string{"launch", "apollo"}, Importance: ptr(0.9)}).ID
	before, err := e.Get(ctx, keep)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := e.Merge(ctx, keep, []string{other}); err != nil || n != 1 {
		t.Fatalf("merge: %d %v", n, err)
	}
	merged, _ := e.Get(ctx, keep)
	if !slices.Equal(merged.Tags, []string{"apollo", "launch"}) || merged.Importance != 0.9 {
		t.Fatalf("after the merge: %v %v", merged.Tags, merged.Importance)
	}
	res, err := e.UndoMerge(ctx, UndoMergeRequest{Keep: keep, Merged: []string{other}, KeptTags: before.Tags, KeptImportance: &before.Importance})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Restored, []string{other}) || len(res.Skipped) != 0 || !slices.Equal(res.KeptChanged, []string{"tags", "importance"}) {
		t.Fatalf("undo: %+v", res)
	}
	back, _ := e.Get(ctx, other)
	kept, _ := e.Get(ctx, keep)
	if back.ForgottenAt != nil || back.MergedInto != "" || !slices.Equal(kept.Tags, []string{"apollo"}) || kept.Importance != before.Importance {
		t.Fatalf("after the undo: other %+v; kept %v %v", back, kept.Tags, kept.Importance)
	}
	if all, err := e.List(ctx, ListRequest{}); err != nil || all.Total != 2 {
		t.Fatalf("both are listed again: %v %v", texts(all.Memories), err)
	}
	found, err := e.Search(ctx, SearchRequest{Query: "Apollo launch: June 12", Limit: 5})
	if err != nil || len(found.Results) == 0 || !slices.ContainsFunc(found.Results, func(m Memory) bool { return m.ID == other }) {
		t.Fatalf("the restored memory is recalled again: %v %v", texts(found.Results), err)
	}
	// Again: nothing left to undo.
	if res, err := e.UndoMerge(ctx, UndoMergeRequest{Keep: keep, Merged: []string{other}, KeptTags: before.Tags}); err != nil || len(res.Restored) != 0 || len(res.Skipped) != 1 {
		t.Fatalf("second undo: %+v %v", res, err)
	}

	// Changed since the merge: a tag the user added and the importance
	// they set stay; the merged tag goes.
	if _, err := e.Merge(ctx, keep, []string{other}); err != nil {
		t.Fatal(err)
	}
	tags, imp := []string{"apollo", "launch", "nasa"}, 0.7
	if _, err := e.Update(ctx, UpdateRequest{ID: keep, Tags: &tags, Importance: &imp}); err != nil {
		t.Fatal(err)
	}
	res, err = e.UndoMerge(ctx, UndoMergeRequest{Keep: keep, Merged: []string{other}, KeptTags: before.Tags, KeptImportance: &before.Importance})
	if err != nil || !slices.Equal(res.KeptChanged, []string{"tags"}) {
		t.Fatalf("undo after an edit: %+v %v", res, err)
	}
	kept, _ = e.Get(ctx, keep)
	if !slices.Equal(kept.Tags, []string{"apollo", "nasa"}) || kept.Importance != 0.7 {
		t.Fatalf("after the undo of an edited merge: %v %v", kept.Tags, kept.Importance)
	}
	// A memory merged elsewhere, or never merged, is not touched.
	third := mustStore(t, e, StoreRequest{Content: "Completely unrelated: the cat is grey"}).ID
	if _, err := e.Forget(ctx, ForgetRequest{ID: third}); err != nil {
		t.Fatal(err)
	}
	if res, err := e.UndoMerge(ctx, UndoMergeRequest{Keep: keep, Merged: []string{third}}); err != nil || len(res.Restored) != 0 {
		t.Fatalf("undo of a memory not merged into keep: %+v %v", res, err)
	}
	if m, _ := e.Get(ctx, third); m.ForgottenAt == nil {
		t.Fatal("a memory forgotten by hand was restored by a merge's undo")
	}
}

// An archived memory stays in recall but leaves listings; Unarchive brings
// it back to them, pinned so the job that archived it leaves it alone.
func TestUnarchive(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	id := mustStore(t, e, StoreRequest{Content: "Blue notebook holds the wifi hint"}).ID
	live := mustStore(t, e, StoreRequest{Content: "Never archived at all"}).ID
	listed := func(req ListRequest) bool {
		l, err := e.List(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(l.Memories, func(m Memory) bool { return m.ID == id })
	}
	if n, err := e.Archive(ctx, []string{id}, "acknowledgement"); err != nil || n != 1 {
		t.Fatalf("archive: %d %v", n, err)
	}
	if res, _ := e.Search(ctx, SearchRequest{Query: "wifi notebook"}); len(relevant(res)) != 1 || res.Results[0].ID != id || !res.Results[0].Archived {
		t.Fatalf("an archived memory is not recalled: %+v", res.Results)
	}
	if listed(ListRequest{}) || !listed(ListRequest{IncludeArchived: true}) {
		t.Fatal("an archived memory is listed by default, or not with include_archived")
	}
	if res, _ := e.Search(ctx, SearchRequest{}); slices.ContainsFunc(res.Results, func(m Memory) bool { return m.ID == id }) {
		t.Fatal("a search without a query (the newest) lists an archived memory")
	}
	if c, _ := e.Counts(ctx); c.Archived != 1 || c.Live != 1 {
		t.Fatalf("counts: %+v", c)
	}
	got, err := e.Unarchive(ctx, []string{id, live}, true)
	if err != nil || !slices.Equal(got, []string{id}) {
		t.Fatalf("unarchive: %v %v", got, err)
	}
	m, _ := e.Get(ctx, id)
	if m.Archived || !m.Pinned {
		t.Fatalf("after unarchive: archived %v pinned %v", m.Archived, m.Pinned)
	}
	if res, _ := e.Search(ctx, SearchRequest{Query: "wifi notebook"}); len(relevant(res)) != 1 || !listed(ListRequest{}) {
		t.Fatal("an unarchived memory is not recalled or not listed")
	}
	if n, _ := e.Archive(ctx, []string{id}, "acknowledgement"); n != 0 {
		t.Fatal("maintenance archived the restored (pinned) memory again")
	}
	if _, err := e.Unarchive(ctx, nil, false); !IsInputError(err) {
		t.Fatalf("no ids: %v", err)
	}
}

// A search with NoTouch does not count as a use.
func TestSearchNoTouch(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	id := mustStore(t, e, StoreRequest{Content: "Maria likes the Italian place on Friday"}).ID
	oid, err := parseID(id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Search(ctx, SearchRequest{Query: "Maria Italian", NoTouch: true}); err != nil {
		t.Fatal(err)
	}
	if it, _ := e.index().Lookup(oid); it.UseCount != 0 {
		t.Fatalf("a NoTouch search counted as use: %d", it.UseCount)
	}
	if _, err := e.Search(ctx, SearchRequest{Query: "Maria Italian"}); err != nil {
		t.Fatal(err)
	}
	if it, _ := e.index().Lookup(oid); it.UseCount != 1 {
		t.Fatalf("a search did not count as use: %d", it.UseCount)
	}
}

// TimeSpread counts what List totals, period by period.
func TestTimeSpreadMatchesList(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	base := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	for i := range 40 {
		scope := "Work"
		if i%3 == 0 {
			scope = "Home"
		}
		ts := base.Add(time.Duration(i*i) * 3 * time.Hour)
		mustStore(t, e, StoreRequest{Content: fmt.Sprintf("Entry %d about topic %d", i, i*7), Scope: scope, Timestamp: ts})
	}
	for _, scope := range []string{"", "Home"} {
		req := ListRequest{Scope: scope}
		s, err := e.TimeSpread(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := e.List(ctx, ListRequest{Scope: scope, Limit: 1})
		if s.Len() != all.Total {
			t.Fatalf("scope %q: %d in the spread, List has %d", scope, s.Len(), all.Total)
		}
		for from := base.AddDate(0, 0, -1); from.Before(base.AddDate(0, 6, 0)); from = from.AddDate(0, 0, 5) {
			to := from.AddDate(0, 0, 5)
			res, err := e.List(ctx, ListRequest{Scope: scope, From: from, To: to, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Count(from, to); got != res.Total {
				t.Fatalf("scope %q, %s–%s: spread counts %d, List %d", scope, from, to, got, res.Total)
			}
		}
	}
}

// Counts says what Stats says, without the database.
func TestCountsMatchStats(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	a := mustStore(t, e, StoreRequest{Content: "First note in Work", Scope: "Work"}).ID
	mustStore(t, e, StoreRequest{Content: "Second note at Home", Scope: "Home"})
	b := mustStore(t, e, StoreRequest{Content: "Third note, to archive"}).ID
	if _, err := e.Forget(ctx, ForgetRequest{ID: a}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Archive(ctx, []string{b}, "test"); err != nil {
		t.Fatal(err)
	}
	c, err := e.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := e.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Live != st.TotalMemories || c.Forgotten != st.Forgotten || c.Archived != st.Archived || c.Summaries != st.Summaries || c.Scopes != len(st.Scopes) ||
		c.Live != 1 || c.Forgotten != 1 || c.Archived != 1 {
		t.Fatalf("counts %+v; stats %d live, %d forgotten, %d archived, %d scopes", c, st.TotalMemories, st.Forgotten, st.Archived, len(st.Scopes))
	}
}
