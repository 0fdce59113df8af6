package memory

import (
	"testing"
	"time"
)

// TestQuestionAboutSomeoneElse: a question about a person of one
// conversation, asked over another conversation that shares its topic but
// not its people, is told nothing_relevant; the same kind of question
// about someone who is in the conversation is answered.
func TestQuestionAboutSomeoneElse(t *testing.T) {
	e := recallEngine(t)
	at := time.Date(2024, 3, 1, 18, 0, 0, 0, la)
	chat := func(scope string, turns [][2]string) {
		for _, tn := range turns {
			at = at.Add(2 * time.Minute)
			mustStore(t, e, StoreRequest{Content: tn[1], Speaker: tn[0], Source: "conversation", ConversationID: scope, Scope: scope, Timestamp: at})
		}
	}
	chat("friends", [][2]string{
		{"Caroline", "Hey Mel! I went to a support group meeting yesterday, it was really moving."},
		{"Melanie", "That's great to hear. I've been reading a lot of books lately, mostly fantasy novels."},
		{"Caroline", "Which books have you liked the most?"},
		{"Melanie", "The Name of the Wind, I read it twice. I also started painting sunsets by the lake."},
		{"Caroline", "I'd love to see your paintings sometime. I'm thinking of becoming a counsellor."},
		{"Melanie", "You'd be brilliant at it. We're taking the kids camping in the mountains next month."},
	})
	chat("teammates", [][2]string{
		{"Tim", "I just finished rereading the Harry Potter books, still my favourite series."},
		{"John", "Nice. Basketball practice went late again, coach made us run drills."},
		{"Tim", "I'm also learning to play the violin, it's harder than I thought."},
		{"John", "I visited Seattle last week for a game and loved it."},
	})
	for _, q := range []string{"What books has Tim read?", "What instrument is Tim learning to play?", "Which city did John visit for a game?"} {
		res := search(t, e, SearchRequest{Query: q, Scope: "friends", ExactScope: true, Limit: 10})
		if !res.NothingRelevant || len(relevant(res)) != 0 {
			t.Errorf("%q over the other conversation: nothing relevant %v, relevant %v %v", q, res.NothingRelevant, texts(relevant(res)), confidences(res.Results))
		}
	}
	for _, c := range []struct{ scope, q, want string }{
		{"friends", "What books has Melanie read?", "That's great to hear. I've been reading a lot of books lately, mostly fantasy novels."},
		{"friends", "What is Caroline thinking of becoming?", "I'd love to see your paintings sometime. I'm thinking of becoming a counsellor."},
		{"teammates", "What books has Tim read?", "I just finished rereading the Harry Potter books, still my favourite series."},
	} {
		res := search(t, e, SearchRequest{Query: c.q, Scope: c.scope, ExactScope: true, Limit: 10})
		if res.NothingRelevant || len(res.Results) == 0 || res.Results[0].Text != c.want || res.Results[0].Weak {
			t.Errorf("%q: nothing relevant %v, got %v %v", c.q, res.NothingRelevant, texts(res.Results), confidences(res.Results))
		}
	}
}
