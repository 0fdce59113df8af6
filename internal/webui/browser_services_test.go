package webui

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
)

// TestInBrowserMaintenanceAndBackups drives the maintenance and backups
// views in headless chromium, on a real engine, the real maintenance jobs
// and real backups: "Run now" merges two near-duplicates, the merge shows
// in the trail, its Undo brings both back (checked through the engine);
// "Back up now" makes a backup the view lists (checked against the
// backups folder) and Verify reads it completely.
func TestInBrowserMaintenanceAndBackups(t *testing.T) {
	chromiumPath(t)
	sv := newServices(t)
	ctx := testenv.Context(t)
	keep := store(t, sv.eng, "My sister Alice lives in Porto", "Family", "family")
	dup := store(t, sv.eng, "My sister Alice lives in Porto.", "Family", "alice")
	store(t, sv.eng, "The Apollo launch deadline is June 12", "Work")
	// Recalled once: the kept one is the most used.
	if _, err := sv.eng.Search(ctx, memory.SearchRequest{Query: "sister Alice Porto", Tags: []string{"family"}, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	s, _ := uiServer(t, sv.eng, sv.options())
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

	// Maintenance: nothing yet; run dedup now and follow its progress.
	p.click(`nav a[data-view="maintenance"]`)
	p.waitView("maintenance")
	p.waitFor("empty trail", `document.getElementById("no-runs")`)
	p.eval(`(s => { s.value = "dedup"; s.dispatchEvent(new Event("change")); })(document.getElementById("run-job"))`)
	p.click("#run-now")
	p.waitFor("run finished", `(b => b && b.dataset.state === "done")(document.getElementById("task"))`)
	p.waitFor("merge in the trail", `document.querySelector("main[data-ready] #trail .item.merge button.undo")`)
	if got := p.str(`document.getElementById("task").textContent`); !strings.Contains(got, "merged 1 duplicate entries") {
		t.Errorf("the run's outcome on the page: %q", got)
	}
	if m, _ := sv.eng.Get(ctx, dup); m.ForgottenAt == nil || m.MergedInto != keep {
		t.Fatalf("Run now did not merge: %+v", m)
	}
	text := p.str(`document.querySelector("#trail .item.merge").textContent`)
	if !strings.Contains(text, "My sister Alice lives in Porto.") || !strings.Contains(text, "Kept") {
		t.Fatalf("the merge in the trail: %q", text)
	}
	p.screenshot(shots, "maintenance")

	// Undo: both are live again, the kept one without the merged tag.
	p.click("#trail .item.merge button.undo")
	p.waitFor("undone", `document.getElementById("status").textContent.startsWith("Undone")`)
	p.waitFor("trail again", `document.querySelector("main[data-ready] #trail .item.merge") && !document.querySelector("#trail .item.merge button.undo")`)
	k, _ := sv.eng.Get(ctx, keep)
	d, _ := sv.eng.Get(ctx, dup)
	if k.ForgottenAt != nil || d.ForgottenAt != nil || d.MergedInto != "" || strings.Join(k.Tags, ",") != "family" {
		t.Fatalf("after Undo: kept %v %v, merged %v %q", k.ForgottenAt, k.Tags, d.ForgottenAt, d.MergedInto)
	}
	if res, _ := sv.eng.List(ctx, memory.ListRequest{Scope: "Family"}); res.Total != 2 {
		t.Fatalf("after Undo the engine lists %d of the two", res.Total)
	}
	p.screenshot(shots, "maintenance-undone")

	// Backups: none yet; the identity file's path is shown, never a key.
	p.click(`nav a[data-view="backups"]`)
	p.waitView("backups")
	p.waitFor("no backups", `document.getElementById("no-backups")`)
	if got := p.str(`document.getElementById("identity-path").textContent`); got != sv.identity {
		t.Fatalf("identity path shown: %q, want %q", got, sv.identity)
	}
	p.click("#backup-now")
	p.waitFor("backup done", `(b => b && b.dataset.state === "done")(document.getElementById("backup-task"))`)
	p.waitFor("backup listed", `document.querySelector("main[data-ready] #backups tbody tr")`)
	list, err := backup.List(sv.dir)
	if err != nil || len(list) != 1 {
		t.Fatalf("backups folder: %d %v", len(list), err)
	}
	if got := p.str(`document.querySelector("#backups tbody tr").dataset.file`); got != list[0].File {
		t.Fatalf("the page lists %q; the folder holds %q", got, list[0].File)
	}
	if got := p.str(`document.getElementById("backup-task").textContent`); !strings.Contains(got, list[0].File) {
		t.Errorf("the outcome does not name the backup: %q", got)
	}
	p.click("#backups tbody tr button.verify")
	p.waitFor("verified", `document.querySelector("main[data-ready] #backups td.check .good") && document.querySelector("#backups td.check .good").textContent.startsWith("verified")`)
	if body := p.str(`document.body.innerHTML`); strings.Contains(body, "AGE-SECRET-KEY") {
		t.Fatal("the page shows the identity's secret key")
	}
	p.screenshot(shots, "backups")

	p.size(375, 800)
	for _, view := range []string{"maintenance", "backups"} {
		p.navigate("http://" + s.Addr() + "/#/" + view)
		p.waitView(view)
		if w := p.eval(`document.documentElement.scrollWidth - window.innerWidth`).(float64); w > 0 {
			t.Errorf("%s at 375 px is %v px wider than the screen", view, w)
		}
		p.screenshot(shots, view+"-narrow")
	}
	if bad := unexpected(c.pageLogs()); len(bad) > 0 {
		t.Errorf("the page reported problems (CSP violations, script errors):\n%s", strings.Join(bad, "\n"))
	}
}

// TestREADMEScreenshot writes the search view with a few made-up
// memories to $INFMEM_UI_README_SHOT (docs/ui-search.png); it is skipped
// unless that is set.
func TestREADMEScreenshot(t *testing.T) {
	out := os.Getenv("INFMEM_UI_README_SHOT")
	if out == "" {
		t.Skip("set INFMEM_UI_README_SHOT=docs/ui-search.png to write the README's screenshot")
	}
	chromiumPath(t)
	eng := newServices(t).eng // with the embedder, as the daemon ranks
	ctx := testenv.Context(t)
	for i, m := range []struct {
		text, scope string
		tags        []string
	}{
		{"The Apollo launch deadline moved to July 1; the review with Priya is the week before", "Work", []string{"apollo", "deadline"}},
		{"Deploys to the Apollo staging cluster need a green CI run first", "Work", []string{"apollo", "infra"}},
		{"Maria prefers the Italian place on Friday for team lunches", "Personal", []string{"maria"}},
		{"Ship the Apollo release notes with the changelog and the migration guide", "Work/Apollo", []string{"apollo", "release"}},
	} {
		ts := time.Now().Add(-time.Duration(i*26) * time.Hour)
		if _, err := eng.Store(ctx, memory.StoreRequest{Content: m.text, Scope: m.scope, Timestamp: ts, Tags: m.tags}); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := uiServer(t, eng, Options{Version: "readme"})
	link, _ := s.Open()
	c := startChrome(t)
	p := c.newTab(false)
	p.size(900, 620)
	p.navigate(link)
	p.waitView("search")
	p.fill("#q", "When is the Apollo launch deadline?")
	p.press("Enter")
	p.waitFor("results", `location.hash.includes("q=When") && document.querySelector("main[data-ready] #results li")`)
	p.eval(`document.activeElement.blur()`)
	dir, name := ".", out
	if i := strings.LastIndex(out, "/"); i >= 0 {
		dir, name = out[:i], out[i+1:]
	}
	p.screenshot(dir, strings.TrimSuffix(name, ".png"))
	fmt.Println("wrote", out)
}
