package memory

import (
	"testing"

	"github.com/infmem/infmem/internal/testenv"
)

// When a look-alike of a curated memory is stored, a search shows the
// curated copy (tags, category, pin), not whichever ranked first, and says
// how many copies it stands for (issue 26.3).
func TestCollapseShowsCuratedCopy(t *testing.T) {
	e, _, clk := newEngine(t)
	ctx := testenv.Context(t)
	orig := mustStore(t, e, StoreRequest{Content: "Dentist appointment on December 2 at 10:30 am", Tags: []string{"health"}, Category: "appointment"})
	clk.Set(clk.Now().Add(24 * 3600e9))
	look := mustStore(t, e, StoreRequest{Content: "Dentist appointment on December 2 at 10:30 am!!"})
	if look.DuplicateOf != "" {
		t.Fatal("the look-alike was taken for an exact duplicate; the test needs two memories")
	}
	res, err := e.Search(ctx, SearchRequest{Query: "when is the dentist?"})
	if err != nil || len(res.Results) != 1 {
		t.Fatalf("%v %v", texts(res.Results), err)
	}
	if m := res.Results[0]; m.ID != orig.ID || m.Folded != 1 || m.Category != "appointment" {
		t.Fatalf("shown %q (id %s, folded %d); want the tagged original %s", m.Text, m.ID, m.Folded, orig.ID)
	}
	// A copy that states another date is not swapped in, however curated:
	// the ranked one (here the newer correction) stays.
	mustStore(t, e, StoreRequest{Content: "Checkup with Dr Wong at the Main Street clinic on March 2 at 10:30 am", Scope: "Health", Tags: []string{"health", "doctor"}, Category: "appointment"})
	clk.Set(clk.Now().Add(24 * 3600e9))
	moved := mustStore(t, e, StoreRequest{Content: "Checkup with Dr Wong at the Main Street clinic on March 9 at 10:30 am", Scope: "Health"})
	res, _ = e.Search(ctx, SearchRequest{Query: "checkup with Dr Wong at the Main Street clinic", Scope: "Health", ExactScope: true})
	if len(res.Results) != 1 || res.Results[0].ID != moved.ID || res.Results[0].Folded != 1 {
		t.Fatalf("%v", texts(res.Results))
	}
}
