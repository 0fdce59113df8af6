package memory

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// Relations is how a memory stands to others: what was merged into it and
// what it was merged into, and, within a conversation, the summaries and
// the messages they were made from. Its own earlier versions are in
// Memory.History (an edit keeps the previous text in the document; the
// engine records no other supersession).
type Relations struct {
	// MergedInto is the memory this forgotten duplicate was merged into
	// (nil when it was not, or that memory is gone).
	MergedInto *Memory
	// Merged are the duplicates merged into this memory, newest merge
	// first (at most MaxRelated).
	Merged []Memory
	// MergedUnchecked counts forgotten memories that may have been merged
	// into it but were not read: past the bound of candidates checked.
	MergedUnchecked int
	// Sources are, for a summary, the conversation's messages it was made
	// from, in the order they happened (at most MaxRelated; archived and
	// forgotten ones included). SourcesTotal counts them all and
	// SourcesGone those no longer stored (deleted for good).
	Sources                   []Memory
	SourcesTotal, SourcesGone int
	// Summaries are, for a message of a conversation, the summaries of
	// that conversation.
	Summaries []Memory
}

// MaxRelated bounds each list of Relations.
const MaxRelated = 200

// mergeCandidates bounds the forgotten memories read to find those merged
// into one memory.
var mergeCandidates = 200

// Relations reads how the memory id stands to others (reads only). Every
// list comes from the in-memory index and reads documents by _id; nothing
// scans a collection:
//   - merged into it: a merge soft-forgets duplicates of the kept memory's
//     scope with merged_into set, so the candidates are the index's
//     forgotten memories of that scope (or of a scope it was moved from),
//     forgotten since it was stored, newest first, up to mergeCandidates
//     of them, checked by their merged_into;
//   - a summary's messages: its message_refs, or without them its
//     conversation's messages in the index;
//   - a message's summaries: the summaries of its conversation in the index.
func (e *Engine) Relations(ctx context.Context, id string) (Relations, error) {
	m, err := e.Get(ctx, id)
	if err != nil {
		return Relations{}, err
	}
	var out Relations
	if m.MergedInto != "" {
		if kept, err := e.Get(ctx, m.MergedInto); err == nil {
			out.MergedInto = &kept
		} else if !IsInputError(err) && !isNotFound(err) {
			return Relations{}, err
		}
	}
	if out.Merged, out.MergedUnchecked, err = e.mergedInto(ctx, m); err != nil {
		return Relations{}, err
	}
	if m.Source == sourceSummary {
		if err := e.summarySources(ctx, m, &out); err != nil {
			return Relations{}, err
		}
	} else if m.ConversationID != "" {
		var hits []hit
		for _, h := range e.index().ConversationAll(m.ConversationID) {
			if h.Kind == memindex.KindSummary {
				hits = append(hits, hit{id: h.ID, kind: h.Kind, ts: h.TS})
			}
		}
		if out.Summaries, err = e.fetch(ctx, hits[:min(len(hits), MaxRelated)]); err != nil {
			return Relations{}, err
		}
	}
	return out, nil
}

func isNotFound(err error) bool {
	return err != nil && (errIsNotFound(err) || errors.Is(err, ErrNotFound))
}

// mergedInto finds the duplicates merged into m.
func (e *Engine) mergedInto(ctx context.Context, m Memory) ([]Memory, int, error) {
	scopeSet := []string{m.Scope}
	for _, r := range m.History {
		if r.Scope != "" && !slices.Contains(scopeSet, r.Scope) {
			scopeSet = append(scopeSet, r.Scope)
		}
	}
	ix := e.index()
	found, _ := ix.Scan(memindex.Filter{Scopes: scopeSet, OnlyForgotten: true, IncludeArchived: true}, memindex.Newest, 0, 0)
	self, err := parseID(m.ID)
	if err != nil {
		return nil, 0, err
	}
	since := m.CreatedAt.UnixMilli()
	type cand struct {
		hit
		at int64
	}
	var cands []cand
	for _, h := range found {
		if h.ID == self {
			continue
		}
		if it, ok := ix.Lookup(h.ID); ok && it.ForgottenAt >= since {
			cands = append(cands, cand{hit{id: h.ID, kind: h.Kind, ts: h.TS}, it.ForgottenAt})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if c := cmp.Compare(b.at, a.at); c != 0 {
			return c
		}
		return bytes.Compare(a.id[:], b.id[:])
	})
	unchecked := max(0, len(cands)-mergeCandidates)
	hits := make([]hit, 0, min(len(cands), mergeCandidates))
	for _, c := range cands[:len(cands)-unchecked] {
		hits = append(hits, c.hit)
	}
	read, err := e.fetch(ctx, hits)
	if err != nil {
		return nil, 0, err
	}
	var merged []Memory
	for _, r := range read {
		if into, err := parseID(r.MergedInto); err == nil && into == self && len(merged) < MaxRelated {
			merged = append(merged, r)
		}
	}
	return merged, unchecked, nil
}

// summarySources lists the messages a summary was made from.
func (e *Engine) summarySources(ctx context.Context, m Memory, out *Relations) error {
	oid, err := parseID(m.ID)
	if err != nil {
		return err
	}
	doc, err := e.store.Summaries.Get(ctx, oid)
	if errIsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read summary %s: %w", m.ID, err)
	}
	var hits []hit
	if len(doc.MessageRefs) > 0 {
		out.SourcesTotal = len(doc.MessageRefs)
		for _, ref := range doc.MessageRefs {
			it, ok := e.index().Lookup(ref)
			if !ok {
				out.SourcesGone++
				continue
			}
			hits = append(hits, hit{id: ref, kind: it.Kind, ts: it.TS})
		}
	} else if m.ConversationID != "" {
		for _, h := range e.index().ConversationAll(m.ConversationID) {
			if h.Kind == memindex.KindMemory {
				hits = append(hits, hit{id: h.ID, kind: h.Kind, ts: h.TS})
			}
		}
		out.SourcesTotal = len(hits)
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.ts, b.ts) })
	read, err := e.fetch(ctx, hits[:min(len(hits), MaxRelated)])
	if err != nil {
		return err
	}
	// A document deleted since the index was read is left out by fetch.
	out.SourcesGone += min(len(hits), MaxRelated) - len(read)
	out.Sources = read
	return nil
}
