package memindex

import (
	"reflect"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/textindex"
)

// A store's update check ranks the new memory's own text against the
// others once the memory is in the index, so its keyword statistics count
// it (Rank, recall.Candidates). The keyword stage of that Rank, a walk of
// every posting of the text's words (most of the Rank's time at 100k),
// needs only the keyword index as it will be: KeywordsAhead draws its hits
// before the memory is put in the index (textindex.SearchPending), while
// the memory is written to the database, and the Rank takes them when the
// memory's Put was the only change since; otherwise it searches as before.

// A retrieval's Rank waits for its query's embedding (a millisecond or
// two) before it draws its keyword hits, while the keyword stage needs only
// the query's terms: KeywordsFirst draws them while the query is embedded,
// and the Rank takes them when the index has not changed since.

// KeywordPass holds the keyword hits of a Rank drawn before its new memory
// was in the index (KeywordsAhead), or before the Rank for the index as it
// was (KeywordsFirst).
type KeywordPass struct {
	ix     *Index
	gen    uint64 // the index's generation when drawn; the Put makes it gen+1
	now    bool   // drawn by KeywordsFirst: valid while the generation is gen
	id     bson.ObjectID
	slot   uint32 // the slot the Put was to give the memory
	filter Filter
	terms  textindex.Query
	k      int
	hits   []textindex.Hit
}

// KeywordsAhead draws, before the memory id with text is put in the
// index, the keyword hits a Rank of terms over f drawing k candidates will
// draw once it is. The caller makes that Put the next change of the index
// (it holds the engine's write lock); nil when the memory is in the index
// already.
func (ix *Index) KeywordsAhead(id bson.ObjectID, text string, terms textindex.Query, f Filter, k int) *KeywordPass {
	doc := ix.text.Analyze(text)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if _, ok := ix.byID[id]; ok || k <= 0 || terms.Empty() {
		return nil
	}
	// Put's choice of a slot for a new memory.
	slot := uint32(len(ix.items))
	if n := len(ix.free); n > 0 {
		slot = ix.free[n-1]
	}
	c := ix.compileLocked(f)
	allowed, _ := ix.allowedLocked(&c)
	allow := func(s textindex.DocID) bool { return allowed != nil && allowed.Has(uint32(s)) }
	// The memory itself is admitted: the Rank checks that it is.
	hits, ok := ix.text.SearchPending(terms, k, allow, slot, doc, true)
	if !ok {
		return nil
	}
	return &KeywordPass{ix: ix, gen: ix.gen, id: id, slot: slot, filter: f, terms: terms, k: k, hits: hits}
}

// KeywordsFirst draws the keyword hits a Rank of terms over f drawing k
// candidates draws while the index is as it is now (every write but Touch
// changes its generation, and the keyword stage reads nothing Touch
// writes). nil when there is nothing to draw.
func (ix *Index) KeywordsFirst(terms textindex.Query, f Filter, k int) *KeywordPass {
	if k <= 0 || terms.Empty() {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.compileLocked(f)
	allowed, n := ix.allowedLocked(&c)
	if n == 0 {
		return nil
	}
	// As Rank's keyword stage searches.
	hits := ix.text.SearchQuery(terms, k, func(s textindex.DocID) bool { return allowed.Has(uint32(s)) })
	return &KeywordPass{ix: ix, gen: ix.gen, now: true, filter: f, terms: terms, k: k, hits: hits}
}

// keywordPassLocked returns the hits of q's keyword pass when they are
// what the keyword search would find now: drawn by KeywordsFirst with no
// change of the index since, or by KeywordsAhead with the pass's memory put
// in the slot foreseen, by the only change since, and q's filter admitting
// it.
func (ix *Index) keywordPassLocked(q *RankQuery, admitted func(uint32) bool) ([]textindex.Hit, bool) {
	p := q.Keywords
	if p == nil || p.ix != ix || p.k != q.Candidates || !p.terms.Equal(q.Terms) || !reflect.DeepEqual(p.filter, q.Filter) {
		return nil, false
	}
	if p.now {
		return p.hits, p.gen == ix.gen
	}
	if p.gen+1 != ix.gen {
		return nil, false
	}
	if slot, ok := ix.byID[p.id]; !ok || slot != p.slot || !admitted(slot) {
		return nil, false
	}
	return p.hits, true
}
