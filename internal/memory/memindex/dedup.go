package memindex

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/vecindex"
)

// DedupRequest asks which memories state the same fact.
type DedupRequest struct {
	// Threshold is the cosine from which two embeddings propose a pair.
	Threshold float64
	// Since: only memories created at or after it are compared against
	// the rest (zero: all).
	Since time.Time
	// Neighbors is how many nearest memories each is compared with.
	Neighbors int
	// Text reads a memory's text; ok is false when it is gone.
	Text func(ctx context.Context, id bson.ObjectID, k Kind) (text string, ok bool, err error)
	// Same decides whether two texts whose content keys differ state the
	// same fact, given the share of keyword terms they have in common.
	Same func(a, b string, overlap float64) bool
	// AfterSearch, when set (tests), runs between the neighbour searches,
	// which run without the lock, and the grouping, where writers may
	// interleave.
	AfterSearch func()
}

// Member is a memory of a duplicate group, with the text that was compared.
type Member struct {
	ID   bson.ObjectID
	Text string
}

// DuplicateGroup is a set of live, unarchived memories of one scope that
// state the same fact; Keep is the one to keep (the most used, else the
// newest).
type DuplicateGroup struct {
	Scope  string
	Keep   Member
	Others []Member
}

// DuplicateGroups finds memories that say the same thing: live memories of
// one scope with the same content key, or whose embeddings are at least
// req.Threshold apart by cosine and whose texts req.Same accepts. Every
// member of a group is checked against the memory kept. The neighbour
// searches and the text reads run without the lock; each comparison checks,
// under it, that both memories are still where they were found.
func (ix *Index) DuplicateGroups(ctx context.Context, req DedupRequest) ([]DuplicateGroup, error) {
	type probe struct {
		slot  uint32
		scope uint32
	}
	// Gather the probes and one filter per scope under a short read lock;
	// the searches run without it, so writers are never held up for long.
	ix.mu.RLock()
	filters := map[uint32]*vecindex.Filter{}
	byKey := map[dedupKey][]uint32{}
	var probes []probe
	for i := range ix.items {
		it := &ix.items[i]
		if !it.live() || it.flags&FlagArchived != 0 {
			continue
		}
		byKey[dedupKey{it.scope, it.key}] = append(byKey[dedupKey{it.scope, it.key}], uint32(i))
		if ix.vecs == nil || !it.hasVec {
			continue
		}
		f := filters[it.scope]
		if f == nil {
			f = vecindex.NewFilter(len(ix.items))
			filters[it.scope] = f
		}
		f.Add(uint32(i))
		if it.created >= req.Since.UnixMilli() {
			probes = append(probes, probe{slot: uint32(i), scope: it.scope})
		}
	}
	ix.mu.RUnlock()

	parent := map[uint32]uint32{}
	var find func(uint32) uint32
	find = func(x uint32) uint32 {
		p, ok := parent[x]
		if !ok || p == x {
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	union := func(a, b uint32) {
		ra, rb := find(a), find(b)
		if ra != rb {
			parent[ra] = rb
		}
	}
	for _, slots := range byKey {
		for _, s := range slots[1:] {
			union(slots[0], s)
		}
	}
	texts := &textCache{ix: ix, req: &req, entries: map[uint32]Member{}}
	for i, p := range probes {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// One vector at a time: copying them all up front would cost
		// 2 KB per memory (200 MB at 100k).
		v, ok := ix.vecs.Get(p.slot)
		if !ok {
			continue
		}
		// Look-alikes crowd the nearest neighbours (75 notes "note a
		// number N about widget N" are all within 0.96 of each other), so
		// a real duplicate may rank well below the first few.
		for _, h := range ix.vecs.Search(v, req.Neighbors, filters[p.scope]) {
			if h.ID == p.slot || float64(h.Score) < req.Threshold || find(h.ID) == find(p.slot) {
				continue
			}
			same, err := texts.sameFact(ctx, p.slot, h.ID)
			if err != nil {
				return nil, err
			}
			if same {
				union(p.slot, h.ID)
			}
		}
	}

	if req.AfterSearch != nil {
		req.AfterSearch()
	}

	groups := map[uint32][]uint32{}
	for s := range parent {
		groups[find(s)] = append(groups[find(s)], s)
	}
	var out []DuplicateGroup
	for root, members := range groups {
		if !slices.Contains(members, root) {
			members = append(members, root)
		}
		ix.mu.RLock()
		var live []uint32
		for _, s := range members {
			if int(s) < len(ix.items) && ix.items[s].live() && ix.items[s].flags&FlagArchived == 0 {
				live = append(live, s)
			}
		}
		// The most used first, then the newest.
		slices.SortFunc(live, func(x, y uint32) int {
			a, b := &ix.items[x], &ix.items[y]
			if a.useCount != b.useCount {
				return cmp.Compare(b.useCount, a.useCount)
			}
			if a.ts != b.ts {
				return cmp.Compare(b.ts, a.ts)
			}
			return bytes.Compare(b.id[:], a.id[:])
		})
		scope := ""
		if len(live) > 0 {
			scope = ix.scopes.names[ix.items[live[0]].scope]
		}
		ix.mu.RUnlock()
		if len(live) < 2 {
			continue
		}
		// A chain of pairs (a~b, b~c) is no proof that c says what a says:
		// every member must match the memory kept.
		// The members reported are the ones whose texts were compared (the
		// cache's), never a slot's current occupant: a slot freed by a hard
		// delete and reused by a new memory must not carry it into a group.
		g := DuplicateGroup{Scope: scope}
		for _, s := range live[1:] {
			same, err := texts.sameFact(ctx, live[0], s)
			if err != nil {
				return nil, err
			}
			if same {
				g.Others = append(g.Others, texts.entries[s])
			}
		}
		if len(g.Others) == 0 {
			continue
		}
		g.Keep = texts.entries[live[0]]
		out = append(out, g)
	}
	return out, nil
}

// textCache reads memories' texts for duplicate checks, each once. Slots
// are only the index's handles: each entry remembers which memory the text
// belongs to, and every comparison checks, under the index lock, that both
// slots still hold those memories.
type textCache struct {
	ix      *Index
	req     *DedupRequest
	entries map[uint32]Member
}

func (c *textCache) text(ctx context.Context, slot uint32) (Member, bool, error) {
	if t, ok := c.entries[slot]; ok {
		return t, true, nil
	}
	c.ix.mu.RLock()
	var id bson.ObjectID
	var k Kind
	live := int(slot) < len(c.ix.items) && c.ix.items[slot].live()
	if live {
		id, k = c.ix.items[slot].id, c.ix.items[slot].kind
	}
	c.ix.mu.RUnlock()
	if !live {
		return Member{}, false, nil
	}
	text, ok, err := c.req.Text(ctx, id, k)
	if err != nil || !ok {
		return Member{}, false, err
	}
	t := Member{ID: id, Text: text}
	c.entries[slot] = t
	return t, true, nil
}

// sameFact: the same content key, or texts that req.Same accepts. False
// when either slot no longer holds the memory whose text was read.
func (c *textCache) sameFact(ctx context.Context, a, b uint32) (bool, error) {
	ta, ok1, err := c.text(ctx, a)
	if err != nil || !ok1 {
		return false, err
	}
	tb, ok2, err := c.text(ctx, b)
	if err != nil || !ok2 {
		return false, err
	}
	c.ix.mu.RLock()
	items := c.ix.items
	current := int(a) < len(items) && int(b) < len(items) &&
		items[a].live() && items[b].live() && items[a].id == ta.ID && items[b].id == tb.ID
	sameKey := current && items[a].key == items[b].key
	overlap := 0.0
	if current && !sameKey {
		overlap = c.ix.text.Overlap(a, b)
	}
	c.ix.mu.RUnlock()
	if !current {
		return false, nil
	}
	return sameKey || c.req.Same(ta.Text, tb.Text, overlap), nil
}
