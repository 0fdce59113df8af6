package memory

import (
	"testing"
	"time"
)

// TestFoldNeighbourTurns: a short reply that ranks only by what the turn
// before it lends it is shown as that turn's context, not as a result of
// its own, and the place it frees goes to a match from elsewhere (with
// FoldShare 0.01, the default); with folding off the reply takes that
// place (so the case tests something).
func TestFoldNeighbourTurns(t *testing.T) {
	e := recallEngine(t)
	at := time.Date(2025, 4, 5, 18, 0, 0, 0, la)
	chat := []StoreRequest{
		{Content: "did you ever get the bike brakes fixed before the mountain trip?", Speaker: "Lena"},
		{Content: "yes! saturday morning, took ten minutes", Speaker: "Sam"},
		{Content: "anyway what are we cooking tonight", Speaker: "Lena"},
	}
	storeChat(t, e, chat, at)
	elsewhere := StoreRequest{Content: "the bike shop replaced the brakes and said the chain needs oil soon",
		Scope: "chat", ConversationID: "chat-2", Speaker: "Sam", Timestamp: at.Add(-72 * time.Hour)}
	mustStore(t, e, elsewhere)
	mustStore(t, e, StoreRequest{Content: "ok, see you at the climbing gym", Scope: "chat", ConversationID: "chat-2", Speaker: "Lena", Timestamp: at.Add(-71 * time.Hour)})
	e.SetRankOptions(RankOptions{FoldShare: 0.01})
	q := SearchRequest{Query: "when were the bike brakes fixed?", Scope: "chat", ExactScope: true, Limit: 2}

	res := search(t, e, q)
	if len(res.Results) != 2 || res.Results[0].Text != chat[0].Content {
		t.Fatalf("got %v, want the question turn first", texts(res.Results))
	}
	if ctx := res.Results[0].Context; len(ctx) != 1 || ctx[0].Text != chat[1].Content || ctx[0].Speaker != "Sam" || !ctx[0].Timestamp.Equal(at.Add(time.Minute)) {
		t.Errorf("first result's context %+v, want the reply %q", ctx, chat[1].Content)
	}
	if res.Results[1].Text != elsewhere.Content {
		t.Errorf("second result %q, want the other conversation's %q in the place the reply freed", res.Results[1].Text, elsewhere.Content)
	}

	e.SetRankOptions(RankOptions{FoldShare: -1})
	res = search(t, e, q)
	if len(res.Results) != 2 || res.Results[1].Text != chat[1].Content || len(res.Results[0].Context) != 0 {
		t.Errorf("folding off: got %v, want the question turn and the reply as two results", texts(res.Results))
	}
}

