package memory

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// seedSnapshot is a valid snapshot of a small index, for the fuzz corpus.
func seedSnapshot(f *testing.F, dim int) []byte { return seedSnapshotT(f, dim) }

func seedSnapshotT(f testing.TB, dim int) []byte {
	ix := newIndex(dim, time.UTC)
	for i, text := range []string{"Project Apollo ships in June", "Ann's birthday is March 3", "note about widget 17"} {
		id := bson.NewObjectID()
		d := doc{id: id, kind: kindMemory, text: text, source: "user", scope: "Global", tags: []string{"t" + string(rune('a'+i))},
			ts: time.Date(2025, 5, i+1, 10, 0, 0, 0, time.UTC), created: time.Date(2025, 5, i+1, 10, 0, 0, 0, time.UTC), key: contentKey(text)}
		if dim > 0 {
			d.vec = make([]float32, dim)
			d.vec[i%dim] = 1
		}
		ix.put(d)
	}
	p := filepath.Join(f.TempDir(), "seed.snap")
	if err := writeSnapshotFile(p, "tok", "model", dim, ix); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
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
		ix, err := readSnapshotFile(p, "tok", "model", dim, time.UTC)
		if err == nil && ix == nil {
			t.Fatal("no index and no error")
		}
	})
}

// FuzzReadJournal: a damaged change journal is refused or read up to its
// intact part; never a panic, and never an offset past the file's end.
func FuzzReadJournal(f *testing.F) {
	p := filepath.Join(f.TempDir(), "seed.journal")
	j, err := createJournal(p, "tok", 100)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := j.add([]bson.ObjectID{bson.NewObjectID(), bson.NewObjectID()}); err != nil {
		f.Fatal(err)
	}
	if _, err := j.add([]bson.ObjectID{bson.NewObjectID()}); err != nil {
		f.Fatal(err)
	}
	j.close()
	good, _ := os.ReadFile(p)
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add(journalHeader("tok"))
	f.Add(append(journalHeader("tok"), 0xff, 0xff, 0xff, 0x7f))
	f.Add([]byte("nonsense"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "j")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		ids, off, err := readJournal(p, "tok")
		if err == nil && (off > int64(len(data)) || len(ids)*12 > len(data)) {
			t.Fatalf("offset %d / %d ids from %d bytes", off, len(ids), len(data))
		}
	})
}
