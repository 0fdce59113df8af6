package recall

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// TestWithoutSpeakers: the text embedded under Options.NoSpeakerVector
// leaves out the words that name a speaker the index knows (possessive
// too), keeps roles, stopword names and other words, and is the query
// itself when nothing else would be left.
func TestWithoutSpeakers(t *testing.T) {
	ix := memindex.New(0, time.UTC)
	at := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	put := func(speaker, text string) {
		at = at.Add(time.Minute)
		ix.Put(memindex.Doc{ID: bson.NewObjectID(), Kind: memindex.KindMemory, Text: text, Source: memindex.SourceConversation, Scope: "a", Conv: "a", Speaker: speaker, TS: at, Created: at})
	}
	put("Caroline", "I painted a sunset by the lake last week.")
	put("Melanie", "wow")
	put("user", "The user guide says to restart the router.")
	put("May", "See you at the market.")
	for _, c := range []struct{ query, want string }{
		{"What did Caroline paint?", "What did paint?"},
		{"What is Caroline's favourite lake?", "What is favourite lake?"},
		{"When did Melanie and Caroline go camping?", "When did and go camping?"},
		{"What did the user say about the router?", "What did the user say about the router?"},
		{"What did I buy in May?", "What did I buy in May?"},
		{"What did Maria paint?", "What did Maria paint?"},
		{"Caroline", "Caroline"},
	} {
		if got := withoutSpeakers(ix, c.query); got != c.want {
			t.Errorf("withoutSpeakers(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}
