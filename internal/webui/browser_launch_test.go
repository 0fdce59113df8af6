package webui

import (
	"os"
	"strings"
	"testing"
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
