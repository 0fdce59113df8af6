package memindex

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestGlossesKept: an index that glosses keeps each note's glosses as
// it is Put (Glosses: the rules after ranking read them, not the text
// glossed again), replaces them when the text changes, drops them with
// the note, keeps a summary's too (its keyword terms stay as written),
// and keeps none when it does not gloss.
// A summary's keyword terms stay as written.
func TestGlossesKept(t *testing.T) {
	ix := New(0, time.UTC)
	ix.SetGloss(true, false)
	rent, plain, sum := bson.NewObjectID(), bson.NewObjectID(), bson.NewObjectID()
	put := func(id bson.ObjectID, kind Kind, text string) {
		ix.Put(Doc{ID: id, Kind: kind, Text: text, Scope: "S", Key: key(text)})
	}
	put(rent, KindMemory, "pagué el alquiler al casero")
	put(plain, KindMemory, "the boiler was serviced in May")
	put(sum, KindSummary, "they talked about the Miete")
	g := ix.Glosses([]bson.ObjectID{rent, plain, sum, bson.NewObjectID()})
	if !strings.Contains(g[0], "rent") || !strings.Contains(g[0], "landlord") || g[1] != "" || !strings.Contains(g[2], "rent") || g[3] != "" {
		t.Fatalf("glosses %q", g)
	}
	if n := ix.DocFreq("rent"); n != 1 {
		t.Fatalf("%d notes have the gloss among their keyword terms, want 1", n)
	}
	put(rent, KindMemory, "paid the Stromrechnung")
	if g := ix.Glosses([]bson.ObjectID{rent}); strings.Contains(g[0], "rent") || !strings.Contains(g[0], "electricity") {
		t.Fatalf("after an edit: %q", g)
	}
	put(rent, KindMemory, "paid the gas bill")
	if g := ix.Glosses([]bson.ObjectID{rent}); g[0] != "" {
		t.Fatalf("after an edit to English: %q", g)
	}
	put(rent, KindMemory, "paid the alquiler")
	ix.Remove(rent)
	other := bson.NewObjectID()
	put(other, KindMemory, "the bins go out on Thursday") // takes the freed slot
	if g := ix.Glosses([]bson.ObjectID{rent, other}); g[0] != "" || g[1] != "" {
		t.Fatalf("after a removal: %q", g)
	}
	off := New(0, time.UTC)
	off.Put(Doc{ID: rent, Kind: KindMemory, Text: "pagué el alquiler", Scope: "S", Key: key("a")})
	if g := off.Glosses([]bson.ObjectID{rent}); g[0] != "" {
		t.Fatalf("glosses kept by an index that does not gloss: %q", g)
	}
}

// TestSnapshotGlosses: a snapshot keeps the glosses and their signature
// (Header.Gloss); it is refused when read for another signature, when it
// has none and glosses are asked for, and when it has them and none are;
// a snapshot without glosses is written as before them.
func TestSnapshotGlosses(t *testing.T) {
	ix := New(4, time.UTC)
	ix.SetGloss(true, false)
	ids := []bson.ObjectID{bson.NewObjectID(), bson.NewObjectID()}
	for i, text := range []string{"Hausarzt Termin Dienstag", "dentist on Friday"} {
		ix.Put(Doc{ID: ids[i], Kind: KindMemory, Text: text, Scope: "S", Key: key(text), Vec: []float32{1, 0, 0, float32(i)}})
	}
	sig := GlossSignature(true, false)
	if sig == "" || sig == GlossSignature(true, true) || GlossSignature(false, false) != "" {
		t.Fatalf("signatures %q %q %q", sig, GlossSignature(true, true), GlossSignature(false, false))
	}
	h := Header{Token: "t", Model: "m", Dim: 4, Gloss: sig}
	p := filepath.Join(t.TempDir(), "g.snap")
	if err := ix.WriteFile(p, h); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(p, h, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Dump(), ix.Dump()) || !strings.Contains(strings.Join(got.Dump(), "\n"), "gloss=") {
		t.Fatalf("read back:\n%v\n%v", got.Dump(), ix.Dump())
	}
	if g := got.Glosses(ids); !strings.Contains(g[0], "doctor") || g[1] != "" {
		t.Fatalf("glosses read back %q", g)
	}
	for _, other := range []string{GlossSignature(true, true), "", "gloss0-00000000"} {
		o := h
		o.Gloss = other
		if _, err := ReadFile(p, o, time.UTC); err == nil {
			t.Fatalf("snapshot glossed %q read as %q", sig, other)
		}
	}
	plain := h
	plain.Gloss = ""
	q := filepath.Join(t.TempDir(), "p.snap")
	if err := ix.WriteFile(q, plain); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(q, h, time.UTC); err == nil {
		t.Fatal("a snapshot without glosses read by an index that glosses")
	}
	if _, err := ReadFile(q, plain, time.UTC); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(p)
	b, _ := os.ReadFile(q)
	if len(b) >= len(a) {
		t.Fatalf("the snapshot without glosses (%d bytes) is not the shorter (%d)", len(b), len(a))
	}
}
