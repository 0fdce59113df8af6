package memory

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
)

// Memory is a memory or summary as returned to clients.
type Memory struct {
	ID     string
	Text   string
	Source string
	// Path is a file's path in the memory tool's /memories (source file).
	Path           string
	Collection     string
	Timestamp      time.Time
	Scope          string
	Tags           []string
	Importance     float64
	Category       string
	ConversationID string
	Speaker        string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	UseCount       int64
	LastAccessed   *time.Time
	ForgottenAt    *time.Time
	Archived       bool
	Pinned         bool
	MergedInto     string
	History        []mongostore.Revision
	// Confidence is the relevance to the query, 0–1; set by searches only.
	Confidence float64
	// Weak: the confidence is under the relevance bar (searches only).
	Weak bool
	// Evidence explains a ranked result (searches with a query only).
	Evidence *Evidence
	// Folded is how many other copies of the same fact this result stands
	// for (searches with a query only; see curated).
	Folded int
	// Context are the turns next to it in its conversation that ranking
	// folded into it, as part of this result (recall.Options.FoldShare;
	// searches with a query only).
	Context []Turn
	// SupersededBy is the newer memory that updates this one; Supersedes
	// the older ones it updates; Contradicts those that contradict it
	// (supersede.go). Only live memories are named.
	SupersededBy *Link
	Supersedes   []Link
	Contradicts  []Link
}

// Turn is a conversation turn shown as a result's context.
type Turn struct {
	ID, Text, Speaker string
	Timestamp         time.Time
}

// Link names a related memory.
type Link struct {
	ID   string
	Text string
}

func fromMemory(m *mongostore.Memory) Memory {
	return Memory{
		ID: m.ID.Hex(), Text: m.Text, Source: m.Source, Path: m.Path, Collection: mongostore.ConversationHistory, Timestamp: m.Timestamp,
		Scope: m.Scope, Tags: nonNil(m.Tags), Importance: m.Importance, Category: m.Category, ConversationID: m.ConversationID,
		Speaker: m.Speaker, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, UseCount: m.UseCount, LastAccessed: m.LastAccessed,
		ForgottenAt: m.ForgottenAt, Archived: m.Archived, Pinned: m.Pinned, MergedInto: m.MergedInto, History: m.History,
	}
}

func fromSummary(s *mongostore.Summary) Memory {
	return Memory{
		ID: s.ID.Hex(), Text: s.SummaryText, Source: sourceSummary, Collection: mongostore.Summaries, Timestamp: s.Timestamp,
		Scope: s.Scope, Tags: nonNil(s.Tags), Importance: s.Importance, ConversationID: s.ConversationID,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, UseCount: s.UseCount, LastAccessed: s.LastAccessed,
		ForgottenAt: s.ForgottenAt, Archived: s.Archived, Pinned: s.Pinned, MergedInto: s.MergedInto, History: s.History,
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// hit is a memory to fetch: where the index found it and, for a ranked
// result, how relevant it is.
type hit struct {
	id    bson.ObjectID
	kind  memindex.Kind
	score float64
	// weak: under the relevance bar.
	weak bool
	ts   int64
	ev   *Evidence
	// folded are the copies of this result that ranking folded into it;
	// context the turns next to it that it shows with it.
	folded, context []memindex.Hit
	// uncut is its place without the coordination cut (recall.Hit.Uncut).
	uncut int
}

// asHits turns what the index found into hits.
func asHits(found []memindex.Hit) []hit {
	out := make([]hit, len(found))
	for i, h := range found {
		out[i] = hit{id: h.ID, kind: h.Kind, score: h.Score, ts: h.TS}
	}
	return out
}

// fetch reads the documents of hits by _id, in order: one read of each
// collection for all of them. A document deleted since the index was read
// is left out.
func (e *Engine) fetch(ctx context.Context, hits []hit) ([]Memory, error) {
	res, _, err := e.fetchAlso(ctx, hits, nil)
	return res, err
}

// fetchAlso is fetch reading the documents of also in the same reads (a
// search's results and the turns folded into them): one statement of each
// collection for both lists, instead of one for each.
func (e *Engine) fetchAlso(ctx context.Context, hits, also []hit) (res, more []Memory, err error) {
	var mids, sids []bson.ObjectID
	for _, list := range [2][]hit{hits, also} {
		for _, h := range list {
			if h.kind == memindex.KindSummary {
				sids = append(sids, h.id)
			} else {
				mids = append(mids, h.id)
			}
		}
	}
	var ms map[bson.ObjectID]*mongostore.Memory
	var ss map[bson.ObjectID]*mongostore.Summary
	if len(mids) > 0 {
		if ms, err = e.store.Memories.GetMany(ctx, mids); err != nil {
			return nil, nil, fmt.Errorf("cannot read memories: %w", err)
		}
	}
	if len(sids) > 0 {
		if ss, err = e.store.Summaries.GetMany(ctx, sids); err != nil {
			return nil, nil, fmt.Errorf("cannot read summaries: %w", err)
		}
	}
	read := func(hits []hit) []Memory {
		res := make([]Memory, 0, len(hits))
		for _, h := range hits {
			var m Memory
			if h.kind == memindex.KindSummary {
				s := ss[h.id]
				if s == nil {
					continue
				}
				m = fromSummary(s)
			} else {
				d := ms[h.id]
				if d == nil {
					continue
				}
				m = fromMemory(d)
			}
			m.Confidence, m.Weak, m.Evidence = h.score, h.weak, h.ev
			res = append(res, m)
		}
		return res
	}
	return read(hits), read(also), nil
}

func (e *Engine) get(ctx context.Context, id bson.ObjectID, k memindex.Kind) (Memory, error) {
	if k == memindex.KindSummary {
		s, err := e.store.Summaries.Get(ctx, id)
		if err != nil {
			return Memory{}, err
		}
		return fromSummary(s), nil
	}
	m, err := e.store.Memories.Get(ctx, id)
	if err != nil {
		return Memory{}, err
	}
	return fromMemory(m), nil
}

// Get reads one memory by id, forgotten or not.
func (e *Engine) Get(ctx context.Context, id string) (Memory, error) {
	if err := e.wait(ctx); err != nil {
		return Memory{}, err
	}
	oid, err := parseID(id)
	if err != nil {
		return Memory{}, err
	}
	it, ok := e.index().Lookup(oid)
	if !ok {
		return Memory{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	e.usesMu.RLock()
	m, err := e.get(ctx, oid, it.Kind)
	n, at := e.access.Lookup(oid)
	e.usesMu.RUnlock()
	if errIsNotFound(err) {
		return Memory{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err == nil {
		// Uses not yet written (package usecount) count already.
		if n > 0 {
			m.UseCount += n
			m.LastAccessed = &at
		}
		ms := []Memory{m}
		e.withRelated(ctx, ms)
		m = ms[0]
	}
	return m, err
}
