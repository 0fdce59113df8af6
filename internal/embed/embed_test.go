package embed

import (
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
