package memory

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/scopes"
)

// TestSyncOffSeesOtherWriters (issue 22, item 6): an engine with sync off
// on a database that a device with sync on writes to says so, both when
// that device was there first (at start) and when it comes later (the
// periodic check), naming it.
func TestSyncOffSeesOtherWriters(t *testing.T) {
	sa, sb := syncPair(t)
	ctx := testenv.Context(t)
	off := func() *Engine {
		reg, err := scopes.Load(ctx, sa, scopes.Options{AutoCreate: true})
		if err != nil {
			t.Fatal(err)
		}
		e := New(sa, reg, Options{Location: la, Logger: testenv.Logger(t), OtherWritersCheck: 50 * time.Millisecond})
		e.Start(ctx)
		t.Cleanup(func() { e.Close(context.Background()) })
		if err := e.wait(ctx); err != nil {
			t.Fatal(err)
		}
		return e
	}
	a := off()
	time.Sleep(200 * time.Millisecond)
	if names, checked := a.OtherWriters(); len(names) > 0 || checked.IsZero() {
		t.Fatalf("alone on its database: other writers %v, checked %v", names, checked)
	}

	// A device with sync on starts later: the periodic check sees it.
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	syncEngine(t, sb, clk, SyncOptions{Device: "laptop-b"})
	eventually(t, "the sync-off engine names the device with sync on", func() bool {
		names, _ := a.OtherWriters()
		return len(names) == 1 && strings.HasPrefix(names[0], "laptop-b")
	})

	// One that starts after it: at start.
	c := off()
	if names, _ := c.OtherWriters(); len(names) != 1 || !strings.HasPrefix(names[0], "laptop-b") {
		t.Fatalf("at start: other writers %v", names)
	}
}