// TestFoldReplyBelowDraw: a long reply next to the question that finds
// it is folded into the question's result even when, by its own score, it
// ranks below what Rank draws from the index (3 × the limit): memories
// elsewhere that share the topic outrank it, and without taking it in
// from the pool the answer would show the question without its reply.
// Turns weigh keyword coverage as notes do here (TurnKeywordWeight off):
// at 1.5 the reply climbs into the draw by itself and the case would test
// nothing.
func TestFoldReplyBelowDraw(t *testing.T) {
	e := recallEngine(t)
	at := time.Date(2025, 4, 5, 18, 0, 0, 0, la)
	question := StoreRequest{Content: "how do I set up the new water filter for the aquarium?", Speaker: "Lena"}
	reply := StoreRequest{Content: "Sure. Rinse the sponge and the ceramic rings under tap water first, never with soap, " +
		"hang the unit on the back wall of the tank so the intake sits about five centimetres above the gravel, " +
		"fill the box with tank water before you plug it in so the motor does not run dry, and then let it " +
		"run for a day before adding any new fish, checking that the flow is gentle enough for small ones.", Speaker: "assistant"}
	storeChat(t, e, []StoreRequest{question, reply}, at)
	for i, text := range []string{
		"the aquarium filter at the pet shop is on sale this week",
		"my aquarium filter got noisy again last night",
		"cleaned the aquarium filter and the water looks clear now",
		"ordered a spare aquarium water filter online",
		"the new filter for the aquarium arrived today",
	} {
		mustStore(t, e, StoreRequest{Content: text, Scope: "chat", ConversationID: "note-" + string(rune('a'+i)), Speaker: "Lena", Timestamp: at.Add(-time.Duration(i+1) * 24 * time.Hour)})
	}
	q := SearchRequest{Query: "how do I set up the water filter for the aquarium", Scope: "chat", ExactScope: true, Limit: 1}

	// The single-turn chats are notes (no neighbours): coordination
	// (CoordWeight) would reorder them; the case is about folding.
	e.SetRankOptions(RankOptions{FoldShare: -1, TurnKeywordWeight: -1, CoordWeight: -1})
	res := search(t, e, SearchRequest{Query: q.Query, Scope: q.Scope, ExactScope: true, Limit: 10})
	place := -1
	for i, m := range res.Results {
		if m.Text == reply.Content {
			place = i
		}
	}
	if place < 3 {
		t.Fatalf("folding off: the reply is at place %d of %v; the case needs it below the first 3", place, texts(res.Results))
	}

	e.SetRankOptions(RankOptions{FoldShare: 0.01, TurnKeywordWeight: -1, CoordWeight: -1})
	res = search(t, e, q)
	if len(res.Results) != 1 || res.Results[0].Text != question.Content {
		t.Fatalf("got %v, want the question turn", texts(res.Results))
	}
	if ctx := res.Results[0].Context; len(ctx) != 1 || ctx[0].Text != reply.Content {
		t.Errorf("the question's context %+v, want its reply", ctx)
	}
}

// TestFoldSecondRing: chat splits one answer over short messages; the one
// with the asked-for words sits two places from the turn that ranks, next
// to a turn folded into it. With the second ring (RingCoverage, default
// on with folding; here without the chain, ChainCoverage) it is shown in
// that result's context; with the ring off
// the single result shows only the turn next to it (so the case tests
// something), and a turn two away without the query's words never joins.
func TestFoldSecondRing(t *testing.T) {
	e := recallEngine(t)
	at := time.Date(2025, 4, 5, 18, 0, 0, 0, la)
	chat := []StoreRequest{
		{Content: "what did the vet say about milo's diet on the checkup?", Speaker: "Lena"},
		{Content: "oh wait", Speaker: "Sam"},
		{Content: "the vet said milo's diet needs less dry food", Speaker: "Sam"},
		{Content: "anyway see you tonight", Speaker: "Lena"},
		{Content: "bring the cake", Speaker: "Lena"},
	}
	storeChat(t, e, chat, at)
	mustStore(t, e, StoreRequest{Content: "the vet clinic moved to the high street", Scope: "chat", ConversationID: "chat-2", Speaker: "Sam", Timestamp: at.Add(-72 * time.Hour)})
	q := SearchRequest{Query: "what did the vet say about milo's diet", Scope: "chat", ExactScope: true, Limit: 1}
	shown := func(m Memory) map[string]bool {
		out := map[string]bool{m.Text: true}
		for _, c := range m.Context {
			out[c.Text] = true
		}
		return out
	}

	e.SetRankOptions(RankOptions{FoldShare: 0.01, RingCoverage: -1, ChainCoverage: -1})
	res := search(t, e, q)
	if len(res.Results) != 1 {
		t.Fatalf("ring off: got %v", texts(res.Results))
	}
	if s := shown(res.Results[0]); len(s) != 2 || !s[chat[1].Content] {
		t.Fatalf("ring off: shown %v, want one of the vet turns and the turn between them", s)
	}

	// The ring alone: with the chain (TestFoldChain) the vet turn ranks,
	// chains on and brings its own pair turn.
	e.SetRankOptions(RankOptions{FoldShare: 0.01, ChainCoverage: -1, ConvCover: -1})
	res = search(t, e, q)
	if len(res.Results) != 1 {
		t.Fatalf("got %v", texts(res.Results))
	}
	s := shown(res.Results[0])
	for _, want := range chat[:3] {
		if !s[want.Content] {
			t.Errorf("shown %v, want %q among them", s, want.Content)
		}
	}
	if s[chat[3].Content] || s[chat[4].Content] {
		t.Errorf("shown %v: a turn without the query's words joined", s)
	}
}

