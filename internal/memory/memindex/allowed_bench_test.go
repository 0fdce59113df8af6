package memindex

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkAllowed: the set a search's filter admits, over 100k memories
// in 10 scopes (a search of every scope, and of one).
func BenchmarkAllowed(b *testing.B) {
	ix := New(0, time.UTC)
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 100_000 {
		text := fmt.Sprintf("m%d", i)
		ix.Put(Doc{ID: bson.NewObjectID(), Kind: KindMemory, Text: text, Source: "note", Scope: fmt.Sprintf("s%d", i%10),
			TS: at.Add(time.Duration(i) * time.Second), Created: at, Key: key(text), Archived: i%7 == 0})
	}
	for _, f := range []Filter{{}, {Scopes: []string{"s3"}}} {
		b.Run(fmt.Sprintf("scopes=%d", len(f.Scopes)), func(b *testing.B) {
			ix.mu.RLock()
			defer ix.mu.RUnlock()
			c := ix.compileLocked(f)
			for b.Loop() {
				ix.allowedLocked(&c)
			}
		})
	}
}
