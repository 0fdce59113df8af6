package memory

import (
	"slices"
	"testing"

	"github.com/infmem/infmem/internal/testenv"
)

// An edit that makes a memory say exactly what another live memory of its
// scope says leaves one memory, not two: the edited one is merged into the
// other (which gets its tags and importance) and comes back, as it was,
// with Unforget (issue 26.1).
func TestUpdateToDuplicateMerges(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	a := mustStore(t, e, StoreRequest{Content: "Dentist on December 2 at 9:30", Tags: []string{"health"}})
	b := mustStore(t, e, StoreRequest{Content: "Dentist on December 2 at 10:30", Tags: []string{"dentist"}, Importance: ptr(0.9)})
	text := "Dentist on December 2 at 9:30"
	res, err := e.Update(ctx, UpdateRequest{ID: b.ID, Content: &text, AddTags: []string{"teeth"}})
	if err != nil || res.MergedInto != a.ID {
		t.Fatalf("update to a duplicate: %+v %v", res, err)
	}
	live, _ := e.Search(ctx, SearchRequest{Query: "dentist December"})
	if got := texts(live.Results); !slices.Equal(got, []string{text}) {
		t.Fatalf("both copies still live: %q", got)
	}
	kept, err := e.Get(ctx, a.ID)
	if err != nil || !slices.Equal(kept.Tags, []string{"health", "dentist", "teeth"}) || kept.Importance != 0.9 {
		t.Fatalf("kept memory did not get the edit's tags and importance: %+v %v", kept, err)
	}
	gone, err := e.Get(ctx, b.ID)
	if err != nil || gone.ForgottenAt == nil || gone.MergedInto != a.ID || gone.Text != "Dentist on December 2 at 10:30" {
		t.Fatalf("edited memory not merged as it was: %+v %v", gone, err)
	}
	if restored, err := e.Unforget(ctx, []string{b.ID}); err != nil || len(restored) != 1 {
		t.Fatalf("unforget: %v %v", restored, err)
	}
	back, _ := e.Get(ctx, b.ID)
	if back.ForgottenAt != nil || back.MergedInto != "" || back.Text != "Dentist on December 2 at 10:30" {
		t.Fatalf("unforget did not undo the merge: %+v", back)
	}
	// Moving a memory into a scope that holds the same text merges too.
	c := mustStore(t, e, StoreRequest{Content: text, Scope: "Personal"})
	scope := "Global"
	res, err = e.Update(ctx, UpdateRequest{ID: c.ID, Scope: &scope})
	if err != nil || res.MergedInto != a.ID {
		t.Fatalf("move onto a duplicate: %+v %v", res, err)
	}
	// A store of that text still finds the kept memory.
	if again := mustStore(t, e, StoreRequest{Content: text}); again.DuplicateOf != a.ID {
		t.Fatalf("store after merge: %+v", again)
	}
}
