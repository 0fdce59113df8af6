package memory

import "testing"

// Stored finds a text as Store would (case and spacing aside), only in its
// scope, and changes nothing (issue 26.8).
func TestStored(t *testing.T) {
	e, _, _ := newEngine(t)
	a := mustStore(t, e, StoreRequest{Content: "The boat is moored at pier 7", Scope: "Sailing"})
	if id, ok := e.Stored("sailing", "  the BOAT is moored at   pier 7 "); !ok || id != a.ID {
		t.Fatalf("not found: %q %v", id, ok)
	}
	if _, ok := e.Stored("Global", "The boat is moored at pier 7"); ok {
		t.Fatal("found in another scope")
	}
	if _, ok := e.Stored("Nowhere", "The boat is moored at pier 7"); ok {
		t.Fatal("found in a scope that does not exist")
	}
	if _, ok := e.Scopes().Get("Nowhere"); ok {
		t.Fatal("Stored created a scope")
	}
}
