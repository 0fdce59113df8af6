package webui

// A minimal Chrome DevTools Protocol client for the browser tests: it
// starts Debian's chromium headless with --remote-debugging-pipe and talks
// CDP over the two pipes (NUL-terminated JSON messages, fds 3 and 4), so
// the tests need no websocket and no dependency: the few commands they use
// (targets, navigation, evaluation, input events, screenshots, cookies)
// are a page of code.

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
)

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    any             `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
}

type cdpIn struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
	Result    json.RawMessage `json:"result"`
	Error     *cdpError       `json:"error"`
}

// chrome is one headless chromium and its CDP pipe.
type chrome struct {
	t   *testing.T
	cmd *exec.Cmd
	out *os.File

	mu      sync.Mutex
	next    int
	pending map[int]chan cdpIn
	// logs are the console and log entries of every page, for the test
	// to check that nothing (a CSP violation, a script error) went wrong.
	logs []string
	dead chan struct{}
}

// chromiumPath finds Debian's chromium; tests skip, saying so, without it.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed: the browser tests need it (apt-get install -y chromium; .ci/run installs it)")
	return ""
}

func startChrome(t *testing.T) *chrome {
	t.Helper()
	path := chromiumPath(t)
	dir := t.TempDir()
	toChrome, ourEnd, err := os.Pipe() // chromium reads commands on fd 3
	if err != nil {
		t.Fatal(err)
	}
	ourIn, fromChrome, err := os.Pipe() // and writes answers on fd 4
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.Create(filepath.Join(dir, "chromium.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
		"--disable-dev-shm-usage", "--disable-extensions", "--mute-audio", "--password-store=basic",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--remote-debugging-pipe", "--window-size=1280,900", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	toChrome.Close()
	fromChrome.Close()
	c := &chrome{t: t, cmd: cmd, out: ourEnd, pending: map[int]chan cdpIn{}, dead: make(chan struct{})}
	go c.read(ourIn)
	t.Cleanup(func() {
		c.call("", "Browser.close", nil, nil)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		ourEnd.Close()
		stderr.Close()
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(dir, "chromium.log")); err == nil {
				t.Logf("chromium's log:\n%s", tail(string(b), 4000))
			}
		}
	})
	return c
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func (c *chrome) read(in *os.File) {
	defer close(c.dead)
	r := bufio.NewReaderSize(in, 1<<20)
	for {
		msg, err := r.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpIn
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			c.mu.Lock()
			ch := c.pending[m.ID]
			delete(c.pending, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		c.event(m)
	}
}

// event keeps what pages report: console errors, log entries, exceptions.
func (c *chrome) event(m cdpIn) {
	var line string
	switch m.Method {
	case "Runtime.exceptionThrown":
		var p struct {
			ExceptionDetails struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		json.Unmarshal(m.Params, &p)
		line = "exception: " + p.ExceptionDetails.Text + " " + p.ExceptionDetails.Exception.Description
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value any `json:"value"`
			} `json:"args"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Type != "error" && p.Type != "warning" {
			return
		}
		line = fmt.Sprintf("console.%s: %v", p.Type, p.Args)
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level, Source, Text, URL string
			} `json:"entry"`
		}
		json.Unmarshal(m.Params, &p)
		line = fmt.Sprintf("log %s %s: %s %s", p.Entry.Level, p.Entry.Source, p.Entry.Text, p.Entry.URL)
	default:
		return
	}
	c.mu.Lock()
	c.logs = append(c.logs, line)
	c.mu.Unlock()
}

// pageLogs returns and forgets what pages reported so far.
func (c *chrome) pageLogs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.logs
	c.logs = nil
	return l
}

