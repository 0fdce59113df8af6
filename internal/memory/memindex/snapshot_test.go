package memindex

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func key(text string) (k [16]byte) {
	sum := sha256.Sum256([]byte(text))
	copy(k[:], sum[:])
	return k
}

// seedIndex is a small index: three memories, with embeddings of dim
// dimensions (none for 0).
func seedIndex(dim int) *Index {
	ix := New(dim, time.UTC)
	for i, text := range []string{"Project Apollo ships in June", "Ann's birthday is March 3", "note about widget 17"} {
		at := time.Date(2025, 5, i+1, 10, 0, 0, 0, time.UTC)
		d := Doc{ID: bson.NewObjectID(), Kind: KindMemory, Text: text, Source: "user", Scope: "Global", Tags: []string{"t" + string(rune('a'+i))},
			TS: at, Created: at, Key: key(text)}
		if dim > 0 {
			d.Vec = make([]float32, dim)
			d.Vec[i%dim] = 1
		}
		ix.Put(d)
	}
	return ix
}

var seedHeader = Header{Token: "tok", Model: "model"}

// seedSnapshot is a valid snapshot file of seedIndex(dim).
func seedSnapshot(t testing.TB, dim int) []byte {
	p := filepath.Join(t.TempDir(), "seed.snap")
	h := seedHeader
	h.Dim = dim
	if err := seedIndex(dim).WriteFile(p, h); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// FuzzReadSnapshot: a damaged or crafted index snapshot is refused (the
// index is then rebuilt from the database); it never panics, hangs or
// allocates beyond what the file could describe.
func FuzzReadSnapshot(f *testing.F) {
	good := seedSnapshot(f, 4)
	f.Add(good, 4)
	f.Add(seedSnapshot(f, 0), 0)
	f.Add(good[:len(good)/2], 4)
	f.Add([]byte{}, 0)
	huge := append([]byte(nil), good[:40]...)
	f.Add(append(huge, 0xff, 0xff, 0xff, 0xff, 0x0f), 4) // a count of 2^32
	f.Fuzz(func(t *testing.T, data []byte, dim int) {
		if dim < 0 || dim > 8 {
			return
		}
		p := filepath.Join(t.TempDir(), "s.snap")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		h := seedHeader
		h.Dim = dim
		ix, err := ReadFile(p, h, time.UTC)
		if err == nil && ix == nil {
			t.Fatal("no index and no error")
		}
	})
}

func TestSnapshotRoundTrip(t *testing.T) {
	for _, dim := range []int{0, 4} {
		ix := seedIndex(dim)
		ix.Put(Doc{ID: bson.NewObjectID(), Kind: KindSummary, Text: "forgotten summary", Scope: "Work", Conv: "c1",
			TS: time.Unix(100, 0), Created: time.Unix(200, 0), Key: key("forgotten summary"), Forgotten: true, ForgottenAt: time.Unix(300, 0)})
		gone := bson.NewObjectID()
		ix.Put(Doc{ID: gone, Text: "removed again", Scope: "Work", Key: key("removed again")})
		ix.Remove(gone) // a free slot
		older, newer := bson.NewObjectID(), bson.NewObjectID()
		ix.Put(Doc{ID: newer, Text: "deadline moved to May 9", Scope: "Work", Key: key("deadline moved to May 9")})
		ix.Put(Doc{ID: older, Text: "deadline is May 2", Scope: "Work", Key: key("deadline is May 2"),
			Links: &Links{SupersededBy: newer, Contradicts: []bson.ObjectID{gone}, ByMeaning: true}})
		p := filepath.Join(t.TempDir(), "s.snap")
		h := Header{Token: "t1", Model: "m", Dim: dim}
		if err := ix.WriteFile(p, h); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p, h, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ix.Dump(), got.Dump()) || ix.VectorCount() != got.VectorCount() {
			t.Fatalf("dim %d: read back differs:\n%v\n%v", dim, ix.Dump(), got.Dump())
		}
		if r := got.RelatedOf(newer); !slices.Equal(r.Supersedes, []bson.ObjectID{older}) {
			t.Fatalf("dim %d: read back, %s supersedes %v", dim, newer.Hex(), r.Supersedes)
		}
		if !got.LinksOf(older).ByMeaning {
			t.Fatalf("dim %d: read back, the link found by meaning lost its kind", dim)
		}
		for _, other := range []Header{{Token: "t2", Model: "m", Dim: dim}, {Token: "t1", Model: "m2", Dim: dim}, {Token: "t1", Model: "m", Dim: dim + 1}} {
			if _, err := ReadFile(p, other, time.UTC); err == nil {
				t.Fatalf("snapshot for %+v read as %+v", h, other)
			}
		}
	}
}

