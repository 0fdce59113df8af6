package memory

import (
	"bytes"
	"math"
	"sort"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/textindex"
	"github.com/infmem/infmem/internal/timephrase"
	"github.com/infmem/infmem/internal/vecindex"
	"github.com/infmem/infmem/mongostore"
)

// kind says which collection an item lives in.
type kind uint8

const (
	kindMemory kind = iota
	kindSummary
)

func (k kind) collection() string {
	if k == kindSummary {
		return mongostore.Summaries
	}
	return mongostore.ConversationHistory
}

const (
	flagForgotten uint8 = 1 << iota
	flagArchived
	flagPinned
)

// item is what the index keeps of one memory: enough to filter, rank,
// count and deduplicate without touching the database.
type item struct {
	id      bson.ObjectID
	kind    kind
	source  uint32 // interned
	scope   uint32 // interned, canonical scope name
	conv    uint32 // interned conversation_id; 0 when none
	speaker uint32 // interned speaker; 0 when none
	// refFrom and refTo bound the period the text refers to ("yesterday"
	// read against ts), unix ms; 0 when it names none.
	refFrom, refTo int64
	tags           []uint32
	ts             int64 // when it happened, unix ms
	created        int64
	importance     float32
	useCount       int64
	key            [16]byte
	flags          uint8
	used           bool
	hasVec         bool
	// forgottenAt is when it was soft-forgotten (unix ms; 0 when live).
	forgottenAt int64
}

func (it *item) live() bool { return it.used && it.flags&flagForgotten == 0 }

// interner maps strings to small ids; id 0 is the empty string.
type interner struct {
	ids   map[string]uint32
	names []string
}

func newInterner() interner { return interner{ids: map[string]uint32{"": 0}, names: []string{""}} }

func (n *interner) intern(s string) uint32 {
	if id, ok := n.ids[s]; ok {
		return id
	}
	id := uint32(len(n.names))
	n.ids[s] = id
	n.names = append(n.names, s)
	return id
}

func (n *interner) lookup(s string) (uint32, bool) {
	id, ok := n.ids[s]
	return id, ok
}

type dedupKey struct {
	scope uint32
	key   [16]byte
}

// index is the in-memory mirror of every memory and summary. Lock order:
// index.mu before the text index's own lock.
type index struct {
	mu       sync.RWMutex
	items    []item
	free     []uint32
	byID     map[bson.ObjectID]uint32
	dedup    map[dedupKey]uint32 // not-forgotten items by scope and content
	scopes   interner
	tags     interner // folded tags
	convs    interner
	sources  interner
	speakers interner
	text     *textindex.Index
	// vecs holds the embeddings of live items, by slot; nil without an embedder.
	vecs *vecindex.Index
	// hasVec marks slots whose embedding (any model state) is in vecs.
	vecCount int
	// convOrder lists each conversation's items in the order they happened
	// (timestamp, then insertion), to find a turn's neighbours; sessions
	// does the same for memories grouped by scope and timestamp alone (see
	// item.session).
	convOrder map[uint32][]uint32
	sessions  map[sessionKey][]uint32
	// loc is the user's time zone, in which time references in a memory's
	// text are read.
	loc *time.Location
}

func newIndex(dim int, loc *time.Location) *index {
	ix := &index{
		byID: map[bson.ObjectID]uint32{}, dedup: map[dedupKey]uint32{},
		scopes: newInterner(), tags: newInterner(), convs: newInterner(), sources: newInterner(), speakers: newInterner(),
		text: textindex.New(textindex.DefaultOptions()), convOrder: map[uint32][]uint32{},
		sessions: map[sessionKey][]uint32{}, loc: loc,
	}
	if dim > 0 {
		ix.vecs = vecindex.New(dim)
	}
	return ix
}

// doc is the part of a stored memory or summary the index needs.
type doc struct {
	id         bson.ObjectID
	kind       kind
	text       string
	source     string
	scope      string
	conv       string
	speaker    string
	tags       []string
	ts         time.Time
	created    time.Time
	importance float64
	useCount   int64
	key        [16]byte
	forgotten  bool
	archived   bool
	pinned     bool
	// forgottenAt is set with forgotten.
	forgottenAt time.Time
	// vec is the embedding, when known; a live item without one waits for
	// the background embedder.
	vec []float32
	// keepVec keeps the embedding an existing item already has (an edit
	// that did not change the text).
	keepVec bool
}

