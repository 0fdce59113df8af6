package memory

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/facts"
	"github.com/infmem/infmem/internal/vecindex"
	"github.com/infmem/infmem/mongostore"
)

// This file holds what scheduled maintenance asks of the engine. Every
// query is answered from the in-memory index; every change goes through the
// engine's write lock in small batches, so live requests interleave.

// ConversationInfo describes one conversation's live, unarchived messages.
type ConversationInfo struct {
	ID         string
	Scope      string
	Messages   int
	From, To   time.Time
	Summarized bool
}

// Conversations lists conversations whose newest live message happened
// before olderThan, oldest first.
func (e *Engine) Conversations(olderThan time.Time) []ConversationInfo {
	ix := e.index()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	limit := olderThan.UnixMilli()
	var out []ConversationInfo
	for conv, slots := range ix.convOrder {
		info := ConversationInfo{ID: ix.convs.names[conv]}
		var from, to int64
		for _, s := range slots {
			it := &ix.items[s]
			if !it.live() {
				continue
			}
			if it.kind == kindSummary {
				info.Summarized = true
				continue
			}
			if it.flags&flagArchived != 0 {
				continue
			}
			if info.Messages == 0 {
				from, info.Scope = it.ts, ix.scopes.names[it.scope]
			}
			info.Messages++
			to = max(to, it.ts)
		}
		if info.Messages == 0 || to >= limit {
			continue
		}
		info.From, info.To = time.UnixMilli(from).UTC(), time.UnixMilli(to).UTC()
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].To.Equal(out[j].To) {
			return out[i].To.Before(out[j].To)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// ConversationMessages reads a conversation's live, unarchived messages in
// the order they happened.
func (e *Engine) ConversationMessages(ctx context.Context, conv string) ([]Memory, error) {
	ix := e.index()
	ix.mu.RLock()
	var hits []hit
	if c, ok := ix.convs.lookup(conv); ok && c != 0 {
		for _, s := range ix.convOrder[c] {
			it := &ix.items[s]
			if it.live() && it.kind == kindMemory && it.flags&flagArchived == 0 {
				hits = append(hits, hit{id: it.id, kind: it.kind, ts: it.ts})
			}
		}
	}
	ix.mu.RUnlock()
	return e.fetch(ctx, hits)
}

// SummaryInput is a summary maintenance made.
type SummaryInput struct {
	ConversationID string
	Scope          string
	Text           string
	// Method says how it was made (extractive, ollama:<model>, sampling:<client>).
	Method   string
	Refs     []string
	From, To time.Time
	Tags     []string
}

// AddSummary stores a summary (embedded and indexed like any memory) and
// returns its id.
func (e *Engine) AddSummary(ctx context.Context, in SummaryInput) (string, error) {
	if err := e.wait(ctx); err != nil {
		return "", err
	}
	text := normalizeContent(in.Text)
	if text == "" {
		return "", fmt.Errorf("empty summary for conversation %q", in.ConversationID)
	}
	refs := make([]bson.ObjectID, 0, len(in.Refs))
	for _, r := range in.Refs {
		id, err := parseID(r)
		if err != nil {
			return "", err
		}
		refs = append(refs, id)
	}
	tags, err := normalizeTags(append(slices.Clone(in.Tags), "summary"))
	if err != nil {
		return "", err
	}
	vec := e.embedText(ctx, text)
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	id := bson.NewObjectID()
	e.markDirty(ctx, id)
	now := e.now()
	key := contentKey(text)
	ts := in.To.UTC().Truncate(time.Millisecond)
	d := doc{id: id, kind: kindSummary, text: text, source: sourceSummary, scope: in.Scope, conv: in.ConversationID,
		tags: tags, ts: ts, created: now, importance: 0.6, key: key, vec: vec}
	err = e.store.Summaries.Insert(ctx, &mongostore.Summary{
		ID: id, ConversationID: in.ConversationID, SummaryText: text, Scope: in.Scope, Tags: tags, Method: in.Method,
		TimeRange: &mongostore.TimeRange{From: in.From.UTC().Truncate(time.Millisecond), To: ts}, MessageRefs: refs,
		Timestamp: ts, Importance: 0.6, ContentHash: keyHex(key), CreatedAt: now, UpdatedAt: now,
	})
	if err != nil {
		return "", fmt.Errorf("cannot store the summary of %q: %w", in.ConversationID, err)
	}
	if err := e.writeVector(ctx, d); err != nil {
		e.log.Warn("summary embedding not stored; queued", "err", err)
		d.vec = nil
	}
	e.index().put(d)
	if d.vec == nil && e.opts.Embedder != nil {
		e.embeds.add(id, kindSummary)
	}
	return id.Hex(), nil
}

// Archive marks live memories archived (kept, exported, recoverable, but
// out of default retrieval). Pinned, forgotten and already archived ones
// are skipped. It returns how many changed.
func (e *Engine) Archive(ctx context.Context, ids []string, reason string) (int, error) {
	return e.setArchived(ctx, ids, true, reason)
}

// Unarchive brings archived memories back into default retrieval.
func (e *Engine) Unarchive(ctx context.Context, ids []string) (int, error) {
	return e.setArchived(ctx, ids, false, "")
}

func (e *Engine) setArchived(ctx context.Context, ids []string, archived bool, reason string) (int, error) {
	if err := e.wait(ctx); err != nil {
		return 0, err
	}
	oids, err := parseIDs(ids)
	if err != nil {
		return 0, err
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	e.markDirty(ctx, oids...)
	now := e.now()
	n := 0
	for _, id := range oids {
		it, ok := e.index().lookup(id)
		if !ok || it.flags&flagForgotten != 0 || (it.flags&flagArchived != 0) == archived {
			continue
		}
		if archived && it.flags&flagPinned != 0 {
			continue
		}
		var upd bson.D
		if archived {
			upd = bson.D{{Key: "$set", Value: bson.D{{Key: "archived", Value: true}, {Key: "archived_at", Value: now}, {Key: "archive_reason", Value: reason}, {Key: "updated_at", Value: now}}}}
		} else {
			upd = bson.D{{Key: "$unset", Value: bson.D{{Key: "archived", Value: ""}, {Key: "archived_at", Value: ""}, {Key: "archive_reason", Value: ""}}},
				{Key: "$set", Value: bson.D{{Key: "updated_at", Value: now}}}}
		}
		if it.kind == kindSummary {
			err = e.store.Summaries.Update(ctx, id, upd)
		} else {
			err = e.store.Memories.Update(ctx, id, upd)
		}
		if errIsNotFound(err) {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("cannot archive memory %s: %w", id.Hex(), err)
		}
		e.index().setFlag(id, flagArchived, archived)
		n++
	}
	return n, nil
}

// SetPinned pins a memory (maintenance never archives or prunes it) or
// unpins it.
func (e *Engine) SetPinned(ctx context.Context, id string, pinned bool) error {
	oid, err := parseID(id)
	if err != nil {
		return err
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	it, ok := e.index().lookup(oid)
	if !ok {
		return inputErrorf("no memory has id %s", id)
	}
	e.markDirty(ctx, oid)
	upd := bson.D{{Key: "$set", Value: bson.D{{Key: "pinned", Value: pinned}, {Key: "updated_at", Value: e.now()}}}}
	if it.kind == kindSummary {
		err = e.store.Summaries.Update(ctx, oid, upd)
	} else {
		err = e.store.Memories.Update(ctx, oid, upd)
	}
	if err != nil {
		return fmt.Errorf("cannot pin memory %s: %w", id, err)
	}
	e.index().setFlag(oid, flagPinned, pinned)
	return nil
}

// DuplicateGroup is a set of live memories of one scope that state the
// same fact; Keep is the one to keep (the most used, else the newest).
type DuplicateGroup struct {
	Scope  string
	Keep   string
	Others []string
	// Texts holds each member's text by id, for reports.
	Texts map[string]string
}

// dedupNeighbors is how many nearest memories each new memory is checked
// against.
const dedupNeighbors = 32

// MergeOverlap is the share of keyword terms two memories must have in
// common (Jaccard) to be merged as duplicates, besides stating the same
// details: nearly the same words, not just the same meaning.
const MergeOverlap = 0.8

// DuplicateGroups finds memories that say the same thing: live memories of
// one scope whose normalised texts are identical, or whose embeddings have
// cosine at least threshold AND whose texts share at least MergeOverlap of
// their words AND state the same details (every number, amount, date,
// time, name and negation; internal/facts). The embedding only proposes:
// "Dentist appointment on December 2 at 9:30" and "… January 14 at 11:00"
// score 0.977 and are different facts. Every member of a group is checked
// against the memory kept. Only memories created at or after since are
// compared against the rest (zero: all), so a nightly run looks at the
// day's new memories.
func (e *Engine) DuplicateGroups(ctx context.Context, threshold float64, since time.Time) ([]DuplicateGroup, error) {
	ix := e.index()
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
		if !it.live() || it.flags&flagArchived != 0 {
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
		if it.created >= since.UnixMilli() {
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
	texts := &textCache{e: e, ix: ix, entries: map[uint32]cachedText{}}
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
		for _, h := range ix.vecs.Search(v, dedupNeighbors, filters[p.scope]) {
			if h.ID == p.slot || float64(h.Score) < threshold || find(h.ID) == find(p.slot) {
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

	if e.afterDedupSearch != nil {
		e.afterDedupSearch()
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
			if int(s) < len(ix.items) && ix.items[s].live() && ix.items[s].flags&flagArchived == 0 {
				live = append(live, s)
			}
		}
		sort.Slice(live, func(i, j int) bool {
			a, b := &ix.items[live[i]], &ix.items[live[j]]
			if a.useCount != b.useCount {
				return a.useCount > b.useCount
			}
			if a.ts != b.ts {
				return a.ts > b.ts
			}
			return bytesLess(b.id[:], a.id[:])
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
		// The ids reported are the ones whose texts were compared (the
		// cache's), never a slot's current occupant: a slot freed by a hard
		// delete and reused by a new memory must not carry it into a group.
		var g DuplicateGroup
		for _, s := range live[1:] {
			same, err := texts.sameFact(ctx, live[0], s)
			if err != nil {
				return nil, err
			}
			if same {
				other := texts.entries[s]
				g.Others = append(g.Others, other.id.Hex())
				if g.Texts == nil {
					keep := texts.entries[live[0]]
					g = DuplicateGroup{Scope: scope, Keep: keep.id.Hex(), Others: g.Others, Texts: map[string]string{keep.id.Hex(): keep.text}}
				}
				g.Texts[other.id.Hex()] = other.text
			}
		}
		if len(g.Others) == 0 {
			continue
		}
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Keep < out[j].Keep })
	return out, nil
}

// textCache reads memories' texts for duplicate checks, each once. Slots
// are only the index's handles: each entry remembers which memory the text
// belongs to, and every comparison checks, under the index lock, that both
// slots still hold those memories.
type textCache struct {
	e       *Engine
	ix      *index
	entries map[uint32]cachedText
}

type cachedText struct {
	id   bson.ObjectID
	text string
}

func (c *textCache) text(ctx context.Context, slot uint32) (cachedText, bool, error) {
	if t, ok := c.entries[slot]; ok {
		return t, true, nil
	}
	c.ix.mu.RLock()
	var id bson.ObjectID
	var k kind
	live := int(slot) < len(c.ix.items) && c.ix.items[slot].live()
	if live {
		id, k = c.ix.items[slot].id, c.ix.items[slot].kind
	}
	c.ix.mu.RUnlock()
	if !live {
		return cachedText{}, false, nil
	}
	m, err := c.e.get(ctx, id, k)
	if errIsNotFound(err) {
		return cachedText{}, false, nil
	}
	if err != nil {
		return cachedText{}, false, err
	}
	t := cachedText{id: id, text: m.Text}
	c.entries[slot] = t
	return t, true, nil
}

// sameFact: identical texts, or nearly the same words stating the same
// details. False when either slot no longer holds the memory whose text was
// read.
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
	current := int(a) < len(c.ix.items) && int(b) < len(c.ix.items) &&
		c.ix.items[a].live() && c.ix.items[b].live() && c.ix.items[a].id == ta.id && c.ix.items[b].id == tb.id
	sameKey := current && c.ix.items[a].key == c.ix.items[b].key
	overlap := 0.0
	if current && !sameKey {
		overlap = c.ix.text.Overlap(a, b)
	}
	c.ix.mu.RUnlock()
	if !current {
		return false, nil
	}
	if sameKey {
		return true, nil
	}
	return overlap >= MergeOverlap && len(facts.Differences(ta.text, tb.text)) == 0, nil
}

func bytesLess(a, b []byte) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// Merge folds duplicates into keep: keep gets the union of their tags and
// the highest importance; the others are soft-forgotten with merged_into
// set, so unforget_memory undoes the merge.
func (e *Engine) Merge(ctx context.Context, keep string, others []string) (int, error) {
	if err := e.wait(ctx); err != nil {
		return 0, err
	}
	keepID, err := parseID(keep)
	if err != nil {
		return 0, err
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	kit, ok := e.index().lookup(keepID)
	if !ok || !kit.live() {
		return 0, nil
	}
	kept, err := e.get(ctx, keepID, kit.kind)
	if err != nil {
		return 0, err
	}
	tags, importance := slices.Clone(kept.Tags), kept.Importance
	var merged []hit
	for _, o := range others {
		id, err := parseID(o)
		if err != nil {
			return 0, err
		}
		it, ok := e.index().lookup(id)
		if !ok || !it.live() || id == keepID {
			continue
		}
		m, err := e.get(ctx, id, it.kind)
		if errIsNotFound(err) {
			continue
		}
		if err != nil {
			return 0, err
		}
		tags = append(tags, m.Tags...)
		importance = max(importance, m.Importance)
		merged = append(merged, hit{id: id, kind: it.kind})
	}
	if len(merged) == 0 {
		return 0, nil
	}
	if tags, err = normalizeTags(tags); err != nil {
		return 0, err
	}
	touched := []bson.ObjectID{keepID}
	for _, h := range merged {
		touched = append(touched, h.id)
	}
	e.markDirty(ctx, touched...)
	now := e.now()
	upd := bson.D{{Key: "$set", Value: bson.D{{Key: "tags", Value: tags}, {Key: "importance", Value: importance}, {Key: "updated_at", Value: now}}}}
	if kit.kind == kindSummary {
		err = e.store.Summaries.Update(ctx, keepID, upd)
	} else {
		err = e.store.Memories.Update(ctx, keepID, upd)
	}
	if err != nil {
		return 0, fmt.Errorf("cannot update the kept memory %s: %w", keep, err)
	}
	if err := e.updateVectorMeta(ctx, keepID, kept.Scope, kept.Timestamp, tags); err != nil {
		e.log.Warn("cannot update the kept memory's embedding metadata", "err", err)
	}
	e.index().put(doc{id: keepID, kind: kit.kind, text: kept.Text, source: kept.Source, scope: kept.Scope, conv: kept.ConversationID, speaker: kept.Speaker,
		tags: tags, ts: kept.Timestamp, created: kept.CreatedAt, importance: importance, useCount: kit.useCount, key: kit.key,
		archived: kept.Archived, pinned: kit.flags&flagPinned != 0, keepVec: true})
	n := 0
	for _, h := range merged {
		fields := bson.D{{Key: "forgotten_at", Value: now}, {Key: "merged_into", Value: keep}, {Key: "updated_at", Value: now}}
		var err error
		if h.kind == kindSummary {
			err = e.store.Summaries.Update(ctx, h.id, bson.D{{Key: "$set", Value: fields}})
		} else {
			err = e.store.Memories.Update(ctx, h.id, bson.D{{Key: "$set", Value: fields}})
		}
		if errIsNotFound(err) {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("cannot merge memory %s: %w", h.id.Hex(), err)
		}
		e.index().setForgotten(h.id, true, now, "", nil)
		n++
	}
	return n, nil
}

// Candidate lists for maintenance jobs. Each returns ids, oldest first.

// ackKeys are the content keys of acknowledgements worth no memory.
var ackKeys = func() map[[16]byte]bool {
	m := map[[16]byte]bool{}
	for _, a := range []string{"ok", "okay", "ok!", "ok.", "k", "kk", "thanks", "thanks!", "thank you", "thank you!", "thx", "ty",
		"sure", "sure!", "got it", "got it!", "cool", "cool!", "great", "great!", "nice", "nice!", "yes", "no", "yep", "nope",
		"lol", "haha", "sounds good", "sounds good!", "perfect", "perfect!", "alright", "np", "no problem", "👍", "🙏", "ok thanks",
		"okay thanks", "thanks a lot", "awesome", "awesome!", "noted", "understood", "will do", "done"} {
		m[contentKey(a)] = true
	}
	return m
}()

// isAck reports whether a memory's text is only an acknowledgement.
func isAck(key [16]byte) bool { return ackKeys[key] }

// NoiseCandidates lists live, unpinned acknowledgements ("ok", "thanks")
// that happened before olderThan.
func (e *Engine) NoiseCandidates(olderThan time.Time) []string {
	return e.candidates(func(it *item) bool {
		return it.live() && it.flags&(flagArchived|flagPinned) == 0 && it.kind == kindMemory && it.ts < olderThan.UnixMilli() && isAck(it.key)
	})
}

// StaleCandidates lists memories relevance pruning may archive: live,
// unarchived, unpinned raw memories (not notes, profile facts or summaries)
// older than olderThan, never recalled, and less important than
// maxImportance (never 0.7 or more).
func (e *Engine) StaleCandidates(olderThan time.Time, maxImportance float64) []string {
	maxImportance = min(maxImportance, 0.7)
	ix := e.index()
	note, _ := ix.sources.lookup(sourceNote)
	profile, _ := ix.sources.lookup(sourceUserProfile)
	return e.candidates(func(it *item) bool {
		return it.live() && it.flags&(flagArchived|flagPinned) == 0 && it.kind == kindMemory &&
			it.source != note && it.source != profile && it.useCount == 0 &&
			float64(it.importance) < maxImportance && it.ts < olderThan.UnixMilli()
	})
}

// PurgeCandidates lists soft-forgotten memories forgotten before before.
func (e *Engine) PurgeCandidates(before time.Time) []string {
	return e.candidates(func(it *item) bool {
		return it.used && it.flags&flagForgotten != 0 && it.forgottenAt > 0 && it.forgottenAt < before.UnixMilli()
	})
}

// candidates lists the ids of items match admits, oldest first.
func (e *Engine) candidates(match func(*item) bool) []string {
	ix := e.index()
	ix.mu.RLock()
	type row struct {
		id string
		ts int64
	}
	var rows []row
	for i := range ix.items {
		if it := &ix.items[i]; match(it) {
			rows = append(rows, row{it.id.Hex(), it.ts})
		}
	}
	ix.mu.RUnlock()
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].ts != rows[j].ts {
			return rows[i].ts < rows[j].ts
		}
		return rows[i].id < rows[j].id
	})
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.id
	}
	return out
}

// Purge deletes soft-forgotten memories for good, with their embeddings.
// Live ones are never touched.
func (e *Engine) Purge(ctx context.Context, ids []string) (int, error) {
	if err := e.wait(ctx); err != nil {
		return 0, err
	}
	oids, err := parseIDs(ids)
	if err != nil {
		return 0, err
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	e.markDirty(ctx, oids...)
	n := 0
	for i, id := range oids {
		s := ids[i]
		it, ok := e.index().lookup(id)
		if !ok || it.flags&flagForgotten == 0 {
			continue
		}
		err = e.deleteOne(ctx, hit{id: id, kind: it.kind})
		if errIsNotFound(err) {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("cannot purge memory %s: %w", s, err)
		}
		n++
	}
	return n, nil
}

// Reconcile checks MemoryIndex against the memories: it deletes embeddings
// whose memory is gone and queues live memories without an embedding of the
// current model. It reads the whole MemoryIndex collection.
func (e *Engine) Reconcile(ctx context.Context) (removed, queued int, err error) {
	if err := e.wait(ctx); err != nil {
		return 0, 0, err
	}
	if e.index().vecs != nil {
		var ghosts []bson.ObjectID
		err = e.store.Index.Iterate(ctx, 500, func(batch []mongostore.IndexEntry) error {
			for i := range batch {
				if _, ok := e.index().lookup(batch[i].SourceID); !ok {
					ghosts = append(ghosts, batch[i].ID)
				}
			}
			return nil
		})
		if err != nil {
			return 0, 0, err
		}
		if len(ghosts) > 0 {
			e.writeMu.Lock()
			e.markDirty(ctx, ghosts...)
			for _, id := range ghosts {
				// Re-check under the lock: the memory may have been stored meanwhile.
				if _, ok := e.index().lookup(id); ok {
					continue
				}
				if _, err := e.store.Index.Delete(ctx, id); err != nil {
					e.writeMu.Unlock()
					return removed, 0, err
				}
				removed++
			}
			e.writeMu.Unlock()
		}
	}
	return removed, e.queueMissingVectors(), nil
}
