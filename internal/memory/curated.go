package memory

import (
	"cmp"
	"context"

	"github.com/infmem/infmem/internal/facts"
)

// curated settles, for each result that ranking folded copies of the same
// fact into (rank's duplicate collapse), which copy is shown: the one
// somebody took care of (pinned, tagged, categorised, marked important)
// rather than whichever ranked first, unless the copies state different
// details (a time, a date, an amount: then the ranked one, usually the
// newer correction, stays). The shown copy keeps the ranked one's
// confidence, and every result says how many copies it stands for. hits
// follow the swap, so that the use is counted on the memory shown.
func (e *Engine) curated(ctx context.Context, hits []hit, res []Memory) {
	at := make(map[string]int, len(res))
	for i := range res {
		at[res[i].ID] = i
	}
	for hi := range hits {
		h := &hits[hi]
		i, ok := at[h.id.Hex()]
		if len(h.folded) == 0 || !ok {
			continue
		}
		copies := make([]hit, len(h.folded))
		for j, f := range h.folded {
			copies[j] = hit{id: f.ID, kind: f.Kind}
		}
		ms, err := e.fetch(ctx, copies)
		if err != nil {
			e.log.Warn("cannot read the copies folded into a result", "memory_id", res[i].ID, "err", err)
			continue
		}
		shown := res[i]
		for _, m := range ms {
			if curation(m, shown) > 0 && len(facts.Differences(res[i].Text, m.Text)) == 0 {
				shown = m
			}
		}
		shown.Confidence, shown.Weak, shown.Evidence, shown.Folded = res[i].Confidence, res[i].Weak, res[i].Evidence, len(ms)
		res[i] = shown
		for _, c := range copies {
			if c.id.Hex() == shown.ID {
				h.id, h.kind = c.id, c.kind
			}
		}
	}
}

// curation compares how much care two copies of a fact were given:
// pinned first, then tags, a category, importance.
func curation(a, b Memory) int {
	flag := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	if c := cmp.Compare(flag(a.Pinned), flag(b.Pinned)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.Tags), len(b.Tags)); c != 0 {
		return c
	}
	if c := cmp.Compare(flag(a.Category != ""), flag(b.Category != "")); c != 0 {
		return c
	}
	return cmp.Compare(a.Importance, b.Importance)
}
