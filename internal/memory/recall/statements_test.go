package recall

import (
	"fmt"
	"runtime"
	"testing"
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
