package webui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
)

// historyFixture is a summarized conversation (its messages archived, as
// the summarize job leaves them) and a merge of duplicates.
type historyFixture struct {
	msgs             []string
	summary          string
	keep, dup        string
	conversationText []string
}

func newHistoryFixture(t *testing.T, eng *memory.Engine) historyFixture {
	t.Helper()
	ctx := testenv.Context(t)
	f := historyFixture{conversationText: []string{"user: shall we move the Apollo launch?", "assistant: July 1 works for the whole team", "user: fine, July 1 it is"}}
	t0 := time.Now().Add(-72 * time.Hour).Truncate(time.Minute)
	for i, text := range f.conversationText {
		res, err := eng.Store(ctx, memory.StoreRequest{Content: text, Scope: "Work", Source: "conversation", ConversationID: "conv-apollo",
			Timestamp: t0.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		f.msgs = append(f.msgs, res.ID)
	}
	var err error
	f.summary, err = eng.AddSummary(ctx, memory.SummaryInput{ConversationID: "conv-apollo", Scope: "Work", Method: "extractive",
		Text: "The Apollo launch moved to July 1.", Refs: f.msgs, From: t0, To: t0.Add(2 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := eng.Archive(ctx, f.msgs, "summarized:"+f.summary); err != nil || n != len(f.msgs) {
		t.Fatalf("archive: %d %v", n, err)
	}
	f.keep = store(t, eng, "My sister Alice lives in Porto", "Family", "family")
	f.dup = store(t, eng, "My sister Alice lives in Porto.", "Family", "alice")
	if n, err := eng.Merge(ctx, f.keep, []string{f.dup}); err != nil || n != 1 {
		t.Fatalf("merge: %d %v", n, err)
	}
	return f
}

// TestInBrowserRelationsAndScopes drives a memory's relations and the
// scopes view in headless chromium, on a real engine: a summary lists the
// messages it was made from (in order, archived), a message links back to
// its summary, a kept memory lists the duplicate merged into it and the
// duplicate links to it; a scope created on the page is what
// list_memory_scopes' engine call lists, with its description and parent,
// and its description edited on the page is the engine's.
func TestInBrowserRelationsAndScopes(t *testing.T) {
	chromiumPath(t)
	eng := engine(t)
	ctx := testenv.Context(t)
	f := newHistoryFixture(t, eng)
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

	// A summary and the messages it came from, in the order they happened.
	p.navigate("http://" + s.Addr() + "/#/memory/" + f.summary)
	p.waitView("memory")
	p.waitFor("sources", `document.querySelectorAll("#sources li").length === 3`)
	got := p.eval(`[...document.querySelectorAll("#sources a.text")].map(a => a.dataset.id)`).([]any)
	for i, id := range f.msgs {
		if got[i] != id {
			t.Fatalf("sources on the page %v; the summary was made from %v", got, f.msgs)
		}
	}
	if txt := p.str(`document.getElementById("sources").textContent`); !contains(txt, f.conversationText...) || !strings.Contains(txt, "archived") {
		t.Fatalf("the sources as shown: %q", txt)
	}
	if info := p.str(`document.getElementById("sources-info").textContent`); !strings.HasPrefix(info, "3 messages") {
		t.Fatalf("sources info: %q", info)
	}
	p.screenshot(shots, "memory-summary")

	// A message opens from there and names its summary.
	p.click(fmt.Sprintf(`#sources a[data-id=%q]`, f.msgs[1]))
	p.waitView("memory")
	p.waitFor("summary of the message", fmt.Sprintf(`document.querySelector('#summaries a[data-id=%q]')`, f.summary))
	p.screenshot(shots, "memory-message")

	// A merge, seen from both sides.
	p.navigate("http://" + s.Addr() + "/#/memory/" + f.keep)
	p.waitView("memory")
	p.waitFor("merged list", fmt.Sprintf(`document.querySelector('#merged a[data-id=%q]')`, f.dup))
	p.screenshot(shots, "memory-merged")
	// Escape answers the delete confirmation with no: nothing is deleted,
	// and the next answer is the next button pressed.
	p.click("#delete")
	p.waitFor("dialog", `document.getElementById("confirm").open`)
	p.press("Escape")
	p.waitFor("dialog closed", `!document.getElementById("confirm").open`)
	p.click("#delete")
	p.waitFor("dialog", `document.getElementById("confirm").open`)
	p.click("#confirm-cancel")
	p.waitFor("dialog closed", `!document.getElementById("confirm").open`)
	if m, err := eng.Get(ctx, f.keep); err != nil || m.ForgottenAt != nil {
		t.Fatalf("after Escape and Cancel: %+v %v", m, err)
	}
	p.click(fmt.Sprintf(`#merged a[data-id=%q]`, f.dup))
	p.waitView("memory")
	if got := p.str(`(a => a ? a.dataset.id + " " + a.textContent : "")(document.getElementById("merged-into"))`); got != f.keep+" My sister Alice lives in Porto" {
		t.Fatalf("merged into, on the duplicate's page: %q", got)
	}

	// Create a scope from the page; list_memory_scopes' engine call has it.
	p.navigate("http://" + s.Addr() + "/#/scopes")
	p.waitView("scopes")
	p.fill("#scope-name", "Work/Garden project")
	p.fill("#scope-description", "Seeds, beds and the shed")
	p.eval(`(s => { s.value = "Family"; s.dispatchEvent(new Event("change")); })(document.getElementById("scope-parent"))`)
	p.click("#scope-create")
	p.waitFor("created", `document.getElementById("status").textContent === "Created scope Work/Garden project."`)
	p.waitFor("listed", `document.querySelector('main[data-ready] #scopes tr[data-scope="Work/Garden project"]')`)
	scope := func(name string) memory.ScopeInfo {
		t.Helper()
		list, err := eng.ListScopes(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range list {
			if sc.Name == name {
				return sc
			}
		}
		t.Fatalf("list_memory_scopes' engine call does not list %q", name)
		return memory.ScopeInfo{}
	}
	// An explicit parent wins over the slash's.
	if sc := scope("Work/Garden project"); sc.Description != "Seeds, beds and the shed" || sc.Parent != "Family" || !sc.Active {
		t.Fatalf("the new scope in the engine: %+v", sc)
	}
	row := `#scopes tr[data-scope="Work/Garden project"]`
	if txt := p.str(`document.querySelector('` + row + `').textContent`); !contains(txt, "Seeds, beds and the shed", "Family") {
		t.Fatalf("the new scope's row: %q", txt)
	}
	// Creating it again changes nothing and says so.
	p.fill("#scope-name", "work/garden PROJECT")
	p.fill("#scope-description", "something else")
	p.click("#scope-create")
	p.waitFor("exists", `document.getElementById("status").textContent.includes("exists already")`)
	if sc := scope("Work/Garden project"); sc.Description != "Seeds, beds and the shed" {
		t.Fatalf("a second create changed the description: %q", sc.Description)
	}

	// Describe: Edit, type, Enter; the engine has the new description.
	p.waitView("scopes")
	p.click(row + " button.describe")
	p.fill(row+" .describe-input", "Seeds, raised beds, the shed and the compost")
	p.screenshot(shots, "scopes-describe")
	p.press("Enter")
	p.waitFor("described", `document.getElementById("status").textContent === "Saved the description of Work/Garden project."`)
	if sc := scope("Work/Garden project"); sc.Description != "Seeds, raised beds, the shed and the compost" {
		t.Fatalf("described on the page; the engine has %q", sc.Description)
	}
	p.waitFor("row updated", `document.querySelector('main[data-ready] `+row+` .desc').textContent === "Seeds, raised beds, the shed and the compost"`)
	// Escape cancels an edit.
	p.click(row + " button.describe")
	p.fill(row+" .describe-input", "not saved")
	p.press("Escape")
	p.waitFor("edit cancelled", `!document.querySelector('`+row+` .describe-input')`)
	if sc := scope("Work/Garden project"); sc.Description != "Seeds, raised beds, the shed and the compost" {
		t.Fatalf("a cancelled edit was saved: %q", sc.Description)
	}
	p.screenshot(shots, "scopes-created")

	p.size(375, 800)
	for _, view := range []string{"memory/" + f.summary, "memory/" + f.keep, "scopes"} {
		p.navigate("http://" + s.Addr() + "/#/" + view)
		name, _, _ := strings.Cut(view, "/")
		p.waitView(name)
		if w := p.eval(`document.documentElement.scrollWidth - window.innerWidth`).(float64); w > 0 {
			t.Errorf("%s at 375 px is %v px wider than the screen", view, w)
		}
	}
	p.screenshot(shots, "scopes-new-narrow")
	if bad := unexpected(c.pageLogs()); len(bad) > 0 {
		t.Errorf("the page reported problems (CSP violations, script errors):\n%s", strings.Join(bad, "\n"))
	}
}
