package textindex

import (
	"math/rand/v2"
	"testing"
)

// prunedSearch is SearchQuery with pruneWalkLocked in place of the full
// walk; cut says whether it left postings unwalked.
func prunedSearch(ix *Index, q Query, k int, allow func(DocID) bool) (hits []Hit, cut bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	sc := ix.newScorer(q)
	if len(sc.ids) == 0 {
		return nil, false
	}
	admits := func(d DocID) bool { return allow == nil || allow(d) }
	buf := ix.getBuf(len(ix.docLen))
	cands, n, cut := ix.pruneWalkLocked(&sc, buf, k, admits, 0, 0)
	h := topK(nil, cands, buf.acc, k, admits)
	buf.touched = buf.touched[:n]
	ix.putBuf(buf)
	return h, cut
}

func sameHits(t *testing.T, what string, got, want []Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, the full walk %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] { // same id and the same score bits
			t.Fatalf("%s: hit %d %+v, the full walk %+v", what, i, got[i], want[i])
		}
	}
}

// The pruned walk answers what the full walk answers (same documents,
// score bits and order) on a Zipf corpus, with long texts as queries (the
// update check's), short ones, duplicates (ties), filters, documents set
// aside and removed; and it does prune.
func TestPrunedWalkEqualsFullWalk(t *testing.T) {
	c := newCorpus(11)
	docs := c.docs(20000, 5)
	cuts, searches := 0, 0
	for oi, o := range []Options{DefaultOptions(), {K1: 2, B: 1, StopWords: true}, {K1: 0.5, B: 0.2, Stemming: true}} {
		rng := rand.New(rand.NewPCG(uint64(oi), 77))
		ix := New(o)
		for i, d := range docs {
			ix.Add(DocID(i), d)
		}
		for i := range 300 { // copies: equal scores, ties broken by id
			ix.Add(DocID(20000+i), docs[rng.IntN(len(docs))])
		}
		for range 500 {
			ix.Remove(DocID(rng.IntN(20300)))
		}
		for range 200 {
			ix.SetAside(DocID(rng.IntN(20300)), true)
		}
		bits := make([]bool, 20300)
		for i := range bits {
			bits[i] = rng.IntN(4) > 0
		}
		filters := []func(DocID) bool{nil, func(d DocID) bool { return bits[d] }, func(d DocID) bool { return d%7 == 0 }}
		for round := range 150 {
			var text string
			switch round % 3 {
			case 0:
				text = docs[rng.IntN(len(docs))]
			case 1:
				text = c.text(rng, 10, 60, c.word)
			default:
				text = c.text(rng, 2, 8, c.contentWord)
			}
			q := ix.Analyze(text)
			for _, k := range []int{1, 2, 9, 40} {
				for fi, f := range filters {
					want := ix.SearchQuery(q, k, f)
					got, cut := prunedSearch(ix, q, k, f)
					sameHits(t, "", got, want)
					if fi == 0 {
						searches++
						if cut {
							cuts++
						}
					}
				}
			}
		}
	}
	t.Logf("%d of %d searches pruned", cuts, searches)
	if cuts < searches/8 {
		t.Fatalf("only %d of %d searches pruned", cuts, searches)
	}
}

// On real text (every LoCoMo turn a document), the update check's search
// (SearchPending with a turn's own text, before its Add) answers what the
// full search answers once the turn is added.
func TestPrunedPendingOnLocomo(t *testing.T) {
	convs := loadLocomo(t)
	var texts []string
	for _, c := range convs {
		for _, tu := range c.turns {
			texts = append(texts, tu.Speaker+": "+tu.Text)
		}
	}
	ix := New(DefaultOptions())
	for i, s := range texts {
		ix.Add(DocID(i), s)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	cuts, searches := 0, 0
	for range 300 {
		id := DocID(rng.IntN(len(texts)))
		ix.Remove(id)
		text := texts[id]
		if rng.IntN(4) == 0 {
			text = texts[rng.IntN(len(texts))] // a copy: a tie
		}
		doc := ix.Analyze(text)
		for _, k := range []int{1, 9, 30} {
			for _, admit := range []bool{true, false} {
				got, ok := ix.SearchPending(doc, k, nil, id, doc, admit)
				if !ok {
					t.Fatal("not searched")
				}
				ix.Add(id, text)
				want := ix.SearchQuery(doc, k, func(d DocID) bool { return d != id || admit })
				sameHits(t, "pending", got, want)
				_, cut := prunedSearch(ix, doc, k, nil)
				searches++
				if cut {
					cuts++
				}
				ix.Remove(id)
			}
		}
		ix.Add(id, texts[id])
	}
	t.Logf("%d of %d searches pruned", cuts, searches)
	if cuts < searches/8 {
		t.Fatalf("only %d of %d searches pruned", cuts, searches)
	}
}

// A document whose partial score is below the k-th best when the walk
// stops, but which the unwalked terms lift above it, is still found: a
// holds the rarest word diluted by other words, b a rarer word and a
// common one, and between them the common word decides.
func TestPrunedWalkLiftsByUnwalkedTerms(t *testing.T) {
	lifted := 0
	for long := range 14 {
		for _, xs := range []string{"xqx", "xqx xqx", "xqx xqx xqx"} {
			for cs := 1; cs <= 8; cs *= 2 {
				ix := New(DefaultOptions())
				id := DocID(0)
				add := func(s string) DocID { ix.Add(id, s); id++; return id - 1 }
				filler := func(tag string, n int) string {
					s := ""
					for i := range n {
						s += " f" + tag + string(rune('a'+i%26)) + string(rune('a'+i/26))
					}
					return s
				}
				for i := range 3000 {
					s := filler(string(rune('a'+i%20)), 3)
					if i%3 == 0 {
						s += " zed"
					}
					add(s)
				}
				add(xs + filler("a", long))
				b := add("yqy zed")
				for range cs {
					add("yqy" + filler("c", long))
				}
				q := ix.Analyze("xqx yqy zed")
				want := ix.SearchQuery(q, 1, nil)
				got, cut := prunedSearch(ix, q, 1, nil)
				sameHits(t, "lift", got, want)
				if cut && want[0].ID == b {
					lifted++
				}
			}
		}
	}
	if lifted == 0 {
		t.Fatal("no case where b wins a pruned search")
	}
}
