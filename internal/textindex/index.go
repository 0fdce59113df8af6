package textindex

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// DocID identifies a document. IDs are dense slot numbers allocated by the
// caller; the index sizes per-document arrays by the largest ID it has seen.
type DocID = uint32

// MaxDocID is the largest DocID the index accepts. Postings pack the document
// ID and the term frequency into one uint32 (26 + 6 bits), which keeps a
// posting at four bytes.
const MaxDocID DocID = 1<<docBits - 1

const (
	docBits = 26
	docMask = 1<<docBits - 1
	// maxTF is the largest term frequency a posting records: a term repeated
	// more often in one memory scores as if it occurred 63 times. BM25's
	// term-frequency curve is flat by then (at K1 = 1.2 and average length,
	// tf = 63 already gives 98 % of the maximum).
	maxTF = 1<<(32-docBits) - 1
)

// Hit is one search result.
type Hit struct {
	ID    DocID
	Score float64
}

// Options configures ranking and analysis. Start from DefaultOptions; the zero
// value is valid but means K1 = 0 and B = 0 (binary term weights, no length
// normalisation) with neither stop words nor stemming.
type Options struct {
	K1        float64 // term-frequency saturation, >= 0 (default 1.2)
	B         float64 // length normalisation in [0, 1] (default 0.75)
	StopWords bool    // drop English stop words (default on)
	Stemming  bool    // reduce English words to their Porter2 stem (default on)
}

// DefaultOptions returns the standard BM25 parameters with stop words and
// stemming on.
func DefaultOptions() Options {
	return Options{K1: 1.2, B: 0.75, StopWords: true, Stemming: true}
}

// Index is an in-memory BM25 keyword index. All methods are safe for
// concurrent use: searches share a read lock and writers take it exclusively
// for the tens of microseconds an update takes (analysis happens before the
// lock is taken).
//
// Layout: a term dictionary maps each term to a dense term ID; every term has
// an unordered posting list of packed (doc, tf) words; every document has a
// forward list of its term IDs, sorted, one entry per occurrence (so a run's
// length is the term frequency). The forward list makes Remove and replace
// touch only the document's own terms and lets ScoreDocs score a document
// without scanning postings. Removal is eager (swap-delete from each posting
// list), so document frequencies are exact and no compaction is ever needed.
type Index struct {
	opts Options
	an   analyzer

	mu        sync.RWMutex
	dict      map[string]uint32
	terms     []termInfo
	freeTerms []uint32   // IDs of terms whose last posting was removed
	docLen    []uint32   // by DocID: number of terms; read on every posting scored
	fwd       [][]uint32 // by DocID: sorted term IDs, one per occurrence
	live      []uint64   // bitset of DocIDs present
	nDocs     int
	totalLen  uint64 // sum of docLen over live docs
	nPostings int
	// Documents set aside (SetAside) are searched and scored like any
	// other but left out of the collection statistics: nAside of them,
	// asideLen terms, asideDF[term] of them holding each term.
	aside    []uint64 // bitset of DocIDs set aside
	nAside   int
	asideLen uint64
	asideDF  map[uint32]uint32

	bufs chan *searchBuf // bounded free list of scoring buffers

	// byShape lists term IDs by first byte and length, with each term's
	// byte mask, for Fuzzy.
	byShape map[uint16]shapeList

	mapped int64 // bytes of arena mapped outside the heap (arena.go)
}

type termInfo struct {
	name     string
	postings []uint32 // doc | min(tf, maxTF)<<docBits, in no particular order
	// maxTF bounds the recorded term frequency of every posting: the
	// largest one added since the term was created (a removal leaves it).
	maxTF uint8
}

// New returns an empty index. It panics when K1 is negative or B is outside
// [0, 1], which is a programming error.
func New(opts Options) *Index {
	if !(opts.K1 >= 0) || math.IsInf(opts.K1, 0) || !(opts.B >= 0 && opts.B <= 1) {
		panic(fmt.Sprintf("textindex: invalid BM25 parameters K1=%v B=%v", opts.K1, opts.B))
	}
	return &Index{
		opts: opts,
		an:   analyzer{stopWords: opts.StopWords, stemming: opts.Stemming},
		dict: make(map[string]uint32),
		bufs: make(chan *searchBuf, runtime.GOMAXPROCS(0)),
	}
}

