package memindex

import (
	"os"
	"path/filepath"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzReadJournal: a damaged change journal is refused or read up to its
// intact part; never a panic, and never an offset past the file's end.
func FuzzReadJournal(f *testing.F) {
	p := filepath.Join(f.TempDir(), "seed.journal")
	j, err := CreateJournal(p, "tok", 100)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := j.Add([]bson.ObjectID{bson.NewObjectID(), bson.NewObjectID()}); err != nil {
		f.Fatal(err)
	}
	if _, err := j.Add([]bson.ObjectID{bson.NewObjectID()}); err != nil {
		f.Fatal(err)
	}
	j.Close()
	good, _ := os.ReadFile(p)
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add(JournalHeader("tok"))
	f.Add(append(JournalHeader("tok"), 0xff, 0xff, 0xff, 0x7f))
	f.Add([]byte("nonsense"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "j")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		ids, off, err := ReadJournal(p, "tok")
		if err == nil && (off > int64(len(data)) || len(ids)*12 > len(data)) {
			t.Fatalf("offset %d / %d ids from %d bytes", off, len(ids), len(data))
		}
	})
}
