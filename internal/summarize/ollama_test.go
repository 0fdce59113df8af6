package summarize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a fallback that counts its calls.
type recorder struct{ calls atomic.Int32 }

func (r *recorder) Name() string { return "recorder" }
func (r *recorder) Summarize(ctx context.Context, msgs []Message) (Summary, error) {
	r.calls.Add(1)
	return Summary{Text: "fallback summary", Method: "recorder"}, nil
}

// fakeOllama serves /api/version and /api/generate like Ollama, answering
// generate with reply (or status and errBody), and records the requests.
type fakeOllama struct {
	reply      string
	doneReason string
	status     int
	errBody    string
	versionErr bool
	hold       chan struct{} // when set, generate waits for it or the request's end

	mu       sync.Mutex
	requests []generateRequest
}

func (f *fakeOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/version":
		if f.versionErr {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, `{"version":"0.5.7"}`)
	case r.Method == http.MethodPost && r.URL.Path == "/api/generate":
		var req generateRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.requests = append(f.requests, req)
		f.mu.Unlock()
		if f.hold != nil {
			select {
			case <-f.hold:
			case <-r.Context().Done():
				return
			}
		}
		if f.status != 0 {
			w.WriteHeader(f.status)
			_, _ = io.WriteString(w, f.errBody)
			return
		}
		_ = json.NewEncoder(w).Encode(generateResponse{Response: f.reply, Done: true, DoneReason: cmpOrString(f.doneReason, "stop")})
	default:
		http.NotFound(w, r)
	}
}

func cmpOrString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func (f *fakeOllama) generateCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// A faithful model summary of the trip fixture.
const tripSummary = "Alice and Bob planned a Portugal trip: Lisbon, then Lagos by train, from June 14 to June 24. " +
	"Alice will book the TAP flight at 9.40pm (about $420 return); Bob must renew his passport, which expires in August."

func newTestOllama(t *testing.T, f *fakeOllama, fb Summarizer) (*Ollama, *bytes.Buffer) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	o := NewOllama(srv.URL, "llama3.2", fb, nil)
	if err := o.Err(); err != nil {
		t.Fatalf("httptest URL %s refused: %v", srv.URL, err)
	}
	var logs bytes.Buffer
	o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	return o, &logs
}

func TestOllamaSummarizes(t *testing.T) {
	f := &fakeOllama{reply: "Summary:\n" + tripSummary + "\n"}
	fb := &recorder{}
	o, _ := newTestOllama(t, f, fb)
	msgs := fixtures(t)[0].msgs
	s, err := o.Summarize(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if s.Text != tripSummary || s.Method != "ollama:llama3.2" || s.Kept != nil {
		t.Errorf("got %+v", s)
	}
	if fb.calls.Load() != 0 {
		t.Error("the fallback ran although Ollama answered")
	}
	req := f.requests[0]
	if req.Model != "llama3.2" || req.Stream {
		t.Errorf("request model %q stream %v", req.Model, req.Stream)
	}
	if !strings.Contains(req.System, "Do not add") || !strings.Contains(req.System, "date, time, number") {
		t.Errorf("system prompt is not the strict instruction: %q", req.System)
	}
	if !strings.Contains(req.Prompt, "[2023-05-08 19:02] Alice: Hey! Are we still doing the Portugal trip this summer?") ||
		!strings.Contains(req.Prompt, "[2023-05-09 08:15] Bob: Morning!") {
		t.Errorf("prompt lacks the transcript:\n%s", req.Prompt)
	}
	if req.Options["temperature"] != float64(0) {
		t.Errorf("temperature %v, want 0", req.Options["temperature"])
	}
	if n, _ := req.Options["num_ctx"].(float64); n < 2048 {
		t.Errorf("num_ctx %v", req.Options["num_ctx"])
	}
}

func TestOllamaFallsBack(t *testing.T) {
	msgs := fixtures(t)[0].msgs
	tests := []struct {
		name    string
		f       *fakeOllama
		wantLog string
	}{
		{"server error", &fakeOllama{status: http.StatusInternalServerError, errBody: `{"error":"out of memory"}`}, "out of memory"},
		{"unknown model", &fakeOllama{status: http.StatusNotFound, errBody: `{"error":"model \"llama3.2\" not found"}`}, "not found"},
		{"not json", &fakeOllama{status: http.StatusOK, errBody: "<html>"}, "read the ollama response"},
		{"probe fails", &fakeOllama{versionErr: true, reply: tripSummary}, "not answering"},
		{"empty reply", &fakeOllama{reply: "  <think>hmm</think> "}, "empty summary"},
		{"cut off", &fakeOllama{reply: tripSummary, doneReason: "length"}, "length limit"},
		{"invented amount", &fakeOllama{reply: "Flights cost $450 and Carol is coming."}, "450, Carol"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := &recorder{}
			o, logs := newTestOllama(t, tt.f, fb)
			s, err := o.Summarize(context.Background(), msgs)
			if err != nil {
				t.Fatal(err)
			}
			if s.Method != "recorder" || fb.calls.Load() != 1 {
				t.Errorf("got %+v after %d fallback calls, want the fallback's summary", s, fb.calls.Load())
			}
			if !strings.Contains(logs.String(), tt.wantLog) || !strings.Contains(logs.String(), "using the fallback") {
				t.Errorf("log %q does not say %q", logs.String(), tt.wantLog)
			}
		})
	}
}

