package recall

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// TestLendingsOfAllocatesItsArraysOnce: a retrieve's pool is a few hundred
// candidates and the server runs its collector often (GOGC 25), so the
// evidence list is sized once instead of grown by append (which allocated
// twice its final size on the way).
func TestLendingsOfAllocatesItsArraysOnce(t *testing.T) {
	pool := make([]memindex.Candidate, 300)
	for i := range pool {
		pool[i].ID = bson.NewObjectID()
		pool[i].Score = 1
	}
	lent := make([][2]float64, len(pool))
	allocs := testing.AllocsPerRun(20, func() { _ = lendingsOf(pool, lent) })
	t.Logf("%.0f allocations", allocs)
	if allocs > 10 {
		t.Errorf("lendingsOf made %.0f allocations for 300 candidates, want its map and arrays once (<= 10)", allocs)
	}
}