// Options returns the options the index was built with.
func (ix *Index) Options() Options { return ix.opts }

// Len returns the number of documents in the index.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.nDocs
}

// Has reports whether id is in the index.
func (ix *Index) Has(id DocID) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.isLive(id)
}

func (ix *Index) isLive(id DocID) bool {
	w := int(id >> 6)
	return w < len(ix.live) && ix.live[w]&(1<<(id&63)) != 0
}

// Add indexes text under id, replacing what id held before. Text that
// analyses to no terms still counts as a document (it can never match). Add
// panics if id exceeds MaxDocID.
func (ix *Index) Add(id DocID, text string) {
	if id > MaxDocID {
		panic(fmt.Sprintf("textindex: DocID %d exceeds MaxDocID %d", id, MaxDocID))
	}
	tl := getTokenList()
	defer putTokenList(tl)
	ix.an.appendTokens(tl, text)
	var fwd []uint32
	if n := tl.len(); n > 0 {
		fwd = make([]uint32, n)
	}

	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.removeLocked(id)
	for i := range fwd {
		fwd[i] = ix.termIDLocked(tl.at(i))
	}
	slices.Sort(fwd)
	for i := 0; i < len(fwd); {
		j := i + 1
		for j < len(fwd) && fwd[j] == fwd[i] {
			j++
		}
		tf := min(j-i, maxTF)
		t := &ix.terms[fwd[i]]
		t.postings = append(t.postings, id|uint32(tf)<<docBits)
		t.maxTF = max(t.maxTF, uint8(tf))
		ix.nPostings++
		i = j
	}
	ix.growDocs(id)
	ix.docLen[id] = uint32(len(fwd))
	ix.fwd[id] = fwd
	ix.live[id>>6] |= 1 << (id & 63)
	ix.nDocs++
	ix.totalLen += uint64(len(fwd))
}

func (ix *Index) termIDLocked(tok []byte) uint32 {
	if id, ok := ix.dict[string(tok)]; ok {
		return id
	}
	name := string(tok)
	var id uint32
	if n := len(ix.freeTerms); n > 0 {
		id = ix.freeTerms[n-1]
		ix.freeTerms = ix.freeTerms[:n-1]
		ix.terms[id] = termInfo{name: name}
	} else {
		id = uint32(len(ix.terms))
		ix.terms = append(ix.terms, termInfo{name: name})
	}
	ix.dict[name] = id
	ix.shapeAddLocked(id, name)
	return id
}

func (ix *Index) growDocs(id DocID) {
	n := int(id) + 1
	if n > len(ix.docLen) {
		ix.docLen = slices.Grow(ix.docLen, n-len(ix.docLen))[:n]
		ix.fwd = slices.Grow(ix.fwd, n-len(ix.fwd))[:n]
	}
	if w := int(id>>6) + 1; w > len(ix.live) {
		ix.live = slices.Grow(ix.live, w-len(ix.live))[:w]
	}
}

// Remove deletes id from the index; removing an absent id does nothing.
func (ix *Index) Remove(id DocID) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.removeLocked(id)
}

func (ix *Index) removeLocked(id DocID) {
	if !ix.isLive(id) {
		return
	}
	ix.setAsideLocked(id, false)
	fwd := ix.fwd[id]
	for i := 0; i < len(fwd); i++ {
		if i > 0 && fwd[i] == fwd[i-1] {
			continue
		}
		ix.removePosting(fwd[i], id)
	}
	ix.totalLen -= uint64(len(fwd))
	ix.nDocs--
	ix.fwd[id] = nil
	ix.docLen[id] = 0
	ix.live[id>>6] &^= 1 << (id & 63)
}

// SetAside takes a document out of the collection statistics (on) or puts
// it back: it is still found and scored, but neither counts toward the
// number of documents and their average length nor toward any term's
// document frequency, so adding it moves no other document's score. A
// summary that repeats the words of the turns it condenses is set aside:
// those turns score as they did before it was written. Adding a document
// again (Add) puts it back. An absent id is ignored.
func (ix *Index) SetAside(id DocID, on bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.setAsideLocked(id, on)
}

func (ix *Index) isAside(id DocID) bool {
	w := int(id >> 6)
	return w < len(ix.aside) && ix.aside[w]&(1<<(id&63)) != 0
}

