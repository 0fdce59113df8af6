package embed

import (
	"context"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	for _, name := range []string{"", "use-lite", "USE-Lite"} {
		e, err := New(name)
		if err != nil || e == nil || e.ModelID() != USELiteModelID || e.Dim() != 512 {
			t.Errorf("New(%q) = %v, %v", name, e, err)
		}
	}
	if e, err := New("hash"); err != nil || e.ModelID() != "hash-512-v1" || e.Dim() != 512 {
		t.Errorf("New(hash) = %v, %v", e, err)
	}
	if e, err := New("none"); e != nil || err != nil {
		t.Errorf("New(none) = %v, %v; want nil, nil", e, err)
	}
	_, err := New("word2vec")
	if err == nil || !strings.Contains(err.Error(), `"use-lite"`) || !strings.Contains(err.Error(), `"hash"`) || !strings.Contains(err.Error(), `"none"`) {
		t.Errorf("New(word2vec) error %v must name the valid values", err)
	}
}

func TestDescribeMatchesNew(t *testing.T) {
	for _, model := range []string{"use-lite", "hash", ""} {
		id, dim, ok, err := Describe(model)
		if err != nil || !ok {
			t.Fatalf("%q: %v %v", model, ok, err)
		}
		e, err := New(model)
		if err != nil {
			t.Fatal(err)
		}
		if e.ModelID() != id || e.Dim() != dim {
			t.Errorf("%q: Describe says %s/%d, New gives %s/%d", model, id, dim, e.ModelID(), e.Dim())
		}
		lazy, lid, ldim, err := Load(model)
		if err != nil || lid != id || ldim != dim {
			t.Fatalf("Load(%q): %s %d %v", model, lid, ldim, err)
		}
		if _, err := lazy.Embed(context.Background(), "hello"); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, ok, err := Describe("none"); ok || err != nil {
		t.Errorf("none: %v %v", ok, err)
	}
	if _, _, _, err := Describe("bert"); err == nil {
		t.Error("unknown model accepted")
	}
}
