package webui

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
)

// TestInBrowser drives the page in a real headless chromium, as a user
// would (mouse clicks, typing, keys), on a real engine, and checks each
// change through the engine itself, as retrieve_memory would see it.
// Screenshots of each view go to screenshotDir.
func TestInBrowser(t *testing.T) {
	chromiumPath(t)
	eng := engine(t)
	ctx := testenv.Context(t)
	apollo := store(t, eng, "The Apollo launch deadline is June 12", "Work", "apollo")
	store(t, eng, "Lunch with Maria on Friday at the Italian place", "Personal", "maria")
	doomed := store(t, eng, "Old wifi password hint: the blue notebook", "Personal")
	for i := range 120 {
		store(t, eng, fmt.Sprintf("Filler note number %d about the garden shed", i), "Home", "filler")
	}
	s, _ := uiServer(t, eng, Options{Version: "test"})
	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	shots := screenshotDir(t)
	t.Logf("screenshots in %s", shots)

	c := startChrome(t)
	p := c.newTab(false)
	p.size(1280, 900)

	// Open with the secret: the page comes up without it in the address,
	// with an HttpOnly, SameSite=Strict cookie scripts cannot read.
	p.navigate(link)
	p.waitView("search")
	if got := p.str("location.href"); got != "http://"+s.Addr()+"/#/search" && got != "http://"+s.Addr()+"/" {
		if strings.Contains(got, "k=") {
			t.Fatalf("the secret stayed in the address: %s", got)
		}
	}
	if got := p.str("document.cookie"); got != "" {
		t.Fatalf("scripts can read the cookie: %q", got)
	}
	var session *browserCookie
	for _, ck := range p.cookies() {
		if ck.Name == cookieName {
			session = &ck
		}
	}
	if session == nil || !session.HTTPOnly || session.SameSite != "Strict" {
		t.Fatalf("session cookie in the browser: %+v", session)
	}

	// Search, by keyboard: type, Enter. The ranking is the engine's.
	p.fill("#q", "Apollo deadline")
	p.press("Enter")
	p.waitFor("results", `location.hash.includes("q=Apollo") && document.querySelector("main[data-ready] #results li")`)
	want, err := eng.Search(ctx, memory.SearchRequest{Query: "Apollo deadline", Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	ids := p.eval(`[...document.querySelectorAll("#results a.text")].map(a => a.dataset.id)`).([]any)
	if len(ids) != len(want.Results) || ids[0] != apollo || want.Results[0].ID != apollo {
		t.Fatalf("page shows %v; the engine ranks %d results, first %s (want %s)", ids, len(want.Results), want.Results[0].ID, apollo)
	}
	for i, r := range want.Results {
		if ids[i] != r.ID {
			t.Fatalf("result %d: page %v, engine %s", i, ids[i], r.ID)
		}
	}
	meter := p.eval(`+document.querySelector("#results li meter").value`).(float64)
	if d := meter - want.Results[0].Confidence; d > 1e-6 || d < -1e-6 {
		t.Fatalf("confidence shown %v, engine's %v", meter, want.Results[0].Confidence)
	}
	p.screenshot(shots, "search")

	// Keyboard: Tab reaches the first result, Enter opens it.
	p.eval(`document.getElementById("q").focus()`)
	for i := 0; i < 15 && p.str(`document.activeElement.className`) != "text"; i++ {
		p.press("Tab")
	}
	if p.str(`document.activeElement.dataset.id || ""`) != apollo {
		t.Fatalf("Tab does not reach the first result (focus on %s)", p.str(`document.activeElement.outerHTML.slice(0, 120)`))
	}
	p.press("Enter")
	p.waitView("memory")
	p.screenshot(shots, "memory")

	// Edit text, tags and importance; the engine has them, and a recall
	// by the new words finds it.
	p.fill("#edit-text", "The Apollo launch deadline moved to July 1")
	p.fill("#edit-tags", "apollo, launch")
	p.fill("#edit-importance", "0.9")
	p.click("#save")
	p.waitFor("saved", `document.getElementById("status").textContent.startsWith("Saved")`)
	m, err := eng.Get(ctx, apollo)
	if err != nil {
		t.Fatal(err)
	}
	if m.Text != "The Apollo launch deadline moved to July 1" || strings.Join(m.Tags, ",") != "apollo,launch" || m.Importance != 0.9 {
		t.Fatalf("after the edit the engine has %q %v %v", m.Text, m.Tags, m.Importance)
	}
	if res, _ := eng.Search(ctx, memory.SearchRequest{Query: "Apollo July"}); len(res.Results) == 0 || res.Results[0].ID != apollo || res.Results[0].Text != m.Text {
		t.Fatalf("retrieve after the edit: %+v", res.Results)
	}
	p.waitFor("history", `document.querySelector("#history") && document.querySelector("#history").textContent.includes("June 12")`)

	// Pin.
	p.click("#edit-pinned")
	p.click("#save")
	p.waitFor("pinned", `document.getElementById("status").textContent.includes("pinned")`)
	if m, _ := eng.Get(ctx, apollo); !m.Pinned {
		t.Fatal("pinning on the page did not pin")
	}

	// Forget, then unforget.
	p.click("#forget")
	p.waitFor("forgotten", `document.querySelector("main[data-ready] #unforget")`)
	if res, _ := eng.Search(ctx, memory.SearchRequest{Query: "Apollo July"}); len(res.Results) > 0 && res.Results[0].ID == apollo {
		t.Fatal("a forgotten memory is still recalled")
	}
	p.screenshot(shots, "memory-forgotten")
	p.click("#unforget")
	p.waitFor("restored", `document.querySelector("main[data-ready] #forget")`)
	if res, _ := eng.Search(ctx, memory.SearchRequest{Query: "Apollo July"}); len(res.Results) == 0 || res.Results[0].ID != apollo {
		t.Fatal("an unforgotten memory is not recalled")
	}

	// Hard delete asks first: Cancel keeps it, confirming deletes it.
	p.navigate("http://" + s.Addr() + "/#/memory/" + doomed)
	p.waitView("memory")
	p.click("#delete")
	p.waitFor("dialog", `document.getElementById("confirm").open`)
	p.screenshot(shots, "delete-confirm")
	p.click("#confirm-cancel")
	p.waitFor("dialog closed", `!document.getElementById("confirm").open`)
	if _, err := eng.Get(ctx, doomed); err != nil {
		t.Fatalf("cancelled delete: %v", err)
	}
	p.click("#delete")
	p.waitFor("dialog", `document.getElementById("confirm").open`)
	p.click("#confirm-ok")
	p.waitView("browse")
	if _, err := eng.Get(ctx, doomed); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("after a confirmed delete: %v", err)
	}

	// Browse pages through everything; the timeline is drawn.
	p.navigate("http://" + s.Addr() + "/#/browse?scope=Home")
	p.waitView("browse")
	p.waitFor("timeline", `document.querySelector("#timeline svg rect")`)
	if got := p.str(`document.getElementById("result-info").textContent`); got != "1–50 of 120" {
		t.Fatalf("first page: %q", got)
	}
	p.screenshot(shots, "browse")
	p.click("#next")
	p.waitFor("second page", `document.querySelector("main[data-ready] #result-info") && document.getElementById("result-info").textContent === "51–100 of 120"`)

	// Profile edit.
	p.navigate("http://" + s.Addr() + "/#/profile")
	p.waitView("profile")
	p.fill("#profile-name", "Ada Lovelace")
	p.press("Enter")
	p.waitFor("name saved", `document.getElementById("status").textContent === "Name saved."`)
	p.waitView("profile")
	p.fill("#profile-preferences-key", "coffee")
	p.fill("#profile-preferences-value", "flat white")
	p.press("Enter")
	p.waitFor("preference saved", `document.querySelector("main[data-ready] #profile-preferences") && document.getElementById("profile-preferences").textContent.includes("flat white")`)
	prof, err := eng.Profile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if prof.Name != "Ada Lovelace" || prof.Preferences["coffee"] != "flat white" {
		t.Fatalf("profile in the engine: %+v", prof)
	}
	p.screenshot(shots, "profile")

	// Scopes.
	p.navigate("http://" + s.Addr() + "/#/scopes")
	p.waitView("scopes")
	p.waitFor("scopes table", `document.querySelector("#scopes tbody tr")`)
	p.screenshot(shots, "scopes")

	// Narrow width: readable, nothing wider than the screen.
	p.size(375, 800)
	for _, view := range []string{"search?q=Apollo", "memory/" + apollo, "browse", "profile", "scopes"} {
		p.navigate("http://" + s.Addr() + "/#/" + view)
		name, _, _ := strings.Cut(view, "?")
		name, _, _ = strings.Cut(name, "/")
		p.waitView(name)
		if w := p.eval(`document.documentElement.scrollWidth - window.innerWidth`).(float64); w > 0 {
			t.Errorf("%s at 375 px is %v px wider than the screen", view, w)
		}
		p.screenshot(shots, name+"-narrow")
	}
	if bad := unexpected(c.pageLogs()); len(bad) > 0 {
		t.Errorf("the page reported problems (CSP violations, script errors):\n%s", strings.Join(bad, "\n"))
	}

	// A browser without the cookie gets nothing.
	anon := c.newTab(true)
	anon.navigate("http://" + s.Addr() + "/")
	anon.waitFor("refusal", `document.body && document.body.innerText.includes("no UI session")`)
	if got := anon.str(`document.body.innerText`); strings.Contains(got, "Apollo") {
		t.Fatal("a browser without the cookie sees memories")
	}

	// A page of another origin (even on 127.0.0.1, which is the same
	// "site" to the cookie) cannot write, by fetch or by form, although
	// the browser holds the session cookie.
	evil := evilPage(t, "http://"+s.Addr())
	p.size(1280, 900)
	p.navigate(evil)
	p.waitFor("evil page done", `document.title === "done"`)
	if prof, _ := eng.Profile(ctx); prof.Name != "Ada Lovelace" {
		t.Fatalf("another page renamed the user: %q", prof.Name)
	}
	if m, _ := eng.Get(ctx, apollo); m.ForgottenAt != nil {
		t.Fatal("another page forgot a memory")
	}
	c.pageLogs()
}

// evilPage serves, on another port of 127.0.0.1, a page that tries to
// write to the UI at target: a JSON fetch with credentials, a simple
// no-cors POST and a form post.
func evilPage(t *testing.T, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	page := `<!doctype html><title>evil</title><form id=f method=post action="` + target + `/api/profile" target=sink enctype="text/plain">` +
		`<input name='{"name":"Mallory","x":"' value='"}'></form><iframe name=sink></iframe><script>
(async () => {
  try { await fetch("` + target + `/api/profile", {method: "POST", credentials: "include", headers: {"Content-Type": "application/json"}, body: JSON.stringify({name: "Mallory"})}); } catch (e) {}
  try { await fetch("` + target + `/api/profile", {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"}, body: JSON.stringify({name: "Mallory"})}); } catch (e) {}
  document.getElementById("f").submit();
  setTimeout(() => { document.title = "done"; }, 1000);
})();
</script>`
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(page))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}