func docFromMemory(m *mongostore.Memory) doc {
	return doc{
		id: m.ID, kind: kindMemory, text: m.Text, source: m.Source, scope: m.Scope, conv: m.ConversationID, speaker: m.Speaker,
		tags: m.Tags, ts: m.Timestamp, created: m.CreatedAt, importance: m.Importance, useCount: m.UseCount,
		key: contentKey(m.Text), forgotten: m.ForgottenAt != nil, forgottenAt: timeOr(m.ForgottenAt), archived: m.Archived, pinned: m.Pinned,
	}
}

func timeOr(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

func docFromSummary(s *mongostore.Summary) doc {
	return doc{
		id: s.ID, kind: kindSummary, text: s.SummaryText, source: sourceSummary, scope: s.Scope, conv: s.ConversationID,
		tags: s.Tags, ts: s.Timestamp, created: s.CreatedAt, importance: s.Importance, useCount: s.UseCount,
		key: contentKey(s.SummaryText), forgotten: s.ForgottenAt != nil, forgottenAt: timeOr(s.ForgottenAt), archived: s.Archived, pinned: s.Pinned,
	}
}

// put adds or replaces the item for d.id and returns its slot.
func (ix *index) put(d doc) uint32 {
	// Read outside the lock: finding a time reference costs tens of
	// microseconds.
	var refFrom, refTo int64
	if r, ok := timephrase.Scan(d.text, d.ts, ix.loc); ok {
		refFrom, refTo = r.From.UnixMilli(), r.To.UnixMilli()
	}
	speaker := d.speaker
	if speaker == "" && d.kind == kindMemory {
		speaker = speakerPrefix(d.text)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	slot, ok := ix.byID[d.id]
	if ok {
		ix.dropDedupLocked(slot)
	} else if n := len(ix.free); n > 0 {
		slot = ix.free[n-1]
		ix.free = ix.free[:n-1]
	} else {
		slot = uint32(len(ix.items))
		ix.items = append(ix.items, item{})
	}
	it := item{
		id: d.id, kind: d.kind, source: ix.sources.intern(d.source), scope: ix.scopes.intern(d.scope),
		conv: ix.convs.intern(d.conv), speaker: ix.speakers.intern(speaker), ts: d.ts.UnixMilli(), created: d.created.UnixMilli(),
		importance: float32(d.importance), useCount: d.useCount, key: d.key, used: true, refFrom: refFrom, refTo: refTo,
	}
	it.tags = make([]uint32, 0, len(d.tags))
	for _, t := range d.tags {
		it.tags = append(it.tags, ix.tags.intern(foldTag(t)))
	}
	if d.forgotten {
		it.flags |= flagForgotten
		it.forgottenAt = d.forgottenAt.UnixMilli()
	}
	if d.archived {
		it.flags |= flagArchived
	}
	if d.pinned {
		it.flags |= flagPinned
	}
	keep := false
	if ok {
		ix.unorderLocked(slot)
		keep = d.keepVec && d.vec == nil && ix.items[slot].hasVec && it.live()
	}
	it.hasVec = keep
	ix.items[slot] = it
	ix.byID[d.id] = slot
	ix.orderLocked(slot)
	if it.live() {
		ix.dedup[dedupKey{it.scope, it.key}] = slot
		ix.text.Add(slot, d.text)
	} else {
		ix.text.Remove(slot)
	}
	if !keep {
		ix.setVecLocked(slot, d.vec)
	}
	return slot
}

// setVecLocked stores or drops a slot's embedding.
func (ix *index) setVecLocked(slot uint32, v []float32) {
	if ix.vecs == nil {
		return
	}
	it := &ix.items[slot]
	had := ix.vecs.Has(slot)
	if v != nil && it.live() {
		if err := ix.vecs.Put(slot, v); err == nil {
			it.hasVec = true
			if !had {
				ix.vecCount++
			}
			return
		}
		// A malformed vector (wrong length, NaN) counts as none: the
		// item is re-embedded.
	}
	if had {
		ix.vecs.Remove(slot)
		ix.vecCount--
	}
	it.hasVec = false
}

// setVec stores the embedding of id (from the background embedder).
func (ix *index) setVec(id bson.ObjectID, v []float32) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if slot, ok := ix.byID[id]; ok {
		ix.setVecLocked(slot, v)
	}
}

// A memory's thread is what its neighbours are drawn from: its
// conversation, or, for a turn of a conversation (a memory with a speaker
// or the conversation source) stored without a conversation id but with a
// timestamp of its own, the turns of its scope stored with that same
// timestamp: one session's turns, stored one by one. Notes stand alone,
// even when several share a date.
type sessionKey struct {
	scope uint32
	ts    int64
}

func (ix *index) sessionLocked(it *item) (sessionKey, bool) {
	if it.conv != 0 || it.ts == it.created {
		return sessionKey{}, false
	}
	turn := it.speaker != 0 || ix.sources.names[it.source] == sourceConversation
	return sessionKey{it.scope, it.ts}, turn
}

// threadLocked returns the ordered slots of slot's thread (nil: none).
func (ix *index) threadLocked(slot uint32) []uint32 {
	it := &ix.items[slot]
	if it.conv != 0 {
		return ix.convOrder[it.conv]
	}
	if k, ok := ix.sessionLocked(it); ok {
		return ix.sessions[k]
	}
	return nil
}

func (ix *index) setThreadLocked(slot uint32, list []uint32) {
	it := &ix.items[slot]
	switch k, ok := ix.sessionLocked(it); {
	case it.conv != 0 && len(list) == 0:
		delete(ix.convOrder, it.conv)
	case it.conv != 0:
		ix.convOrder[it.conv] = list
	case ok && len(list) == 0:
		delete(ix.sessions, k)
	case ok:
		ix.sessions[k] = list
	}
}

// orderLocked inserts a slot into its thread's order.
func (ix *index) orderLocked(slot uint32) {
	it := &ix.items[slot]
	if _, ok := ix.sessionLocked(it); it.conv == 0 && !ok {
		return
	}
	list := ix.threadLocked(slot)
	i := sort.Search(len(list), func(i int) bool { return ix.before(slot, list[i]) })
	list = append(list, 0)
	copy(list[i+1:], list[i:])
	list[i] = slot
	ix.setThreadLocked(slot, list)
}

func (ix *index) unorderLocked(slot uint32) {
	list := ix.threadLocked(slot)
	if list == nil {
		return
	}
	for i, s := range list {
		if s == slot {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	ix.setThreadLocked(slot, list)
}

// before orders a conversation's items by time, then by insertion (object
// ids grow with insertion, and turns of one session share a timestamp).
func (ix *index) before(a, b uint32) bool {
	x, y := &ix.items[a], &ix.items[b]
	if x.ts != y.ts {
		return x.ts < y.ts
	}
	return bytes.Compare(x.id[:], y.id[:]) < 0
}

// neighborsLocked returns the items just before and after slot in its
// thread among those admit accepts.
func (ix *index) neighborsLocked(slot uint32, admit func(*item) bool) []uint32 {
	list := ix.threadLocked(slot)
	if list == nil {
		return nil
	}
	i := sort.Search(len(list), func(i int) bool { return !ix.before(list[i], slot) })
	var out []uint32
	for j := i - 1; j >= 0; j-- {
		if admit(&ix.items[list[j]]) {
			out = append(out, list[j])
			break
		}
	}
	for j := i + 1; j < len(list); j++ {
		if admit(&ix.items[list[j]]) {
			out = append(out, list[j])
			break
		}
	}
	return out
}

func (ix *index) dropDedupLocked(slot uint32) {
	it := &ix.items[slot]
	k := dedupKey{it.scope, it.key}
	if s, ok := ix.dedup[k]; ok && s == slot {
		delete(ix.dedup, k)
	}
}

// remove forgets an item entirely (hard delete).
func (ix *index) remove(id bson.ObjectID) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	slot, ok := ix.byID[id]
	if !ok {
		return
	}
	ix.dropDedupLocked(slot)
	ix.text.Remove(slot)
	ix.setVecLocked(slot, nil)
	ix.unorderLocked(slot)
	delete(ix.byID, id)
	ix.items[slot] = item{}
	ix.free = append(ix.free, slot)
}

// setForgotten flips the soft-forget flag; the text leaves or rejoins the
// keyword index (text is needed only to rejoin).
func (ix *index) setForgotten(id bson.ObjectID, forgotten bool, at time.Time, text string, vec []float32) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	slot, ok := ix.byID[id]
	if !ok {
		return
	}
	it := &ix.items[slot]
	if forgotten {
		it.flags |= flagForgotten
		it.forgottenAt = at.UnixMilli()
		ix.dropDedupLocked(slot)
		ix.text.Remove(slot)
		ix.setVecLocked(slot, nil)
		return
	}
	it.flags &^= flagForgotten
	it.forgottenAt = 0
	ix.dedup[dedupKey{it.scope, it.key}] = slot
	ix.text.Add(slot, text)
	ix.setVecLocked(slot, vec)
}

// touch records a retrieval in the index's copy of use_count.
func (ix *index) touch(ids []bson.ObjectID) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, id := range ids {
		if slot, ok := ix.byID[id]; ok {
			ix.items[slot].useCount++
		}
	}
}

