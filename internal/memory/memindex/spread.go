package memory

import (
	"context"
	"sort"
	"time"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// TimeSpread is when the memories of one listing happened, from the
// in-memory index alone: what a timeline of them (memories per day, week
// or month) counts, in one pass over the index instead of one listing per
// bar.
type TimeSpread struct {
	ts []int64 // unix ms, oldest first
}

// TimeSpread reads when the memories a List with req's filters would show
// happened (req's sort, limit and offset do not matter). A Count over a
// period equals the Total of that List over the same period.
func (e *Engine) TimeSpread(ctx context.Context, req ListRequest) (TimeSpread, error) {
	if err := e.wait(ctx); err != nil {
		return TimeSpread{}, err
	}
	f, _, err := e.searchFilter(req.Scope, req.ActiveScope, false, req.Tags, req.From, req.To)
	if err != nil {
		return TimeSpread{}, err
	}
	f.IncludeForgotten, f.OnlyForgotten, f.IncludeArchived = req.IncludeForgotten, req.OnlyForgotten, req.IncludeArchived
	if req.Source != "" {
		src, err := checkSource(req.Source)
		if err != nil {
			return TimeSpread{}, err
		}
		f.Sources = []string{src}
	}
	found, _ := e.index().Scan(f, memindex.Oldest, 0, 0)
	ts := make([]int64, len(found))
	for i, h := range found {
		ts[i] = h.TS
	}
	return TimeSpread{ts: ts}, nil
}

// Len is how many memories the listing holds.
func (s TimeSpread) Len() int { return len(s.ts) }

// Oldest and Newest are when the first and the last happened (zero when
// there are none).
func (s TimeSpread) Oldest() time.Time {
	if len(s.ts) == 0 {
		return time.Time{}
	}
	return time.UnixMilli(s.ts[0]).UTC()
}

func (s TimeSpread) Newest() time.Time {
	if len(s.ts) == 0 {
		return time.Time{}
	}
	return time.UnixMilli(s.ts[len(s.ts)-1]).UTC()
}

// Count is how many happened in [from, to).
func (s TimeSpread) Count(from, to time.Time) int {
	lo, hi := from.UnixMilli(), to.UnixMilli()
	i := sort.Search(len(s.ts), func(i int) bool { return s.ts[i] >= lo })
	j := sort.Search(len(s.ts), func(i int) bool { return s.ts[i] >= hi })
	return max(j-i, 0)
}
