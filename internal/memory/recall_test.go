package memory

import (
	"context"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/scopes"
)

// recallEngine opens an engine with USE-lite and a fixed clock
// (Wednesday 2025-05-14 15:04 in Los Angeles).
func recallEngine(t *testing.T) *Engine {
	t.Helper()
	ctx := testenv.Context(t)
	store := testenv.Store(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	e := New(store, reg, Options{Embedder: useLite(t), Now: clk.Now, Location: la, Logger: testenv.Logger(t)})
	e.Start(ctx)
	t.Cleanup(func() { e.Close(context.Background()) })
	if err := e.wait(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

func search(t *testing.T, e *Engine, req SearchRequest) SearchResult {
	t.Helper()
	res, err := e.Search(testenv.Context(t), req)
	if err != nil {
		t.Fatalf("search %q: %v", req.Query, err)
	}
	for i := 1; i < len(res.Results); i++ {
		if res.Results[i].Confidence > res.Results[i-1].Confidence {
			t.Fatalf("search %q: confidence rises with rank: %v", req.Query, confidences(res.Results))
		}
	}
	return res
}

func confidences(ms []Memory) []float64 {
	out := make([]float64, len(ms))
	for i, m := range ms {
		out[i] = m.Confidence
	}
	return out
}

var everydayNotes = []string{
	"Maya is my sister; she lives in Lisbon.",
	"My manager at Northwind is Clara Jensen; our one-to-ones are on Thursdays.",
	"Decided to use Terraform instead of Pulumi for the Apollo infrastructure, because the team already knows HCL.",
	"The builder said the kitchen renovation can start on May 4 and should take six weeks.",
	"Our dog Biscuit is a four-year-old beagle who is allergic to chicken.",
	"I take my coffee as a flat white with oat milk, no sugar.",
	"Paid the electricity bill of 84 euros in October.",
	"Registered for the DataEng Summit in Amsterdam in March.",
}

// TestEverydayQuestions: questions phrased the way people talk find the
// memory, first and above the bar; conversational filler does not sink
// them.
func TestEverydayQuestions(t *testing.T) {
	e := recallEngine(t)
	mustStoreTexts(t, e, everydayNotes...)
	for q, want := range map[string]string{
		"what did I say about my sister?":         everydayNotes[0],
		"tell me about my sister":                 everydayNotes[0],
		"Remind me about Pulumi":                  everydayNotes[2],
		"when does the kitchen work start":        everydayNotes[3],
		"what is the dog allergic to?":            everydayNotes[4],
		"how much was the electricity bill":       everydayNotes[6],
		"remind me what I said about the summit?": everydayNotes[7],
	} {
		res := search(t, e, SearchRequest{Query: q})
		if len(res.Results) == 0 || res.Results[0].Text != want || res.Results[0].Weak || res.NothingRelevant {
			t.Errorf("%q: got %v %v (nothing relevant %v), want %q first and relevant", q, texts(res.Results), confidences(res.Results), res.NothingRelevant, want)
		}
	}
}

// TestWeakResultsAreReturned: a memory that answers but matches loosely
// comes back, marked weak, instead of being dropped; a question about
// something never stored gets nothing_relevant, with its closest memories
// marked weak.
func TestWeakResultsAreReturned(t *testing.T) {
	e := recallEngine(t)
	mustStoreTexts(t, e, everydayNotes...)
	// "supervisor" shares no word with "manager", nor a relation variant
	// or synonym of one: only the embedding links them, loosely. The
	// memory is still the best answer and is returned.
	res := search(t, e, SearchRequest{Query: "who is my supervisor", Limit: 3})
	if len(res.Results) != 3 || res.Results[0].Text != everydayNotes[1] || !res.Results[0].Weak || !res.NothingRelevant {
		t.Fatalf("loose match: got %v %v weak %v, nothing relevant %v", texts(res.Results), confidences(res.Results), res.Results[0].Weak, res.NothingRelevant)
	}
	for _, q := range []string{"what is my cousin Rachel's phone number?", "when is my next eye test?"} {
		res := search(t, e, SearchRequest{Query: q})
		if !res.NothingRelevant || len(relevant(res)) != 0 || len(res.Results) != DefaultLimit {
			t.Errorf("never stored %q: nothing relevant %v, relevant %v of %d results", q, res.NothingRelevant, texts(relevant(res)), len(res.Results))
		}
	}
}

// TestTimeReferences: "yesterday" in a turn is read against the turn's
// own date; a question naming that date finds it, and a "when" question
// prefers the turn that says when.
func TestTimeReferences(t *testing.T) {
	e := recallEngine(t)
	may8 := time.Date(2023, 5, 8, 13, 56, 0, 0, la)
	mustStore(t, e, StoreRequest{Content: "I went to a LGBTQ support group yesterday and it was so powerful.", Timestamp: may8, Scope: "c"})
	mustStore(t, e, StoreRequest{Content: "Support groups really help me.", Timestamp: may8.AddDate(0, 1, 0), Scope: "c"})
	mustStore(t, e, StoreRequest{Content: "We had a picnic by the lake.", Timestamp: may8.AddDate(0, 2, 0), Scope: "c"})
	res := search(t, e, SearchRequest{Query: "what happened on 7 May 2023?", Scope: "c", ExactScope: true})
	if len(res.Results) == 0 || res.Results[0].Text != "I went to a LGBTQ support group yesterday and it was so powerful." {
		t.Errorf("date named in the question: got %v", texts(res.Results))
	}
	res = search(t, e, SearchRequest{Query: "When did I go to the support group?", Scope: "c", ExactScope: true})
	if len(res.Results) == 0 || res.Results[0].Text != "I went to a LGBTQ support group yesterday and it was so powerful." {
		t.Errorf("when question: got %v", texts(res.Results))
	}
}

// TestSpeakerNamedInQuestion: a question that names a speaker prefers
// that speaker's turns over the other's turns that only address them,
// whether the speaker is given or only written before the text, and the
// turns of one session stored without a conversation id still lend each
// other context.
func TestSpeakerNamedInQuestion(t *testing.T) {
	e := recallEngine(t)
	session := time.Date(2023, 7, 3, 18, 0, 0, 0, la)
	for _, turn := range []StoreRequest{
		{Content: "Melanie: Wow Caroline, that painting of yours is gorgeous!"},
		{Content: "Caroline: Thanks! It's a sunset over the lake, I painted it last week."},
		{Content: "Melanie: I painted a horse recently."},
		{Content: "Caroline: What made you choose a horse?", Speaker: "Caroline"},
		{Content: "Melanie: Horses remind me of my grandmother's farm."},
	} {
		turn.Scope, turn.Timestamp = "conv", session
		mustStore(t, e, turn)
	}
	res := search(t, e, SearchRequest{Query: "What did Caroline paint?", Scope: "conv", ExactScope: true})
	if len(res.Results) == 0 || res.Results[0].Text != "Caroline: Thanks! It's a sunset over the lake, I painted it last week." {
		t.Errorf("speaker named: got %v", texts(res.Results))
	}
	// The answer is the turn after the one that matches the question:
	// shown as a result or in a result's context (with the chain fold the
	// whole exchange is one result).
	res = search(t, e, SearchRequest{Query: "Why did Melanie choose a horse?", Scope: "conv", ExactScope: true, Limit: 2})
	found := false
	for _, m := range res.Results {
		found = found || m.Text == "Melanie: Horses remind me of my grandmother's farm."
		for _, c := range m.Context {
			found = found || c.Text == "Melanie: Horses remind me of my grandmother's farm."
		}
	}
	if !found {
		t.Errorf("neighbouring turn: got %v", texts(res.Results))
	}
}

// TestStatsCountWhatTheIndexHolds: memories stored after the index loaded
// count in its figures (get_memory_stats showed loaded 0 of 0 with 17
// memories stored).
func TestStatsCountWhatTheIndexHolds(t *testing.T) {
	e, _, _ := newEngine(t)
	for _, c := range []string{"one", "two", "three"} {
		mustStore(t, e, StoreRequest{Content: "memory " + c})
	}
	st, err := e.Stats(testenv.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	if !st.IndexReady || st.IndexLoaded != 3 || st.IndexExpected != 3 {
		t.Fatalf("index figures: ready %v, loaded %d of %d", st.IndexReady, st.IndexLoaded, st.IndexExpected)
	}
}

// checkWeakRule checks a rule that marks a note weak: with off, both
// questions find a note; with on, weakQ is told nothing_relevant with its
// first result shown weak (and, when want is not "", that result is
// want), while keptQ still finds a note.
func checkWeakRule(t *testing.T, e *Engine, off, on RankOptions, weakQ, keptQ SearchRequest, want string) {
	t.Helper()
	e.SetRankOptions(off)
	for _, q := range []SearchRequest{weakQ, keptQ} {
		if res := search(t, e, q); res.NothingRelevant {
			t.Fatalf("%q, rule off: nothing relevant (%v), want a note", q.Query, confidences(res.Results))
		}
	}
	e.SetRankOptions(on)
	if res := search(t, e, weakQ); !res.NothingRelevant || len(res.Results) == 0 || !res.Results[0].Weak || want != "" && res.Results[0].Text != want {
		t.Errorf("%q, rule on: nothing_relevant %v, results %v, want %q shown weak", weakQ.Query, res.NothingRelevant, confidences(res.Results), want)
	}
	if res := search(t, e, keptQ); res.NothingRelevant {
		t.Errorf("%q, rule on: nothing relevant (%v), want a note", keptQ.Query, confidences(res.Results))
	}
}
