package memindex

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/gloss"
	"github.com/infmem/infmem/internal/textindex"
	"github.com/infmem/infmem/internal/timephrase"
	"github.com/infmem/infmem/internal/vecindex"
)

// Kind says which collection a memory lives in: ConversationHistory or
// Summaries.
type Kind uint8

// The kinds of memory.
const (
	KindMemory Kind = iota
	KindSummary
)

// Flag is a state a memory can be in besides live.
type Flag uint8

// The flags; their values are part of the snapshot format.
const (
	FlagForgotten Flag = 1 << iota
	FlagArchived
	FlagPinned
	// FlagRefNext: the month the text of a memory outside any
	// conversation names alone ("the October half term", written in
	// August) may be the first after it was written as well as the latest
	// begun (refFrom, refTo): it refers to the same period a year later
	// too (timephrase.ScanNext). A turn of a conversation keeps the one
	// reading, the one a question asked in it reads (on RealMem, turns
	// read ahead too moved five answers down and none up).
	FlagRefNext
)

// SourceConversation is the source of a conversation's turns (see
// sessionLocked).
const SourceConversation = "conversation"

// item is what the index keeps of one memory: enough to filter, rank,
// count and deduplicate without touching the database.
//
// The fields are ordered so that no padding is needed but four bytes: 128
// bytes an item (136 as first written; a 100k index holds 125k of them).
type item struct {
	id      bson.ObjectID
	kind    Kind
	flags   Flag
	used    bool
	hasVec  bool
	source  uint32 // interned
	scope   uint32 // interned, canonical scope name
	conv    uint32 // interned conversation_id; 0 when none
	speaker uint32 // interned speaker; 0 when none
	// importance is followed by four bytes of padding.
	importance float32
	// refFrom and refTo bound the period the text refers to ("yesterday"
	// read against ts), unix ms; 0 when it names none.
	refFrom, refTo int64
	ts             int64 // when it happened, unix ms
	created        int64
	useCount       int64
	// forgottenAt is when it was soft-forgotten (unix ms; 0 when live).
	forgottenAt int64
	tags        []uint32
	key         [16]byte
}

func (it *item) live() bool { return it.used && it.flags&FlagForgotten == 0 }

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

// Index is the in-memory mirror of every memory and summary. Safe for
// concurrent use: every method takes the index's lock (before the keyword
// and vector indexes' own locks) and none holds it after returning.
type Index struct {
	pools    sync.Pool // *[]Candidate: Rank's candidate pools (candidatePool)
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
	// gloss adds to a memory's keyword terms the English glosses of the
	// words of another language its text holds (package gloss; SetGloss).
	gloss, glossShort atomic.Bool
	// glosses holds, by slot, the glosses of each memory or summary whose
	// text has any (gloss.Text, computed once when it is Put): what the
	// rules after ranking read beside its text (Glosses), so that the
	// retrieve path does not gloss its results again on every query.
	glosses map[uint32]string
	// vecs holds the embeddings of live items, by slot; nil without an embedder.
	vecs *vecindex.Index
	// vecCount is how many slots have their embedding in vecs.
	vecCount int
	// vecGen counts the changes of vecs, and vecLog holds the slots of the
	// last vecLogLen of them (pass.go).
	vecGen uint64
	vecLog [vecLogLen]uint32
	// gen counts the writes that can change what a filter admits (every
	// write but Touch); allowed caches the last sets filters admitted
	// (query.go), valid while gen is what it was: a write of one slot
	// revises the valid sets for that slot (reviseAllowedLocked).
	gen     uint64
	allowed allowCache
	// convOrder lists each conversation's items in the order they happened
	// (timestamp, then insertion), to find a turn's neighbours; sessions
	// does the same for memories grouped by scope and timestamp alone (see
	// sessionLocked).
	convOrder map[uint32][]uint32
	sessions  map[sessionKey][]uint32
	// tally keeps the counts (tally.go); meta, by slot, what filters
	// read of each item, packed (tally.go).
	tally tally
	meta  []slotMeta
	// loc is the user's time zone, in which time references in a memory's
	// text are read.
	loc *time.Location
	// links holds the links of the slots that have any (links.go);
	// supersedes maps a memory to the slots it supersedes.
	links      map[uint32]*Links
	supersedes map[bson.ObjectID][]uint32
}

