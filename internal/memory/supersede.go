package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/facts"
	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
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
// Store finds the candidates (relate): the memories of the scopes a
// search there reads that are closest to the new text by keywords and
// meaning, and facts.Relate decides. Every mark is a write through apply
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

// Limits of the update detection at store time.
const (
	// relateCandidates is how many close memories are compared.
	relateCandidates = 8
	// relateMinScore: below this keyword coverage + cosine to the new
	// text, a memory is not compared; relateMinCoverage without
	// embeddings.
	relateMinScore    = 0.45
	relateMinCoverage = 0.1
	// relateClaims is how many clauses of a long text that say something
	// changed are looked up on their own, relateClaimCandidates the
	// memories compared for each.
	relateClaims          = 2
	relateClaimCandidates = 3
	// maxUpdates and maxContradictions bound what one store marks.
	maxUpdates        = 3
	maxContradictions = 2
)

// storedLinks is what the index keeps of a stored memory's links.
func storedLinks(m *mongostore.Memory) *memindex.Links {
	l := &memindex.Links{}
	if id, err := bson.ObjectIDFromHex(m.SupersededBy); err == nil {
		l.SupersededBy = id
	}
	for _, c := range m.Contradicts {
		if id, err := bson.ObjectIDFromHex(c); err == nil && len(l.Contradicts) < memindex.MaxContradicts {
			l.Contradicts = append(l.Contradicts, id)
		}
	}
	l.About = m.LinksAbout[:min(len(m.LinksAbout), memindex.MaxAbout)]
	return l
}

// withAbout adds the words a link is about to a memory's (nil: a link
// about the whole memory, which then ranks for any question).
func withAbout(l *memindex.Links, about []string, fresh bool) {
	if about == nil {
		if fresh {
			l.About = nil
		}
		return
	}
	if fresh {
		l.About = nil
	}
	for _, w := range about {
		if !slices.Contains(l.About, w) && len(l.About) < memindex.MaxAbout {
			l.About = append(l.About, w)
		}
	}
}

// related is what relate found for a new memory.
type related struct {
	updates      []Update
	supersededBy *Update
	contradicts  []Update
}