func (ix *Index) setAsideLocked(id DocID, on bool) {
	if !ix.isLive(id) || ix.isAside(id) == on {
		return
	}
	fwd := ix.fwd[id]
	if on {
		if w := int(id>>6) + 1; w > len(ix.aside) {
			ix.aside = slices.Grow(ix.aside, w-len(ix.aside))[:w]
		}
		if ix.asideDF == nil {
			ix.asideDF = map[uint32]uint32{}
		}
		ix.aside[id>>6] |= 1 << (id & 63)
		ix.nAside++
		ix.asideLen += uint64(len(fwd))
	} else {
		ix.aside[id>>6] &^= 1 << (id & 63)
		ix.nAside--
		ix.asideLen -= uint64(len(fwd))
	}
	for i := 0; i < len(fwd); i++ {
		if i > 0 && fwd[i] == fwd[i-1] {
			continue
		}
		if on {
			ix.asideDF[fwd[i]]++
		} else if ix.asideDF[fwd[i]]--; ix.asideDF[fwd[i]] == 0 {
			delete(ix.asideDF, fwd[i])
		}
	}
}

// collectionLocked returns the statistics BM25 weighs terms by: the number
// of documents and their total length, without those set aside (unless
// every document is), and a term's document frequency to match.
func (ix *Index) collectionLocked() (n float64, total uint64, counted bool) {
	if c := ix.nDocs - ix.nAside; c > 0 {
		return float64(c), ix.totalLen - ix.asideLen, true
	}
	return float64(ix.nDocs), ix.totalLen, false
}

// dfLocked is a term's document frequency as collectionLocked counts.
func (ix *Index) dfLocked(termID uint32, counted bool) float64 {
	df := len(ix.terms[termID].postings)
	if counted {
		df -= int(ix.asideDF[termID])
	}
	return float64(df)
}

func (ix *Index) removePosting(termID uint32, id DocID) {
	t := &ix.terms[termID]
	p := t.postings
	for i, v := range p {
		if v&docMask != id {
			continue
		}
		last := len(p) - 1
		p[i] = p[last]
		p = p[:last]
		ix.nPostings--
		break
	}
	switch {
	case len(p) == 0:
		ix.shapeRemoveLocked(termID, t.name)
		delete(ix.dict, t.name)
		*t = termInfo{}
		ix.freeTerms = append(ix.freeTerms, termID)
		return
	case cap(p) > 32 && len(p) < cap(p)/4:
		// Give memory back after mass removals.
		p = slices.Clip(slices.Clone(p))
	}
	t.postings = p
}

// Query is an analysed query: its distinct terms in order of first
// occurrence and how often each occurred. Analyse a query once with
// Index.Analyze and pass it to SearchQuery and ScoreQuery to score the same
// query against the keyword index and, say, vector-search candidates.
type Query struct {
	terms  []string
	counts []int
	// alt marks terms added as alternatives of another (WithAlternatives):
	// alt[i] is 1 + the position of the term they stand in for, 0 for the
	// query's own terms. nil: none.
	alt []int
	// scale holds, for an alternative added as a synonym (WithSynonyms),
	// the share of its term's weight it scores with; 0 for every other
	// term. nil: none.
	scale []float64
}

// Terms returns the distinct analysed terms of the query.
func (q Query) Terms() []string { return slices.Clone(q.terms) }

// Without returns the query without the terms drop reports (and without
// the alternatives of a dropped term).
func (q Query) Without(drop func(term string) bool) Query {
	var out Query
	pos := make([]int, len(q.terms)) // new position + 1, 0: dropped
	for i, t := range q.terms {
		of := -1
		if q.alt != nil && q.alt[i] > 0 {
			if of = pos[q.alt[i]-1] - 1; of < 0 {
				continue
			}
		}
		if drop(t) {
			continue
		}
		pos[i] = len(out.terms) + 1
		out.terms = append(out.terms, t)
		out.counts = append(out.counts, q.counts[i])
		if of >= 0 || out.alt != nil {
			if out.alt == nil {
				out.alt = make([]int, len(out.terms)-1, len(q.terms))
			}
			out.alt = append(out.alt, of+1)
		}
		if sc := q.scaleOf(i); sc > 0 || out.scale != nil {
			if out.scale == nil {
				out.scale = make([]float64, len(out.terms)-1, len(q.terms))
			}
			out.scale = append(out.scale, sc)
		}
	}
	return out
}

