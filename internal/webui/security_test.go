package webui

import (
	"io/fs"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/testenv"
)

// The UI listens on a loopback address only: the link names it, and the
// port cannot be reached on the machine's other addresses.
func TestListensOnLoopbackOnly(t *testing.T) {
	s, _ := uiServer(t, engine(t), Options{})
	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link)
	if ip := net.ParseIP(u.Hostname()); u.Scheme != "http" || ip == nil || ip.To4() == nil || !ip.IsLoopback() || u.Host != s.Addr() {
		t.Fatalf("link %s, addr %s: want http://127.x.y.z:PORT", u.Redacted(), s.Addr())
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.To4() == nil {
			continue
		}
		tried++
		c, err := net.DialTimeout("tcp", net.JoinHostPort(ipn.IP.String(), u.Port()), time.Second)
		if err == nil {
			c.Close()
			t.Errorf("the UI answers on %s: it must listen on 127.0.0.1 only", ipn.IP)
		}
	}
	if tried == 0 {
		t.Log("no non-loopback IPv4 address here; only the link's host was checked")
	}
}

// The secret in the link is exchanged at once for an HttpOnly,
// SameSite=Strict cookie, the browser is sent to the bare page, and the
// secret never works again.
func TestLaunchSecretIsSpentForACookie(t *testing.T) {
	now := time.Now()
	s, _ := uiServer(t, engine(t), Options{LaunchTTL: time.Minute, Now: func() time.Time { return now }})
	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{CheckRedirect: noRedirect}
	resp, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("launch: %s to %q; want 303 to /", resp.Status, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == cookieName {
			cookie = ck
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, Path=/", cookie)
	}
	if strings.Contains(link, cookie.Value) {
		t.Fatal("the cookie is the launch secret")
	}
	// Spent: the same link again, a made-up one, an expired one (last:
	// it moves the clock).
	for _, tc := range []struct {
		name string
		get  func() string
	}{
		{"reused", func() string { return link }},
		{"made-up", func() string { return strings.SplitN(link, "?", 2)[0] + "?k=AAAA" }},
		{"empty", func() string { return strings.SplitN(link, "?", 2)[0] }},
		{"expired", func() string {
			l, err := s.Open()
			if err != nil {
				t.Fatal(err)
			}
			now = now.Add(2 * time.Minute)
			return l
		}},
	} {
		name, get := tc.name, tc.get
		resp, err := c.Get(get())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
			t.Errorf("%s link: %s with %d cookies; want 403 and none", name, resp.Status, len(resp.Cookies()))
		}
	}
}

// Nothing but the launch answers without the session cookie: not the
// page, not the API, not a cookie of another listener's life.
func TestRequestsWithoutTheCookieAreRefused(t *testing.T) {
	eng := engine(t)
	store(t, eng, "The Apollo deadline is June 12", "Work")
	s, _ := uiServer(t, eng, Options{})
	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	b := launch(t, link)
	anon := *b
	anon.cookie = nil
	forged := *b
	forged.cookie = &http.Cookie{Name: cookieName, Value: "forged-value"}
	for _, path := range []string{"/", "/app.js", "/api/session", "/api/search?q=Apollo", "/api/memories", "/api/profile"} {
		if code, _ := b.do(http.MethodGet, path, nil, nil); code != http.StatusOK {
			t.Errorf("GET %s with the cookie: %d", path, code)
		}
		for name, c := range map[string]*browserish{"no cookie": &anon, "forged cookie": &forged} {
			if code, body := c.do(http.MethodGet, path, nil, nil); code != http.StatusUnauthorized || strings.Contains(string(body), "Apollo") {
				t.Errorf("GET %s with %s: %d %s; want 401", path, name, code, body)
			}
		}
	}
	// Closing forgets every session; the next listener knows none.
	s.Close()
	link2, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link2)
	old := *b
	old.origin = "http://" + u.Host
	if code, _ := old.do(http.MethodGet, "/api/session", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("a cookie from before a close: %d; want 401", code)
	}
}

