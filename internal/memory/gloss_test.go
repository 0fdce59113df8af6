package memory

import (
	"slices"
	"strings"
	"testing"

	"github.com/infmem/infmem/internal/testenv"
)

// TestGlossedNoteFound: a note written in English with everyday words of
// another language ("alquiler", "casero", "Hausarzt") is found first, and
// as relevant, by a plain English question ("how much is my rent?"), by
// the English glosses among its keyword terms and in its embedding
// (RankOptions.GlossKeywords, GlossVectors, set on). With both off
// it is not (so the test checks the rule).
func TestGlossedNoteFound(t *testing.T) {
	rent := "alquiler del piso 1.150€ al mes, transferencia al casero antes del 5"
	notes := []string{rent,
		"Hausarzt Dr. Petersen, Sprechstunde Mo-Fr 8-12, Mittwochnachmittag geschlossen",
		"Broadband is Virgin Media at £38 a month; the contract ends in August.",
		"Leo has football practice every Tuesday at 5:30 in Kelvingrove Park.",
		"The car insurance renews in November with AXA.",
		"Planted garlic in the raised bed; it should be ready in July."}
	ask := func(e *Engine, q string) SearchResult {
		return search(t, e, SearchRequest{Query: q, Location: la, Limit: 5})
	}
	on := recallEngine(t)
	o := on.RankOptions()
	o.GlossKeywords, o.GlossVectors = 1, 1
	on.SetRankOptions(o)
	mustStoreTexts(t, on, notes...)
	res := ask(on, "how much is my rent?")
	if len(res.Results) == 0 || res.Results[0].Text != rent || res.NothingRelevant {
		t.Errorf("glossed: got %v %v (nothing relevant %v), want %q first", texts(res.Results), confidences(res.Results), res.NothingRelevant, rent)
	}
	if res := ask(on, "when is the family doctor's surgery closed?"); len(res.Results) == 0 || res.Results[0].Text != notes[1] {
		t.Errorf("glossed: got %v, want %q first", texts(res.Results), notes[1])
	}
	off := recallEngine(t)
	o = off.RankOptions()
	o.GlossKeywords, o.GlossVectors = -1, -1
	off.SetRankOptions(o)
	mustStoreTexts(t, off, notes...)
	if res := ask(off, "how much is my rent?"); len(res.Results) > 0 && res.Results[0].Text == rent && !res.NothingRelevant {
		t.Errorf("gloss off: the note is still found first and relevant (%v %v): the test does not check the rule", texts(res.Results), confidences(res.Results))
	}
}

// TestSnapshotGlossed: a snapshot written while notes were not glossed
// (before glosses, or with them off) is not trusted by an engine that
// glosses: it reads the database, and its notes are found by their
// English words; the snapshot it writes then keeps the glosses (a
// restart from it finds the note and holds what a full load holds),
// and an engine that does not gloss refuses that one in turn.
func TestSnapshotGlossed(t *testing.T) {
	env := snapEnv{t: t, root: testenv.Root(t), emb: useLite(t)}
	ctx := testenv.Context(t)
	rent := "alquiler del piso 1.150€ al mes, transferencia al casero antes del 5"
	found := func(e *Engine) bool {
		res, err := e.Search(ctx, SearchRequest{Query: "how much is my rent?", Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Results) > 0 && res.Results[0].Text == rent && !res.NothingRelevant
	}
	env.rank = RankOptions{GlossKeywords: -1, GlossVectors: -1}
	store, e := env.open()
	mustStoreTexts(t, e, rent, "Broadband is Virgin Media at £38 a month; the contract ends in August.",
		"The car insurance renews in November with AXA.")
	if found(e) {
		t.Fatal("without glosses the note is found by its English word: the test does not check them")
	}
	env.close(store, e)
	env.rank = RankOptions{}
	store, e = env.open()
	if src := source(t, e); src != "database" {
		t.Fatalf("an engine that glosses loaded from a snapshot written without glosses (%s)", src)
	}
	if !found(e) {
		t.Fatal("after the full load, the note is not found by its English word")
	}
	env.close(store, e)

	store, e = env.open()
	if src := source(t, e); src != "snapshot" {
		t.Fatalf("restart after a clean stop, glosses unchanged, did not use the snapshot (%s)", src)
	}
	if !found(e) {
		t.Fatal("after a restart from the glossed snapshot, the note is not found by its English word")
	}
	digest := indexDigest(e)
	if !strings.Contains(strings.Join(digest, "\n"), `gloss="rent`) {
		t.Fatalf("the snapshot's index keeps no glosses:\n%s", strings.Join(digest, "\n"))
	}
	env.close(store, e)

	env.rank = RankOptions{GlossKeywords: -1, GlossVectors: -1}
	store, e = env.open()
	if src := source(t, e); src != "database" {
		t.Fatalf("an engine that does not gloss loaded from a glossed snapshot (%s)", src)
	}
	env.close(store, e)
	if full := fullLoadDigest(t, env.root, env.emb); !slices.Equal(digest, full) {
		t.Fatalf("the glossed snapshot's index differs from a full load's:\n%s", diff(digest, full))
	}
}