// scaleOf is the share of its term's weight the term at i scores with
// when it was added as a synonym; 0 otherwise.
func (q Query) scaleOf(i int) float64 {
	if q.scale == nil {
		return 0
	}
	return q.scale[i]
}

// WithSynonyms returns the query with the terms of syns added as
// synonyms of its own term of ("invoice" for "bill"), each scoring scale
// (0 < scale < 1) times the lower of its own idf and of's: a document
// holding a synonym matches part of what the query asks, never more than
// one holding the word, and a common synonym of a rare word weighs as
// little as it says. Like an alternative (WithAlternatives) a synonym
// counts once with its term in MatchQuery, and it adds nothing to
// IdealScore; unlike one, it does not make its term known (Unknown).
// Nothing is added when of is not one of the query's own terms (not an
// alternative), or for a term the query has already.
func (q Query) WithSynonyms(of string, syns Query, scale float64) Query {
	at := slices.Index(q.terms, of)
	if at < 0 || q.alt != nil && q.alt[at] > 0 || !(scale > 0 && scale < 1) {
		return q
	}
	out := Query{terms: slices.Clone(q.terms), counts: slices.Clone(q.counts), alt: slices.Clone(q.alt), scale: slices.Clone(q.scale)}
	for _, t := range syns.terms {
		if slices.Contains(out.terms, t) {
			continue
		}
		if out.alt == nil {
			out.alt = make([]int, len(out.terms))
		}
		if out.scale == nil {
			out.scale = make([]float64, len(out.terms))
		}
		out.terms = append(out.terms, t)
		out.counts = append(out.counts, 1)
		out.alt = append(out.alt, at+1)
		out.scale = append(out.scale, scale)
	}
	return out
}

// idfs are the idf of each of q's terms as its weight uses it: df(t)
// gives a term's document frequency (0: none holds it) and n the
// collection's size; a synonym's is its scale times the lower of its own
// and its term's (WithSynonyms).
func (q Query) idfs(n float64, df func(t string) float64) []float64 {
	out := make([]float64, len(q.terms))
	for i, t := range q.terms {
		d := df(t)
		out[i] = math.Log(1 + (n-d+0.5)/(d+0.5))
	}
	for i := range out {
		if sc := q.scaleOf(i); sc > 0 {
			out[i] = sc * min(out[i], out[q.alt[i]-1])
		}
	}
	return out
}

// WithAlternatives returns the query with the terms of alts added as other
// words for its term of: a document matching either matches what the
// query asks ("sister" or her name "lena"). Scores count every term
// matched; IdealScore counts the best of a term and its alternatives
// once. Terms the query has already are not added; when of is not among
// its terms, alts are added as terms of their own.
func (q Query) WithAlternatives(of string, alts Query) Query {
	at := slices.Index(q.terms, of)
	out := Query{terms: slices.Clone(q.terms), counts: slices.Clone(q.counts), alt: slices.Clone(q.alt), scale: slices.Clone(q.scale)}
	for _, t := range alts.terms {
		if slices.Contains(out.terms, t) {
			continue
		}
		if out.alt == nil {
			out.alt = make([]int, len(out.terms))
		}
		out.terms = append(out.terms, t)
		out.counts = append(out.counts, 1)
		out.alt = append(out.alt, at+1)
		if out.scale != nil {
			out.scale = append(out.scale, 0)
		}
	}
	return out
}

// Empty reports whether the query has no terms (for example, only stop
// words), in which case it matches nothing.
func (q Query) Empty() bool { return len(q.terms) == 0 }

// Analyze turns query text into a Query using this index's analysis options.
func (ix *Index) Analyze(text string) Query {
	tl := getTokenList()
	defer putTokenList(tl)
	ix.an.appendTokens(tl, text)
	var q Query
	// A map keeps this linear however long the text: comparing each token
	// with every earlier one took 3.6 s for a 40k-word query.
	pos := make(map[string]int)
	for i := 0; i < tl.len(); i++ {
		tok := tl.at(i)
		if j, ok := pos[string(tok)]; ok {
			q.counts[j]++
			continue
		}
		t := string(tok)
		pos[t] = len(q.terms)
		q.terms = append(q.terms, t)
		q.counts = append(q.counts, 1)
	}
	return q
}

