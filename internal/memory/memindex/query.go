package memindex

import (
	"bytes"
	"cmp"
	"math/bits"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/textindex"
	"github.com/infmem/infmem/internal/vecindex"
)

// Filter selects memories. Zero values mean "no restriction", except that
// forgotten and archived memories are left out unless asked for.
type Filter struct {
	Scopes           []string // canonical names; nil means every scope
	Tags             []string // folded (FoldTag); a memory must carry all of them
	Sources          []string
	From, To         time.Time // [From, To); zero means open
	IncludeForgotten bool
	OnlyForgotten    bool
	IncludeArchived  bool
}

// compiled is a filter resolved against the interners, for use under ix.mu.
type compiled struct {
	scopes     []bool // by scope id; nil = any
	sources    []bool
	tags       []uint32
	from, to   int64
	impossible bool
	f          Filter
}

func (ix *Index) compileLocked(f Filter) compiled {
	c := compiled{f: f, from: -1 << 62, to: 1 << 62}
	if !f.From.IsZero() {
		c.from = f.From.UnixMilli()
	}
	if !f.To.IsZero() {
		c.to = f.To.UnixMilli()
	}
	if f.Scopes != nil {
		c.scopes = make([]bool, len(ix.scopes.names))
		for _, s := range f.Scopes {
			if id, ok := ix.scopes.lookup(s); ok {
				c.scopes[id] = true
			}
		}
	}
	if f.Sources != nil {
		c.sources = make([]bool, len(ix.sources.names))
		for _, s := range f.Sources {
			if id, ok := ix.sources.lookup(s); ok {
				c.sources[id] = true
			}
		}
	}
	for _, t := range f.Tags {
		id, ok := ix.tags.lookup(t)
		if !ok {
			c.impossible = true
		}
		c.tags = append(c.tags, id)
	}
	return c
}

func (c *compiled) match(it *item) bool {
	if !it.used || c.impossible {
		return false
	}
	forgotten := it.flags&FlagForgotten != 0
	if c.f.OnlyForgotten && !forgotten || forgotten && !c.f.IncludeForgotten && !c.f.OnlyForgotten {
		return false
	}
	if it.flags&FlagArchived != 0 && !c.f.IncludeArchived {
		return false
	}
	if c.scopes != nil && (int(it.scope) >= len(c.scopes) || !c.scopes[it.scope]) {
		return false
	}
	if c.sources != nil && (int(it.source) >= len(c.sources) || !c.sources[it.source]) {
		return false
	}
	if it.ts < c.from || it.ts >= c.to {
		return false
	}
	for _, t := range c.tags {
		if !slices.Contains(it.tags, t) {
			return false
		}
	}
	return true
}

// metaOnly reports whether c reads nothing of an item but its slotMeta
// (no tags, no sources).
func (c *compiled) metaOnly() bool { return len(c.tags) == 0 && c.sources == nil }

// matchMeta is match for a filter that is metaOnly.
func (c *compiled) matchMeta(m *slotMeta) bool {
	if !m.used || c.impossible {
		return false
	}
	forgotten := m.flags&FlagForgotten != 0
	if c.f.OnlyForgotten && !forgotten || forgotten && !c.f.IncludeForgotten && !c.f.OnlyForgotten {
		return false
	}
	if m.flags&FlagArchived != 0 && !c.f.IncludeArchived {
		return false
	}
	if c.scopes != nil && (int(m.scope) >= len(c.scopes) || !c.scopes[m.scope]) {
		return false
	}
	return m.ts >= c.from && m.ts < c.to
}

// Hit is a memory a query found.
type Hit struct {
	ID   bson.ObjectID
	Kind Kind
	// TS is when it happened, unix ms.
	TS int64
	// Score is the query's own (a cosine for Similar; 0 for scans).
	Score float64
}

// Order is the order of a scan.
type Order int

// The orders of a scan; ties go to the newest.
const (
	Newest Order = iota
	Oldest
	MostUsed
	MostImportant
)

