package memory

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/facts"
	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/memory/recall"
)

// Knowledge updates. When a new memory states a changed value of what an
// earlier one said ("The Apollo launch deadline is December 12", then
// "The Apollo launch has been moved to December 19"), the earlier one is
// kept but marked superseded by the newer: its superseded_by names the
// newer memory. The mark counts only while the newer memory is live, so
// forgetting the newer makes the older current again, and it can be
// cleared (update_memory superseded_by ""). A recall ranks a superseded
// memory just below its successor, lifting the successor to where the
// older one would have ranked, and every result says what it supersedes
// or is superseded by, so the answer can be "December 19 (moved from
// December 12)". A newer memory that contradicts an older one without
// saying it changed ("I have never used Flask" after "I wrote the Flask
// routes") is linked to it both ways (contradicts), and the two are
// recalled together so the user can be asked which holds.
//
// Store finds the candidates and compares them (relate, over
// recall.Candidates and recall.Relate: the memories of the scopes a search
// there reads that are closest to the new text by keywords and meaning,
// facts.Relate deciding); the engine records the links. Every mark is a write through apply
// (opLink), so the journal, the sync feed and backups carry it.

// Update is an earlier memory that a new one replaces (or, for
// StoreResult.SupersededBy, the newer memory that replaces the one just
// stored).
type Update struct {
	ID   string
	Text string
	// DiffersIn lists the kinds of detail that changed (date, name, …).
	DiffersIn []string
}

// related is what relate found for a new memory.
type related struct {
	updates      []Update
	supersededBy *Update
	contradicts  []Update
}

// relate finds the memories that the new memory d updates, is updated
// by, or contradicts (recall.Candidates, recall.Relate), and records the
// links. The caller holds writeMu and has stored d; pass, when not nil,
// holds the vector candidates drawn before (memindex.SimilarPass), kw the
// keyword candidates (memindex.KeywordsAhead), mine d's text parsed
// (nil: relate parses it).
func (e *Engine) relate(ctx context.Context, d *memindex.Doc, pass *memindex.VectorPass, kw *memindex.KeywordPass, mine *facts.Statement) (related, error) {
	var out related
	id := d.ID
	set, err := e.searchScopes(d.Scope, "", false)
	if err != nil {
		return out, err
	}
	ix := e.index()
	cands, mine, near, err := recall.Candidates(ctx, ix, memindex.Filter{Scopes: set}, d, pass, kw, mine)
	if err != nil || len(cands) == 0 {
		return out, err
	}
	hits := make([]hit, len(cands))
	for i, cd := range cands {
		hits[i] = hit{id: cd.ID, kind: cd.Kind, ts: cd.TS}
	}
	ms, err := e.fetch(ctx, hits)
	if err != nil {
		return out, err
	}
	cos := make(map[string]float64, len(cands))
	for _, cd := range cands {
		cos[cd.ID.Hex()] = cd.Cos
	}
	closest := cands[0].ID.Hex()
	known := make([]recall.Known, len(ms))
	nearest := ""
	if near.At >= 0 {
		nearest = cands[near.At].ID.Hex()
	}
	for i, m := range ms {
		known[i] = recall.Known{ID: m.ID, Text: m.Text, Speaker: m.Speaker, Source: m.Source, At: m.Timestamp, Closest: m.ID == closest, Cos: cos[m.ID],
			Nearest: m.ID == nearest, UnderFloor: near.UnderFloor && m.ID == nearest}
	}
	rel := recall.Relate(ix, d, mine, known, &e.parsed)
	hexID := id.Hex()
	update := func(f recall.Found) Update {
		return Update{ID: ms[f.At].ID, Text: snippet(ms[f.At].Text, 200), DiffersIn: f.DiffersIn}
	}
	for _, f := range rel.Updates {
		about, meaning := f.About, f.ByMeaning
		if err := e.link(ctx, ms[f.At].ID, func(l *memindex.Links) {
			l.SupersededBy, l.ByMeaning = id, meaning
			l.WithAbout(about, len(l.Contradicts) == 0)
		}); err != nil {
			return out, err
		}
		out.updates = append(out.updates, update(f))
	}
	if f := rel.SupersededBy; f != nil {
		succ, _ := bson.ObjectIDFromHex(ms[f.At].ID)
		about, meaning := f.About, f.ByMeaning
		if err := e.link(ctx, hexID, func(l *memindex.Links) {
			l.SupersededBy, l.ByMeaning = succ, meaning
			l.WithAbout(about, len(l.Contradicts) == 0)
		}); err != nil {
			return out, err
		}
		u := update(*f)
		out.supersededBy = &u
	}
	for _, f := range rel.Contradicts {
		other, _ := bson.ObjectIDFromHex(ms[f.At].ID)
		about := f.About
		mark := func(with bson.ObjectID) func(*memindex.Links) {
			return func(l *memindex.Links) {
				fresh := l.SupersededBy.IsZero() && len(l.Contradicts) == 0
				l.AddContradiction(with)
				l.WithAbout(about, fresh)
			}
		}
		if err := e.link(ctx, ms[f.At].ID, mark(id)); err != nil {
			return out, err
		}
		if err := e.link(ctx, hexID, mark(other)); err != nil {
			return out, err
		}
		out.contradicts = append(out.contradicts, update(f))
	}
	return out, nil
}