// scorer holds one query's per-term weights resolved against the index
// state under a read lock. The BM25 contribution of a term with frequency tf
// in a document of length dl is
//
//	w * tf / (tf + k1*(1 - b + b*dl/avgdl)),  w = qtf * idf * (k1 + 1),
//	idf = ln(1 + (N - df + 0.5) / (df + 0.5)),
//
// the idf variant Lucene uses. It is strictly positive (a term in most
// documents still counts a little instead of going negative), and so is every
// contribution: SearchQuery relies on that to spot a document's first touch
// by its accumulator being zero.
type scorer struct {
	ids     []uint32
	weights []float64
	c1, c2  float64 // k1*(1-b) and k1*b/avgdl
}

func (ix *Index) newScorer(q Query) scorer {
	var sc scorer
	if ix.nDocs == 0 {
		return sc
	}
	n, total, counted := ix.collectionLocked()
	idfs := q.idfs(n, func(t string) float64 {
		if id, ok := ix.dict[t]; ok {
			return ix.dfLocked(id, counted)
		}
		return 0
	})
	for i, t := range q.terms {
		id, ok := ix.dict[t]
		if !ok {
			continue
		}
		sc.ids = append(sc.ids, id)
		sc.weights = append(sc.weights, float64(q.counts[i])*idfs[i]*(ix.opts.K1+1))
	}
	avgdl := float64(total) / n
	sc.c1 = ix.opts.K1 * (1 - ix.opts.B)
	if avgdl > 0 {
		sc.c2 = ix.opts.K1 * ix.opts.B / avgdl
	}
	return sc
}

// IdealScore is the BM25 score of a document of average length that holds
// every query term once: the sum of qtf * idf over the query's terms, where a
// term no document contains gets the idf of a term with df 0. Dividing a
// score by it says how much of what the query asks a document matches,
// independently of how large the index is; documents shorter than average or
// repeating a term can score above it.
func (ix *Index) IdealScore(q Query) float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n, _, counted := ix.collectionLocked()
	w := q.idfs(n, func(t string) float64 {
		if id, ok := ix.dict[t]; ok {
			return ix.dfLocked(id, counted)
		}
		return 0
	})
	for i := range w {
		w[i] *= float64(q.counts[i])
	}
	// An alternative counts instead of its term when it weighs more (a
	// synonym never does).
	for i := range w {
		if q.alt != nil && q.alt[i] > 0 {
			of := q.alt[i] - 1
			w[of], w[i] = max(w[of], w[i]), 0
		}
	}
	var sum float64
	for _, x := range w {
		sum += x
	}
	return sum
}

// contribution is the one place the per-term score is computed, so Search and
// ScoreDocs produce bit-identical sums. The explicit conversion stops the
// compiler from fusing the multiply-add, which it may do on some CPUs.
func (sc *scorer) contribution(w float64, tf, dl uint32) float64 {
	t := float64(tf)
	norm := sc.c1 + float64(sc.c2*float64(dl))
	return w * t / (t + norm)
}

// searchBuf is per-search scratch: a dense score accumulator indexed by DocID
// (kept all zero between uses) and the list of DocIDs it touched.
type searchBuf struct {
	acc     []float64
	touched []uint32
	hits    []Hit
}

func (ix *Index) getBuf(n int) *searchBuf {
	var b *searchBuf
	select {
	case b = <-ix.bufs:
	default:
		b = new(searchBuf)
	}
	if len(b.acc) < n {
		b.acc = make([]float64, n+n/8)
	}
	return b
}

func (ix *Index) putBuf(b *searchBuf) {
	if len(b.touched) > len(b.acc)/16 {
		clear(b.acc) // one sequential pass beats many scattered stores
	} else {
		for _, d := range b.touched {
			b.acc[d] = 0
		}
	}
	b.touched = b.touched[:0]
	b.hits = b.hits[:0]
	select {
	case ix.bufs <- b:
	default:
	}
}

// Search returns up to k documents matching query (k <= 0: all of them),
// ordered by descending BM25 score and then by ascending ID, keeping only
// documents for which allow returns true (allow may be nil). allow runs after
// the index lock is released, so it may call back into the index. The first
// hit's score is the maximum over the allowed documents, which is what a
// max-normalised BM25 divides by.
func (ix *Index) Search(query string, k int, allow func(DocID) bool) []Hit {
	return ix.SearchQuery(ix.Analyze(query), k, allow)
}

