package memory

import (
	"testing"
	"time"
)

// TestFoldNeighbourTurns: a short reply that ranks only by what the turn
// before it lends it is shown as that turn's context, not as a result of
// its own, and the place it frees goes to a match from elsewhere (with
// FoldShare 0.01); with folding off (the default) the reply takes that
// place (so the case tests something).
func TestFoldNeighbourTurns(t *testing.T) {
	e := recallEngine(t)
	at := time.Date(2025, 4, 5, 18, 0, 0, 0, la)
	chat := []StoreRequest{
		{Content: "did you ever get the bike brakes fixed before the mountain trip?", Speaker: "Lena"},
		{Content: "yes! saturday morning, took ten minutes", Speaker: "Sam"},
		{Content: "anyway what are we cooking tonight", Speaker: "Lena"},
	}
	for i, turn := range chat {
		turn.Scope, turn.ConversationID, turn.Timestamp = "chat", "chat-1", at.Add(time.Duration(i)*time.Minute)
		mustStore(t, e, turn)
	}
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