// DNS rebinding and other pages: the Host must be the listener's own, an
// Origin the page's own, and fetch metadata must not say cross-site.
func TestHostAndOriginAreChecked(t *testing.T) {
	s, _ := uiServer(t, engine(t), Options{})
	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	b := launch(t, link)
	_, port, _ := net.SplitHostPort(s.Addr())
	cases := map[string]func(*http.Request){
		"rebound host":       func(r *http.Request) { r.Host = "evil.example:" + port },
		"localhost host":     func(r *http.Request) { r.Host = "localhost:" + port },
		"foreign origin":     func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") },
		"null origin":        func(r *http.Request) { r.Header.Set("Origin", "null") },
		"other port origin":  func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:1") },
		"cross-site fetch":   func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") },
		"same-site fetch":    func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-site") },
		"rebound host write": func(r *http.Request) { r.Host = "evil.example:" + port },
	}
	for name, mutate := range cases {
		method, body := http.MethodGet, any(nil)
		if strings.HasSuffix(name, "write") || strings.Contains(name, "origin") {
			method, body = http.MethodPost, map[string]any{"name": "Mallory"}
		}
		path := "/api/session"
		if method == http.MethodPost {
			path = "/api/profile"
		}
		code, _ := b.do(method, path, body, mutate)
		if code != http.StatusForbidden && code != http.StatusMisdirectedRequest {
			t.Errorf("%s: %d; want refused", name, code)
		}
	}
	// A GET with a foreign Origin (a page's fetch) is refused too.
	if code, _ := b.do(http.MethodGet, "/api/profile", nil, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }); code != http.StatusForbidden {
		t.Errorf("GET with a foreign Origin: %d; want 403", code)
	}
	// And the launch link itself cannot be used through another name.
	link2, _ := s.Open()
	req, _ := http.NewRequest(http.MethodGet, link2, nil)
	req.Host = "evil.example:" + port
	resp, err := (&http.Client{CheckRedirect: noRedirect}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest || len(resp.Cookies()) != 0 {
		t.Errorf("launch through a rebound name: %s", resp.Status)
	}
	var p struct{ Name string }
	b.getJSON("/api/profile", &p)
	if p.Name == "Mallory" {
		t.Fatal("a refused write changed the profile")
	}
}