func TestOllamaUnreachableFallsBack(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	fb := &recorder{}
	o := NewOllama(url, "llama3.2", fb, nil)
	o.Logger = discardLogger()
	s, err := o.Summarize(context.Background(), fixtures(t)[0].msgs)
	if err != nil || s.Method != "recorder" {
		t.Errorf("got %+v, %v; want the fallback's summary", s, err)
	}
}

func TestOllamaTimeoutFallsBack(t *testing.T) {
	f := &fakeOllama{reply: tripSummary, hold: make(chan struct{})}
	defer close(f.hold)
	fb := &recorder{}
	o, logs := newTestOllama(t, f, fb)
	o.Timeout = 50 * time.Millisecond
	s, err := o.Summarize(context.Background(), fixtures(t)[0].msgs)
	if err != nil || s.Method != "recorder" {
		t.Errorf("got %+v, %v; want the fallback's summary", s, err)
	}
	if !strings.Contains(logs.String(), "deadline exceeded") {
		t.Errorf("log %q does not name the timeout", logs.String())
	}
}

func TestOllamaCancelledDoesNotFallBack(t *testing.T) {
	f := &fakeOllama{reply: tripSummary, hold: make(chan struct{})}
	defer close(f.hold)
	fb := &recorder{}
	o, _ := newTestOllama(t, f, fb)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for f.generateCalls() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := o.Summarize(ctx, fixtures(t)[0].msgs); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if fb.calls.Load() != 0 {
		t.Error("a cancelled summary ran the fallback")
	}
}

func TestOllamaNotConfiguredUsesFallback(t *testing.T) {
	f := &fakeOllama{reply: tripSummary}
	srv := httptest.NewServer(f)
	defer srv.Close()
	fb := &recorder{}
	o := NewOllama(srv.URL, "", fb, nil)
	s, err := o.Summarize(context.Background(), fixtures(t)[0].msgs)
	if err != nil || s.Method != "recorder" {
		t.Errorf("got %+v, %v; want the fallback's summary", s, err)
	}
	if f.generateCalls() != 0 {
		t.Error("an unconfigured Ollama was called")
	}
	if _, err := NewOllama(srv.URL, "", nil, nil).Summarize(context.Background(), fixtures(t)[0].msgs); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("no model and no fallback: err = %v, want ErrNotConfigured", err)
	}
	if _, err := o.Summarize(context.Background(), nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("no messages: err = %v, want ErrEmpty", err)
	}
}

func TestOllamaTooLongFallsBackWithoutSending(t *testing.T) {
	f := &fakeOllama{reply: tripSummary}
	fb := &recorder{}
	o, logs := newTestOllama(t, f, fb)
	long := []Message{{Speaker: "A", Text: strings.Repeat("We talked about the garden for a long time. ", 3000)}}
	s, err := o.Summarize(context.Background(), long)
	if err != nil || s.Method != "recorder" {
		t.Errorf("got %+v, %v; want the fallback's summary", s, err)
	}
	if f.generateCalls() != 0 {
		t.Error("a conversation too long for the context window was sent")
	}
	if !strings.Contains(logs.String(), "tokens") {
		t.Errorf("log %q does not say why", logs.String())
	}
}

