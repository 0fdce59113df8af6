package memory

import (
	"time"

	"testing"

	"github.com/infmem/infmem/internal/testenv"
)

// TestDuplicateGroupsSurviveSlotReuse forces the interleaving a nightly
// dedup can meet: after the neighbour searches (run without the index
// lock) found a duplicate pair, one of the pair is hard-deleted and a new
// memory takes its index slot. The new memory differs in a number from the
// one kept, so it must not be merged away.
func TestDuplicateGroupsSurviveSlotReuse(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	ctx := testenv.Context(t)
	a := mustStore(t, e, StoreRequest{Content: "note a number 17 about widget 17", Scope: "Widgets"})
	b := mustStore(t, e, StoreRequest{Content: "note a number 17 about widget 17.", Scope: "Widgets"})
	if b.DuplicateOf != "" {
		t.Fatalf("second note stored as a duplicate of %s", b.DuplicateOf)
	}
	var fresh StoreResult
	e.afterDedupSearch = func() {
		e.afterDedupSearch = nil
		if _, err := e.Forget(ctx, ForgetRequest{ID: b.ID}); err != nil {
			t.Error(err)
		}
		if n, err := e.Purge(ctx, []string{b.ID}); err != nil || n != 1 {
			t.Errorf("purge: %d %v", n, err)
		}
		fresh = mustStore(t, e, StoreRequest{Content: "note a number 24 about widget 17", Scope: "Widgets"})
	}
	groups, err := e.DuplicateGroups(ctx, 0.5, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.ID == "" {
		t.Fatal("the interleaving hook never ran")
	}
	for _, g := range groups {
		for _, id := range append([]string{g.Keep}, g.Others...) {
			if id == fresh.ID || id == b.ID {
				t.Fatalf("group %+v holds %s, which is %s", g, id, map[bool]string{true: "the new memory in a reused slot", false: "the purged memory"}[id == fresh.ID])
			}
		}
	}
	// Without interference the pair is found.
	c := mustStore(t, e, StoreRequest{Content: "note a number 17 about widget 17!", Scope: "Widgets"})
	groups, err = e.DuplicateGroups(ctx, 0.5, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || len(groups[0].Others) != 1 || (groups[0].Keep != a.ID && groups[0].Others[0] != a.ID) || (groups[0].Keep != c.ID && groups[0].Others[0] != c.ID) {
		t.Fatalf("groups without interference: %+v", groups)
	}
}
