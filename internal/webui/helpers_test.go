package webui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/scopes"
)

// engine opens a real memory engine (the embedded database) for the test.
func engine(t *testing.T) *memory.Engine {
	t.Helper()
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	eng := memory.New(store, reg, memory.Options{Location: time.UTC, Logger: testenv.Logger(t)})
	eng.Start(ctx)
	t.Cleanup(func() { eng.Close(context.Background()) })
	return eng
}

func ready(eng *memory.Engine) func(context.Context) (*memory.Engine, func(), error) {
	return func(context.Context) (*memory.Engine, func(), error) { return eng, func() {}, nil }
}

// logBuffer collects every log line, at debug level.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// uiServer serves eng; the returned log holds everything the server logged.
func uiServer(t *testing.T, eng *memory.Engine, opts Options) (*Server, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	opts.Memory = ready(eng)
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := New(opts)
	t.Cleanup(func() { s.Close() })
	return s, logs
}

// browserish is an HTTP client that behaves like the page's browser: it
// keeps the session cookie, sends the page's Origin on writes and the
// CSRF token it read.
type browserish struct {
	t      testing.TB
	c      *http.Client
	origin string
	cookie *http.Cookie
	csrf   string
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// launch opens a launch URL and keeps the session it gives.
func launch(t testing.TB, launchURL string) *browserish {
	t.Helper()
	u, err := url.Parse(launchURL)
	if err != nil {
		t.Fatal(err)
	}
	b := &browserish{t: t, c: &http.Client{CheckRedirect: noRedirect, Timeout: 30 * time.Second}, origin: u.Scheme + "://" + u.Host}
	resp, err := b.c.Get(launchURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("launch: %s", resp.Status)
	}
	for _, c := range resp.Cookies() {
		if c.Name == cookieName {
			b.cookie = c
		}
	}
	if b.cookie == nil {
		t.Fatal("launch set no session cookie")
	}
	var s struct {
		CSRF string `json:"csrf_token"`
	}
	b.getJSON("/api/session", &s)
	b.csrf = s.CSRF
	return b
}

// do sends a request as the page would, with mutate changing it first.
func (b *browserish) do(method, path string, body any, mutate func(*http.Request)) (int, []byte) {
	b.t.Helper()
	var rd io.Reader
	if body != nil {
		j, err := json.Marshal(body)
		if err != nil {
			b.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, b.origin+path, rd)
	if err != nil {
		b.t.Fatal(err)
	}
	if b.cookie != nil {
		req.AddCookie(b.cookie)
	}
	if method != http.MethodGet {
		req.Header.Set("Origin", b.origin)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(csrfHeader, b.csrf)
	}
	if mutate != nil {
		mutate(req)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func (b *browserish) getJSON(path string, out any) {
	b.t.Helper()
	code, body := b.do(http.MethodGet, path, nil, nil)
	if code != http.StatusOK {
		b.t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		b.t.Fatalf("GET %s: %v: %s", path, err, body)
	}
}

func (b *browserish) postJSON(path string, in, out any) {
	b.t.Helper()
	code, body := b.do(http.MethodPost, path, in, nil)
	if code != http.StatusOK {
		b.t.Fatalf("POST %s: %d %s", path, code, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			b.t.Fatalf("POST %s: %v: %s", path, err, body)
		}
	}
}

func store(t *testing.T, eng *memory.Engine, text, scope string, tags ...string) string {
	t.Helper()
	res, err := eng.Store(testenv.Context(t), memory.StoreRequest{Content: text, Scope: scope, Tags: tags})
	if err != nil {
		t.Fatal(err)
	}
	return res.ID
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
