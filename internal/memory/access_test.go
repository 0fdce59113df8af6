package memory

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/infmem/infmem/internal/testenv"
)

// TestAccessRecordsDoNotUndoWrites: recording that a memory was recalled
// runs beside edits of the same memory. The embedded engine applies an
// update by reading the whole document and writing it back, so without the
// engine's write lock an access update could put back the tags an edit
// just replaced.
func TestAccessRecordsDoNotUndoWrites(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	m := mustStore(t, e, StoreRequest{Content: "The harbour master is called Ines"})
	const rounds = 60
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < rounds; i++ {
			if _, err := e.Search(ctx, SearchRequest{Query: "harbour master", Mode: ModeKeyword}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < rounds; i++ {
		tags := []string{fmt.Sprintf("edit%d", i)}
		if _, err := e.Update(ctx, UpdateRequest{ID: m.ID, Tags: &tags}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	e.access.settle()
	got, err := e.Get(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{fmt.Sprintf("edit%d", rounds-1)}; !slices.Equal(got.Tags, want) || len(got.History) != rounds {
		t.Fatalf("tags %v after the last edit set %v; %d revisions kept of %d", got.Tags, want, len(got.History), rounds)
	}
	if got.UseCount != rounds {
		t.Fatalf("use count %d after %d recalls", got.UseCount, rounds)
	}
}
