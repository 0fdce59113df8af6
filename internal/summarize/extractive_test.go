package summarize

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/infmem/infmem/internal/embed"
)

var (
	useOnce sync.Once
	useEmb  *embed.USELite
	useErr  error
)

// embedders are the configurations Extractive runs with: none
// (embedding.model=none), the hash embedder and USE-lite.
func embedders(t testing.TB) []struct {
	name string
	e    embed.Embedder
} {
	t.Helper()
	useOnce.Do(func() { useEmb, useErr = embed.NewUSELite() })
	if useErr != nil {
		t.Fatalf("load USE-lite: %v", useErr)
	}
	return []struct {
		name string
		e    embed.Embedder
	}{
		{"none", nil},
		{"hash", embed.NewHash(512)},
		{"use-lite", useEmb},
	}
}

// bodySentences returns the sentences of a summary after its header, with
// their speaker prefixes removed.
func bodySentences(t *testing.T, text string, hasHeader bool, msgs []Message) []string {
	t.Helper()
	lines := strings.Split(text, "\n")
	if hasHeader {
		lines = lines[1:]
	}
	var out []string
	for _, l := range lines {
		for _, m := range msgs {
			if p := speakerLabel(m.Speaker) + ": "; strings.HasPrefix(l, p) {
				l = strings.TrimPrefix(l, p)
				break
			}
		}
		out = append(out, splitSentences(l)...)
	}
	return out
}

// checkTraceable fails unless every sentence of the summary is verbatim
// from one of the messages Kept names, and Kept is sorted and unique: an
// extractive summary states nothing the conversation did not.
func checkTraceable(t *testing.T, s Summary, msgs []Message, hasHeader bool) {
	t.Helper()
	if !slices.IsSorted(s.Kept) || len(slices.Compact(slices.Clone(s.Kept))) != len(s.Kept) {
		t.Errorf("Kept %v is not sorted and unique", s.Kept)
	}
	for _, sent := range bodySentences(t, s.Text, hasHeader, msgs) {
		found := false
		for _, k := range s.Kept {
			if k < 0 || k >= len(msgs) {
				t.Fatalf("Kept index %d out of range", k)
			}
			if strings.Contains(msgs[k].Text, sent) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("summary sentence %q is not from a kept message", sent)
		}
	}
}

func TestExtractiveKeepsFactsAndDropsAcks(t *testing.T) {
	ctx := context.Background()
	for _, e := range embedders(t) {
		for _, f := range fixtures(t) {
			t.Run(e.name+"/"+f.name, func(t *testing.T) {
				s, err := NewExtractive(e.e, ExtractiveOptions{}).Summarize(ctx, f.msgs)
				if err != nil {
					t.Fatal(err)
				}
				if s.Method != "extractive" {
					t.Errorf("Method = %q", s.Method)
				}
				if n := utf8.RuneCountInString(s.Text); n > DefaultMaxChars {
					t.Errorf("summary has %d characters, more than %d", n, DefaultMaxChars)
				}
				if want := header(f.msgs, nil); !strings.HasPrefix(s.Text, want+"\n") {
					t.Errorf("summary does not start with the header %q:\n%s", want, s.Text)
				}
				for _, fact := range f.facts {
					if !strings.Contains(s.Text, fact) {
						t.Errorf("summary lost %q:\n%s", fact, s.Text)
					}
				}
				for _, sent := range bodySentences(t, s.Text, true, f.msgs) {
					if slices.Contains(f.acks, sent) {
						t.Errorf("summary keeps the acknowledgement %q:\n%s", sent, s.Text)
					}
				}
				checkTraceable(t, s, f.msgs, true)
			})
		}
	}
}

