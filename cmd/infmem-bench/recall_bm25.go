package main

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// plainBM25 is the baseline every recall set is measured against: Okapi
// BM25 (k1 1.2, b 0.75) over lowercase word tokens (runs of letters and
// digits), a small stop list, no stemming, one index per scope. It is the
// bench's own, independent of the engine's keyword index.
type plainBM25 struct {
	scopes map[string]*bm25Scope
	// global: document frequencies and lengths over every scope (as the
	// engine's one index has them), for comparison; default per scope.
	global bool
	all    *bm25Scope
}

type bm25Scope struct {
	ids      []string
	lens     []int
	total    int
	postings map[string][]bm25Posting
}

type bm25Posting struct {
	doc int32
	tf  int32
}

var bm25Stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be but by for from has have he her his i if in is it its
		me my of on or our she so that the their them they this to was we were what when where which who why will with you your`) {
		m[w] = true
	}
	return m
}()

func bm25Tokens(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := words[:0]
	for _, w := range words {
		if !bm25Stop[w] {
			out = append(out, w)
		}
	}
	return out
}

func newPlainBM25() *plainBM25 {
	return &plainBM25{scopes: map[string]*bm25Scope{}, global: bm25Global, all: &bm25Scope{postings: map[string][]bm25Posting{}}}
}

// bm25Global switches the baseline to statistics over every scope.
var bm25Global bool

func (b *plainBM25) add(scope, id, text string) {
	sc := b.scopes[scope]
	if sc == nil {
		sc = &bm25Scope{postings: map[string][]bm25Posting{}}
		b.scopes[scope] = sc
	}
	doc := int32(len(sc.ids))
	toks := bm25Tokens(text)
	sc.ids = append(sc.ids, id)
	sc.lens = append(sc.lens, len(toks))
	sc.total += len(toks)
	tf := map[string]int32{}
	for _, t := range toks {
		tf[t]++
	}
	for t, n := range tf {
		sc.postings[t] = append(sc.postings[t], bm25Posting{doc: doc, tf: n})
	}
	b.all.ids = append(b.all.ids, id)
	b.all.total += len(toks)
	for t := range tf {
		b.all.postings[t] = append(b.all.postings[t], bm25Posting{})
	}
}

// search returns the ids of the k best documents of scope for q.
func (b *plainBM25) search(scope, q string, k int) []string {
	sc := b.scopes[scope]
	if sc == nil || len(sc.ids) == 0 {
		return nil
	}
	const k1, bb = 1.2, 0.75
	n := float64(len(sc.ids))
	avg := float64(sc.total) / n
	if b.global {
		n, avg = float64(len(b.all.ids)), float64(b.all.total)/float64(len(b.all.ids))
	}
	scores := map[int32]float64{}
	seen := map[string]bool{}
	for _, t := range bm25Tokens(q) {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := sc.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		if b.global {
			df = float64(len(b.all.postings[t]))
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			scores[p.doc] += idf * tf * (k1 + 1) / (tf + k1*(1-bb+bb*float64(sc.lens[p.doc])/avg))
		}
	}
	docs := make([]int32, 0, len(scores))
	for d := range scores {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(i, j int) bool {
		if scores[docs[i]] != scores[docs[j]] {
			return scores[docs[i]] > scores[docs[j]]
		}
		return docs[i] > docs[j]
	})
	if len(docs) > k {
		docs = docs[:k]
	}
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = sc.ids[d]
	}
	return out
}
