package memory

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/offheap"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

// TestDatabaseLoadPacksKeywordLists: a load from the database leaves the
// keyword index's lists in one arena outside the heap, as a start from the
// snapshot does (issue 24 item 4: at 100k memories a daemon that had loaded
// from the database ended 12-15 MB above what it does now), and the packed
// index answers, and takes writes, as before.
func TestDatabaseLoadPacksKeywordLists(t *testing.T) {
	if !offheap.Available() {
		t.Skip("no anonymous mappings here: the keyword lists stay on the heap")
	}
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	words := strings.Fields("harbour lantern orchard granite violin meadow copper lighthouse " +
		"saffron glacier walnut ember lagoon thistle quarry falcon juniper pebble cinder marble")
	at := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	docs := make([]*mongostore.Memory, 1500)
	for i := range docs {
		var b strings.Builder
		fmt.Fprintf(&b, "note %d", i)
		for j := range 16 {
			b.WriteString(" " + words[(i*7+j*j)%len(words)])
		}
		fmt.Fprintf(&b, " marker%d", i)
		text := b.String()
		docs[i] = &mongostore.Memory{ID: bson.NewObjectID(), Timestamp: at, Text: text, Scope: "Global", Tags: []string{},
			Source: "note", ContentHash: keyHex(contentKey(text)), CreatedAt: at, UpdatedAt: at}
	}
	if err := store.Memories.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	e, _, _ := engineOn(t, store)
	if ks := e.index().KeywordStats(); ks.Docs != len(docs) || ks.Mapped < 64<<10 {
		t.Fatalf("after the load from the database the keyword index holds %d documents, %d bytes of lists outside the heap", ks.Docs, ks.Mapped)
	}
	find := func(q string) []string {
		t.Helper()
		res, err := e.Search(ctx, SearchRequest{Query: q, Mode: ModeKeyword, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, m := range relevant(res) {
			ids = append(ids, m.ID)
		}
		slices.Sort(ids)
		return ids
	}
	if got := find("marker777"); !slices.Equal(got, []string{docs[777].ID.Hex()}) {
		t.Fatalf("marker777 found %v, want %s", got, docs[777].ID.Hex())
	}
	// Writes after the pack: a new memory appends to the packed lists of
	// common words, a forget removes from them.
	added := mustStore(t, e, StoreRequest{Content: "harbour lantern marker777 again, on the north pier"})
	want := []string{docs[777].ID.Hex(), added.ID}
	slices.Sort(want)
	if got := find("marker777"); !slices.Equal(got, want) {
		t.Fatalf("after a store marker777 found %v, want %v", got, want)
	}
	if _, err := e.Forget(ctx, ForgetRequest{ID: docs[777].ID.Hex()}); err != nil {
		t.Fatal(err)
	}
	if got := find("marker777"); !slices.Equal(got, []string{added.ID}) {
		t.Fatalf("after a forget marker777 found %v, want %s", got, added.ID)
	}
	if got := find("marker1499"); !slices.Equal(got, []string{docs[1499].ID.Hex()}) {
		t.Fatalf("marker1499 found %v", got)
	}
}