// Scan returns the memories f admits in the given order, skipping offset
// and keeping at most limit (limit <= 0: all), and how many matched.
func (ix *Index) Scan(f Filter, order Order, offset, limit int) (page []Hit, total int) {
	ix.mu.RLock()
	c := ix.compileLocked(f)
	type row struct {
		Hit
		used       int64
		importance float32
	}
	var rows []row
	for i := range ix.items {
		it := &ix.items[i]
		if c.match(it) {
			rows = append(rows, row{Hit{ID: it.id, Kind: it.kind, TS: it.ts}, it.useCount, it.importance})
		}
	}
	ix.mu.RUnlock()
	slices.SortFunc(rows, func(a, b row) int {
		var c int
		switch order {
		case Oldest:
			c = cmp.Compare(a.TS, b.TS)
		case MostUsed:
			c = cmp.Compare(b.used, a.used)
		case MostImportant:
			c = cmp.Compare(b.importance, a.importance)
		}
		if c == 0 {
			c = cmp.Compare(b.TS, a.TS)
		}
		if c == 0 {
			c = bytes.Compare(a.ID[:], b.ID[:])
		}
		return c
	})
	total = len(rows)
	rows = rows[min(offset, len(rows)):]
	if limit > 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	page = make([]Hit, len(rows))
	for i, r := range rows {
		page[i] = r.Hit
	}
	return page, total
}

// Matches reports whether f admits the memory id.
func (ix *Index) Matches(id bson.ObjectID, f Filter) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	slot, ok := ix.byID[id]
	if !ok {
		return false
	}
	c := ix.compileLocked(f)
	return c.match(&ix.items[slot])
}

// Counts tallies the memories the index holds.
type Counts struct {
	// Live counts memories neither forgotten nor archived; Summaries and
	// Conversations count among those.
	Live, Forgotten, Archived, Summaries int
	PerScope                             map[string]int // live memories
	Conversations                        int
	// Memories and SummaryDocs count every item of each kind, forgotten
	// and archived included: the documents of ConversationHistory and
	// Summaries.
	Memories, SummaryDocs int
	// PerSource counts memories (not summaries) not forgotten, archived
	// included, by source.
	PerSource map[string]int
}

// allowCache holds the last sets filters admitted: a store asks for the
// same set up to four times (its similar memories' scope, then the update
// check's scopes, by vector and by each claim), and a run of searches with
// no write between for the same one. It holds enough sets for the two
// filters of a store in each of a dozen scopes and the searches' own, and
// a write revises them (reviseAllowedLocked), so a store in a scope used
// before finds its sets here. At 100k memories a set is 12.5 KB. Rank and
// Similar run under the read lock, concurrently, hence the cache's own
// mutex; the sets are shared and must not be changed but by a writer.
type allowCache struct {
	mu      sync.Mutex
	entries [32]allowEntry
	next    int
}

// sameFilter reports whether a and b admit the same memories by the same
// test: what compileLocked reads of them (nil Scopes or Sources, every
// one, differs from empty, none).
func sameFilter(a, b *Filter) bool {
	return (a.Scopes == nil) == (b.Scopes == nil) && slices.Equal(a.Scopes, b.Scopes) &&
		(a.Sources == nil) == (b.Sources == nil) && slices.Equal(a.Sources, b.Sources) &&
		slices.Equal(a.Tags, b.Tags) && a.From.Equal(b.From) && a.To.Equal(b.To) &&
		a.IncludeForgotten == b.IncludeForgotten && a.OnlyForgotten == b.OnlyForgotten && a.IncludeArchived == b.IncludeArchived
}

type allowEntry struct {
	gen uint64
	f   Filter
	set *vecindex.Filter
	n   int
}