// Every write needs the session's CSRF token, the page's Origin and a
// JSON body; a form another page posts has none of them.
func TestWritesNeedTheCSRFToken(t *testing.T) {
	eng := engine(t)
	id := store(t, eng, "The Apollo deadline is June 12", "Work")
	s, _ := uiServer(t, eng, Options{})
	link, _ := s.Open()
	b := launch(t, link)
	path := "/api/memories/" + id + "/update"
	body := map[string]any{"text": "The Apollo deadline is July 1"}
	for name, mutate := range map[string]func(*http.Request){
		"no token":    func(r *http.Request) { r.Header.Del(csrfHeader) },
		"wrong token": func(r *http.Request) { r.Header.Set(csrfHeader, b.csrf[:len(b.csrf)-2]+"xx") },
		"no origin":   func(r *http.Request) { r.Header.Del("Origin") },
		"form post":   func(r *http.Request) { r.Header.Set("Content-Type", "application/x-www-form-urlencoded") },
		"plain text":  func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") },
	} {
		code, _ := b.do(http.MethodPost, path, body, mutate)
		if code < 400 {
			t.Errorf("%s: %d; want refused", name, code)
		}
	}
	m, err := eng.Get(testenv.Context(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if m.Text != "The Apollo deadline is June 12" {
		t.Fatalf("a refused write changed the memory: %q", m.Text)
	}
	// Another session's token is not this one's.
	link2, _ := s.Open()
	other := launch(t, link2)
	if code, _ := b.do(http.MethodPost, path, body, func(r *http.Request) { r.Header.Set(csrfHeader, other.csrf) }); code != http.StatusForbidden {
		t.Errorf("another session's token: %d; want 403", code)
	}
	b.postJSON(path, body, nil)
	if m, _ := eng.Get(testenv.Context(t), id); m.Text != "The Apollo deadline is July 1" {
		t.Fatalf("the write with its token did not apply: %q", m.Text)
	}
}

// Every answer carries the strict policy: own-origin scripts, styles and
// connections only, nothing inline, no framing, no sniffing.
func TestSecurityHeaders(t *testing.T) {
	s, _ := uiServer(t, engine(t), Options{})
	link, _ := s.Open()
	b := launch(t, link)
	for _, path := range []string{"/", "/app.js", "/api/stats", "/nowhere"} {
		req, _ := http.NewRequest(http.MethodGet, b.origin+path, nil)
		req.AddCookie(b.cookie)
		resp, err := b.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if !contains(csp, "default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'") ||
			strings.Contains(csp, "unsafe") || strings.Contains(csp, "*") || strings.Contains(csp, "http") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"} {
			if resp.Header.Get(k) != v {
				t.Errorf("%s: %s is %q, want %q", path, k, resp.Header.Get(k), v)
			}
		}
	}
}

// The page loads nothing from elsewhere and has no inline code (which the
// policy would block anyway): every asset is one of the embedded files.
func TestNoThirdPartyAssets(t *testing.T) {
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := static.ReadFile(p)
		for _, m := range external.FindAllString(string(b), -1) {
			if m != "http://www.w3.org" { // the SVG namespace name, never fetched
				t.Errorf("%s refers to %s", p, m)
			}
		}
		if strings.Contains(string(b), "@import") || strings.Contains(string(b), "url(") {
			t.Errorf("%s imports another file", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	html, _ := static.ReadFile("static/index.html")
	if regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`).Match(html) || regexp.MustCompile(`\sstyle=|\son[a-z]+=|<style`).Match(html) {
		t.Error("index.html has inline script, style or handlers")
	}
	for _, ref := range regexp.MustCompile(`(?:src|href)="([^"#]+)"`).FindAllSubmatch(html, -1) {
		if r := string(ref[1]); r != "/app.js" && r != "/app.css" && r != "/favicon.svg" {
			t.Errorf("index.html loads %s", r)
		}
	}
}

// The listener closes after IdleTimeout without a request; requests keep
// it open; Open starts a new one.
func TestClosesWhenIdle(t *testing.T) {
	const idle = 400 * time.Millisecond
	s, _ := uiServer(t, engine(t), Options{IdleTimeout: idle})
	link, _ := s.Open()
	b := launch(t, link)
	addr := s.Addr()
	for range 6 {
		time.Sleep(idle / 4)
		if code, _ := b.do(http.MethodGet, "/api/session", nil, nil); code != http.StatusOK {
			t.Fatalf("in use: %d", code)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Addr() != "" {
		if time.Now().After(deadline) {
			t.Fatal("still listening long after being idle")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("%s still accepts connections after the idle close", addr)
	}
	if _, err := s.Open(); err != nil || s.Addr() == "" {
		t.Fatalf("open after an idle close: %v", err)
	}
}

// No secret (launch, cookie, CSRF token) reaches the log, whatever
// happens.
func TestSecretsAreNotLogged(t *testing.T) {
	s, logs := uiServer(t, engine(t), Options{})
	link, _ := s.Open()
	b := launch(t, link)
	b.do(http.MethodGet, launchPath+"?k=wrong", nil, nil)
	c := &http.Client{CheckRedirect: noRedirect}
	if resp, err := c.Get(link); err == nil { // spent: refused
		resp.Body.Close()
	}
	b.do(http.MethodPost, "/api/memories/000000000000000000000000/update", map[string]any{"text": "x"}, nil)
	b.do(http.MethodPost, "/api/profile", map[string]any{"bogus": 1}, nil)
	s.Close()
	secretOf := strings.SplitN(link, "k=", 2)[1]
	out := logs.String()
	if out == "" {
		t.Fatal("nothing was logged; the check would prove nothing")
	}
	for name, v := range map[string]string{"launch secret": secretOf, "cookie": b.cookie.Value, "CSRF token": b.csrf} {
		if strings.Contains(out, v) {
			t.Errorf("the %s is in the log:\n%s", name, out)
		}
	}
	if got := secret("abc").String(); got != "[redacted]" {
		t.Errorf("a secret prints as %q", got)
	}
}

// Issue 22, item 3: a browser sends a cookie to every port of its host,
// so the page's cookie on 127.0.0.1 also went to another user's server on
// 127.0.0.1:18080. On Linux the page listens on a random 127.x.y.z of its
// own: a browser (here Go's cookie jar, which keeps cookies as browsers
// do) visiting a server on 127.0.0.1 sends it nothing.
func TestCookieHasAHostOfItsOwn(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has all of 127.0.0.0/8 on its loopback")
	}
	s, _ := uiServer(t, engine(t), Options{})
	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	other, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Header.Get("Cookie"):
		default:
		}
	})}
	go srv.Serve(other)
	t.Cleanup(func() { srv.Close() })
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := c.Get(link) // the launch, then the page, with the cookie
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the page: %s", resp.Status)
	}
	resp, err = c.Get("http://" + other.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ck := <-got; strings.Contains(ck, cookieName) {
		t.Fatalf("a server on %s received the page's cookie (the page is at %s)", other.Addr(), s.Addr())
	}
}