// SearchQuery is Search for an analysed query.
func (ix *Index) SearchQuery(q Query, k int, allow func(DocID) bool) []Hit {
	if q.Empty() {
		return nil
	}
	ix.mu.RLock()
	sc := ix.newScorer(q)
	if len(sc.ids) == 0 {
		ix.mu.RUnlock()
		return nil
	}
	buf := ix.getBuf(len(ix.docLen))
	n := ix.walkLocked(&sc, buf)
	ix.mu.RUnlock()
	acc, touched := buf.acc, buf.touched[:n]
	buf.touched = touched

	hits := buf.hits
	if k <= 0 {
		for _, d := range touched {
			if allow == nil || allow(d) {
				hits = append(hits, Hit{ID: d, Score: acc[d]})
			}
		}
		slices.SortFunc(hits, compareHits)
	} else {
		hits = topK(hits, touched, acc, k, allow)
	}
	out := slices.Clone(hits)
	buf.hits = hits
	ix.putBuf(buf)
	return out
}

// walkLocked adds up the query's contributions over its terms' postings in
// buf.acc, in the query's order, and returns how many documents it touched
// (listed first in buf.touched[:cap]). A term sc holds as noTerm has no
// postings.
func (ix *Index) walkLocked(sc *scorer, buf *searchBuf) int {
	acc, docLen := buf.acc, ix.docLen
	touched := buf.touched[:cap(buf.touched)]
	n := 0
	for i, tid := range sc.ids {
		w := sc.weights[i]
		if tid == noTerm {
			continue
		}
		touched, n = addPostings(sc, w, ix.terms[tid].postings, acc, docLen, touched, n)
	}
	buf.touched = touched
	return n
}

// addPostings adds a term's contributions (weight w) of postings to acc
// and records each document's first touch in touched[n:], growing touched
// (length = capacity) as needed; it returns touched and the new count.
func addPostings(sc *scorer, w float64, postings []uint32, acc []float64, docLen []uint32, touched []uint32, n int) ([]uint32, int) {
	// At most one slot per document plus the scratch slot written after
	// the last new one.
	if need := min(n+len(postings), len(docLen)+1); need > len(touched) {
		touched = slices.Grow(touched[:n], need-n+need/4)
		touched = touched[:cap(touched)]
	}
	for _, p := range postings {
		d := p & docMask
		s := sc.contribution(w, p>>docBits, docLen[d])
		// Record the first touch without a branch: the store is always
		// made and kept only when the accumulator was still zero. The
		// branch would be mispredicted about half the time.
		touched[n] = d
		if acc[d] == 0 {
			n++
		}
		acc[d] += s
	}
	return touched, n
}

// MatchAll returns every document that holds all of the query's terms and
// that allow admits (allow may be nil; it runs after the index lock is
// released), in ascending ID order: a keyword match over the whole index,
// not a ranking. An empty query matches nothing.
func (ix *Index) MatchAll(q Query, allow func(DocID) bool) []DocID {
	if q.Empty() {
		return nil
	}
	ix.mu.RLock()
	ids := make([]uint32, 0, len(q.terms))
	for _, t := range q.terms {
		id, ok := ix.dict[t]
		if !ok {
			ix.mu.RUnlock()
			return nil // a term no document holds
		}
		ids = append(ids, id)
	}
	// Walk the rarest term's postings; check the others in each
	// document's sorted forward list.
	slices.SortFunc(ids, func(a, b uint32) int { return len(ix.terms[a].postings) - len(ix.terms[b].postings) })
	var out []DocID
	for _, p := range ix.terms[ids[0]].postings {
		d := p & docMask
		all := true
		for _, t := range ids[1:] {
			if _, found := slices.BinarySearch(ix.fwd[d], t); !found {
				all = false
				break
			}
		}
		if all {
			out = append(out, d)
		}
	}
	ix.mu.RUnlock()
	slices.Sort(out)
	if allow != nil {
		kept := out[:0]
		for _, d := range out {
			if allow(d) {
				kept = append(kept, d)
			}
		}
		out = kept
	}
	return out
}

// compareHits orders by descending score, then ascending ID.
func compareHits(a, b Hit) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}