// duplicate returns the not-forgotten item in scope with the same content.
func (ix *index) duplicate(scope string, key [16]byte) (bson.ObjectID, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	sc, ok := ix.scopes.lookup(scope)
	if !ok {
		return bson.ObjectID{}, false
	}
	slot, ok := ix.dedup[dedupKey{sc, key}]
	if !ok {
		return bson.ObjectID{}, false
	}
	return ix.items[slot].id, true
}

// lookup returns a copy of the item for id.
func (ix *index) lookup(id bson.ObjectID) (item, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	slot, ok := ix.byID[id]
	if !ok {
		return item{}, false
	}
	return ix.items[slot], true
}

// filter selects items. Zero values mean "no restriction", except that
// forgotten and archived items are excluded unless asked for.
type filter struct {
	scopes           []string // canonical names; nil means every scope
	tags             []string // folded; an item must carry all of them
	sources          []string
	from, to         time.Time // [from, to); zero means open
	includeForgotten bool
	onlyForgotten    bool
	includeArchived  bool
}

// compiled is a filter resolved against the interners, for use under ix.mu.
type compiled struct {
	scopes     []bool // by scope id; nil = any
	sources    []bool
	tags       []uint32
	from, to   int64
	impossible bool
	f          filter
}

func (ix *index) compileLocked(f filter) compiled {
	c := compiled{f: f, from: -1 << 62, to: 1 << 62}
	if !f.from.IsZero() {
		c.from = f.from.UnixMilli()
	}
	if !f.to.IsZero() {
		c.to = f.to.UnixMilli()
	}
	if f.scopes != nil {
		c.scopes = make([]bool, len(ix.scopes.names))
		for _, s := range f.scopes {
			if id, ok := ix.scopes.lookup(s); ok {
				c.scopes[id] = true
			}
		}
	}
	if f.sources != nil {
		c.sources = make([]bool, len(ix.sources.names))
		for _, s := range f.sources {
			if id, ok := ix.sources.lookup(s); ok {
				c.sources[id] = true
			}
		}
	}
	for _, t := range f.tags {
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
	forgotten := it.flags&flagForgotten != 0
	if c.f.onlyForgotten && !forgotten || forgotten && !c.f.includeForgotten && !c.f.onlyForgotten {
		return false
	}
	if it.flags&flagArchived != 0 && !c.f.includeArchived {
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
		found := false
		for _, have := range it.tags {
			if have == t {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// hit is a ranked item.
type hit struct {
	id    bson.ObjectID
	kind  kind
	score float64
	// weak: under the relevance bar.
	weak bool
	ts   int64
	ev   *Evidence
}

// sortKey orders a scan.
type sortKey int

const (
	sortNewest sortKey = iota
	sortOldest
	sortMostUsed
	sortImportance
)

// scan returns the items matching f in the given order, skipping offset
// and keeping at most limit (limit <= 0: all), and the total that matched.
func (ix *index) scan(f filter, order sortKey, offset, limit int) (page []hit, total int) {
	ix.mu.RLock()
	c := ix.compileLocked(f)
	type row struct {
		hit
		used       int64
		importance float32
	}
	var rows []row
	for i := range ix.items {
		it := &ix.items[i]
		if c.match(it) {
			rows = append(rows, row{hit{id: it.id, kind: it.kind, ts: it.ts}, it.useCount, it.importance})
		}
	}
	ix.mu.RUnlock()
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch order {
		case sortOldest:
			if a.ts != b.ts {
				return a.ts < b.ts
			}
		case sortMostUsed:
			if a.used != b.used {
				return a.used > b.used
			}
		case sortImportance:
			if a.importance != b.importance {
				return a.importance > b.importance
			}
		}
		if a.ts != b.ts {
			return a.ts > b.ts
		}
		return a.id.Hex() < b.id.Hex()
	})
	total = len(rows)
	if offset > len(rows) {
		offset = len(rows)
	}
	rows = rows[offset:]
	if limit > 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	page = make([]hit, len(rows))
	for i, r := range rows {
		page[i] = r.hit
	}
	return page, total
}

// ids returns the ids of every item matching f.
func (ix *index) ids(f filter) []hit {
	page, _ := ix.scan(f, sortNewest, 0, 0)
	return page
}

// counts tallies live items.
type counts struct {
	live, forgotten, archived, summaries int
	perScope                             map[string]int
	conversations                        int
}

func (ix *index) count() counts {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := counts{perScope: map[string]int{}}
	convs := map[uint32]bool{}
	for i := range ix.items {
		it := &ix.items[i]
		if !it.used {
			continue
		}
		switch {
		case it.flags&flagForgotten != 0:
			c.forgotten++
		case it.flags&flagArchived != 0:
			c.archived++
		default:
			c.live++
			c.perScope[ix.scopes.names[it.scope]]++
			if it.kind == kindSummary {
				c.summaries++
			}
			if it.conv != 0 {
				convs[it.conv] = true
			}
		}
	}
	c.conversations = len(convs)
	return c
}

// size is how many memories and summaries the index holds, forgotten ones
// included.
func (ix *index) size() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.byID)
}

// vectorCount is how many items have an embedding.
func (ix *index) vectorCount() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.vecCount
}