// TestFoldChain: two turns of one chat hold the asked-for words with a
// short reply between them. Without the chain the second ranks on its own
// and takes a place of its own for the same passage; with it
// (ChainCoverage) it joins the first one's result through the reply folded
// into it (with the turn after it, its own pair), and the place goes to
// another conversation.
func TestFoldChain(t *testing.T) {
	e := recallEngine(t)
	at := time.Date(2025, 4, 5, 18, 0, 0, 0, la)
	chat := []StoreRequest{
		{Content: "did you book the campsite for the lake trip in june?", Speaker: "Lena"},
		{Content: "yes", Speaker: "Sam"},
		{Content: "the campsite by the lake is booked for june, plot twelve", Speaker: "Sam"},
		{Content: "great, thanks", Speaker: "Lena"},
	}
	storeChat(t, e, chat, at)
	mustStore(t, e, StoreRequest{Content: "the lake trip in june might get rained out", Scope: "chat", ConversationID: "chat-2", Speaker: "Sam", Timestamp: at.Add(-72 * time.Hour)})
	third := StoreRequest{Content: "which campsite did the Bergers like?", Scope: "chat", ConversationID: "chat-3", Speaker: "Lena", Timestamp: at.Add(-96 * time.Hour)}
	mustStore(t, e, third)
	q := SearchRequest{Query: "did we book the campsite for the lake trip in june", Scope: "chat", ExactScope: true, Limit: 3}
	shown := func(m Memory) map[string]bool {
		out := map[string]bool{m.Text: true}
		for _, c := range m.Context {
			out[c.Text] = true
		}
		return out
	}
	chatResults := func(res []Memory) (n int, first map[string]bool) {
		for _, m := range res {
			if m.ConversationID == "chat-1" {
				if n++; n == 1 {
					first = shown(m)
				}
			}
		}
		return n, first
	}

	e.SetRankOptions(RankOptions{FoldShare: 0.01, ChainCoverage: -1, ConvCover: -1})
	res := search(t, e, q)
	if n, _ := chatResults(res.Results); len(res.Results) != 3 || n != 2 {
		t.Fatalf("chain off: got %v, want two results from the chat (so the case tests something)", texts(res.Results))
	}

	e.SetRankOptions(RankOptions{FoldShare: 0.01, ChainCoverage: 0.05, ConvCover: -1})
	res = search(t, e, q)
	n, s := chatResults(res.Results)
	if len(res.Results) != 3 || n != 1 {
		t.Fatalf("got %v, want one result from the chat", texts(res.Results))
	}
	for _, want := range chat {
		if !s[want.Content] {
			t.Errorf("the chat's result shows %v, want %q among them", s, want.Content)
		}
	}
	if res.Results[2].Text != third.Content {
		t.Errorf("third result %q, want the other conversation's %q in the place freed", res.Results[2].Text, third.Content)
	}
}

