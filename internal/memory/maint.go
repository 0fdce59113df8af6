package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/facts"
	"github.com/infmem/infmem/internal/memory/content"
	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
)

// This file holds what scheduled maintenance asks of the engine. Every
// query is answered from the in-memory index; every change goes through the
// engine's write lock in small batches, so live requests interleave.

// ConversationInfo describes one conversation's live, unarchived messages.
type ConversationInfo = memindex.Conversation

// Conversations lists conversations whose newest live message happened
// before olderThan, oldest first.
func (e *Engine) Conversations(olderThan time.Time) []ConversationInfo {
	return e.index().Conversations(olderThan)
}

// ConversationMessages reads a conversation's live, unarchived messages in
// the order they happened.
func (e *Engine) ConversationMessages(ctx context.Context, conv string) ([]Memory, error) {
	return e.fetch(ctx, asHits(e.index().ConversationHits(conv)))
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
	// A summary stored in parts: Whole is the id every part shares, Part
	// this one's number, 1 to Parts (mongostore.Summary). Zero: whole.
	Whole       string
	Part, Parts int
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
	id := e.newID()
	now := e.now()
	key := contentKey(text)
	ts := in.To.UTC().Truncate(time.Millisecond)
	err = e.apply(ctx, &change{op: opInsert, id: id, kind: memindex.KindSummary,
		insert: &mongostore.Summary{
			ID: id, ConversationID: in.ConversationID, SummaryText: text, Scope: in.Scope, Tags: tags, Method: in.Method,
			TimeRange: &mongostore.TimeRange{From: in.From.UTC().Truncate(time.Millisecond), To: ts}, MessageRefs: refs,
			Whole: in.Whole, Part: in.Part, Parts: in.Parts,
			Timestamp: ts, Importance: 0.6, ContentHash: keyHex(key), CreatedAt: now, UpdatedAt: now,
		},
		doc: memindex.Doc{Text: text, Source: sourceSummary, Scope: in.Scope, Conv: in.ConversationID,
			Tags: tags, TS: ts, Created: now, Importance: 0.6, Key: key, Vec: vec},
	})
	if err != nil {
		return "", fmt.Errorf("cannot store the summary of %q: %w", in.ConversationID, err)
	}
	return id.Hex(), nil
}

// SummaryPart is a live summary of a conversation as maintenance sees
// it: the whole summary it belongs to and the messages it condenses.
type SummaryPart struct {
	ID string
	// Whole, Part and Parts: see SummaryInput (zero: a whole summary).
	Whole       string
	Part, Parts int
	// Refs are the messages it condenses (none: the whole conversation,
	// as a summary a client stored).
	Refs []string
}

// ConversationSummaries reads a conversation's live summaries.
func (e *Engine) ConversationSummaries(ctx context.Context, conv string) ([]SummaryPart, error) {
	if err := e.wait(ctx); err != nil {
		return nil, err
	}
	hits := e.index().SummaryHits(conv)
	ids := make([]bson.ObjectID, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	if len(ids) == 0 {
		return nil, nil
	}
	docs, err := e.store.Summaries.GetMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("cannot read the summaries of %q: %w", conv, err)
	}
	out := make([]SummaryPart, 0, len(ids))
	for _, id := range ids {
		d := docs[id]
		if d == nil {
			continue
		}
		p := SummaryPart{ID: id.Hex(), Whole: d.Whole, Part: d.Part, Parts: d.Parts, Refs: make([]string, len(d.MessageRefs))}
		for i, r := range d.MessageRefs {
			p.Refs[i] = r.Hex()
		}
		out = append(out, p)
	}
	return out, nil
}

// DropSummaries deletes summaries for good, with their embeddings:
// maintenance removes the parts of a summary a crash left unfinished once
// the summary is stored whole. Only summaries are touched; it returns how
// many were deleted.
func (e *Engine) DropSummaries(ctx context.Context, ids []string) (int, error) {
	if err := e.wait(ctx); err != nil {
		return 0, err
	}
	done, err := e.writeIDs(ctx, ids, func(_ int, id bson.ObjectID) (*change, error) {
		if it, ok := e.index().Lookup(id); ok && it.Kind == memindex.KindSummary {
			return &change{op: opDelete, id: id, kind: it.Kind}, nil
		}
		return nil, nil
	}, func(c *change, _ int, err error) error {
		return fmt.Errorf("cannot delete summary %s: %w", c.id.Hex(), err)
	})
	return len(done), err
}