// Under any cap, a sentence without a fact is kept only when every fact
// sentence is: facts come first.
func TestExtractiveKeepsFactsBeforeFiller(t *testing.T) {
	ctx := context.Background()
	for _, e := range embedders(t)[:2] {
		for _, f := range fixtures(t) {
			var facts, filler []string
			for _, s := range analyse(f.msgs) {
				switch {
				case !s.candidate():
				case s.feat.must():
					facts = append(facts, s.text)
				default:
					filler = append(filler, s.text)
				}
			}
			if len(facts) == 0 || len(filler) == 0 {
				t.Fatalf("%s: fixture needs both facts and filler", f.name)
			}
			for maxChars := 100; maxChars <= 1600; maxChars += 50 {
				s, err := NewExtractive(e.e, ExtractiveOptions{MaxChars: maxChars}).Summarize(ctx, f.msgs)
				if err != nil {
					t.Fatal(err)
				}
				body := bodySentences(t, s.Text, true, f.msgs)
				hasFiller := slices.ContainsFunc(body, func(x string) bool { return slices.Contains(filler, x) })
				lost := slices.DeleteFunc(slices.Clone(facts), func(x string) bool { return slices.Contains(body, x) })
				if hasFiller && len(lost) > 0 {
					// A fact may be skipped only because it is too long
					// for the room left; filler kept instead must be
					// shorter than it.
					shortest := slices.MinFunc(lost, func(a, b string) int { return len(a) - len(b) })
					for _, x := range body {
						if slices.Contains(filler, x) && len(x) >= len(shortest) {
							t.Errorf("%s/%s MaxChars=%d: kept filler %q but lost the fact %q", e.name, f.name, maxChars, x, shortest)
						}
					}
				}
			}
		}
	}
}

// FactChars bounds the summary; MaxChars bounds it too once fact
// sentences are kept (FactChars = MaxChars: a hard cap; 0: no bound).
func TestExtractiveRespectsMaxChars(t *testing.T) {
	ctx := context.Background()
	for _, e := range embedders(t)[:2] {
		for _, f := range fixtures(t) {
			// What may take the summary beyond MaxChars: facts, and the
			// answers kept with them.
			var facts []string
			for _, s := range analyse(f.msgs) {
				if s.ack || s.candidate() && s.feat.must() {
					facts = append(facts, s.text)
				}
			}
			for _, maxChars := range []int{1, 20, 60, 61, 62, 80, 120, 200, 333, 500, 800, 1200, 5000} {
				for _, factChars := range []int{maxChars, 0} {
					s, err := NewExtractive(e.e, ExtractiveOptions{MaxChars: maxChars, FactChars: factChars}).Summarize(ctx, f.msgs)
					if err != nil {
						t.Fatal(err)
					}
					limit := math.MaxInt // FactChars 0: every fact sentence
					if factChars == maxChars {
						limit = maxChars
					}
					n := utf8.RuneCountInString(s.Text)
					if n > limit {
						t.Errorf("%s/%s: MaxChars=%d FactChars=%d but the summary has %d characters:\n%s", e.name, f.name, maxChars, factChars, n, s.Text)
					}
					body := bodySentences(t, s.Text, strings.HasPrefix(s.Text, "Conversation of "), f.msgs)
					// Beyond MaxChars only facts are kept.
					if n > maxChars && slices.ContainsFunc(body, func(x string) bool { return !slices.Contains(facts, x) }) {
						t.Errorf("%s/%s: MaxChars=%d: %d characters, with sentences that state no fact:\n%s", e.name, f.name, maxChars, n, s.Text)
					}
					hasHeader := strings.HasPrefix(s.Text, "Conversation of ")
					checkTraceable(t, s, f.msgs, hasHeader)
				}
			}
		}
	}
}

// Every fact sentence is kept while they fit in FactChars, even when they
// overflow MaxChars.
func TestExtractiveKeepsEveryFactWithinFactChars(t *testing.T) {
	ctx := context.Background()
	for _, f := range fixtures(t) {
		var facts []string
		for _, s := range analyse(f.msgs) {
			if s.candidate() && s.feat.must() {
				facts = append(facts, s.text)
			}
		}
		s, err := NewExtractive(nil, ExtractiveOptions{MaxChars: 200, FactChars: 100000}).Summarize(ctx, f.msgs)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range facts {
			if !strings.Contains(s.Text, x) {
				t.Errorf("%s: lost the fact %q:\n%s", f.name, x, s.Text)
			}
		}
	}
}

