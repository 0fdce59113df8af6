package recall

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// TestQueryEmbeddingFails: the query is embedded beside the reading of its
// words; when the embedding fails, or panics, the search still answers by
// keywords (and the process does not go down with the embedder).
func TestQueryEmbeddingFails(t *testing.T) {
	ix := memindex.New(4, time.UTC)
	now := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	want := bson.NewObjectID()
	ix.Put(memindex.Doc{ID: want, Kind: memindex.KindMemory, Text: "the boiler was serviced by Henrik", Source: "note", Scope: "Global", TS: now, Created: now, Vec: []float32{1, 0, 0, 0}})
	ix.Put(memindex.Doc{ID: bson.NewObjectID(), Kind: memindex.KindMemory, Text: "a walk along the river", Source: "note", Scope: "Global", TS: now, Created: now, Vec: []float32{0, 1, 0, 0}})
	for name, vec := range map[string]func(context.Context, string) ([]float32, error){
		"fails":  func(context.Context, string) ([]float32, error) { return nil, errors.New("model gone") },
		"panics": func(context.Context, string) ([]float32, error) { panic("kernel fault") },
		"works":  func(context.Context, string) ([]float32, error) { return []float32{1, 0, 0, 0}, nil },
	} {
		hits, err := Rank(context.Background(), ix, Request{Query: "boiler serviced", Now: now, Loc: time.UTC, Filter: memindex.Filter{Scopes: []string{"Global"}},
			K: 5, Mode: ModeHybrid, Options: Options{}.WithDefaults(), Vector: vec, Log: slog.New(slog.DiscardHandler)})
		if err != nil || len(hits) == 0 || hits[0].ID != want {
			t.Errorf("embedding %s: %v %v, want the boiler first", name, hits, err)
		}
	}
}
