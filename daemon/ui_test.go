package daemon

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `infmem ui` asks the control socket for the UI: the daemon starts it
// on 127.0.0.1, the link opens a session whose API serves the daemon's
// memory (stored here through an MCP tool), status reports the address,
// and a stop closes it.
func TestControlOpensTheUI(t *testing.T) {
	opts := testOptions(t, testRoot(t))
	opts.Config.Backup.IdentityFile = filepath.Join(t.TempDir(), "backup-identity.txt")
	d := startDaemon(t, opts)
	mc := connect(t, d)
	callOK(t, mc, "store_memory", map[string]any{"content": "The Apollo launch deadline is June 12"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := dialControl(t, d)
	info, err := c.UI(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.URL, "http://127.") || !strings.HasPrefix(info.URL, "http://"+info.Addr+"/launch?k=") {
		t.Fatalf("ui answered %q at %s", strings.SplitN(info.URL, "?", 2)[0], info.Addr)
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.UI == nil || st.UI.Addr != info.Addr {
		t.Fatalf("status UI: %+v; want %s", st.UI, info.Addr)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(info.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("launch: %s", resp.Status)
	}
	cookie, csrf := resp.Cookies()[0], ""
	req, _ := http.NewRequest(http.MethodGet, "http://"+info.Addr+"/api/search?q=Apollo+deadline", nil)
	req.AddCookie(cookie)
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var res struct {
		Results []struct{ Text string } `json:"results"`
	}
	if err := json.Unmarshal(body, &res); err != nil || len(res.Results) == 0 || !strings.Contains(res.Results[0].Text, "June 12") {
		t.Fatalf("search through the UI: %s %v", body, err)
	}
	// The maintenance and backups views run on the daemon's own services.
	for _, path := range []string{"/api/maintenance", "/api/backups"} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+info.Addr+path, nil)
		req.AddCookie(cookie)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"runs"`) && !strings.Contains(string(body), `"backups"`) {
			t.Fatalf("GET %s: %s %s", path, resp.Status, body)
		}
	}
	// "Back up now" and "Run now" go through the daemon's jobs.
	call := func(method, path, body string) map[string]any {
		req, _ := http.NewRequest(method, "http://"+info.Addr+path, strings.NewReader(body))
		req.AddCookie(cookie)
		if method == http.MethodPost {
			req.Header.Set("Origin", "http://"+info.Addr)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-CSRF-Token", csrf)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &out) != nil {
			t.Fatalf("%s %s: %s %s", method, path, resp.Status, b)
		}
		return out
	}
	csrf = call(http.MethodGet, "/api/session", "")["csrf_token"].(string)
	for _, start := range []struct{ path, body string }{{"/api/backups/now", "{}"}, {"/api/maintenance/run", `{"job":"dedup"}`}} {
		task := call(http.MethodPost, start.path, start.body)
		for task["state"] == "running" {
			time.Sleep(50 * time.Millisecond)
			task = call(http.MethodGet, "/api/tasks/"+task["id"].(string), "")
		}
		if task["state"] != "done" {
			t.Fatalf("%s: %v", start.path, task)
		}
	}
	if bk := call(http.MethodGet, "/api/backups", "")["backups"].([]any); len(bk) != 1 {
		t.Fatalf("backups after 'back up now': %v", bk)
	}
	if runs := call(http.MethodGet, "/api/maintenance?all=1", "")["runs"].([]any); len(runs) == 0 {
		t.Fatal("no maintenance run in the trail after 'run now'")
	}
	// A second ui request reuses the listener with a fresh link.
	again, err := c.UI(ctx)
	if err != nil || again.Addr != info.Addr || again.URL == info.URL {
		t.Fatalf("second ui: %v, same addr %v, same link %v", err, again.Addr == info.Addr, again.URL == info.URL)
	}
	if err := d.Stop(nil); err != nil {
		t.Fatal(err)
	}
	if conn, err := net.DialTimeout("tcp", info.Addr, time.Second); err == nil {
		conn.Close()
		t.Fatal("the UI still listens after the daemon stopped")
	}
}
