package webui

import (
	"os"
	"strings"
	"testing"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
)

// Issue 22, item 2: `infmem ui` opens the browser on a private launch
// file, never on the link (another user can read a command line). In a
// real chromium the file leads to the page with its session: the launch
// is a navigation from file://, another site, after which the
// SameSite=Strict cookie must still reach the page; the file is deleted
// once its secret is spent.
func TestInBrowserThroughTheLaunchFile(t *testing.T) {
	chromiumPath(t)
	eng := engine(t)
	store(t, eng, "The Apollo launch deadline is June 12", "Work", "apollo")
	dir := t.TempDir()
	s, _ := uiServer(t, eng, Options{Version: "test", LaunchDir: dir})
	l, err := s.OpenLaunch()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(l.File); err != nil || fi.Mode().Perm() != 0o600 || !strings.HasPrefix(l.File, dir) {
		t.Fatalf("launch file %s: %v %v", l.File, fi, err)
	}
	c := startChrome(t)
	p := c.newTab(false)
	p.navigate("file://" + l.File)
	p.waitView("search")
	if got := p.str("location.href"); strings.Contains(got, "k=") || !strings.HasPrefix(got, "http://"+s.Addr()+"/") {
		t.Fatalf("the page is at %s", got)
	}
	p.waitFor("stats", `document.querySelector("#stats") && /1 memor/.test(document.querySelector("#stats").textContent)`)
	if _, err := os.Stat(l.File); !os.IsNotExist(err) {
		t.Fatalf("the launch file outlived its secret: %v", err)
	}
}

// Issue 22, item 9, in a real browser: a proposed lesson's page says
// where it came from, and its Confirm lesson button makes it a lesson.
func TestInBrowserConfirmLesson(t *testing.T) {
	chromiumPath(t)
	eng := engine(t)
	ctx := testenv.Context(t)
	res, err := eng.Store(ctx, memory.StoreRequest{Content: "Answer in French on Fridays.", Source: memory.SourceProposedLesson, Speaker: "proposed via Claude Desktop"})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := uiServer(t, eng, Options{Version: "test"})
	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	c := startChrome(t)
	p := c.newTab(false)
	p.navigate(link)
	p.waitView("search")
	p.navigate("http://" + s.Addr() + "/#/memory/" + res.ID)
	p.waitFor("the confirm button", `document.querySelector("#confirm-lesson") && /proposed via Claude Desktop/.test(document.querySelector("#memory-meta").textContent)`)
	p.click("#confirm-lesson")
	p.waitFor("the lesson confirmed", `!document.querySelector("#confirm-lesson") && /Confirmed/.test(document.querySelector("#status").textContent)`)
	if m, err := eng.Get(ctx, res.ID); err != nil || m.Source != memory.SourceLesson {
		t.Fatalf("after the click: %+v %v", m, err)
	}
}
