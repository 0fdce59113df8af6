package recall

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// TestCoordUnknown: Options.CoordUnknown's reading holds where one of the
// question's word groups is a word no memory holds, and not where every
// group is held by some memory, whichever memory that is.
func TestCoordUnknown(t *testing.T) {
	ix := memindex.New(0, time.UTC)
	at := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, text := range []string{
		"Our GP is Dr Fenwick at the Shadwell Medical Centre.",
		"Grace is a solicitor at a family law firm on Park Square.",
		"Broadband is Virgin Media at 38 pounds a month.",
	} {
		at = at.Add(time.Minute)
		ix.Put(memindex.Doc{ID: bson.NewObjectID(), Kind: memindex.KindMemory, Text: text, Source: "note", Scope: "a", TS: at, Created: at})
	}
	for q, want := range map[string]bool{
		"who is our family doctor?":            true,  // "doctor": no memory
		"which family law firm is Grace at?":   false, // every word held
		"which broadband is 38 pounds a month": false,
		"who is our GP at the medical centre":  false,
		"what does Grace's family dentist do":  true, // "dentist"
	} {
		if got := coordUnknown(ix, ix.Analyze(q)); got != want {
			t.Errorf("coordUnknown(%q) = %v, want %v", q, got, want)
		}
	}
}