// allowedLocked is the set of slots c admits, and its size.
func (ix *index) allowedLocked(c *compiled) (*vecindex.Filter, int) {
	f := vecindex.NewFilter(len(ix.items))
	n := 0
	for i := range ix.items {
		if c.match(&ix.items[i]) {
			f.Add(uint32(i))
			n++
		}
	}
	return f, n
}

// slotHit is a scored slot.
type slotHit struct {
	slot  uint32
	score float64
}

// vectorSearchLocked returns the k allowed slots closest to qv.
func (ix *index) vectorSearchLocked(qv []float32, allowed *vecindex.Filter, k int) []slotHit {
	hits := ix.vecs.Search(qv, k, allowed)
	out := make([]slotHit, len(hits))
	for i, h := range hits {
		out[i] = slotHit{slot: h.ID, score: float64(h.Score)}
	}
	return out
}

// vectorScoreLocked scores slots against qv; NaN for slots without a vector.
func (ix *index) vectorScoreLocked(qv []float32, slots []uint32) []float64 {
	with := make([]uint32, 0, len(slots))
	pos := make([]int, 0, len(slots))
	out := make([]float64, len(slots))
	for i, s := range slots {
		if ix.vecs.Has(s) {
			with = append(with, s)
			pos = append(pos, i)
		} else {
			out[i] = math.NaN()
		}
	}
	for j, sc := range ix.vecs.Score(qv, with) {
		out[pos[j]] = float64(sc)
	}
	return out
}