// ScoreDocs returns the BM25 score of each document in ids for query, 0 for
// documents that do not match or are not in the index. Scores are identical to
// the ones Search reports for the same documents, so both can be normalised by
// one maximum when fusing keyword and vector results.
func (ix *Index) ScoreDocs(query string, ids []DocID) []float64 {
	return ix.ScoreQuery(ix.Analyze(query), ids)
}

// ScoreQuery is ScoreDocs for an analysed query.
func (ix *Index) ScoreQuery(q Query, ids []DocID) []float64 {
	out := make([]float64, len(ids))
	if q.Empty() {
		return out
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	sc := ix.newScorer(q)
	if len(sc.ids) == 0 {
		return out
	}
	for i, id := range ids {
		if !ix.isLive(id) {
			continue
		}
		fwd, dl := ix.fwd[id], ix.docLen[id]
		var sum float64
		for j, tid := range sc.ids {
			lo, found := slices.BinarySearch(fwd, tid)
			if !found {
				continue
			}
			hi := lo + 1
			for hi < len(fwd) && fwd[hi] == tid {
				hi++
			}
			sum += sc.contribution(sc.weights[j], uint32(min(hi-lo, maxTF)), dl)
		}
		out[i] = sum
	}
	return out
}

// MatchQuery is ScoreQuery counting a term and its alternatives
// (WithAlternatives) once, by the best of them a document holds, as
// IdealScore does: divided by IdealScore, it says how much of what the
// query asks a document matches. A document holding both "sister" and her
// name "Lena" (or both words of "Clara Jensen") matches the one word
// "sister" once, not two or three times.
func (ix *Index) MatchQuery(q Query, ids []DocID) []float64 {
	if q.alt == nil {
		return ix.ScoreQuery(q, ids)
	}
	out := make([]float64, len(ids))
	if q.Empty() {
		return out
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	sc := ix.newScorer(q)
	if len(sc.ids) == 0 {
		return out
	}
	// group[j]: the query term sc.ids[j] counts for (its own position,
	// or the one it is an alternative of).
	group := make([]int, 0, len(sc.ids))
	for i, t := range q.terms {
		if _, ok := ix.dict[t]; !ok {
			continue
		}
		g := i
		for q.alt[g] > 0 { // an alternative's position is after its term's
			g = q.alt[g] - 1
		}
		group = append(group, g)
	}
	best := make([]float64, len(q.terms))
	for i, id := range ids {
		if !ix.isLive(id) {
			continue
		}
		clear(best)
		fwd, dl := ix.fwd[id], ix.docLen[id]
		for j, tid := range sc.ids {
			lo, found := slices.BinarySearch(fwd, tid)
			if !found {
				continue
			}
			hi := lo + 1
			for hi < len(fwd) && fwd[hi] == tid {
				hi++
			}
			g := group[j]
			best[g] = max(best[g], sc.contribution(sc.weights[j], uint32(min(hi-lo, maxTF)), dl))
		}
		var sum float64
		for _, x := range best {
			sum += x
		}
		out[i] = sum
	}
	return out
}

// Lengths returns the number of terms of each document in ids (0 for
// one not in the index).
func (ix *Index) Lengths(ids []DocID) []int {
	out := make([]int, len(ids))
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for i, id := range ids {
		if ix.isLive(id) {
			out[i] = int(ix.docLen[id])
		}
	}
	return out
}

// Stats describes the index size.
type Stats struct {
	Docs     int   // documents
	Terms    int   // distinct terms
	Postings int   // (term, document) pairs
	Bytes    int64 // estimate of the heap the index holds
	// Mapped is the bytes of the arena outside the heap that holds its
	// lists (Read, Pack), also counted in Bytes.
	Mapped int64
}

// Stats returns the index size. Bytes is an estimate from slice capacities and
// typical map overhead; measure with runtime.MemStats for exact figures.
func (ix *Index) Stats() Stats {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var b int64
	for _, t := range ix.terms {
		// posting array, string bytes, and the dictionary entry (key header,
		// value, hash-table slack)
		b += int64(cap(t.postings))*4 + int64(len(t.name)) + 48
	}
	b += int64(cap(ix.terms)) * 40
	for _, f := range ix.fwd {
		b += int64(cap(f)) * 4
	}
	b += int64(cap(ix.fwd))*24 + int64(cap(ix.docLen))*4 + int64(cap(ix.live))*8
	return Stats{Docs: ix.nDocs, Terms: len(ix.dict), Postings: ix.nPostings, Bytes: b, Mapped: ix.mapped}
}

// Overlap is the Jaccard similarity of the distinct terms of documents a and
// b: 1 when they use the same words (whatever their order, case, punctuation
// or inflection), 0 when they share none or either is absent.
func (ix *Index) Overlap(a, b DocID) float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if int(a) >= len(ix.fwd) || int(b) >= len(ix.fwd) {
		return 0
	}
	x, y := ix.fwd[a], ix.fwd[b]
	if len(x) == 0 || len(y) == 0 {
		return 0
	}
	// Both lists are sorted with repeats: merge over distinct values.
	var inter, union int
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case j == len(y) || i < len(x) && x[i] < y[j]:
			union++
			i = skip(x, i)
		case i == len(x) || y[j] < x[i]:
			union++
			j = skip(y, j)
		default:
			inter++
			union++
			i, j = skip(x, i), skip(y, j)
		}
	}
	return float64(inter) / float64(union)
}