// Archive marks live memories archived: kept, exported, recoverable and
// still found by searches with a query (a summary is a way in, never a
// wall), but out of listings, counts and the size limits unless asked
// for. Pinned, forgotten and already archived ones are skipped. It
// returns how many changed.
func (e *Engine) Archive(ctx context.Context, ids []string, reason string) (int, error) {
	if err := e.wait(ctx); err != nil {
		return 0, err
	}
	now := e.now()
	done, err := e.writeIDs(ctx, ids, func(_ int, id bson.ObjectID) (*change, error) {
		it, ok := e.index().Lookup(id)
		if !ok || !it.Live() || it.Has(memindex.FlagArchived|memindex.FlagPinned) {
			return nil, nil
		}
		return &change{op: opFlag, id: id, kind: it.Kind, flag: memindex.FlagArchived, on: true,
			update: bson.D{{Key: "$set", Value: bson.D{{Key: "archived", Value: true}, {Key: "archived_at", Value: now}, {Key: "archive_reason", Value: reason}, {Key: "updated_at", Value: now}}}}}, nil
	}, func(c *change, _ int, err error) error {
		return fmt.Errorf("cannot archive memory %s: %w", c.id.Hex(), err)
	})
	return len(done), err
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
	it, ok := e.index().Lookup(oid)
	if !ok {
		return inputErrorf("no memory has id %s", id)
	}
	err = e.apply(ctx, &change{op: opFlag, id: oid, kind: it.Kind, flag: memindex.FlagPinned, on: pinned,
		update: bson.D{{Key: "$set", Value: bson.D{{Key: "pinned", Value: pinned}, {Key: "updated_at", Value: e.now()}}}}})
	if err != nil {
		return fmt.Errorf("cannot pin memory %s: %w", id, err)
	}
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
	found, err := e.index().DuplicateGroups(ctx, memindex.DedupRequest{
		Threshold: threshold, Since: since, Neighbors: dedupNeighbors, AfterSearch: e.afterDedupSearch,
		Text: func(ctx context.Context, id bson.ObjectID, k memindex.Kind) (string, bool, error) {
			m, err := e.get(ctx, id, k)
			if errIsNotFound(err) {
				return "", false, nil
			}
			return m.Text, err == nil, err
		},
		Same: func(a, b string, overlap float64) bool {
			return overlap >= MergeOverlap && len(facts.Differences(a, b)) == 0
		},
	})
	if err != nil {
		return nil, err
	}
	out := make([]DuplicateGroup, 0, len(found))
	// The memory tool's files are never merged: each is its own file,
	// whatever it says.
	isFile := func(id bson.ObjectID) bool { it, ok := e.index().Lookup(id); return ok && it.Source == sourceFile }
	for _, g := range found {
		if isFile(g.Keep.ID) {
			continue
		}
		dg := DuplicateGroup{Scope: g.Scope, Keep: g.Keep.ID.Hex(), Texts: map[string]string{g.Keep.ID.Hex(): g.Keep.Text}}
		for _, m := range g.Others {
			if isFile(m.ID) {
				continue
			}
			dg.Others = append(dg.Others, m.ID.Hex())
			dg.Texts[m.ID.Hex()] = m.Text
		}
		if len(dg.Others) > 0 {
			out = append(out, dg)
		}
	}
	slices.SortFunc(out, func(a, b DuplicateGroup) int { return cmp.Compare(a.Keep, b.Keep) })
	return out, nil
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
	kit, ok := e.index().Lookup(keepID)
	if !ok || !kit.Live() {
		return 0, nil
	}
	kept, err := e.get(ctx, keepID, kit.Kind)
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
		it, ok := e.index().Lookup(id)
		if !ok || !it.Live() || id == keepID {
			continue
		}
		m, err := e.get(ctx, id, it.Kind)
		if errIsNotFound(err) {
			continue
		}
		if err != nil {
			return 0, err
		}
		tags = append(tags, m.Tags...)
		importance = max(importance, m.Importance)
		merged = append(merged, hit{id: id, kind: it.Kind})
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
	err = e.apply(ctx, &change{op: opEdit, id: keepID, kind: kit.Kind,
		update: bson.D{{Key: "$set", Value: bson.D{{Key: "tags", Value: tags}, {Key: "importance", Value: importance}, {Key: "updated_at", Value: now}}}},
		doc: memindex.Doc{Text: kept.Text, Source: kept.Source, Scope: kept.Scope, Conv: kept.ConversationID, Speaker: kept.Speaker,
			Tags: tags, TS: kept.Timestamp, Created: kept.CreatedAt, Importance: importance, UseCount: kit.UseCount, Key: kit.Key,
			Archived: kept.Archived, Pinned: kit.Has(memindex.FlagPinned), KeepVec: true}})
	if err != nil {
		return 0, fmt.Errorf("cannot update the kept memory %s: %w", keep, err)
	}
	done, err := e.writeBatch(ctx, touched[1:], func(i int, id bson.ObjectID) (*change, error) {
		return &change{op: opForget, id: id, kind: merged[i].kind, at: now,
			update: bson.D{{Key: "$set", Value: bson.D{{Key: "forgotten_at", Value: now}, {Key: "merged_into", Value: keep}, {Key: "updated_at", Value: now}}}}}, nil
	}, func(c *change, _ int, err error) error {
		return fmt.Errorf("cannot merge memory %s: %w", c.id.Hex(), err)
	})
	return len(done), err
}