func TestOllamaRefusesNonLoopbackURL(t *testing.T) {
	for _, u := range []string{
		"http://example.com:11434",
		"http://192.168.1.20:11434",
		"http://10.0.0.1",
		"http://0.0.0.0:11434",
		"https://ollama.internal.corp",
		"http://localhost.evil.com",
		"http://[2001:db8::1]:11434",
	} {
		fb := &recorder{}
		o := NewOllama(u, "llama3.2", fb, nil)
		if !errors.Is(o.Err(), ErrNotLoopback) {
			t.Errorf("NewOllama(%q).Err() = %v, want ErrNotLoopback", u, o.Err())
		}
		_, err := o.Summarize(context.Background(), fixtures(t)[0].msgs)
		if !errors.Is(err, ErrNotLoopback) || !strings.Contains(err.Error(), "never leave") {
			t.Errorf("Summarize with %q: err = %v, want a clear ErrNotLoopback", u, err)
		}
		if fb.calls.Load() != 0 {
			t.Errorf("%q: the refusal was hidden behind the fallback", u)
		}
	}
	for _, u := range []string{"http://localhost:11434", "http://LOCALHOST", "http://127.0.0.1:11434", "http://127.1.2.3:8080/", "http://[::1]:11434", "https://localhost/ollama", ""} {
		if err := NewOllama(u, "m", nil, nil).Err(); err != nil {
			t.Errorf("NewOllama(%q) refused a loopback URL: %v", u, err)
		}
	}
	if _, err := CheckLoopbackURL("ftp://127.0.0.1/"); err == nil {
		t.Error("ftp URL accepted")
	}
}

func TestOllamaRefusesRedirectOffMachine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/version" {
			_, _ = io.WriteString(w, `{"version":"0.5.7"}`)
			return
		}
		http.Redirect(w, r, "http://192.0.2.10/api/generate", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	fb := &recorder{}
	o := NewOllama(srv.URL, "llama3.2", fb, nil)
	var logs bytes.Buffer
	o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	if s, err := o.Summarize(context.Background(), fixtures(t)[0].msgs); err != nil || s.Method != "recorder" {
		t.Errorf("got %+v, %v; want the fallback's summary", s, err)
	}
	if !strings.Contains(logs.String(), "must name this machine") {
		t.Errorf("log %q does not show the redirect was refused", logs.String())
	}
}

// The client dials only loopback addresses, whatever the URL says, and
// uses no proxy.
func TestLoopbackClientRefusesOtherAddresses(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	c := loopbackClient(&http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}})
	if tr := c.Transport.(*http.Transport); tr.Proxy != nil {
		t.Error("the transport still uses a proxy")
	}
	// 192.0.2.0/24 is TEST-NET-1: nothing is sent, the dial is refused
	// before connecting.
	_, err := c.Get("http://192.0.2.1:9/")
	if !errors.Is(err, ErrNotLoopback) {
		t.Errorf("GET a non-loopback address: err = %v, want ErrNotLoopback", err)
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatalf("GET loopback: %v", err)
	}
	resp.Body.Close()
}

func TestOllamaConcurrent(t *testing.T) {
	f := &fakeOllama{reply: tripSummary}
	o, _ := newTestOllama(t, f, &recorder{})
	msgs := fixtures(t)[0].msgs
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if s, err := o.Summarize(context.Background(), msgs); err != nil || s.Text != tripSummary {
				t.Errorf("got %+v, %v", s, err)
			}
		})
	}
	wg.Wait()
}

func TestCleanModelText(t *testing.T) {
	tests := map[string]string{
		"  plain  ":                                                "plain",
		"<think>reasoning</think>\nAnswer":                         "Answer",
		"Summary: Alice booked it.":                                "Alice booked it.",
		"**Summary:** Alice booked it.":                            "Alice booked it.",
		"Here is a summary of the conversation:\nAlice booked it.": "Alice booked it.",
		"<think>never closed":                                      "",
	}
	for in, want := range tests {
		if got := cleanModelText(in); got != want {
			t.Errorf("cleanModelText(%q) = %q, want %q", in, got, want)
		}
	}
}