// TestSnapshotFormatUnchanged: testdata/v3.snap was written by the code
// before the index had a package of its own. It still loads, and writing
// what it holds gives the same bytes.
func TestSnapshotFormatUnchanged(t *testing.T) {
	h := Header{Token: "golden-token", Model: "test-model", Dim: 8}
	ix, err := ReadFile("testdata/v3.snap", h, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	c := ix.Count()
	if ix.Len() != 57 || c.Live != 48 || c.Forgotten != 5 || c.Archived != 4 || c.Summaries != 24 || c.Conversations != 2 || ix.VectorCount() != 40 {
		t.Fatalf("read %d memories, %+v, %d vectors", ix.Len(), c, ix.VectorCount())
	}
	hits, total := ix.Scan(Filter{Tags: []string{"common"}, Scopes: []string{"S1"}}, Oldest, 0, 3)
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID.Hex())
	}
	if want := []string{"660000010000000000000001", "660000290000000000000029", "660000050000000000000005"}; total != 13 || !slices.Equal(ids, want) {
		t.Fatalf("scan: %v of %d, want %v of 13", ids, total, want)
	}
	if convs := ix.Conversations(time.Now()); len(convs) != 2 || convs[0].Messages == 0 {
		t.Fatalf("conversations: %+v", convs)
	}
	p := filepath.Join(t.TempDir(), "again.snap")
	if err := ix.WriteFile(p, h); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile("testdata/v3.snap")
	got, _ := os.ReadFile(p)
	if !bytes.Equal(got, want) {
		t.Fatalf("rewritten snapshot differs (%d bytes, was %d)", len(got), len(want))
	}
}

func TestSpeakerPrefix(t *testing.T) {
	for text, want := range map[string]string{
		"Caroline: I went to the group.": "Caroline",
		"Mary Ann Lee: hello":            "Mary Ann Lee",
		"Dr. Hughes: open wide":          "Dr. Hughes",
		"12:30 lunch with Tom":           "",
		"note: buy milk":                 "",
		"Caroline:no space":              "",
		"A Very Long Name Here: hi":      "",
		"Reminder - call Tom: tomorrow":  "",
	} {
		if got := speakerPrefix(text); got != want {
			t.Errorf("speakerPrefix(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestSnapshotLinkKinds: the kind of a link (by meaning) is a section of
// its own after the links: a snapshot whose links are all by words (as
// every snapshot written before the kind was kept) has none and reads
// back every link by words; a snapshot with both kinds reads each back;
// the section of a slot without links is refused.
func TestSnapshotLinkKinds(t *testing.T) {
	write := func(ix *Index) string {
		p := filepath.Join(t.TempDir(), "s.snap")
		if err := ix.WriteFile(p, seedHeader); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ix := New(0, time.UTC)
	ids := make([]bson.ObjectID, 4)
	for i := range ids {
		ids[i] = bson.NewObjectID()
		ix.Put(Doc{ID: ids[i], Text: "memory " + string(rune('a'+i)), Scope: "S", Key: key(string(rune('a' + i)))})
	}
	ix.SetLinks(ids[0], Links{SupersededBy: ids[1]})
	words := write(ix)
	before, _ := os.ReadFile(words)
	ix.SetLinks(ids[2], Links{SupersededBy: ids[3], ByMeaning: true})
	both := write(ix)
	after, _ := os.ReadFile(both)
	for _, c := range []struct {
		path    string
		meaning []bool
	}{{words, []bool{false, false}}, {both, []bool{false, true}}} {
		got, err := ReadFile(c.path, seedHeader, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		if l0, l2 := got.LinksOf(ids[0]), got.LinksOf(ids[2]); l0.SupersededBy != ids[1] || l0.ByMeaning != c.meaning[0] || l2.ByMeaning != c.meaning[1] {
			t.Fatalf("%s: read back %+v, %+v; want by meaning %v", filepath.Base(c.path), l0, l2, c.meaning)
		}
	}
	if len(after) <= len(before) {
		t.Fatalf("the snapshot with a link by meaning is %d bytes, without %d", len(after), len(before))
	}
	// A kind for a slot without links.
	bad := New(0, time.UTC)
	bad.items = append(bad.items, item{used: true})
	if err := bad.readLinkKinds(bytes.NewReader([]byte{1, 0})); err == nil {
		t.Fatal("a link kind of a slot without links read")
	}
}