// call sends one command (to a page when session is set) and decodes its
// result into out.
func (c *chrome) call(session, method string, params, out any) error {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan cdpIn, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	b, err := json.Marshal(cdpMessage{ID: id, Method: method, Params: params, SessionID: session})
	if err != nil {
		return err
	}
	if _, err := c.out.Write(append(b, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-c.dead:
		return fmt.Errorf("%s: chromium exited", method)
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s: no answer from chromium in 30 s", method)
	}
}

// tab is one page, in its own browser context (its own cookie jar) when
// isolated.
type tab struct {
	c       *chrome
	t       *testing.T
	session string
}

func (c *chrome) newTab(isolated bool) *tab {
	c.t.Helper()
	params := map[string]any{"url": "about:blank"}
	if isolated {
		var ctx struct {
			ID string `json:"browserContextId"`
		}
		if err := c.call("", "Target.createBrowserContext", map[string]any{}, &ctx); err != nil {
			c.t.Fatal(err)
		}
		params["browserContextId"] = ctx.ID
	}
	var target struct {
		ID string `json:"targetId"`
	}
	if err := c.call("", "Target.createTarget", params, &target); err != nil {
		c.t.Fatal(err)
	}
	var att struct {
		Session string `json:"sessionId"`
	}
	if err := c.call("", "Target.attachToTarget", map[string]any{"targetId": target.ID, "flatten": true}, &att); err != nil {
		c.t.Fatal(err)
	}
	p := &tab{c: c, t: c.t, session: att.Session}
	for _, domain := range []string{"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"} {
		p.do(domain, nil, nil)
	}
	return p
}

func (p *tab) do(method string, params, out any) {
	p.t.Helper()
	if err := p.c.call(p.session, method, params, out); err != nil {
		p.t.Fatal(err)
	}
}

func (p *tab) navigate(url string) {
	p.t.Helper()
	var res struct {
		ErrorText string `json:"errorText"`
	}
	p.do("Page.navigate", map[string]any{"url": url}, &res)
	if res.ErrorText != "" {
		p.t.Fatalf("navigate: %s", res.ErrorText)
	}
}

// eval runs JavaScript in the page and returns its value (promises awaited).
func (p *tab) eval(js string) any {
	p.t.Helper()
	v, err := p.evalErr(js)
	if err != nil {
		p.t.Fatal(err)
	}
	return v
}

func (p *tab) evalErr(js string) (any, error) {
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.c.call(p.session, "Runtime.evaluate", map[string]any{"expression": js, "awaitPromise": true, "returnByValue": true}, &res); err != nil {
		return nil, err
	}
	if res.Exception != nil {
		return nil, fmt.Errorf("%s: %s %s", js, res.Exception.Text, res.Exception.Exception.Description)
	}
	return res.Result.Value, nil
}

func (p *tab) str(js string) string {
	p.t.Helper()
	s, _ := p.eval(js).(string)
	return s
}

// waitFor polls a JavaScript condition until it holds. Its bound only
// catches a page that never gets there: a view renders in well under a
// second on a quiet machine, but took over 10 s (the bound it had) with
// the two cores at load 30; it is scaled as testenv scales a test's limit
// (the race detector, INFMEM_TEST_TIME_SCALE).
func (p *tab) waitFor(what, js string) {
	p.t.Helper()
	scale, err := testenv.Scale()
	if err != nil {
		p.t.Fatal(err)
	}
	deadline := time.Now().Add(time.Duration(float64(waitForBound) * scale))
	for {
		v, err := p.evalErr("!!(" + js + ")")
		if err == nil && v == true {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waiting for %s: %v; page: %s\npage logs: %v", what, err,
				p.str(`document.body ? document.body.innerText.slice(0, 2000) : ""`), p.c.pageLogs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitForBound is waitFor's bound without the race detector.
const waitForBound = 30 * time.Second

// waitView waits for the view the hash names to finish rendering.
func (p *tab) waitView(view string) {
	p.t.Helper()
	p.waitFor("view "+view, fmt.Sprintf(`(m => m && m.dataset.hash === location.hash)(document.querySelector('main[data-view=%q][data-ready]'))`, view))
}

// click presses and releases the mouse on the middle of an element, as
// a user would.
func (p *tab) click(selector string) {
	p.t.Helper()
	p.waitFor(selector, fmt.Sprintf("document.querySelector(%q)", selector))
	xy, ok := p.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: "center"});
		const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, selector)).([]any)
	if !ok || len(xy) != 2 {
		p.t.Fatalf("cannot place %s", selector)
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		p.do("Input.dispatchMouseEvent", map[string]any{"type": typ, "x": xy[0], "y": xy[1], "button": "left", "clickCount": 1}, nil)
	}
}

// fill clicks into a field, empties it and types text.
func (p *tab) fill(selector, text string) {
	p.t.Helper()
	p.click(selector)
	p.eval(fmt.Sprintf(`document.querySelector(%q).value = ""`, selector))
	p.do("Input.insertText", map[string]any{"text": text}, nil)
}

var keys = map[string]map[string]any{
	"Enter":  {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"},
	"Tab":    {"key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9},
	"/":      {"key": "/", "code": "Slash", "windowsVirtualKeyCode": 191, "text": "/"},
	"Escape": {"key": "Escape", "code": "Escape", "windowsVirtualKeyCode": 27},
}

// press types one key.
func (p *tab) press(key string) {
	p.t.Helper()
	down := map[string]any{"type": "keyDown"}
	up := map[string]any{"type": "keyUp"}
	for k, v := range keys[key] {
		down[k] = v
		if k != "text" {
			up[k] = v
		}
	}
	p.do("Input.dispatchKeyEvent", down, nil)
	p.do("Input.dispatchKeyEvent", up, nil)
}

// size sets the viewport (a phone is 375 wide).
func (p *tab) size(w, h int) {
	p.do("Emulation.setDeviceMetricsOverride", map[string]any{"width": w, "height": h, "deviceScaleFactor": 1, "mobile": w < 600}, nil)
}

// screenshot saves the page as dir/name.png.
func (p *tab) screenshot(dir, name string) {
	p.t.Helper()
	var res struct {
		Data string `json:"data"`
	}
	p.do("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &res)
	b, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

type browserCookie struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	HTTPOnly bool   `json:"httpOnly"`
	SameSite string `json:"sameSite"`
}

func (p *tab) cookies() []browserCookie {
	var res struct {
		Cookies []browserCookie `json:"cookies"`
	}
	p.do("Network.getCookies", nil, &res)
	return res.Cookies
}

// screenshotDir is where the browser tests leave their screenshots:
// $INFMEM_UI_SCREENSHOTS, else a folder in the system's temp dir (never
// in the repository).
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("INFMEM_UI_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "infmem-ui-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// unexpected filters page reports down to real problems (all of them
// are: the page serves its icon, so even a missing favicon is one).
func unexpected(logs []string) []string {
	return logs
}
