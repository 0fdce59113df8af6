package memindex

import (
	"sort"
	"time"
)

// Spread is when the memories of one listing happened, from the index
// alone: what a timeline of them (memories per day, week or month)
// counts, in one pass over the index instead of one listing per bar.
type Spread struct {
	ts []int64 // unix ms, oldest first
}

// Spread reads when the memories f admits happened, oldest first.
func (ix *Index) Spread(f Filter) Spread {
	found, _ := ix.Scan(f, Oldest, 0, 0)
	ts := make([]int64, len(found))
	for i, h := range found {
		ts[i] = h.TS
	}
	return Spread{ts: ts}
}

// Len is how many memories the listing holds.
func (s Spread) Len() int { return len(s.ts) }

// Oldest and Newest are when the first and the last happened (zero when
// there are none).
func (s Spread) Oldest() time.Time {
	if len(s.ts) == 0 {
		return time.Time{}
	}
	return time.UnixMilli(s.ts[0]).UTC()
}

func (s Spread) Newest() time.Time {
	if len(s.ts) == 0 {
		return time.Time{}
	}
	return time.UnixMilli(s.ts[len(s.ts)-1]).UTC()
}

// Count is how many happened in [from, to).
func (s Spread) Count(from, to time.Time) int {
	lo, hi := from.UnixMilli(), to.UnixMilli()
	i := sort.Search(len(s.ts), func(i int) bool { return s.ts[i] >= lo })
	j := sort.Search(len(s.ts), func(i int) bool { return s.ts[i] >= hi })
	return max(j-i, 0)
}
