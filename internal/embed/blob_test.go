package embed

import (
	"errors"
	"testing"
)

func TestParseBlobRejectsDamage(t *testing.T) {
	if _, err := parseBlob(useLiteBlob); err != nil {
		t.Fatalf("embedded blob: %v", err)
	}
	lfsPointer := []byte("version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 1\n")
	flipped := append([]byte(nil), useLiteBlob...)
	flipped[len(flipped)/2] ^= 1
	cases := map[string][]byte{
		"empty":      nil,
		"lfs":        lfsPointer,
		"truncated":  useLiteBlob[:len(useLiteBlob)-1],
		"bit flip":   flipped,
		"header end": useLiteBlob[:blobHeaderSize],
	}
	for name, b := range cases {
		if _, err := parseBlob(b); !errors.Is(err, errCorruptBlob) {
			t.Errorf("%s: got %v, want errCorruptBlob", name, err)
		}
	}
	if _, err := newUSELite(flipped, kernel6x16Go, nil, nil); !errors.Is(err, errCorruptBlob) {
		t.Errorf("newUSELite on a damaged blob: got %v", err)
	}
}

func TestBlobHasVocabularyQuirks(t *testing.T) {
	bl, err := parseBlob(useLiteBlob)
	if err != nil {
		t.Fatal(err)
	}
	if len(bl.vocab) != 8000 {
		t.Fatalf("vocabulary has %d pieces", len(bl.vocab))
	}
	// Entries whose vocab.json score is null are stored as 0 (JavaScript
	// adds null as 0); ":" is one of them.
	if bl.vocab[57].piece != ":" || bl.vocab[57].score != 0 {
		t.Errorf("entry 57 = %+v, want \":\" with score 0", bl.vocab[57])
	}
	if bl.vocab[4177].piece != ":30" || bl.vocab[4177].score != 30 {
		t.Errorf("entry 4177 = %+v, want \":30\" with score 30", bl.vocab[4177])
	}
}