// link changes the links of memory idHex through apply. The caller holds
// writeMu.
func (e *Engine) link(ctx context.Context, idHex string, change func(*memindex.Links)) error {
	id, err := parseID(idHex)
	if err != nil {
		return err
	}
	it, ok := e.index().Lookup(id)
	if !ok || it.Kind != memindex.KindMemory {
		return nil
	}
	l := e.index().LinksOf(id)
	change(&l)
	return e.applyLinks(ctx, id, l)
}

// applyLinks writes the links of a memory. The caller holds writeMu.
func (e *Engine) applyLinks(ctx context.Context, id bson.ObjectID, l memindex.Links) error {
	set, unset := bson.D{}, bson.D{}
	if l.SupersededBy.IsZero() {
		l.ByMeaning = false
		unset = append(unset, bson.E{Key: "superseded_by", Value: ""})
	} else {
		set = append(set, bson.E{Key: "superseded_by", Value: l.SupersededBy.Hex()})
	}
	if l.ByMeaning {
		set = append(set, bson.E{Key: "links_by_meaning", Value: true})
	} else {
		unset = append(unset, bson.E{Key: "links_by_meaning", Value: ""})
	}
	if len(l.Contradicts) == 0 {
		unset = append(unset, bson.E{Key: "contradicts", Value: ""})
	} else {
		ids := make([]string, len(l.Contradicts))
		for i, c := range l.Contradicts {
			ids[i] = c.Hex()
		}
		set = append(set, bson.E{Key: "contradicts", Value: ids})
	}
	if len(l.About) == 0 || l.Empty() {
		l.About = nil
		unset = append(unset, bson.E{Key: "links_about", Value: ""})
	} else {
		set = append(set, bson.E{Key: "links_about", Value: l.About})
	}
	var update bson.D
	if len(set) > 0 {
		update = append(update, bson.E{Key: "$set", Value: set})
	}
	if len(unset) > 0 {
		update = append(update, bson.E{Key: "$unset", Value: unset})
	}
	c := change{op: opLink, id: id, kind: memindex.KindMemory, update: update, doc: memindex.Doc{Links: &l}}
	if err := e.apply(ctx, &c); err != nil {
		return fmt.Errorf("cannot mark memory %s: %w", id.Hex(), err)
	}
	return nil
}

// withRelated fills the SupersededBy, Supersedes and Contradicts of
// memories just read, from the index's links, with the related memories'
// texts.
func (e *Engine) withRelated(ctx context.Context, ms []Memory) {
	ix := e.index()
	texts := map[string]string{}
	for _, m := range ms {
		texts[m.ID] = m.Text
	}
	text := func(id bson.ObjectID) string {
		if t, ok := texts[id.Hex()]; ok {
			return snippet(t, 200)
		}
		m, err := e.get(ctx, id, memindex.KindMemory)
		if err != nil {
			return ""
		}
		texts[id.Hex()] = m.Text
		return snippet(m.Text, 200)
	}
	for i := range ms {
		id, err := bson.ObjectIDFromHex(ms[i].ID)
		if err != nil {
			continue
		}
		r := ix.RelatedOf(id)
		if r.Empty() {
			continue
		}
		if !r.SupersededBy.IsZero() {
			ms[i].SupersededBy = &Link{ID: r.SupersededBy.Hex(), Text: text(r.SupersededBy)}
		}
		for _, o := range r.Supersedes {
			ms[i].Supersedes = append(ms[i].Supersedes, Link{ID: o.Hex(), Text: text(o)})
		}
		for _, o := range r.Contradicts {
			ms[i].Contradicts = append(ms[i].Contradicts, Link{ID: o.Hex(), Text: text(o)})
		}
	}
}

// supersededLinks checks update_memory's superseded_by for memory id:
// the links id would hold, and whether they change ("" clears the mark).
func (e *Engine) supersededLinks(id bson.ObjectID, succ string) (memindex.Links, bool, error) {
	l := e.index().LinksOf(id)
	var to bson.ObjectID
	if succ != "" {
		var err error
		if to, err = parseID(succ); err != nil {
			return l, false, err
		}
		if to == id {
			return l, false, inputErrorf("a memory cannot supersede itself; superseded_by names the newer memory that replaces it")
		}
		if it, ok := e.index().Lookup(to); !ok || !it.Live() {
			return l, false, inputErrorf("superseded_by %s is not a live memory; name the newer memory that replaces this one", succ)
		}
	}
	if l.SupersededBy == to {
		return l, false, nil
	}
	l.SupersededBy, l.ByMeaning = to, false
	return l, true, nil
}