// New returns an empty index for embeddings of dim dimensions (0: none),
// reading the time references of memories' texts in loc.
func New(dim int, loc *time.Location) *Index {
	ix := &Index{
		byID: map[bson.ObjectID]uint32{}, dedup: map[dedupKey]uint32{},
		scopes: newInterner(), tags: newInterner(), convs: newInterner(), sources: newInterner(), speakers: newInterner(),
		text: textindex.New(textindex.DefaultOptions()), convOrder: map[uint32][]uint32{},
		sessions: map[sessionKey][]uint32{}, loc: loc, glosses: map[uint32]string{},
	}
	if dim > 0 {
		ix.vecs = vecindex.New(dim)
	}
	return ix
}

// SetGloss sets whether the memories Put from now on have the English
// glosses of their words of another language (gloss.Text) among their
// keyword terms: "pagué el alquiler" is found by "rent"; the glosses of
// the memories and summaries Put are kept for Glosses. The text and the
// embedding are left as written.
// short: English shorthand too ("appt", "GP": gloss.Of).
func (ix *Index) SetGloss(on, short bool) { ix.gloss.Store(on); ix.glossShort.Store(short) }

// GlossSignature names what an index glossing as SetGloss(on, short)
// holds ("" when it glosses nothing): a snapshot made under another is
// refused (Header.Gloss), since its keyword terms and glosses are not
// those the index would give its notes now.
func GlossSignature(on, short bool) string {
	if !on {
		return ""
	}
	return gloss.Signature(short)
}

// Glosses returns the glosses of the memories ids (gloss.Text of each
// one's text, as kept when it was Put), "" for one with none, one the
// index does not hold, or any when it does not gloss (SetGloss).
func (ix *Index) Glosses(ids []bson.ObjectID) []string {
	out := make([]string, len(ids))
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if len(ix.glosses) == 0 {
		return out
	}
	for i, id := range ids {
		if slot, ok := ix.byID[id]; ok {
			out[i] = ix.glosses[slot]
		}
	}
	return out
}

// Pack lays out an index built by Put (a load from the database) as a
// start from the snapshot does: the keyword index's lists move into one
// arena outside the heap (textindex's Pack). The engine calls it once,
// when the load has ended; the lists the load grew become garbage then.
func (ix *Index) Pack() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.text.Pack()
}

// KeywordStats describes the keyword index's size.
func (ix *Index) KeywordStats() textindex.Stats {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.text.Stats()
}

// Doc is a memory or summary as the index takes it.
type Doc struct {
	ID         bson.ObjectID
	Kind       Kind
	Text       string
	Source     string
	Scope      string
	Conv       string
	Speaker    string
	Tags       []string
	TS         time.Time
	Created    time.Time
	Importance float64
	UseCount   int64
	// Key identifies the text for exact-duplicate checks.
	Key                         [16]byte
	Forgotten, Archived, Pinned bool
	// ForgottenAt is set with Forgotten.
	ForgottenAt time.Time
	// Vec is the embedding, when known; a live memory without one waits
	// for the background embedder.
	Vec []float32
	// KeepVec keeps the embedding the memory already has (an edit that
	// did not change the text).
	KeepVec bool
	// Links, when set, replace the memory's links; nil keeps those the
	// index holds (none for a new memory).
	Links *Links
}

// FoldTag is the form in which tags match: case-folded, without '#' and
// outer space.
func FoldTag(t string) string {
	return strings.ToLower(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(t), "#")))
}

