package recall

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/infmem/infmem/internal/facts"
)

// TestStatementsCacheHeldHeap: the parsed texts Statements keeps are live
// heap the server's RSS follows (issue 24), so what it holds after many
// distinct memories stays small: under 2 MB for 4,000 texts of a typical
// length (2,048 entries held ~10 MB).
func TestStatementsCacheHeldHeap(t *testing.T) {
	var c Statements
	text := func(i int) string {
		return fmt.Sprintf("Caroline: I moved the team offsite %d from Lisbon to Porto, and the budget is now $%d instead of $3,000; Priya owns the plan.", i, 4000+i)
	}
	held := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := held()
	most := uint64(0)
	for i := 0; i < 4000; i++ {
		c.Get(fmt.Sprint("m", i), text(i))
		if i%250 == 249 {
			if h := held(); h > before && h-before > most {
				most = h - before
			}
		}
	}
	if c.Get("m3999", text(3999)) != c.Get("m3999", text(3999)) {
		t.Fatal("a cached text is parsed again")
	}
	if most > 2<<20 {
		t.Fatalf("the statement cache held %.1f MB of heap, want < 2 MB", float64(most)/(1<<20))
	}
	t.Logf("held at most %.2f MB", float64(most)/(1<<20))
	runtime.KeepAlive(&c)
}

// TestStatementsGetAllParsesEachAdmitted: getAll (the candidates' texts
// parsed on two goroutines) gives, for each memory compare admits, what
// facts.Parse gives for its text, nil for the others, and caches what it
// parsed; a cached text whose memory changed is parsed again.
func TestStatementsGetAllParsesEachAdmitted(t *testing.T) {
	var c Statements
	var ms []Known
	for i := 0; i < 15; i++ {
		ms = append(ms, Known{ID: fmt.Sprint("m", i), Text: fmt.Sprintf("Priya: the offsite %d moved from Lisbon to Porto on March %d, budget $%d.", i, 1+i, 3000+i*7)})
	}
	admit := func(m Known) bool { return m.ID != "m3" && m.ID != "m10" }
	c.Get("m5", ms[5].Text)
	cached := c.Get("m5", ms[5].Text)
	c.Get("m6", "an older text of m6")
	for round := 0; round < 2; round++ {
		got := c.getAll(ms, admit)
		if len(got) != len(ms) {
			t.Fatalf("got %d statements for %d memories", len(got), len(ms))
		}
		for i, m := range ms {
			switch {
			case !admit(m):
				if got[i] != nil {
					t.Fatalf("%s not admitted but parsed", m.ID)
				}
			case !reflect.DeepEqual(got[i], facts.Parse(m.Text)):
				t.Fatalf("%s: getAll's statement differs from facts.Parse's", m.ID)
			case c.Get(m.ID, m.Text) != got[i]:
				t.Fatalf("%s: not cached", m.ID)
			}
		}
		if got[5] != cached {
			t.Fatal("a cached text is parsed again")
		}
	}
}
