package memory

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/gloss"
	"github.com/infmem/infmem/internal/memory/memindex"
)

// BenchmarkResultGlosses: what the rules after ranking pay to read ten
// results' glosses on every query: glossed again from their texts
// (gloss.Text, as before the index kept them) or read from the index
// (withGlosses).
func BenchmarkResultGlosses(b *testing.B) {
	notes := []string{
		"Paid the alquiler for March to the casero, 850 euros, by transfer on Tuesday",
		"Dentist appointment moved to Thursday the 14th at 3pm, remember to bring the insurance card",
		"Hausarzt Termin Dienstag 9 Uhr wegen der Nebenkostenabrechnung",
		"Caroline said she went to the LGBTQ support group yesterday and felt really accepted there",
		"The boiler service is booked with British Gas for the 3rd of next month, between 8 and 12",
		"Melanie: I painted a sunset over the lake last weekend, it took me almost six hours",
		"Leo's school trip to the science museum costs £12, the form is due back by Friday",
		"Switched the car insurance to Admiral, the policy number is on the email from June",
		"Granny's hip operation went well; she is staying at Aunt Jo's for two weeks to recover",
		"The bins go out on Wednesday night; recycling is every other week, the blue one",
	}
	e := New(nil, nil, Options{Embedder: embed.NewHash(embed.HashDim)})
	close(e.ready)
	res := make([]Memory, len(notes))
	for i, n := range notes {
		id := bson.NewObjectID()
		e.index().Put(memindex.Doc{ID: id, Kind: memindex.KindMemory, Text: n, Scope: "S", Key: contentKey(n)})
		res[i] = Memory{ID: id.Hex(), Text: n}
	}
	b.Run("glossed-again", func(b *testing.B) {
		for b.Loop() {
			for i := range res {
				gloss.Text(res[i].Text, false)
			}
		}
	})
	b.Run("kept", func(b *testing.B) {
		for b.Loop() {
			e.withGlosses(res)()
		}
	})
}