// nearDuplicateLocked reports whether slot says the same as a slot in kept:
// their keyword terms overlap at least threshold.
func (ix *index) nearDuplicateLocked(slot uint32, kept []uint32, threshold float64) bool {
	if threshold >= 1 {
		return false
	}
	for _, k := range kept {
		if ix.text.Overlap(slot, k) >= threshold {
			return true
		}
	}
	return false
}

// similar returns live items of scope whose vectors are within cosine
// threshold of v, best first, at most k.
func (ix *index) similar(v []float32, scope string, threshold float64, k int) []hit {
	if ix.vecs == nil || v == nil {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.compileLocked(filter{scopes: []string{scope}})
	allowed, _ := ix.allowedLocked(&c)
	var out []hit
	for _, h := range ix.vectorSearchLocked(v, allowed, k) {
		if h.score >= threshold {
			it := &ix.items[h.slot]
			out = append(out, hit{id: it.id, kind: it.kind, score: math.Round(h.score*1000) / 1000, ts: it.ts})
		}
	}
	return out
}

// matchAll returns the items f admits whose text holds every term of q,
// newest first: a keyword match, not a ranking.
func (ix *index) matchAll(q textindex.Query, f filter) []hit {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.compileLocked(f)
	var out []hit
	for _, slot := range ix.text.MatchAll(q, nil) {
		if int(slot) < len(ix.items) && c.match(&ix.items[slot]) {
			it := &ix.items[slot]
			out = append(out, hit{id: it.id, kind: it.kind, ts: it.ts})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ts > out[j].ts })
	return out
}

// overlap is the share of distinct keyword terms two memories have in
// common (0 when either is unknown).
func (ix *index) overlap(a, b bson.ObjectID) float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	x, ok1 := ix.byID[a]
	y, ok2 := ix.byID[b]
	if !ok1 || !ok2 {
		return 0
	}
	return ix.text.Overlap(x, y)
}

// setFlag sets or clears a flag on id.
func (ix *index) setFlag(id bson.ObjectID, flag uint8, on bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if slot, ok := ix.byID[id]; ok {
		if on {
			ix.items[slot].flags |= flag
		} else {
			ix.items[slot].flags &^= flag
		}
	}
}
