package textindex

import (
	"math"
	"slices"
	"testing"
)

// TestWithSynonyms: a synonym scores its scale times the lower of its own
// and its word's idf, never more than the word; counts once with the word
// in MatchQuery; adds nothing to IdealScore; does not make an unknown word
// known; and survives Without with its word, not without it.
func TestWithSynonyms(t *testing.T) {
	ix := New(DefaultOptions())
	ix.Add(1, "sent invoice 2231 to the brewery")
	ix.Add(2, "the electricity bill went up again")
	ix.Add(3, "the brewery wants the logo in green")
	ix.Add(4, "invoice template saved")
	ix.Add(5, "booked the car service at the garage")
	ids := []DocID{1, 2, 3, 4, 5}
	plain := ix.Analyze("bill brewery")
	q := plain.WithSynonyms("bill", ix.Analyze("invoice account"), 0.4)
	if got := q.Terms(); !slices.Equal(got, []string{"bill", "breweri", "invoic", "account"}) {
		t.Fatalf("terms %v", got)
	}
	// Document 1 holds "invoice" and "brewery": "invoice" (in two
	// documents, "bill" in one) weighs 0.4 of its own idf, the lower.
	one := func(q Query, id DocID) float64 { return ix.ScoreQuery(q, []DocID{id})[0] }
	inv := one(q, 1) - one(plain, 1)
	sc := ix.newScorer(q)
	wBill, wInv := sc.weights[0], sc.weights[2]
	idf := func(df float64) float64 { return math.Log(1 + (5-df+0.5)/(df+0.5)) }
	if want := 0.4 * idf(2) / idf(1) * wBill; math.Abs(wInv-want) > 1e-9 {
		t.Fatalf("synonym weight %v, want %v (word's %v)", wInv, want, wBill)
	}
	// A rarer synonym weighs 0.4 of the word's idf, not of its own.
	if r := ix.newScorer(ix.Analyze("invoice").WithSynonyms("invoic", ix.Analyze("bill"), 0.4)); math.Abs(r.weights[1]-0.4*r.weights[0]) > 1e-9 {
		t.Fatalf("rarer synonym weighs %v, word %v", r.weights[1], r.weights[0])
	}
	if inv <= 0 {
		t.Fatalf("document 1 gains nothing from the synonym: %v", inv)
	}
	// The word itself outranks its synonym at equal evidence: document 2
	// (bill) scores above document 4 (invoice), both one matching word.
	s := ix.ScoreQuery(q, ids)
	if s[1] <= s[3] {
		t.Fatalf("bill %v, invoice %v: the word must outweigh its synonym", s[1], s[3])
	}
	if s[4] != 0 {
		t.Fatalf("document 5 matches nothing, got %v", s[4])
	}
	// Once with the word: a document holding both scores the better one.
	ix.Add(6, "the bill for invoice 17")
	m := ix.MatchQuery(q, []DocID{6})[0]
	if want := ix.MatchQuery(plain, []DocID{6})[0]; math.Abs(m-want) > 1e-9 {
		t.Fatalf("bill and invoice in one document: MatchQuery %v, want the word's alone %v", m, want)
	}
	// IdealScore: unchanged by synonyms.
	if a, b := ix.IdealScore(q), ix.IdealScore(plain); math.Abs(a-b) > 1e-9 {
		t.Fatalf("IdealScore %v with synonyms, %v without", a, b)
	}
	// An unknown word stays unknown with a synonym, not with an alternative.
	u := ix.Analyze("physician brewery")
	if ix.Unknown(u.WithSynonyms("physician", ix.Analyze("doctor invoice"), 0.4)) != ix.Unknown(u) || ix.Unknown(u) == 0 {
		t.Fatalf("a synonym made an unknown word known")
	}
	if ix.Unknown(u.WithAlternatives("physician", ix.Analyze("invoice"))) >= ix.Unknown(u) {
		t.Fatalf("an alternative did not make an unknown word known")
	}
	// Without keeps a synonym with its word, drops it with it.
	if w := q.Without(func(t string) bool { return t == "breweri" }); !slices.Equal(w.Terms(), []string{"bill", "invoic", "account"}) || w.scaleOf(1) != 0.4 || w.alt[1] != 1 {
		t.Fatalf("without brewery: %v %v %v", w.Terms(), w.scale, w.alt)
	}
	if w := q.Without(func(t string) bool { return t == "bill" }); !slices.Equal(w.Terms(), []string{"breweri"}) {
		t.Fatalf("without bill: %v", w.Terms())
	}
	// Refused: a scale outside (0, 1), a word the query lacks, an alternative.
	for _, bad := range []Query{plain.WithSynonyms("bill", ix.Analyze("invoice"), 1), plain.WithSynonyms("bill", ix.Analyze("invoice"), 0),
		plain.WithSynonyms("garage", ix.Analyze("invoice"), 0.4)} {
		if !bad.Equal(plain) {
			t.Fatalf("query changed: %v", bad.Terms())
		}
	}
	alt := plain.WithAlternatives("bill", ix.Analyze("invoice"))
	if got := alt.WithSynonyms("invoic", ix.Analyze("account"), 0.4); !got.Equal(alt) {
		t.Fatalf("synonym of an alternative added: %v", got.Terms())
	}
	// SearchPending scores a synonym as SearchQuery does.
	doc := ix.Analyze("invoice for the brewery logo")
	pend, ok := ix.SearchPending(q, 10, nil, 7, doc, true)
	ix.Add(7, "invoice for the brewery logo")
	now := ix.SearchQuery(q, 10, nil)
	if !ok || !slices.Equal(pend, now) {
		t.Fatalf("SearchPending %v, SearchQuery %v", pend, now)
	}
}
