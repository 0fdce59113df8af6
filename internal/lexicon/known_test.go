package lexicon

import "testing"

// TestKnown: a word of the table, as a key, a synonym or a hypernym, or by
// its base form, is known; a brand no dictionary holds is not.
func TestKnown(t *testing.T) {
	for w, want := range map[string]bool{"summary": true, "meat": true, "invoices": true, "went": true, "giffgaff": false, "chloé": false, "abernethy": false} {
		if got := Known(w); got != want {
			t.Errorf("Known(%q) = %v, want %v", w, got, want)
		}
	}
}
