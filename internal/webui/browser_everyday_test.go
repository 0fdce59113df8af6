package webui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
)

// TestInBrowserEveryday drives what a week of use tripped on (issue 26.9)
// in headless chromium on a real engine with the embedder, as the daemon
// ranks: the first view shows the newest memories, not an empty search; a
// search for a word one memory holds shows that one and folds the weak
// rest away; identical dry runs are one card; the icon is served; counts
// say "1 memory", "1 scope".
func TestInBrowserEveryday(t *testing.T) {
	chromiumPath(t)
	sv := newServices(t)
	ctx := testenv.Context(t)
	unique := store(t, sv.eng, "The spare key is under the Zanzibar flowerpot", "Global")
	s, _ := uiServer(t, sv.eng, sv.options())
	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	c := startChrome(t)
	p := c.newTab(false)
	p.size(1280, 900)
	p.navigate(link)
	p.waitView("search")

	// One memory in one scope: said in the singular.
	p.waitFor("stats", `document.getElementById("stats").textContent !== ""`)
	if got := p.str(`document.getElementById("stats").textContent`); !strings.HasPrefix(got, "1 memory in 1 scope ·") {
		t.Errorf("stats: %q", got)
	}
	for i := range 24 {
		store(t, sv.eng, fmt.Sprintf("Garden plan %d: plant tomatoes and basil near the fence", i), "Global")
	}
	// The first view lists the newest memories, as the engine lists them.
	p.navigate("http://" + s.Addr() + "/#/search")
	p.waitFor("recent", `document.querySelectorAll("main[data-ready] #recent li").length === 10`)
	newest, err := sv.eng.List(ctx, memory.ListRequest{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	ids := p.eval(`[...document.querySelectorAll("#recent a.text")].map(a => a.dataset.id)`).([]any)
	if len(ids) != 10 || ids[0] != newest.Memories[0].ID || ids[9] != newest.Memories[9].ID {
		t.Fatalf("first view lists %v; the newest are %s … %s", ids, newest.Memories[0].ID, newest.Memories[9].ID)
	}

	// A word only one memory holds: that one is the clear match, the weak
	// rest is folded under "n weaker matches", closed.
	p.fill("#q", "Zanzibar")
	p.press("Enter")
	p.waitFor("results", `location.hash.includes("q=Zanzibar") && document.querySelector("main[data-ready] #result-info")`)
	res, err := sv.eng.Search(ctx, memory.SearchRequest{Query: "Zanzibar", Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	weak := 0
	for _, m := range res.Results {
		if m.Weak {
			weak++
		}
	}
	if weak == 0 || len(res.Results) < 2 || res.Results[0].ID != unique || res.Results[0].Weak {
		t.Fatalf("the engine's answer does not make the case: %d results, %d weak", len(res.Results), weak)
	}
	clear := p.eval(`[...document.querySelectorAll("#results a.text")].map(a => a.dataset.id)`).([]any)
	if len(clear) != len(res.Results)-weak || clear[0] != unique {
		t.Fatalf("clear matches shown: %v", clear)
	}
	if got := p.str(`document.querySelector("#weaker > summary").textContent`); !strings.HasPrefix(got, fmt.Sprintf("%d weaker matches", weak)) {
		t.Errorf("the fold says %q", got)
	}
	if p.eval(`document.getElementById("weaker").open`).(bool) {
		t.Error("the weaker matches are shown open beside a clear match")
	}
	if got := p.str(`document.getElementById("result-info").textContent`); !strings.HasPrefix(got, "1 clear match") {
		t.Errorf("result line: %q", got)
	}

	// The icon is there: no request of the page gets a 404.
	if st := p.eval(`fetch("/favicon.ico").then(r => r.status + " " + r.headers.get("Content-Type"))`); st != "200 image/svg+xml" {
		t.Errorf("favicon.ico: %v", st)
	}

	// Three dry runs that find the same are one card that says so.
	store(t, sv.eng, "My sister Alice lives in Porto", "Family")
	store(t, sv.eng, "My sister Alice lives in Porto.", "Family")
	p.click(`nav a[data-view="maintenance"]`)
	p.waitView("maintenance")
	for i := range 3 {
		// Each run re-renders the view: choose the job and the dry run again.
		p.waitFor("form", `document.querySelector("main[data-ready] #run-form")`)
		p.eval(`(s => { s.value = "dedup"; s.dispatchEvent(new Event("change")); })(document.getElementById("run-job"))`)
		p.eval(`document.getElementById("run-dry").checked = true`)
		p.click("#run-now")
		p.waitFor(fmt.Sprintf("dry run %d", i+1), fmt.Sprintf(`document.querySelectorAll("main[data-ready]").length && (b => b && b.dataset.state === "done")(document.getElementById("task")) && [...document.querySelectorAll("#trail .run")].reduce((n, c) => n + (+c.dataset.runs || 1), 0) === %d`, i+1))
	}
	cards := p.eval(`[...document.querySelectorAll("#trail .run")].map(c => c.dataset.runs || "1")`).([]any)
	if len(cards) != 1 || cards[0] != "3" || !strings.Contains(p.str(`document.querySelector("#trail .run").textContent`), "3 identical dry runs") {
		t.Fatalf("dry-run cards: %v\n%s", cards, p.str(`document.getElementById("trail").textContent`))
	}
	if bad := unexpected(c.pageLogs()); len(bad) > 0 {
		t.Errorf("the page reported problems:\n%s", strings.Join(bad, "\n"))
	}
}
