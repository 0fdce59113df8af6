package memsync

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
)

// TestSyncOffSeesOtherWriters (issue 22, item 6): an engine with sync off
// on a database that a device with sync on writes to says so, both when
// that device was there first (at start) and when it comes later (the
// periodic check), naming it.
func TestSyncOffSeesOtherWriters(t *testing.T) {
	sa, sb := syncPair(t)
	ctx := testenv.Context(t)
	a := NewOthers(sa, testenv.Logger(t))
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { a.Watch(wctx, 50*time.Millisecond); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	time.Sleep(200 * time.Millisecond)
	if names, checked := a.Names(); len(names) > 0 || checked.IsZero() {
		t.Fatalf("alone on its database: other writers %v, checked %v", names, checked)
	}

	// A device with sync on starts later: the periodic check sees it.
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	syncEngine(t, sb, clk, Options{Device: "laptop-b"})
	eventually(t, "the sync-off engine names the device with sync on", func() bool {
		names, _ := a.Names()
		return len(names) == 1 && strings.HasPrefix(names[0], "laptop-b")
	})

	// One that starts after it: at start.
	c := NewOthers(sa, testenv.Logger(t))
	if err := c.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if names, _ := c.Names(); len(names) != 1 || !strings.HasPrefix(names[0], "laptop-b") {
		t.Fatalf("at start: other writers %v", names)
	}
}