// By default every fact sentence of the conversation is kept, however far
// they take the summary beyond MaxChars (issue 25: a session of long,
// detailed turns lost 40 % of its fact sentences to a 3 × MaxChars cap);
// the other sentences still only fill what is left of MaxChars.
func TestExtractiveKeepsEveryFactByDefault(t *testing.T) {
	ctx := context.Background()
	places := []string{"Lisbon", "Porto", "Madrid", "Seville", "Valencia", "Bilbao", "Granada", "Toledo"}
	var lines []string
	for i := range 120 {
		who := []string{"Ana", "Ben"}[i%2]
		lines = append(lines, who, fmt.Sprintf("On day %d we paid %d euros for the hotel in %s, booked through the agency. That was a pleasant stay overall, I would say.",
			i+1, 40+i*3, places[i%len(places)]))
	}
	msgs := conv(t, "2024-03-01 09:00", lines...)
	var facts, filler []string
	for _, s := range analyse(msgs) {
		switch {
		case !s.candidate():
		case s.feat.must():
			facts = append(facts, s.text)
		default:
			filler = append(filler, s.text)
		}
	}
	if n := len(strings.Join(facts, " ")); n < 5*DefaultMaxChars {
		t.Fatalf("the fixture's fact sentences take %d characters; it needs more than %d", n, 5*DefaultMaxChars)
	}
	if len(filler) == 0 {
		t.Fatal("the fixture needs filler")
	}
	for _, e := range embedders(t)[:2] {
		s, err := NewExtractive(e.e, ExtractiveOptions{}).Summarize(ctx, msgs)
		if err != nil {
			t.Fatal(err)
		}
		folded := strings.Join(strings.Fields(s.Text), " ")
		lost := 0
		for _, x := range facts {
			if !strings.Contains(folded, strings.Join(strings.Fields(x), " ")) {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("%s: lost %d of %d fact sentences (%d characters kept)", e.name, lost, len(facts), utf8.RuneCountInString(s.Text))
		}
		for _, x := range filler {
			if strings.Contains(s.Text, x) {
				t.Errorf("%s: kept the filler %q beyond MaxChars", e.name, x)
			}
		}
		if got := strings.Count(s.Text, "Conversation of "); got != 1 {
			t.Errorf("%s: the header is said %d times", e.name, got)
		}
		checkTraceable(t, s, msgs, true)
	}
}

// A turn stored as "Name: text" with its speaker given is labelled once,
// in an extractive summary and in a model's transcript; the speakers' own
// names do not make a sentence a fact.
func TestSpeakerLabelSaidOnce(t *testing.T) {
	ts := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	msgs := []Message{
		{Speaker: "Fahim Khan", Text: "Fahim Khan: I went to the museum on Friday with my 2 kids.", Timestamp: ts},
		{Speaker: "Sara", Text: "Sara: Thanks, Fahim!", Timestamp: ts},
		{Speaker: "Sara", Text: "sara: I caught a cold last week.", Timestamp: ts},
		{Speaker: "Fahim Khan", Text: "Fahim Khan:", Timestamp: ts},
	}
	s, err := NewExtractive(nil, ExtractiveOptions{}).Summarize(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	want := "Conversation of 2023-05-08 between Fahim Khan and Sara.\nFahim Khan: I went to the museum on Friday with my 2 kids.\nSara: I caught a cold last week."
	if s.Text != want {
		t.Errorf("summary\n%s\nwant\n%s", s.Text, want)
	}
	for _, x := range analyse(msgs) {
		if x.text == "Thanks, Fahim!" && x.feat.name {
			t.Errorf("%q counts as naming someone; Fahim is a speaker", x.text)
		}
	}
	tr := transcript(msgs, nil)
	if strings.Contains(tr, "Fahim Khan: Fahim Khan: I") || strings.Contains(tr, "Sara: Sara:") || strings.Contains(tr, "Sara: sara:") {
		t.Errorf("the transcript repeats a label:\n%s", tr)
	}
}

func TestExtractiveLargeCapKeepsEveryNonTrivialSentence(t *testing.T) {
	f := fixtures(t)[1]
	s, err := NewExtractive(nil, ExtractiveOptions{MaxChars: 100000}).Summarize(context.Background(), f.msgs)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range analyse(f.msgs) {
		if a.candidate() && !strings.Contains(s.Text, a.text) {
			t.Errorf("with room for everything the summary lost %q", a.text)
		}
	}
}

// vecEmbedder embeds each known text as a fixed vector, so tests control
// centrality exactly.
type vecEmbedder struct {
	vecs  map[string][]float32
	fail  error
	calls int
	mu    sync.Mutex
}

func (v *vecEmbedder) ModelID() string { return "test-vectors" }
func (v *vecEmbedder) Dim() int        { return 3 }
func (v *vecEmbedder) Embed(ctx context.Context, text string) ([]float32, error) {
	out, err := v.EmbedBatch(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}
func (v *vecEmbedder) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	v.mu.Lock()
	v.calls++
	v.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if v.fail != nil {
		return nil, v.fail
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if vec, ok := v.vecs[t]; ok {
			out[i] = vec
		} else {
			out[i] = make([]float32, 3)
		}
	}
	return out, nil
}

// Four sentences of equal length whose cosines to their mean fall in the
// order a > b > c > d (0.97, 0.89, 0.83, 0.77), written in the reverse
// order.
func centralityCase(a, b, c, d string) ([]Message, *vecEmbedder) {
	msgs := []Message{{Text: d}, {Text: c}, {Text: b}, {Text: a}}
	return msgs, &vecEmbedder{vecs: map[string][]float32{
		a: {1, 0, 0},
		b: {0.95, 0.31, 0},
		c: {0.8, -0.6, 0},
		d: {0.6, 0, 0.8},
	}}
}

func TestExtractiveKeepsMostCentralFactsWhenOverCap(t *testing.T) {
	a, b, c, d := "Bring 1 red tent.", "Bring 2 blue mat.", "Bring 3 old maps.", "Bring 4 gas cans."
	msgs, e := centralityCase(a, b, c, d)
	s, err := NewExtractive(e, ExtractiveOptions{MaxChars: 2*len(a) + 1, FactChars: 2*len(a) + 1, NoHeader: true}).Summarize(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	// Room for two: the two most central, in conversation order.
	if want := b + "\n" + a; s.Text != want {
		t.Errorf("summary %q, want %q", s.Text, want)
	}
	if !slices.Equal(s.Kept, []int{2, 3}) {
		t.Errorf("Kept = %v, want [2 3]", s.Kept)
	}
}

func TestExtractiveFillsWithMostCentral(t *testing.T) {
	a, b, c, d := "the soup is warm.", "the cake is soft.", "the tea is green.", "the jam is thick."
	msgs, e := centralityCase(a, b, c, d)
	for _, s := range analyse(msgs) {
		if s.feat.must() || !s.candidate() {
			t.Fatalf("%q should be plain filler", s.text)
		}
	}
	got, err := NewExtractive(e, ExtractiveOptions{MaxChars: 3*len(a) + 2, NoHeader: true}).Summarize(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if want := c + "\n" + b + "\n" + a; got.Text != want {
		t.Errorf("summary %q, want %q", got.Text, want)
	}
}

func TestExtractiveEmbedsInBatches(t *testing.T) {
	var msgs []Message
	vecs := map[string][]float32{}
	for i := range 150 {
		text := fmt.Sprintf("note number %d about the garden.", i)
		msgs = append(msgs, Message{Text: text})
		vecs[text] = []float32{1, float32(i % 7), 0}
	}
	e := &vecEmbedder{vecs: vecs}
	if _, err := NewExtractive(e, ExtractiveOptions{}).Summarize(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	if want := (150 + embedBatchSize - 1) / embedBatchSize; e.calls != want {
		t.Errorf("EmbedBatch called %d times for 150 sentences, want %d", e.calls, want)
	}
}

func TestExtractiveFallsBackToLexicalWhenEmbeddingFails(t *testing.T) {
	f := fixtures(t)[0]
	failing := &vecEmbedder{fail: errors.New("model not loaded")}
	got, err := NewExtractive(failing, ExtractiveOptions{Logger: discardLogger()}).Summarize(context.Background(), f.msgs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := NewExtractive(nil, ExtractiveOptions{}).Summarize(context.Background(), f.msgs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != want.Text {
		t.Errorf("with a failing embedder the summary differs from the lexical one:\n%s\n---\n%s", got.Text, want.Text)
	}
}

func TestExtractiveCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := fixtures(t)[0]
	for _, e := range []embed.Embedder{nil, embed.NewHash(64)} {
		if _, err := NewExtractive(e, ExtractiveOptions{}).Summarize(ctx, f.msgs); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled Summarize returned %v", err)
		}
	}
}

func TestExtractiveDeterministic(t *testing.T) {
	for _, e := range embedders(t) {
		for _, f := range fixtures(t) {
			x := NewExtractive(e.e, ExtractiveOptions{MaxChars: 700})
			first, err := x.Summarize(context.Background(), f.msgs)
			if err != nil {
				t.Fatal(err)
			}
			// Concurrent runs on one summarizer also exercise -race.
			var wg sync.WaitGroup
			results := make([]Summary, 4)
			errs := make([]error, 4)
			for i := range results {
				wg.Go(func() { results[i], errs[i] = x.Summarize(context.Background(), f.msgs) })
			}
			wg.Wait()
			for i, r := range results {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				if r.Text != first.Text || !slices.Equal(r.Kept, first.Kept) {
					t.Errorf("%s/%s: run %d differs:\n%s\n---\n%s", e.name, f.name, i, r.Text, first.Text)
				}
			}
		}
	}
}

func TestExtractiveEmptyAndTrivial(t *testing.T) {
	x := NewExtractive(nil, ExtractiveOptions{})
	if _, err := x.Summarize(context.Background(), nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("no messages: err = %v, want ErrEmpty", err)
	}
	day := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	msgs := []Message{
		{Speaker: "Alice", Text: "hi!", Timestamp: day},
		{Speaker: "Bob", Text: "hey 👋", Timestamp: day},
		{Speaker: "Alice", Text: "lol ok", Timestamp: day},
		{Speaker: "Bob", Text: "", Timestamp: day},
	}
	s, err := x.Summarize(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Conversation of 2023-05-08 between Alice and Bob."; s.Text != want || s.Kept != nil {
		t.Errorf("only acknowledgements: got %q %v, want %q and no kept messages", s.Text, s.Kept, want)
	}
}

func TestExtractiveDropsRepeats(t *testing.T) {
	msgs := []Message{
		{Speaker: "Alice", Text: "The flight leaves at 9am."},
		{Speaker: "Bob", Text: "the flight leaves at 9am!"},
		{Speaker: "Alice", Text: "Bring the passports."},
	}
	s, err := NewExtractive(nil, ExtractiveOptions{NoHeader: true}).Summarize(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Alice: The flight leaves at 9am.\nAlice: Bring the passports."; s.Text != want {
		t.Errorf("summary %q, want %q", s.Text, want)
	}
}

func TestExtractiveLayout(t *testing.T) {
	day := time.Date(2023, 5, 8, 22, 30, 0, 0, time.UTC)
	t.Run("one speaker has no prefixes", func(t *testing.T) {
		msgs := []Message{
			{Speaker: "me", Text: "Dentist on June 3. Bring the insurance card.", Timestamp: day},
			{Speaker: "me", Text: "Car service costs $180.", Timestamp: day.Add(2 * time.Hour)},
		}
		s, err := NewExtractive(nil, ExtractiveOptions{}).Summarize(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		want := "Conversation of 2023-05-08 to 2023-05-09 with me.\nDentist on June 3. Bring the insurance card.\nCar service costs $180."
		if s.Text != want {
			t.Errorf("summary\n%s\nwant\n%s", s.Text, want)
		}
	})
	t.Run("location moves the dates", func(t *testing.T) {
		tokyo := time.FixedZone("JST", 9*3600)
		msgs := []Message{{Speaker: "me", Text: "Dentist on June 3.", Timestamp: day}}
		s, err := NewExtractive(nil, ExtractiveOptions{Location: tokyo}).Summarize(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(s.Text, "Conversation of 2023-05-09 with me.") {
			t.Errorf("summary %q does not use the location's date", s.Text)
		}
	})
	t.Run("no header", func(t *testing.T) {
		msgs := []Message{{Speaker: "A", Text: "Meet at 5pm.", Timestamp: day}, {Speaker: "B", Text: "I will bring 2 chairs.", Timestamp: day}}
		s, err := NewExtractive(nil, ExtractiveOptions{NoHeader: true}).Summarize(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if want := "A: Meet at 5pm.\nB: I will bring 2 chairs."; s.Text != want {
			t.Errorf("summary %q, want %q", s.Text, want)
		}
	})
	t.Run("sentences of one message share a line", func(t *testing.T) {
		msgs := []Message{{Speaker: "A", Text: "Meet at 5pm. ok. Bring Sam."}, {Speaker: "B", Text: "Will do."}}
		s, err := NewExtractive(nil, ExtractiveOptions{NoHeader: true}).Summarize(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if want := "A: Meet at 5pm. Bring Sam."; s.Text != want {
			t.Errorf("summary %q, want %q", s.Text, want)
		}
	})
}

func TestHeader(t *testing.T) {
	d1 := time.Date(2023, 5, 8, 10, 0, 0, 0, time.UTC)
	d2 := time.Date(2023, 5, 9, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		msgs []Message
		want string
	}{
		{[]Message{{Speaker: "Alice", Timestamp: d2}, {Speaker: "Bob", Timestamp: d1}}, "Conversation of 2023-05-08 to 2023-05-09 between Alice and Bob."},
		{[]Message{{Speaker: "Alice", Timestamp: d1}, {Speaker: "Bob", Timestamp: d1}, {Speaker: "Carol"}, {Speaker: "Alice"}}, "Conversation of 2023-05-08 between Alice, Bob and Carol."},
		{[]Message{{Speaker: "Alice"}}, "Conversation with Alice."},
		{[]Message{{Timestamp: d1}}, "Conversation of 2023-05-08."},
		{[]Message{{Text: "x"}}, ""},
	}
	for _, tt := range tests {
		if got := header(tt.msgs, nil); got != tt.want {
			t.Errorf("header = %q, want %q", got, tt.want)
		}
	}
}

// A sentence longer than the room left is skipped whole, never cut: a cut
// can drop a "not".
func TestExtractiveSkipsOverlongSentences(t *testing.T) {
	long := "We will not renew the lease on " + strings.Repeat("the old office and ", 20) + "the garage by June 30."
	msgs := []Message{
		{Speaker: "A", Text: long},
		{Speaker: "B", Text: "Rent is $900 a month."},
	}
	s, err := NewExtractive(nil, ExtractiveOptions{MaxChars: 100, FactChars: 100, NoHeader: true}).Summarize(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "B: Rent is $900 a month."; s.Text != want || !slices.Equal(s.Kept, []int{1}) {
		t.Errorf("got %q %v, want %q [1]", s.Text, s.Kept, want)
	}
}

// An answer ("Yes.") is kept only with its question, and only if both fit.
func TestExtractiveAnswersGoWithTheirQuestion(t *testing.T) {
	msgs := []Message{
		{Speaker: "A", Text: "Should we take the 9am ferry?"},
		{Speaker: "B", Text: "Yes!"},
		{Speaker: "A", Text: "ok"},
	}
	s, err := NewExtractive(nil, ExtractiveOptions{NoHeader: true}).Summarize(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "A: Should we take the 9am ferry?\nB: Yes!"; s.Text != want {
		t.Errorf("got %q, want %q", s.Text, want)
	}
	// Room for the question but not the answer: neither is kept alone.
	s, err = NewExtractive(nil, ExtractiveOptions{MaxChars: 33, FactChars: 33, NoHeader: true}).Summarize(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if s.Text != "" {
		t.Errorf("got %q, want nothing", s.Text)
	}
}
