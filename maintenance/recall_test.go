package maintenance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/summarize"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/scopes"
)

// agedChat is a year-old chat between two people over three sessions,
// stored the way clients store turns: "Name: text" with the speaker given.
var agedChat = []struct {
	session int
	speaker string
	text    string
}{
	{0, "Fahim Khan", "Hey Sara, long time! How was your week?"},
	{0, "Sara Lind", "Pretty hectic. I caught a cold on Tuesday and stayed home for three days."},
	{0, "Fahim Khan", "Oh no, hope you feel better. I went to the science museum with my two kids on Saturday."},
	{0, "Sara Lind", "That sounds fun! Which exhibit did they like the most?"},
	{0, "Fahim Khan", "The planetarium show, they talked about Saturn's rings all evening."},
	{0, "Sara Lind", "Cute. I should take my nephew there sometime."},
	{1, "Sara Lind", "I finally started reading The Left Hand of Darkness, the book you recommended."},
	{1, "Fahim Khan", "Great choice! Le Guin is wonderful. How far are you?"},
	{1, "Sara Lind", "About a hundred pages in. The winter setting is so vivid."},
	{1, "Fahim Khan", "I joined a chess tournament at the community center, first round is on the 14th."},
	{1, "Sara Lind", "Good luck! Are you still playing online every night?"},
	{1, "Fahim Khan", "Mostly weekends now, work has been busy."},
	{2, "Fahim Khan", "We decided to move to Leeds in the spring, closer to my parents."},
	{2, "Sara Lind", "Big news! Will you rent or buy?"},
	{2, "Fahim Khan", "Rent first, we found a three-bedroom flat for 1,150 pounds a month."},
	{2, "Sara Lind", "That is a good price. I adopted a grey cat named Pepper last weekend."},
	{2, "Fahim Khan", "Pepper is a great name! Send me photos."},
	{2, "Sara Lind", "ok"},
}

// agedQuestions ask for details of agedChat; each names the turn that
// holds the answer.
var agedQuestions = []struct {
	q    string
	turn int
}{
	{"When did Sara catch a cold?", 1},
	{"Where did Fahim take his kids?", 2},
	{"What did the kids like at the museum?", 4},
	{"Which book did Sara start reading?", 6},
	{"What tournament did Fahim join?", 9},
	{"Where is Fahim moving?", 12},
	{"How much is the rent of the new flat?", 14},
	{"What is the name of Sara's cat?", 15},
}

// agedEngine opens an engine with the USE-lite embedder on a fresh
// database, and the nightly pass's jobs on it with the default
// configuration, on a clock at today.
func agedEngine(t *testing.T) (*Env, context.Context) {
	t.Helper()
	emb, err := embed.NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	return agedEngineWith(t, emb)
}

// agedEngineWith is agedEngine with the embedder given.
func agedEngineWith(t *testing.T, emb embed.Embedder) (*Env, context.Context) {
	t.Helper()
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: today}
	eng := memory.New(store, reg, memory.Options{Embedder: emb, Now: clk.Now, Logger: testenv.Logger(t)})
	eng.Start(ctx)
	t.Cleanup(func() { eng.Close(context.Background()) })
	return &Env{
		Engine: eng, Store: store, Config: config.Defaults(), Now: clk.Now, Log: testenv.Logger(t),
		Summarizer: summarize.NewExtractive(emb, summarize.ExtractiveOptions{}),
		Pause:      func(time.Duration) time.Duration { return 0 },
	}, ctx
}

