package installer

import (
	"os"
	"path/filepath"
	"testing"
)

// golden compares got with testdata/name; UPDATE_GOLDEN=1 rewrites the file.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (regenerate with UPDATE_GOLDEN=1): %v", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (regenerate with UPDATE_GOLDEN=1 if intended):\n%s",
			name, unifiedDiff("want", "got", string(want), string(got)))
	}
}