// TestFoldConvCover: with ConvCover, a turn of a short conversation the
// results already largely show (its question and reply, two of its five
// turns) takes no place of its own while another conversation's match
// can have it; with ConvCover off it takes the place (so the case tests
// something).
func TestFoldConvCover(t *testing.T) {
	e := recallEngine(t)
	at := time.Date(2025, 4, 5, 18, 0, 0, 0, la)
	chat := []StoreRequest{
		{Content: "did you ever get the bike brakes fixed before the mountain trip?", Speaker: "Lena"},
		{Content: "yes! saturday morning, took ten minutes", Speaker: "Sam"},
		{Content: "anyway what are we cooking tonight", Speaker: "Lena"},
		{Content: "pasta i think", Speaker: "Sam"},
		{Content: "oh and the bike brakes squeak a bit since they were fixed", Speaker: "Sam"},
	}
	storeChat(t, e, chat, at)
	elsewhere := StoreRequest{Content: "the shop said the brakes on my bike were worn out",
		Scope: "chat", ConversationID: "chat-2", Speaker: "Sam", Timestamp: at.Add(-72 * time.Hour)}
	mustStore(t, e, elsewhere)
	mustStore(t, e, StoreRequest{Content: "ok, see you at the climbing gym", Scope: "chat", ConversationID: "chat-2", Speaker: "Lena", Timestamp: at.Add(-71 * time.Hour)})
	q := SearchRequest{Query: "when were the bike brakes fixed?", Scope: "chat", ExactScope: true, Limit: 2}

	e.SetRankOptions(RankOptions{FoldShare: 0.01, ConvCover: -1})
	res := search(t, e, q)
	if len(res.Results) != 2 || res.Results[0].Text != chat[0].Content || res.Results[1].Text != chat[4].Content {
		t.Fatalf("ConvCover off: got %v, want the question turn and the later brakes turn of the same chat", texts(res.Results))
	}

	e.SetRankOptions(RankOptions{FoldShare: 0.01, ConvCover: 0.3})
	res = search(t, e, q)
	if len(res.Results) != 2 || res.Results[0].Text != chat[0].Content || res.Results[1].Text != elsewhere.Content {
		t.Fatalf("ConvCover 0.3: got %v, want the question turn, then the other conversation's %q", texts(res.Results), elsewhere.Content)
	}

	// The default options keep the turn back too.
	e.SetRankOptions(RankOptions{})
	res = search(t, e, q)
	if len(res.Results) != 2 || res.Results[0].Text != chat[0].Content || res.Results[1].Text != elsewhere.Content {
		t.Fatalf("default options: got %v, want the question turn, then the other conversation's %q", texts(res.Results), elsewhere.Content)
	}

	// Once every other match has its place, the kept-back turn fills the
	// next one.
	q.Limit = 3
	res = search(t, e, q)
	if len(res.Results) != 3 || res.Results[2].Text != chat[4].Content {
		t.Errorf("ConvCover 0.3, limit 3: got %v, want the later brakes turn third", texts(res.Results))
	}
}

// TestSynonymWeight: with SynonymWeight on, a note that says the query's
// word in another word ("invoice" for "bill") ranks first by keywords;
// off, a note holding one of the query's words alone does.
func TestSynonymWeight(t *testing.T) {
	e := recallEngine(t)
	invoice := "The plumber sent his invoice: 240 pounds"
	for _, c := range []string{invoice, "The plumber is coming on Tuesday at 9",
		"Split the dinner bill with Sam and Lena at the Italian place on Friday",
		"Leo's swimming lesson moved to Thursdays", "The car's MOT is due in March", "Hannah's birthday is on the 3rd of June",
		"Ruth is moving to Stirling", "The wifi password is on the fridge"} {
		mustStore(t, e, StoreRequest{Content: c, Scope: "notes"})
	}
	q := SearchRequest{Query: "how much was the plumber's bill?", Scope: "notes", ExactScope: true, Limit: 3, Mode: ModeKeyword}
	e.SetRankOptions(RankOptions{})
	if res := search(t, e, q); len(res.Results) == 0 || res.Results[0].Text == invoice {
		t.Fatalf("synonyms off: got %v, want another note first (else this test shows nothing)", texts(res.Results))
	}
	e.SetRankOptions(RankOptions{SynonymWeight: 0.4})
	if res := search(t, e, q); len(res.Results) == 0 || res.Results[0].Text != invoice {
		t.Fatalf("synonyms 0.4: got %v, want %q first", texts(res.Results), invoice)
	}
}

// storeChat stores turns as conversation "chat-1" in scope "chat", one a
// minute from at.
func storeChat(t *testing.T, e *Engine, turns []StoreRequest, at time.Time) {
	t.Helper()
	for i, turn := range turns {
		turn.Scope, turn.ConversationID, turn.Timestamp = "chat", "chat-1", at.Add(time.Duration(i)*time.Minute)
		mustStore(t, e, turn)
	}
}
