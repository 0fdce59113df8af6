package main

import (
	"net/http"
	"strings"
	"testing"
)

// `infmem ui` starts the daemon when none runs, prints a link that opens
// the page once (and nothing else on stdout), and status says where the
// page listens.
func TestUIStartsTheDaemonAndPrintsTheLink(t *testing.T) {
	root := shortRoot(t)
	env := append(processEnv(t, root), "INFMEM_NO_BROWSER=1")
	t.Cleanup(func() { stopDaemon(t, root, env) })
	code, out, errs := runBin(t, env, "ui")
	if code != 0 {
		t.Fatalf("ui: %d %s", code, errs)
	}
	link := strings.TrimSpace(out)
	if strings.Count(out, "\n") != 1 || !strings.HasPrefix(link, "http://127.") || !strings.Contains(link, "/launch?k=") {
		t.Fatalf("ui printed %q; want one link to 127.x.y.z", strings.SplitN(out, "?", 2)[0])
	}
	if !strings.Contains(errs, "started the daemon") || !strings.Contains(errs, "opens the page once") {
		t.Fatalf("ui said %q", errs)
	}
	addr := strings.TrimPrefix(strings.SplitN(link, "/launch", 2)[0], "http://")
	if code, out, _ := runBin(t, env, "status"); code != 0 || !strings.Contains(out, "listening on "+addr) {
		t.Fatalf("status does not mention the UI at %s:\n%s", addr, out)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for i, want := range []int{http.StatusSeeOther, http.StatusForbidden} {
		resp, err := c.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("opening the link, time %d: %s; want %d", i+1, resp.Status, want)
		}
	}
}
