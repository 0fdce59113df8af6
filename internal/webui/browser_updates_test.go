package webui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
)

// TestInBrowserSupersededMemory: a memory an update replaced says so on
// its page, links to the newer memory (which lists it under Replaces), and
// Mark as current clears the mark through the engine.
func TestInBrowserSupersededMemory(t *testing.T) {
	chromiumPath(t)
	eng := engine(t)
	ctx := testenv.Context(t)
	older, err := eng.Store(ctx, memory.StoreRequest{Content: "The Apollo launch deadline is December 12.", Timestamp: time.Now().AddDate(0, 0, -40)})
	if err != nil {
		t.Fatal(err)
	}
	newer, err := eng.Store(ctx, memory.StoreRequest{Content: "The Apollo launch deadline moved to December 19.", Timestamp: time.Now().AddDate(0, 0, -3)})
	if err != nil || len(newer.Updates) != 1 || newer.Updates[0].ID != older.ID {
		t.Fatalf("store: %+v %v", newer.Updates, err)
	}
	s, _ := uiServer(t, eng, Options{Version: "test"})
	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	shots := screenshotDir(t)
	c := startChrome(t)
	p := c.newTab(false)
	p.size(1280, 900)
	p.navigate(link)
	p.waitView("search")

	p.navigate("http://" + s.Addr() + "/#/memory/" + older.ID)
	p.waitView("memory")
	p.waitFor("superseded by", `document.getElementById("superseded-by")`)
	if got := p.str(`(a => a.dataset.id + " " + a.textContent)(document.getElementById("superseded-by"))`); got != newer.ID+" The Apollo launch deadline moved to December 19." {
		t.Fatalf("superseded by, as shown: %q", got)
	}
	p.screenshot(shots, "memory-superseded")
	p.click("#superseded-by")
	p.waitView("memory")
	p.waitFor("replaces", fmt.Sprintf(`document.querySelector('#supersedes a[href="#/memory/%s"]')`, older.ID))

	p.navigate("http://" + s.Addr() + "/#/memory/" + older.ID)
	p.waitView("memory")
	p.waitFor("mark as current", `document.getElementById("current-again")`)
	p.click("#current-again")
	p.waitFor("status", `document.getElementById("status").textContent.includes("current again")`)
	// A context of its own: the test's first one can run out while the
	// browser works on a loaded machine (95 s for the whole test at load 30).
	if m, err := eng.Get(testenv.Context(t), older.ID); err != nil || m.SupersededBy != nil {
		t.Fatalf("after Mark as current: %+v %v", m.SupersededBy, err)
	}
	// The page redraws the memory: the old view goes at once (a fresh,
	// empty one takes its place in the same step that shows the status),
	// the new one fills in when its data comes. Wait for the redrawn view
	// itself; the mark's absence alone also holds while the view is empty.
	p.waitFor("the memory redrawn", `(m => m && m.dataset.hash === location.hash && document.getElementById("memory-meta"))(document.querySelector('main[data-view="memory"][data-ready]'))`)
	if txt := p.str(`document.getElementById("memory-meta").textContent`); strings.Contains(txt, "Superseded") || p.str(`document.getElementById("superseded-by") ? "shown" : ""`) != "" {
		t.Fatalf("still shown superseded: %q", txt)
	}
}