// Put adds d, or replaces the memory with its id.
func (ix *Index) Put(d Doc) {
	// Read outside the lock: finding a time reference costs tens of
	// microseconds.
	var refFrom, refTo int64
	refNext := false
	if r, next, ok := timephrase.ScanNext(d.Text, d.TS, ix.loc); ok {
		refFrom, refTo = r.From.UnixMilli(), r.To.UnixMilli()
		// A month's next occurrence is the same month a year later
		// (FlagRefNext).
		refNext = d.Conv == "" && !next.From.IsZero() && next.From.Equal(r.From.AddDate(1, 0, 0))
	}
	keywords, glossed := d.Text, ""
	if ix.gloss.Load() {
		glossed = gloss.Text(d.Text, ix.glossShort.Load())
		if glossed != "" && d.Kind == KindMemory {
			keywords += "\n" + glossed
		}
	}
	speaker := d.Speaker
	if speaker == "" && d.Kind == KindMemory {
		speaker = speakerPrefix(d.Text)
	}
	ix.mu.Lock()
	ix.gen++
	defer ix.mu.Unlock()
	slot, ok := ix.byID[d.ID]
	if ok {
		ix.dropDedupLocked(slot)
		ix.countLocked(slot, -1)
	} else if n := len(ix.free); n > 0 {
		slot = ix.free[n-1]
		ix.free = ix.free[:n-1]
	} else {
		slot = uint32(len(ix.items))
		ix.items = appendItem(ix.items)
	}
	it := item{
		id: d.ID, kind: d.Kind, source: ix.sources.intern(d.Source), scope: ix.scopes.intern(d.Scope),
		conv: ix.convs.intern(d.Conv), speaker: ix.speakers.intern(speaker), ts: d.TS.UnixMilli(), created: d.Created.UnixMilli(),
		importance: float32(d.Importance), useCount: d.UseCount, key: d.Key, used: true, refFrom: refFrom, refTo: refTo,
	}
	it.tags = make([]uint32, 0, len(d.Tags))
	for _, t := range d.Tags {
		it.tags = append(it.tags, ix.tags.intern(FoldTag(t)))
	}
	if d.Forgotten {
		it.flags |= FlagForgotten
		it.forgottenAt = d.ForgottenAt.UnixMilli()
	}
	if d.Archived {
		it.flags |= FlagArchived
	}
	if d.Pinned {
		it.flags |= FlagPinned
	}
	if refNext {
		it.flags |= FlagRefNext
	}
	keep := false
	if ok {
		ix.unorderLocked(slot)
		keep = d.KeepVec && d.Vec == nil && ix.items[slot].hasVec && it.live()
	}
	it.hasVec = keep
	ix.items[slot] = it
	ix.countLocked(slot, 1)
	ix.byID[d.ID] = slot
	if glossed != "" {
		ix.glosses[slot] = glossed
	} else {
		delete(ix.glosses, slot)
	}
	if d.Links != nil {
		ix.setLinksLocked(slot, *d.Links)
	}
	ix.orderLocked(slot)
	if it.live() {
		ix.dedup[dedupKey{it.scope, it.key}] = slot
		ix.addTextLocked(slot, keywords)
	} else {
		ix.text.Remove(slot)
	}
	if !keep {
		ix.setVecLocked(slot, d.Vec)
	}
	ix.reviseAllowedLocked(slot)
}

// appendItem appends an empty item, growing a full slice by a sixteenth
// (at least 1,024 items) rather than by append's quarter: the index loaded
// from a snapshot is exactly full, so its first new memory would leave
// room for 25k more at 100k memories, 3 MB of the heap for nothing. The
// copy (13 MB at 100k) comes once every 6k new memories.
func appendItem(items []item) []item {
	if len(items) == cap(items) {
		grown := make([]item, len(items), len(items)+max(1024, len(items)/16))
		copy(grown, items)
		items = grown
	}
	return append(items, item{})
}

// addTextLocked puts a slot's text in the keyword index. A summary's is
// set aside from the keyword statistics: it repeats the words of the turns
// it condenses, which stay searchable, and must not change how they score.
func (ix *Index) addTextLocked(slot uint32, text string) {
	ix.text.Add(slot, text)
	if ix.items[slot].kind == KindSummary {
		ix.text.SetAside(slot, true)
	}
}

