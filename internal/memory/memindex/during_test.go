package memindex

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestDuringNextMonth: a memory outside any conversation that names a
// month alone, written before that month came round ("the October half
// term" in August), is of the coming October as well as the last one;
// a turn of a conversation keeps the one reading its question reads
// too; a snapshot keeps both.
func TestDuringNextMonth(t *testing.T) {
	loc := time.UTC
	ix := New(0, loc)
	august := time.Date(2026, 8, 10, 9, 0, 0, 0, loc)
	text := "Booked a cottage on Skye through Airbnb for the October half term."
	note, turn := bson.NewObjectID(), bson.NewObjectID()
	ix.Put(Doc{ID: note, Kind: KindMemory, Text: text, Scope: "Global", TS: august, Created: august, Key: key("note")})
	ix.Put(Doc{ID: turn, Kind: KindMemory, Text: text, Scope: "Global", Conv: "c1", TS: august, Created: august, Key: key("turn")})
	month := func(y int) (int64, int64) {
		return time.Date(y, 10, 1, 0, 0, 0, 0, loc).UnixMilli(), time.Date(y, 11, 1, 0, 0, 0, 0, loc).UnixMilli()
	}
	ids := func(ix *Index, y int) []bson.ObjectID {
		from, to := month(y)
		var out []bson.ObjectID
		for _, h := range ix.During(Filter{}, from, to, 10) {
			out = append(out, h.ID)
		}
		slices.SortFunc(out, func(a, b bson.ObjectID) int { return strings.Compare(a.Hex(), b.Hex()) })
		return out
	}
	check := func(what string, ix *Index) {
		if got := ids(ix, 2026); !slices.Equal(got, []bson.ObjectID{note}) {
			t.Errorf("%s: October 2026 holds %v, want the note %v alone", what, got, note)
		}
		if got := ids(ix, 2025); !slices.Equal(got, []bson.ObjectID{note, turn}) {
			t.Errorf("%s: October 2025 holds %v, want both %v", what, got, []bson.ObjectID{note, turn})
		}
		if got := ids(ix, 2027); len(got) != 0 {
			t.Errorf("%s: October 2027 holds %v, want none", what, got)
		}
	}
	check("stored", ix)
	p := filepath.Join(t.TempDir(), "s.snap")
	h := Header{Token: "t", Model: "m"}
	if err := ix.WriteFile(p, h); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(p, h, loc)
	if err != nil {
		t.Fatal(err)
	}
	check("read back", got)
}