// relate finds the memories that the new memory d updates, is updated
// by, or contradicts, and records the links. The caller holds writeMu and
// has stored d.
//
// Conversation turns (a speaker, or source conversation) say much in
// passing: between them an update needs two words in common and a
// changed number, amount, date or time next to the same word on both
// sides ("snack budget to $65" / "snack budget to $75"); a contradiction
// needs half the words in common; turns of different speakers are never
// compared.
func (e *Engine) relate(ctx context.Context, d *memindex.Doc) (related, error) {
	var out related
	id, text, ts, vec, scope := d.ID, d.Text, d.TS, d.Vec, d.Scope
	set, err := e.searchScopes(scope, "", false)
	if err != nil {
		return out, err
	}
	ix := e.index()
	rq := memindex.RankQuery{Filter: memindex.Filter{Scopes: set}, Terms: ix.Analyze(text), Vector: vec,
		Candidates: relateCandidates + 1, K: relateCandidates + 1, DuplicateOverlap: 1}
	if rq.Terms.Empty() && vec == nil {
		return out, nil
	}
	closeness := func(pool []memindex.Candidate) {
		for i := range pool {
			pool[i].Score = pool[i].Coverage + pool[i].Cos
		}
	}
	best, err := ix.Rank(ctx, rq, closeness)
	if err != nil {
		return out, err
	}
	floor := relateMinScore
	if vec == nil {
		floor = relateMinCoverage
	}
	var hits []hit
	add := func(cd memindex.Candidate, floor float64) {
		if cd.ID == id || cd.Kind != memindex.KindMemory || cd.Score < floor || slices.ContainsFunc(hits, func(h hit) bool { return h.id == cd.ID }) {
			return
		}
		if r := ix.RelatedOf(cd.ID); !r.SupersededBy.IsZero() {
			return // an older version already: its successor is compared
		}
		hits = append(hits, hit{id: cd.ID, kind: cd.Kind, ts: cd.TS})
	}
	for _, cd := range best {
		add(cd, floor)
	}
	// A long text may update an earlier memory in one of its clauses
	// ("…, and I've adjusted the snack budget to $75, …"): the memories
	// closest to each such clause, by its words, are compared too.
	mine := facts.Parse(text)
	for _, claim := range mine.Claims(relateClaims) {
		q := memindex.RankQuery{Filter: rq.Filter, Terms: ix.Analyze(claim), Candidates: relateClaimCandidates + 1, K: relateClaimCandidates + 1, DuplicateOverlap: 1}
		if q.Terms.Empty() {
			continue
		}
		found, err := ix.Rank(ctx, q, closeness)
		if err != nil {
			return out, err
		}
		for _, cd := range found {
			add(cd, relateMinCoverage)
		}
	}
	if len(hits) == 0 {
		return out, nil
	}
	ms, err := e.fetch(ctx, hits)
	if err != nil {
		return out, err
	}
	tsMS := ts.UnixMilli()
	speaker := speakerOf(d.Speaker, text)
	turn := speaker != "" || d.Source == sourceConversation
	type found struct {
		m   Memory
		rel facts.Relation
		// newer: the stored memory is newer than m.
		newer bool
	}
	var ups, downs, contra []found
	for _, m := range ms {
		theirs := speakerOf(m.Speaker, m.Text)
		if speaker != "" && theirs != "" && !strings.EqualFold(speaker, theirs) {
			continue
		}
		other := e.parsed.get(m.ID, m.Text)
		newer := m.Timestamp.UnixMilli() <= tsMS
		var r facts.Relation
		if newer {
			r = facts.RelateParsed(other, mine)
		} else {
			r = facts.RelateParsed(mine, other)
		}
		if turn || theirs != "" || m.Source == sourceConversation {
			switch {
			case r.Kind == facts.Updates && (r.Common < 2 || !r.Anchored):
				continue
			case r.Kind == facts.Contradicts && r.Shared < 0.5:
				continue
			}
		}
		switch {
		case r.Kind == facts.Updates && newer:
			ups = append(ups, found{m, r, true})
		case r.Kind == facts.Updates:
			downs = append(downs, found{m, r, false})
		case r.Kind == facts.Contradicts:
			contra = append(contra, found{m, r, newer})
		}
	}
	// A conversation turn says many things: a link between turns ranks
	// only for questions about what the two share.
	aboutOf := func(f found) []string {
		if !turn && f.m.Speaker == "" && f.m.Source != sourceConversation {
			return nil
		}
		terms := ix.Analyze(strings.Join(f.rel.About, " ")).Terms()
		return terms[:min(len(terms), memindex.MaxAbout)]
	}
	closest := func(a, b found) int { return -cmpFloat(a.rel.Shared, b.rel.Shared) }
	slices.SortStableFunc(ups, closest)
	slices.SortStableFunc(contra, closest)
	slices.SortStableFunc(downs, closest)
	hexID := id.Hex()
	for _, f := range ups[:min(len(ups), maxUpdates)] {
		about := aboutOf(f)
		if err := e.link(ctx, f.m.ID, func(l *memindex.Links) { l.SupersededBy = id; withAbout(l, about, len(l.Contradicts) == 0) }); err != nil {
			return out, err
		}
		out.updates = append(out.updates, Update{ID: f.m.ID, Text: snippet(f.m.Text, 200), DiffersIn: kinds(f.rel.DiffersIn)})
	}
	if len(downs) > 0 {
		f := downs[0]
		succ, _ := bson.ObjectIDFromHex(f.m.ID)
		about := aboutOf(f)
		if err := e.link(ctx, hexID, func(l *memindex.Links) { l.SupersededBy = succ; withAbout(l, about, len(l.Contradicts) == 0) }); err != nil {
			return out, err
		}
		out.supersededBy = &Update{ID: f.m.ID, Text: snippet(f.m.Text, 200), DiffersIn: kinds(f.rel.DiffersIn)}
	}
	for _, f := range contra[:min(len(contra), maxContradictions)] {
		other, _ := bson.ObjectIDFromHex(f.m.ID)
		about := aboutOf(f)
		mark := func(with bson.ObjectID) func(*memindex.Links) {
			return func(l *memindex.Links) {
				fresh := l.SupersededBy.IsZero() && len(l.Contradicts) == 0
				l.Contradicts = addLink(l.Contradicts, with)
				withAbout(l, about, fresh)
			}
		}
		if err := e.link(ctx, f.m.ID, mark(id)); err != nil {
			return out, err
		}
		if err := e.link(ctx, hexID, mark(other)); err != nil {
			return out, err
		}
		out.contradicts = append(out.contradicts, Update{ID: f.m.ID, Text: snippet(f.m.Text, 200), DiffersIn: kinds(f.rel.DiffersIn)})
	}
	return out, nil
}

// speakerOf is who said a memory: its speaker, else the name its text
// starts with ("Caroline: …").
func speakerOf(speaker, text string) string {
	if speaker != "" {
		return speaker
	}
	return facts.Speaker(text)
}

// statementCache keeps memories' texts parsed for update detection, by
// id: the same earlier memories are compared again and again. Used under
// writeMu.
type statementCache struct {
	m map[string]cachedStatement
}

type cachedStatement struct {
	text string
	s    *facts.Statement
}

const statementCacheSize = 2048

func (c *statementCache) get(id, text string) *facts.Statement {
	if st, ok := c.m[id]; ok && st.text == text {
		return st.s
	}
	if c.m == nil || len(c.m) >= statementCacheSize {
		c.m = make(map[string]cachedStatement, statementCacheSize)
	}
	s := facts.Parse(text)
	c.m[id] = cachedStatement{text, s}
	return s
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func kinds(ks []facts.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// addLink adds id to a memory's contradictions, keeping the newest
// memindex.MaxContradicts.
func addLink(list []bson.ObjectID, id bson.ObjectID) []bson.ObjectID {
	if slices.Contains(list, id) {
		return list
	}
	list = append(list, id)
	if len(list) > memindex.MaxContradicts {
		list = list[len(list)-memindex.MaxContradicts:]
	}
	return list
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
		unset = append(unset, bson.E{Key: "superseded_by", Value: ""})
	} else {
		set = append(set, bson.E{Key: "superseded_by", Value: l.SupersededBy.Hex()})
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
	l.SupersededBy = to
	return l, true, nil
}