// Candidate lists for maintenance jobs (memindex's), oldest first.

// NoiseCandidates lists live, unpinned acknowledgements ("ok", "thanks")
// that happened before olderThan (never a memory with a path).
func (e *Engine) NoiseCandidates(olderThan time.Time) []string {
	return e.index().NoiseCandidates(olderThan, content.IsAck, sourceFile)
}

// StaleCandidates lists memories relevance pruning may archive
// (memindex.Index.StaleCandidates): raw memories, not notes, profile
// facts, files or summaries.
func (e *Engine) StaleCandidates(olderThan time.Time, maxImportance float64) []string {
	return e.index().StaleCandidates(olderThan, maxImportance, sourceNote, sourceUserProfile, sourceFile)
}

// PurgeCandidates lists soft-forgotten memories forgotten before before.
func (e *Engine) PurgeCandidates(before time.Time) []string { return e.index().PurgeCandidates(before) }

// Purge deletes soft-forgotten memories for good, with their embeddings.
// Live ones are never touched.
func (e *Engine) Purge(ctx context.Context, ids []string) (int, error) {
	if err := e.wait(ctx); err != nil {
		return 0, err
	}
	done, err := e.writeIDs(ctx, ids, func(_ int, id bson.ObjectID) (*change, error) {
		if it, ok := e.index().Lookup(id); ok && !it.Live() {
			return &change{op: opDelete, id: id, kind: it.Kind}, nil
		}
		return nil, nil
	}, func(c *change, _ int, err error) error {
		return fmt.Errorf("cannot purge memory %s: %w", c.id.Hex(), err)
	})
	return len(done), err
}

// Reconcile checks MemoryIndex against the memories: it deletes embeddings
// whose memory is gone and queues live memories without an embedding of the
// current model. It reads the whole MemoryIndex collection.
func (e *Engine) Reconcile(ctx context.Context) (removed, queued int, err error) {
	if err := e.wait(ctx); err != nil {
		return 0, 0, err
	}
	if e.index().HasVectors() {
		var ghosts []bson.ObjectID
		err = e.store.Index.Iterate(ctx, 500, func(batch []mongostore.IndexEntry) error {
			for i := range batch {
				if _, ok := e.index().Lookup(batch[i].SourceID); !ok {
					ghosts = append(ghosts, batch[i].ID)
				}
			}
			return nil
		})
		if err != nil {
			return 0, 0, err
		}
		e.writeMu.Lock()
		removed, err = e.dropEmbeddings(ctx, ghosts)
		e.writeMu.Unlock()
		if err != nil {
			return removed, 0, err
		}
	}
	return removed, e.queueMissingVectors(), nil
}

// dropEmbeddings deletes the embeddings of memories that no longer exist
// (a crash between a hard delete's two writes) and returns how many. The
// caller holds writeMu, or is loading the index (nothing else writes then).
func (e *Engine) dropEmbeddings(ctx context.Context, ghosts []bson.ObjectID) (int, error) {
	if len(ghosts) == 0 {
		return 0, nil
	}
	e.markDirty(ctx, ghosts...)
	n := 0
	for _, id := range ghosts {
		// Re-check under the lock: the memory may have been stored meanwhile.
		if _, ok := e.index().Lookup(id); ok {
			continue
		}
		if err := e.apply(ctx, &change{op: opDropEmbedding, id: id}); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