// allowedLocked is the set of slots c admits, and its size, shared: the
// caller must not change it. The caller holds mu (read or write).
func (ix *Index) allowedLocked(c *compiled) (*vecindex.Filter, int) {
	ac := &ix.allowed
	ac.mu.Lock()
	for i := range ac.entries {
		e := &ac.entries[i]
		if e.set != nil && e.gen == ix.gen && sameFilter(&e.f, &c.f) {
			ac.mu.Unlock()
			return e.set, e.n
		}
	}
	ac.mu.Unlock()
	set, n := ix.admittedLocked(c)
	ac.mu.Lock()
	// The filter is kept with slices of its own: it outlives the call.
	f := c.f
	f.Scopes, f.Tags, f.Sources = slices.Clone(f.Scopes), slices.Clone(f.Tags), slices.Clone(f.Sources)
	ac.entries[ac.next] = allowEntry{gen: ix.gen, f: f, set: set, n: n}
	ac.next = (ac.next + 1) % len(ac.entries)
	ac.mu.Unlock()
	return set, n
}

// reviseAllowedLocked keeps the cached sets valid across a write that
// changed what filters may read of these slots only (ix.mu held for
// writing, ix.gen already advanced by that write): each set that was valid
// before the write gets the slots' new answers, so the next search does not
// rebuild it with a pass over every item (at 100k memories ~1.6 ms, paid by
// every store's update check). A set that was already stale stays stale.
// The sets are shared, but only while the caller holds mu, so changing
// them under the write lock is safe.
func (ix *Index) reviseAllowedLocked(slots ...uint32) {
	ac := &ix.allowed
	ac.mu.Lock()
	defer ac.mu.Unlock()
	for i := range ac.entries {
		e := &ac.entries[i]
		if e.set == nil || e.gen != ix.gen-1 {
			continue
		}
		// Compiled again: the write may have added the scope, tag or
		// source the filter names, which the set's compilation did not know.
		c := ix.compileLocked(e.f)
		for _, s := range slots {
			in := int(s) < len(ix.items) && c.match(&ix.items[s])
			switch had := e.set.Has(s); {
			case in && !had:
				e.set.Add(s)
				e.n++
			case !in && had:
				e.set.Remove(s)
				e.n--
			}
		}
		e.gen = ix.gen
	}
}

// admittedLocked computes the set of slots c admits, and its size.
func (ix *Index) admittedLocked(c *compiled) (*vecindex.Filter, int) {
	n := 0
	if c.metaOnly() && len(ix.meta) == len(ix.items) {
		// A word of the set at a time: at 100k memories this loop is
		// every search's first cost.
		meta := ix.meta
		words := make([]uint64, (len(meta)+63)/64)
		for i := range words {
			var w uint64
			part := meta[i*64 : min(i*64+64, len(meta))]
			for j := range part {
				if c.matchMeta(&part[j]) {
					w |= 1 << j
				}
			}
			words[i] = w
			n += bits.OnesCount64(w)
		}
		return vecindex.FilterOf(words), n
	}
	f := vecindex.NewFilter(len(ix.items))
	for i := range ix.items {
		if c.match(&ix.items[i]) {
			f.Add(uint32(i))
			n++
		}
	}
	return f, n
}

// Similar returns the live memories of scope whose embeddings are within
// cosine threshold of v, best first, at most k.
func (ix *Index) Similar(v []float32, scope string, threshold float64, k int) []Hit {
	if ix.vecs == nil || v == nil {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.compileLocked(Filter{Scopes: []string{scope}})
	allowed, _ := ix.allowedLocked(&c)
	return ix.similarHits(ix.vecs.Search(v, k, allowed), threshold)
}

// MatchAll returns the memories f admits whose text holds every term of q,
// newest first: a keyword match, not a ranking.
func (ix *Index) MatchAll(q textindex.Query, f Filter) []Hit {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.compileLocked(f)
	var out []Hit
	for _, slot := range ix.text.MatchAll(q, nil) {
		if int(slot) < len(ix.items) && c.match(&ix.items[slot]) {
			it := &ix.items[slot]
			out = append(out, Hit{ID: it.id, Kind: it.kind, TS: it.ts})
		}
	}
	slices.SortFunc(out, func(a, b Hit) int { return cmp.Compare(b.TS, a.TS) })
	return out
}
