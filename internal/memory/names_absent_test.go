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

// TestSpeakerSpeltAnotherWay: typed chat spells people's names one way in
// the messages and another in the questions ("Tem" / "tim", "Jonn" /
// "jon", "Melenie" / "melanies"). A question naming a speaker that way is
// about that speaker: answered over their conversation with their turn
// first, told nothing_relevant over a conversation they are not in.
func TestSpeakerSpeltAnotherWay(t *testing.T) {
	e := recallEngine(t)
	at := time.Date(2024, 3, 1, 18, 0, 0, 0, la)
	chat := func(scope string, turns [][2]string) {
		for _, tn := range turns {
			at = at.Add(2 * time.Minute)
			mustStore(t, e, StoreRequest{Content: tn[0] + ": " + tn[1], Source: "conversation", ConversationID: scope, Scope: scope, Timestamp: at})
		}
	}
	chat("travel", [][2]string{
		{"Tem", "just got back from a trip, so tired lol"},
		{"John", "welcome back!! how was it"},
		{"Tem", "amazing, i finally read the hobbit on the plane"},
		{"John", "i'm still stuck on my basketball drills tbh"},
		{"Tem", "im learning the violin now too, its so hard"},
		{"John", "went to seattle last week for a game, loved it"},
	})
	chat("studio", [][2]string{
		{"Jonn", "lost my job at the bank today :("},
		{"Gina", "oh no, im so sorry"},
		{"Jonn", "gonna open a dance studio instead, always wanted to"},
		{"Gina", "my clothing store is doing ok, got a new supplier"},
		{"Melenie", "the kids made me a pottery bowl for my birthday"},
		{"Gina", "aww thats sweet"},
	})
	for _, c := range []struct{ scope, q, want string }{
		{"travel", "what book did tim read on the plane", "Tem: amazing, i finally read the hobbit on the plane"},
		{"travel", "what instrument is tim learning", "Tem: im learning the violin now too, its so hard"},
		{"studio", "what does jon want to open", "Jonn: gonna open a dance studio instead, always wanted to"},
		{"studio", "what did melanies kids make her", "Melenie: the kids made me a pottery bowl for my birthday"},
	} {
		res := search(t, e, SearchRequest{Query: c.q, Scope: c.scope, ExactScope: true, Limit: 10})
		if res.NothingRelevant || len(res.Results) == 0 || res.Results[0].Text != c.want || res.Results[0].Weak {
			t.Errorf("%q: nothing relevant %v, got %v %v", c.q, res.NothingRelevant, texts(res.Results), confidences(res.Results))
		}
	}
	for _, c := range []struct{ scope, q string }{
		{"studio", "what book did tim read on the plane"},
		{"studio", "what instrument is tim learning"},
		{"travel", "what does jon want to open"},
	} {
		res := search(t, e, SearchRequest{Query: c.q, Scope: c.scope, ExactScope: true, Limit: 10})
		if !res.NothingRelevant || len(relevant(res)) != 0 {
			t.Errorf("%q over the other conversation: nothing relevant %v, relevant %v %v", c.q, res.NothingRelevant, texts(relevant(res)), confidences(res.Results))
		}
	}
}