// setVecLocked stores or drops a slot's embedding.
func (ix *Index) setVecLocked(slot uint32, v []float32) {
	if ix.vecs == nil {
		return
	}
	it := &ix.items[slot]
	had := ix.vecs.Has(slot)
	ix.noteVecLocked(slot)
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

// SetVec stores the embedding of id (nil drops it).
func (ix *Index) SetVec(id bson.ObjectID, v []float32) {
	ix.mu.Lock()
	ix.gen++
	defer ix.mu.Unlock()
	if slot, ok := ix.byID[id]; ok {
		ix.setVecLocked(slot, v)
		ix.reviseAllowedLocked(slot)
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

func (ix *Index) sessionLocked(it *item) (sessionKey, bool) {
	if it.conv != 0 || it.ts == it.created {
		return sessionKey{}, false
	}
	turn := it.speaker != 0 || ix.sources.names[it.source] == SourceConversation
	return sessionKey{it.scope, it.ts}, turn
}

// threadLocked returns the ordered slots of slot's thread (nil: none).
func (ix *Index) threadLocked(slot uint32) []uint32 {
	it := &ix.items[slot]
	if it.conv != 0 {
		return ix.convOrder[it.conv]
	}
	if k, ok := ix.sessionLocked(it); ok {
		return ix.sessions[k]
	}
	return nil
}

func (ix *Index) setThreadLocked(slot uint32, list []uint32) {
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
func (ix *Index) orderLocked(slot uint32) {
	it := &ix.items[slot]
	if _, ok := ix.sessionLocked(it); it.conv == 0 && !ok {
		return
	}
	list := ix.threadLocked(slot)
	i, _ := slices.BinarySearchFunc(list, slot, ix.compare)
	ix.setThreadLocked(slot, slices.Insert(list, i, slot))
}

func (ix *Index) unorderLocked(slot uint32) {
	list := ix.threadLocked(slot)
	if list == nil {
		return
	}
	if i := slices.Index(list, slot); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	ix.setThreadLocked(slot, list)
}

// orderThreadsLocked derives every thread's order from the items (after
// reading a snapshot).
func (ix *Index) orderThreadsLocked() {
	for slot := range ix.items {
		it := &ix.items[slot]
		if !it.used {
			continue
		}
		if it.conv != 0 {
			ix.convOrder[it.conv] = append(ix.convOrder[it.conv], uint32(slot))
		} else if k, ok := ix.sessionLocked(it); ok {
			ix.sessions[k] = append(ix.sessions[k], uint32(slot))
		}
	}
	for _, list := range ix.convOrder {
		slices.SortFunc(list, ix.compare)
	}
	for _, list := range ix.sessions {
		slices.SortFunc(list, ix.compare)
	}
}

// compare orders a thread's items by time, then by insertion (object ids
// grow with insertion, and turns of one session share a timestamp).
func (ix *Index) compare(a, b uint32) int {
	x, y := &ix.items[a], &ix.items[b]
	if x.ts != y.ts {
		return cmp.Compare(x.ts, y.ts)
	}
	return bytes.Compare(x.id[:], y.id[:])
}

// neighborsLocked returns the slots just before and just after slot in
// its thread among those admit accepts (-1: none). A summary is nobody's
// neighbour and has none: it stands beside its conversation's turns (which
// stay searchable once archived), not among them.
func (ix *Index) neighborsLocked(slot uint32, may func(*item) bool) [2]int32 {
	nb := [2]int32{-1, -1}
	if ix.items[slot].kind == KindSummary {
		return nb
	}
	admit := func(it *item) bool { return it.kind != KindSummary && may(it) }
	list := ix.threadLocked(slot)
	i, _ := slices.BinarySearchFunc(list, slot, ix.compare)
	for j := i - 1; j >= 0; j-- {
		if admit(&ix.items[list[j]]) {
			nb[0] = int32(list[j])
			break
		}
	}
	for j := i + 1; j < len(list); j++ {
		if admit(&ix.items[list[j]]) {
			nb[1] = int32(list[j])
			break
		}
	}
	return nb
}

func (ix *Index) dropDedupLocked(slot uint32) {
	it := &ix.items[slot]
	k := dedupKey{it.scope, it.key}
	if s, ok := ix.dedup[k]; ok && s == slot {
		delete(ix.dedup, k)
	}
}

// Remove forgets a memory entirely (hard delete).
func (ix *Index) Remove(id bson.ObjectID) {
	ix.mu.Lock()
	ix.gen++
	defer ix.mu.Unlock()
	slot, ok := ix.byID[id]
	if !ok {
		return
	}
	ix.dropDedupLocked(slot)
	ix.text.Remove(slot)
	ix.setVecLocked(slot, nil)
	ix.unorderLocked(slot)
	ix.dropLinksLocked(slot)
	ix.countLocked(slot, -1)
	delete(ix.byID, id)
	delete(ix.glosses, slot)
	ix.items[slot] = item{}
	ix.free = append(ix.free, slot)
	ix.reviseAllowedLocked(slot)
}

// SetForgotten flips the soft-forget flag, forgotten at at; the text
// leaves or rejoins the keyword index (text and the embedding vec are
// needed only to rejoin).
func (ix *Index) SetForgotten(id bson.ObjectID, forgotten bool, at time.Time, text string, vec []float32) {
	ix.mu.Lock()
	ix.gen++
	defer ix.mu.Unlock()
	slot, ok := ix.byID[id]
	if !ok {
		return
	}
	it := &ix.items[slot]
	ix.countLocked(slot, -1)
	defer ix.countLocked(slot, 1)
	defer ix.reviseAllowedLocked(slot)
	if forgotten {
		it.flags |= FlagForgotten
		it.forgottenAt = at.UnixMilli()
		ix.dropDedupLocked(slot)
		ix.text.Remove(slot)
		ix.setVecLocked(slot, nil)
		return
	}
	it.flags &^= FlagForgotten
	it.forgottenAt = 0
	ix.dedup[dedupKey{it.scope, it.key}] = slot
	ix.addTextLocked(slot, text)
	ix.setVecLocked(slot, vec)
}

// SetFlag sets or clears the archived or pinned flag of id.
func (ix *Index) SetFlag(id bson.ObjectID, flag Flag, on bool) {
	ix.mu.Lock()
	ix.gen++
	defer ix.mu.Unlock()
	if slot, ok := ix.byID[id]; ok {
		it := &ix.items[slot]
		ix.countLocked(slot, -1)
		if on {
			it.flags |= flag
		} else {
			it.flags &^= flag
		}
		ix.countLocked(slot, 1)
		ix.reviseAllowedLocked(slot)
	}
}

// Touch records a retrieval in the index's copy of use_count.
func (ix *Index) Touch(ids []bson.ObjectID) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, id := range ids {
		if slot, ok := ix.byID[id]; ok {
			ix.items[slot].useCount++
		}
	}
}

// Duplicate returns the not-forgotten memory of scope whose text has key.
func (ix *Index) Duplicate(scope string, key [16]byte) (bson.ObjectID, bool) {
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

// Entry is a copy of what the index holds of one memory.
type Entry struct {
	ID     bson.ObjectID
	Kind   Kind
	Source string
	// TS is when it happened and ForgottenAt when it was soft-forgotten (0
	// when not), in unix ms.
	TS, ForgottenAt int64
	Importance      float32
	UseCount        int64
	// Key identifies its text for exact-duplicate checks.
	Key   [16]byte
	Flags Flag
	// HasVec: its embedding is in the index.
	HasVec bool
}

// Live reports whether the memory is not forgotten.
func (e *Entry) Live() bool { return e.Flags&FlagForgotten == 0 }

// Has reports whether the memory has flag.
func (e *Entry) Has(flag Flag) bool { return e.Flags&flag != 0 }

func (ix *Index) entryLocked(it *item) Entry {
	return Entry{ID: it.id, Kind: it.kind, Source: ix.sources.names[it.source], TS: it.ts, ForgottenAt: it.forgottenAt,
		Importance: it.importance, UseCount: it.useCount, Key: it.key, Flags: it.flags, HasVec: it.hasVec}
}

// Lookup returns what the index holds of id.
func (ix *Index) Lookup(id bson.ObjectID) (Entry, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	slot, ok := ix.byID[id]
	if !ok {
		return Entry{}, false
	}
	return ix.entryLocked(&ix.items[slot]), true
}

// Select returns the memories, forgotten ones included, that keep accepts,
// in no particular order.
func (ix *Index) Select(keep func(*Entry) bool) []Hit {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []Hit
	for i := range ix.items {
		it := &ix.items[i]
		if !it.used {
			continue
		}
		if e := ix.entryLocked(it); keep(&e) {
			out = append(out, Hit{ID: it.id, Kind: it.kind, TS: it.ts})
		}
	}
	return out
}

// Len is how many memories and summaries the index holds, forgotten ones
// included.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.byID)
}

// VectorCount is how many memories have their embedding in the index.
func (ix *Index) VectorCount() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.vecCount
}

// HasVectors reports whether the index keeps embeddings.
func (ix *Index) HasVectors() bool { return ix.vecs != nil }

// Analyze reads a text as the keyword index does.
func (ix *Index) Analyze(text string) textindex.Query { return ix.text.Analyze(text) }

// Fuzzy gives the query's terms that no memory holds (typos) the close
// terms memories do hold as alternatives (textindex.Index.Fuzzy).
func (ix *Index) Fuzzy(q textindex.Query) textindex.Query { return ix.text.Fuzzy(q) }

// Unknown is the share of the query's keyword weight no memory holds
// (textindex.Index.Unknown).
func (ix *Index) Unknown(q textindex.Query) float64 { return ix.text.Unknown(q) }

// DocFreq is how many memories hold the term word analyses to
// (textindex.Index.DocFreq); 0 for a word the index has never seen.
func (ix *Index) DocFreq(word string) int { return ix.text.DocFreq(word) }

// Overlap is the share of distinct keyword terms two memories have in
// common (0 when either is unknown).
func (ix *Index) Overlap(a, b bson.ObjectID) float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	x, ok1 := ix.byID[a]
	y, ok2 := ix.byID[b]
	if !ok1 || !ok2 {
		return 0
	}
	return ix.text.Overlap(x, y)
}

// Dump renders every memory the index holds, one line each in id order:
// a digest by which tests compare two indexes.
func (ix *Index) Dump() []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []string
	for id, slot := range ix.byID {
		it := &ix.items[slot]
		var tags []string
		for _, t := range it.tags {
			tags = append(tags, ix.tags.names[t])
		}
		slices.Sort(tags)
		line := ""
		if l := ix.links[slot]; l != nil {
			line = fmt.Sprintf(" supersededBy=%s contradicts=%v about=%v", l.SupersededBy.Hex(), l.Contradicts, l.About)
			if l.ByMeaning {
				line += " byMeaning"
			}
		}
		if g, ok := ix.glosses[slot]; ok {
			line += fmt.Sprintf(" gloss=%q", g)
		}
		out = append(out, line+fmt.Sprintf("%s kind=%d scope=%s conv=%s src=%s speaker=%s tags=%v ts=%d created=%d ref=%d-%d imp=%.3f use=%d key=%x flags=%d forgot=%d vec=%v text=%v",
			id.Hex(), it.kind, ix.scopes.names[it.scope], ix.convs.names[it.conv], ix.sources.names[it.source], ix.speakers.names[it.speaker], tags,
			it.ts, it.created, it.refFrom, it.refTo, it.importance, it.useCount, it.key, it.flags, it.forgottenAt, it.hasVec, ix.text.Has(slot)))
	}
	slices.Sort(out)
	return out
}