// Issue 22, item 2: any request used to keep the page open, so anything
// that knocked on its port (a scan, another user) kept it listening. Only
// requests with the page's session push the idle close back.
func TestOnlyTheSessionKeepsThePageOpen(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	const idle = time.Hour // the real timer never fires: checkIdle is called by hand
	s, _ := uiServer(t, engine(t), Options{IdleTimeout: idle, Now: clock})
	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	b := launch(t, link)
	anon := *b
	anon.cookie = nil
	for _, step := range []struct {
		who  *browserish
		want int
	}{{&anon, http.StatusUnauthorized}, {b, http.StatusOK}} {
		// Almost idle; a request comes; the idle time passes after it.
		advance(idle - time.Minute)
		if code, _ := step.who.do(http.MethodGet, "/api/session", nil, nil); code != step.want {
			t.Fatalf("request: %d, want %d", code, step.want)
		}
		for _, p := range []string{"/launch?k=wrong", "/nothing"} {
			step.who.do(http.MethodGet, p, nil, nil)
		}
		advance(2 * time.Minute)
		s.checkIdle()
		open := s.Addr() != ""
		if step.who == &anon && open {
			t.Fatal("requests without the session kept the page open")
		}
		if step.who == b && !open {
			t.Fatal("the page closed although its session used it a minute ago")
		}
		if !open {
			// Reopen for the next step.
			link, err = s.Open()
			if err != nil {
				t.Fatal(err)
			}
			nb := launch(t, link)
			*b = *nb
		}
	}
}

// Issue 22, item 11: an error quoting what it was sent stays small (the
// body may be up to 1 MiB).
func TestErrorsNeverEchoHugeInput(t *testing.T) {
	s, _ := uiServer(t, engine(t), Options{})
	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	b := launch(t, link)
	big := strings.Repeat("Ｗ", 300_000)
	for _, tc := range []struct {
		path string
		body any
	}{
		{"/api/scopes", map[string]any{"name": big}},
		{"/api/scopes", map[string]any{"name": "Ok", "parent": big}},
		{"/api/profile", map[string]any{big: 1}},
		{"/api/unforget", map[string]any{"id": big}},
	} {
		code, body := b.do(http.MethodPost, tc.path, tc.body, nil)
		if code < 400 || len(body) > 2048 {
			t.Errorf("POST %s: %d, a %d-byte answer: %.200s", tc.path, code, len(body), body)
		}
	}
}