// Distinct is how many distinct terms document id has (0 when absent):
// Overlap(a, b) is at most min/max of the two counts.
func (ix *Index) Distinct(id DocID) int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if int(id) >= len(ix.fwd) {
		return 0
	}
	x, n := ix.fwd[id], 0
	for i := 0; i < len(x); i = skip(x, i) {
		n++
	}
	return n
}

// TermSummary is what a duplicate check can tell about a document's
// terms without reading them: how many distinct terms it has, and a
// signature with one of 64 bits set for each of them (the same bit for the
// same term in every document).
type TermSummary struct {
	Distinct int
	Sig      uint64
}

// Summary returns document id's TermSummary (zero when absent).
func (ix *Index) Summary(id DocID) TermSummary {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if int(id) >= len(ix.fwd) {
		return TermSummary{}
	}
	var s TermSummary
	x := ix.fwd[id]
	for i := 0; i < len(x); i = skip(x, i) {
		s.Distinct++
		s.Sig |= 1 << (x[i] * 0x9e3779b1 >> 26)
	}
	return s
}

// MayOverlap is false only if two documents with these summaries overlap
// (Overlap) less than t (always true for t <= 0). Two bounds tell: the overlap is at
// most the smaller distinct count over the larger; and every bit in which
// the signatures differ is a term of one document missing from the other,
// so with d such bits the symmetric difference of their term sets is at
// least d, while an overlap of t allows at most (1-t)(a+b)/(1+t) for
// distinct counts a and b (inter ≥ t·union, union = (a+b+diff)/2).
func MayOverlap(a, b TermSummary, t float64) bool {
	if t <= 0 {
		return true
	}
	lo, hi := min(a.Distinct, b.Distinct), max(a.Distinct, b.Distinct)
	if hi == 0 {
		return false // Overlap is 0 for a document without terms
	}
	if float64(lo)/float64(hi) < t {
		return false
	}
	d := bits.OnesCount64(a.Sig ^ b.Sig)
	// A margin keeps rounding from ever ruling out a pair at the bound.
	return float64(d)*(1+t) <= (1-t)*float64(a.Distinct+b.Distinct)+1e-9
}

// skip returns the index after the run of values equal to s[i].
func skip(s []uint32, i int) int {
	v := s[i]
	for i < len(s) && s[i] == v {
		i++
	}
	return i
}

// Groups are the query's own terms, each with the terms added as its
// alternatives or synonyms (WithAlternatives, WithSynonyms), one Query per
// own term in the query's order: the ideas a query asks about, to count
// how many of them a document meets whichever of a group's words it
// holds.
func (q Query) Groups() []Query {
	var out []Query
	at := make([]int, len(q.terms)) // group of each own term + 1
	for i, t := range q.terms {
		if q.alt != nil && q.alt[i] > 0 {
			continue
		}
		at[i] = len(out) + 1
		out = append(out, Query{terms: []string{t}, counts: []int{1}})
	}
	for i, t := range q.terms {
		if q.alt == nil || q.alt[i] == 0 {
			continue
		}
		if g := at[q.alt[i]-1]; g > 0 {
			out[g-1].terms = append(out[g-1].terms, t)
			out[g-1].counts = append(out[g-1].counts, 1)
		}
	}
	return out
}