// storeAgedChat stores agedChat, its sessions dated days, days-7 and
// days-14 before today, and returns the turns' ids.
func storeAgedChat(t *testing.T, ctx context.Context, eng *memory.Engine, days int) []string {
	t.Helper()
	var ids []string
	for i, turn := range agedChat {
		res, err := eng.Store(ctx, memory.StoreRequest{
			Content: turn.speaker + ": " + turn.text, Scope: "Friends", Source: "conversation", Speaker: turn.speaker,
			ConversationID: fmt.Sprintf("chat/session-%d", turn.session),
			Timestamp:      daysAgo(days - 7*turn.session).Add(time.Duration(i) * time.Minute),
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.ID)
	}
	return ids
}

// ask runs every question of agedQuestions through Search as
// retrieve_memory does (top 5).
func ask(t *testing.T, ctx context.Context, eng *memory.Engine) []memory.SearchResult {
	t.Helper()
	var out []memory.SearchResult
	for _, q := range agedQuestions {
		res, err := eng.Search(ctx, memory.SearchRequest{Query: q.q, Scope: "Friends", Limit: 5, NoTouch: true})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
	return out
}

func withoutSummaries(ms []memory.Memory) []string {
	var ids []string
	for _, m := range ms {
		if m.Source != "summary" {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// shownTurns are the ids of the turns the results show: withoutSummaries
// and the turns folded into each result as its context (part of it).
func shownTurns(ms []memory.Memory) []string {
	ids := withoutSummaries(ms)
	for _, m := range ms {
		for _, c := range m.Context {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// A conversation older than keep_full_days is summarized and archived by
// the nightly pass, and every detail asked about is still recalled from
// the turn that says it, the turns in the order they had before the pass; the summaries say
// each speaker once and keep the turns that state facts.
func TestNightlyPassKeepsOldConversationsRecallable(t *testing.T) {
	env, ctx := agedEngine(t)
	eng := env.Engine
	ids := storeAgedChat(t, ctx, eng, 400)
	before := ask(t, ctx, eng)
	for i, q := range agedQuestions {
		if !slices.Contains(shownTurns(before[i].Results), ids[q.turn]) {
			t.Fatalf("before the pass, %q does not recall %q: %v", q.q, agedChat[q.turn].text, before[i].Results)
		}
	}

	rep, err := env.All(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts["conversations_summarized"] != 3 || rep.Counts["messages_archived"] != len(agedChat) {
		t.Fatalf("the pass did not summarize and archive the chat: %+v", rep.Counts)
	}
	after := ask(t, ctx, eng)
	for i, q := range agedQuestions {
		got := after[i]
		if got.NothingRelevant != before[i].NothingRelevant {
			t.Errorf("%q: nothing relevant %v before the pass, %v after", q.q, before[i].NothingRelevant, got.NothingRelevant)
		}
		// The turns rank as they did. A summary that ranks among them
		// brings its conversation's best turn along, which takes its place
		// (and may push the last turn out); every turn is a candidate
		// here, so no summary is left among the results.
		b, a := withoutSummaries(before[i].Results), withoutSummaries(got.Results)
		if len(a) != len(got.Results) {
			t.Errorf("after the pass, %q gives summaries, not the turns they condense: %v", q.q, got.Results)
		}
		var kept []string
		for _, id := range a {
			if slices.Contains(b, id) {
				kept = append(kept, id)
			}
		}
		if !slices.Equal(kept, b[:len(kept)]) {
			t.Errorf("after the pass, %q recalls other turns:\nbefore %v\nafter  %v", q.q, b, a)
		}
		if !slices.Contains(shownTurns(got.Results), ids[q.turn]) {
			t.Errorf("after the pass, %q does not recall the turn %q itself: %v", q.q, agedChat[q.turn].text, got.Results)
		}
		for _, m := range got.Results {
			if m.Source != "summary" && !m.Archived {
				t.Errorf("result %q is not archived", m.Text)
			}
		}
	}

	sums, err := eng.List(ctx, memory.ListRequest{Scope: "Friends", Source: "summary"})
	if err != nil || len(sums.Memories) != 3 {
		t.Fatalf("summaries: %v %v", sums.Memories, err)
	}
	text := ""
	for _, s := range sums.Memories {
		text += s.Text + "\n"
		if strings.Count(s.Text, "Conversation of ") != 1 {
			t.Errorf("the date and participants are not said once:\n%s", s.Text)
		}
	}
	if strings.Contains(text, "Fahim Khan: Fahim Khan:") || strings.Contains(text, "Sara Lind: Sara Lind:") {
		t.Errorf("a summary repeats the speaker:\n%s", text)
	}
	for _, q := range agedQuestions {
		if !strings.Contains(text, agedChat[q.turn].speaker+": "+agedChat[q.turn].text) {
			t.Errorf("no summary quotes %q:\n%s", agedChat[q.turn].text, text)
		}
	}
	// Listings and counts show the summaries, not the archived turns.
	l, err := eng.List(ctx, memory.ListRequest{Scope: "Friends", Limit: 100})
	if err != nil || len(l.Memories) != 3 {
		t.Fatalf("listing after the pass: %d memories, %v", len(l.Memories), err)
	}
}

// The nightly pass changes nothing a question shows of a conversation:
// after a session is summarized and archived, a question that three of its
// turns answer shows the same turns in the same order as before. Recall
// keeps a turn back while the results already show a share of its
// conversation (ConvCover); counting only the live items, an archived
// session held one (its summary), so its first turn shown "covered" it
// and its other turns went below the other session's (LoCoMo R@5
// 66.4 -> 52.6 across the pass).
func TestNightlyPassShowsTheSameTurns(t *testing.T) {
	env, ctx := agedEngine(t)
	eng := env.Engine
	sessions := [][]string{{
		"Ana: I planted tomatoes in the back garden this spring.",
		"Ben: Nice, what else did you plant?",
		"Ana: Some basil and a few marigolds by the fence.",
		"Ben: My neighbour lent me his lawnmower yesterday.",
		"Ana: The tomatoes got blight in July and I lost half of them.",
		"Ben: That's a shame, it was a wet summer.",
		"Ana: I went hiking in the Lake District last weekend.",
		"Ben: Lucky you, the weather was great up there.",
		"Ana: I made tomato sauce from the tomatoes that survived.",
		"Ben: Save me a jar, please!",
	}, {
		"Ben: My car failed its inspection on Monday.",
		"Ana: Oh no, what was wrong with it?",
		"Ben: The brakes were worn and one tyre was bald.",
		"Ana: Are you getting it fixed at the garage on Elm Street?",
		"Ben: Yes, they quoted 420 pounds for everything.",
		"Ana: That's not too bad for brakes and a tyre.",
		"Ben: I'll cycle to work until it's done.",
		"Ana: The cycle path along the river is lovely in the morning.",
		"Ben: I started learning Spanish on my phone too.",
		"Ana: ¡Muy bien! Keep it up.",
	}}
	var ids []string
	for s, turns := range sessions {
		for i, text := range turns {
			speaker, _, _ := strings.Cut(text, ":")
			res, err := eng.Store(ctx, memory.StoreRequest{
				Content: text, Scope: "Friends", Source: "conversation", Speaker: speaker,
				ConversationID: fmt.Sprintf("garden/session-%d", s),
				Timestamp:      daysAgo(400 - 7*s).Add(time.Duration(i) * time.Minute),
			})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, res.ID)
		}
	}
	tomatoes := []string{ids[0], ids[4], ids[8]}
	search := func() []string {
		t.Helper()
		res, err := eng.Search(ctx, memory.SearchRequest{Query: "What happened to Ana's tomatoes?", Scope: "Friends", Limit: 5, NoTouch: true})
		if err != nil {
			t.Fatal(err)
		}
		return withoutSummaries(res.Results)
	}
	before := search()
	if slices.ContainsFunc(tomatoes, func(id string) bool { return !slices.Contains(before, id) }) {
		t.Fatalf("before the pass, the three tomato turns are not shown: %v", turnTexts(t, ctx, eng, before))
	}
	rep, err := env.All(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts["messages_archived"] != len(ids) {
		t.Fatalf("the pass did not archive the chat: %+v", rep.Counts)
	}
	if after := search(); !slices.Equal(after, before) {
		t.Errorf("after the pass, the question shows other turns:\nbefore %v\nafter  %v", turnTexts(t, ctx, eng, before), turnTexts(t, ctx, eng, after))
	}
}

// turnTexts are the texts of the memories ids, for a failure's message.
func turnTexts(t *testing.T, ctx context.Context, eng *memory.Engine, ids []string) []string {
	t.Helper()
	var out []string
	for _, id := range ids {
		m, err := eng.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m.Text)
	}
	return out
}

// When max_memory_items makes the size job archive conversations that are
// not old yet, what it archives stays recallable.
func TestSizeLimitArchivesWithoutLosingRecall(t *testing.T) {
	env, ctx := agedEngine(t)
	eng := env.Engine
	ids := storeAgedChat(t, ctx, eng, 40)
	st, err := eng.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := ask(t, ctx, eng)
	env.Config.MaxMemoryItems = st.TotalMemories / 2
	rep, err := env.All(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts["conversations_summarized"] != 0 || rep.Counts["size_messages_archived"] == 0 {
		t.Fatalf("the size job did not archive: %+v", rep.Counts)
	}
	for i, res := range ask(t, ctx, eng) {
		q := agedQuestions[i]
		if res.NothingRelevant != before[i].NothingRelevant || !slices.Contains(shownTurns(res.Results), ids[q.turn]) {
			t.Errorf("%q does not recall %q: %v", q.q, agedChat[q.turn].text, res.Results)
		}
	}
}

// A long session of detailed turns keeps every fact sentence (dated,
// numbered, named or decided) in its summary, however long: a summary
// over memory.max_content_bytes is stored in parts, the dates and
// speakers said once, and a detail is still recalled after the summarize job.
func TestLongSessionSummaryKeepsEveryFact(t *testing.T) {
	// The hash embedder: what is tested is the summary and its parts;
	// the detail is found by its words.
	env, ctx := agedEngineWith(t, embed.NewHash(embed.HashDim))
	eng := env.Engine
	env.Config.Memory.MaxContentBytes = 1024
	places := []string{"Lisbon", "Porto", "Madrid", "Seville", "Valencia", "Bilbao", "Granada", "Toledo"}
	var msgs []summarize.Message
	var ids []string
	for i := range 30 {
		who := []string{"Ana Costa", "Ben Moreau"}[i%2]
		text := fmt.Sprintf("On day %d we paid %d euros for the hotel in %s, booked through the agency. That was a pleasant stay, I would say.",
			i+1, 40+i*3, places[i%len(places)])
		ts := daysAgo(400).Add(time.Duration(i) * time.Minute)
		res, err := eng.Store(ctx, memory.StoreRequest{Content: who + ": " + text, Scope: "Friends", Source: "conversation",
			Speaker: who, ConversationID: "trip", Timestamp: ts})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.ID)
		msgs = append(msgs, summarize.Message{Text: text, Speaker: who, Timestamp: ts})
	}
	rep, err := env.Summarize(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts["conversations_summarized"] != 1 || rep.Counts["messages_archived"] != len(ids) {
		t.Fatalf("the pass did not summarize and archive the session: %+v", rep.Counts)
	}
	sums, err := eng.List(ctx, memory.ListRequest{Scope: "Friends", Source: "summary", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(sums.Memories) < 3 {
		t.Fatalf("a summary of every fact of 30 detailed turns fits in %d parts of at most 1,024 bytes", len(sums.Memories))
	}
	slices.SortFunc(sums.Memories, func(a, b memory.Memory) int { return strings.Compare(a.ID, b.ID) })
	var all []string
	for _, s := range sums.Memories {
		if len(s.Text) > env.Config.Memory.MaxContentBytes {
			t.Errorf("a summary part has %d bytes, over memory.max_content_bytes", len(s.Text))
		}
		if s.ConversationID != "trip" {
			t.Errorf("a summary part belongs to %q", s.ConversationID)
		}
		all = append(all, s.Text)
	}
	text := strings.Join(strings.Fields(strings.Join(all, "\n")), " ")
	if n := strings.Count(text, "Conversation of "); n != 1 {
		t.Errorf("the dates and speakers are said %d times", n)
	}
	lost := 0
	for _, ss := range summarize.FactSentences(msgs) {
		for _, s := range ss {
			if !strings.Contains(text, strings.Join(strings.Fields(s), " ")) {
				lost++
			}
		}
	}
	if lost > 0 {
		t.Errorf("the summary lost %d fact sentences", lost)
	}
	res, err := eng.Search(ctx, memory.SearchRequest{Query: "How much did we pay for the hotel on day 23?", Scope: "Friends", Limit: 5, NoTouch: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Results, func(m memory.Memory) bool {
		return m.ID == ids[22] || strings.Contains(m.Text, "On day 23 we paid 106 euros")
	}) {
		t.Errorf("after the pass the detail of day 23 is not recalled: %v", res.Results)
	}
}
