package summarize

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// DefaultOllamaURL is where Ollama listens unless configured otherwise.
const DefaultOllamaURL = "http://127.0.0.1:11434"

// ErrNotLoopback means a summarizer was asked to send a conversation to a
// host other than this machine. All data stays on the machine, so the
// request is refused, not attempted.
var ErrNotLoopback = errors.New("the Ollama URL must name this machine (localhost, 127.0.0.1 or ::1): conversations never leave it")

// ErrNotConfigured means a model summarizer has no model (Ollama) or no
// client that samples (Sampling), and no fallback to use instead.
var ErrNotConfigured = errors.New("summarizer is not configured and has no fallback")

// Defaults for Ollama's zero-valued fields.
const (
	defaultProbeTimeout = 2 * time.Second
	defaultModelTimeout = 2 * time.Minute
	// ollamaMaxContext caps the context window asked of Ollama; longer
	// conversations go to the fallback rather than being silently cut by
	// Ollama, which drops the start of a prompt that does not fit.
	ollamaMaxContext = 32768
	maxResponseBytes = 1 << 20
)

// Ollama summarizes with a model served by a local Ollama
// (https://ollama.com). It is used only when a model is configured, the URL
// is on this machine and Ollama answers; otherwise, or when the model's
// summary fails or mentions facts the conversation lacks, the fallback
// summarizes instead. Set the exported fields before the first Summarize.
type Ollama struct {
	base     *url.URL
	urlErr   error
	model    string
	fallback Summarizer
	client   *http.Client

	// ProbeTimeout bounds the check that Ollama is up; 0 means 2 s.
	ProbeTimeout time.Duration
	// Timeout bounds generating one summary; 0 means 2 min (a CPU-only
	// machine is slow).
	Timeout time.Duration
	// MaxChars is the summary length asked of the model; 0 means
	// DefaultMaxChars.
	MaxChars int
	// Location is the time zone of the timestamps shown to the model; nil
	// means UTC.
	Location *time.Location
	// Logger hears why a summary fell back; nil means slog.Default().
	Logger *slog.Logger
}

// NewOllama returns a summarizer using model at rawURL ("" means
// DefaultOllamaURL). An empty model means Ollama is not configured and
// fallback always summarizes. A URL that is not on this machine makes every
// Summarize fail with ErrNotLoopback (see Err). client may be nil; its
// transport, when it is an *http.Transport or nil, is replaced by a copy
// that uses no proxy and dials only loopback addresses, and redirects are
// followed only to loopback URLs.
func NewOllama(rawURL, model string, fallback Summarizer, client *http.Client) *Ollama {
	if strings.TrimSpace(rawURL) == "" {
		rawURL = DefaultOllamaURL
	}
	u, err := CheckLoopbackURL(rawURL)
	return &Ollama{base: u, urlErr: err, model: strings.TrimSpace(model), fallback: fallback, client: loopbackClient(client)}
}

// Err reports a URL that NewOllama refused, so start-up can say so before
// the first nightly run.
func (o *Ollama) Err() error { return o.urlErr }

// Name implements Summarizer.
func (o *Ollama) Name() string { return "ollama:" + o.model }

// Summarize implements Summarizer.
func (o *Ollama) Summarize(ctx context.Context, msgs []Message) (Summary, error) {
	if len(msgs) == 0 {
		return Summary{}, ErrEmpty
	}
	if o.urlErr != nil {
		return Summary{}, o.urlErr
	}
	if o.model == "" || !hasText(msgs) {
		return useFallback(ctx, o.fallback, msgs, ErrNotConfigured)
	}
	s, err := o.generate(ctx, msgs)
	if err == nil {
		return s, nil
	}
	if ctx.Err() != nil {
		return Summary{}, fmt.Errorf("summarize with ollama: %w", ctx.Err())
	}
	logger(o.Logger).Warn("ollama summary failed; using the fallback", "url", o.base.Redacted(), "model", o.model, "fallback", fallbackName(o.fallback), "err", err)
	return useFallback(ctx, o.fallback, msgs, err)
}

// generateRequest is the body of POST /api/generate.
type generateRequest struct {
	Model   string         `json:"model"`
	System  string         `json:"system"`
	Prompt  string         `json:"prompt"`
	Stream  bool           `json:"stream"`
	Options map[string]any `json:"options"`
}

type generateResponse struct {
	Response   string `json:"response"`
	Done       bool   `json:"done"`
	DoneReason string `json:"done_reason"`
	Error      string `json:"error"`
}

func (o *Ollama) generate(ctx context.Context, msgs []Message) (Summary, error) {
	maxChars := cmp.Or(o.MaxChars, DefaultMaxChars)
	prompt := "Summarize this conversation.\n\n" + transcript(msgs, o.Location)
	system := instruction(maxChars)
	// About three characters a token for English; room for the answer.
	predict := max(maxChars/2, 128)
	need := (utf8.RuneCountInString(prompt)+utf8.RuneCountInString(system))/3 + predict + 64
	if need > ollamaMaxContext {
		return Summary{}, fmt.Errorf("the conversation needs about %d tokens, more than the %d one request may use", need, ollamaMaxContext)
	}
	numCtx := 2048
	for numCtx < need {
		numCtx *= 2
	}
	if err := o.probe(ctx); err != nil {
		return Summary{}, err
	}
	body, err := json.Marshal(generateRequest{
		Model: o.model, System: system, Prompt: prompt, Stream: false,
		// Temperature 0 and a fixed seed: the same conversation gets the
		// same summary, and the model sticks to likely (stated) words.
		Options: map[string]any{"temperature": 0, "seed": 1, "num_ctx": numCtx, "num_predict": predict},
	})
	if err != nil {
		return Summary{}, fmt.Errorf("encode the ollama request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(o.Timeout, defaultModelTimeout))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.base.JoinPath("api", "generate").String(), bytes.NewReader(body))
	if err != nil {
		return Summary{}, fmt.Errorf("build the ollama request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := o.client.Do(req)
	if err != nil {
		return Summary{}, fmt.Errorf("ollama generate: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return Summary{}, fmt.Errorf("read the ollama response: %w", err)
	}
	var gr generateResponse
	jsonErr := json.Unmarshal(raw, &gr)
	if resp.StatusCode != http.StatusOK {
		if gr.Error != "" {
			return Summary{}, fmt.Errorf("ollama answered %s: %s", resp.Status, gr.Error)
		}
		return Summary{}, fmt.Errorf("ollama answered %s", resp.Status)
	}
	if jsonErr != nil {
		return Summary{}, fmt.Errorf("read the ollama response: %w", jsonErr)
	}
	if gr.DoneReason == "length" {
		return Summary{}, errors.New("ollama stopped at the length limit: the summary would be cut off")
	}
	text := cleanModelText(gr.Response)
	if text == "" {
		return Summary{}, errors.New("ollama returned an empty summary")
	}
	if err := checkFaithful(text, msgs, o.Location); err != nil {
		return Summary{}, err
	}
	return Summary{Text: text, Method: o.Name()}, nil
}

// Ping reports whether Ollama answers at the configured URL (nil: it does).
func (o *Ollama) Ping(ctx context.Context) error {
	if o.urlErr != nil {
		return o.urlErr
	}
	return o.probe(ctx)
}

// probe checks quickly that Ollama answers, so a machine without it falls
// back at once instead of waiting for the generation timeout.
func (o *Ollama) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(o.ProbeTimeout, defaultProbeTimeout))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.base.JoinPath("api", "version").String(), nil)
	if err != nil {
		return fmt.Errorf("build the ollama probe: %w", err)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return fmt.Errorf("ollama is not reachable: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBytes))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("ollama is not answering: GET /api/version: %s", resp.Status)
	}
	return nil
}

// CheckLoopbackURL parses rawURL and accepts it only if it is http(s) on
// this machine: "localhost" or a loopback IP. Host names other than
// localhost are refused rather than resolved, since a name can point
// anywhere.
func CheckLoopbackURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil, fmt.Errorf("ollama url %q: %w", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("ollama url %q: the scheme must be http or https", rawURL)
	}
	if !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("ollama url %q: %w", u.Redacted(), ErrNotLoopback)
	}
	return u, nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackClient copies c so that it cannot reach beyond this machine: no
// proxy (a proxy would see the conversation), dials only to loopback
// addresses (so "localhost" mapped elsewhere is refused too), redirects only
// to loopback URLs. A custom RoundTripper is kept as it is.
func loopbackClient(c *http.Client) *http.Client {
	var cc http.Client
	if c != nil {
		cc = *c
	}
	switch t := cc.Transport.(type) {
	case nil:
		if dt, ok := http.DefaultTransport.(*http.Transport); ok {
			cc.Transport = loopbackTransport(dt.Clone())
		} else {
			cc.Transport = loopbackTransport(&http.Transport{})
		}
	case *http.Transport:
		cc.Transport = loopbackTransport(t.Clone())
	}
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !isLoopbackHost(req.URL.Hostname()) {
			return fmt.Errorf("redirect to %s: %w", req.URL.Redacted(), ErrNotLoopback)
		}
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		return nil
	}
	return &cc
}

func loopbackTransport(t *http.Transport) *http.Transport {
	t.Proxy = nil
	t.DialTLSContext = nil
	// A custom TLS dialer would bypass the loopback check below.
	t.DialTLS = nil
	d := &net.Dialer{
		Timeout: 5 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return fmt.Errorf("refusing to dial %s: %w", address, err)
			}
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("refusing to dial %s: %w", address, ErrNotLoopback)
			}
			return nil
		},
	}
	t.DialContext = d.DialContext
	return t
}

// useFallback summarizes with fb, or fails with cause when there is none.
func useFallback(ctx context.Context, fb Summarizer, msgs []Message, cause error) (Summary, error) {
	if fb == nil {
		return Summary{}, fmt.Errorf("summarize: %w", cause)
	}
	return fb.Summarize(ctx, msgs)
}

func fallbackName(fb Summarizer) string {
	if fb == nil {
		return "none"
	}
	return fb.Name()
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}

// cleanModelText strips what models add around a summary: reasoning in
// <think> tags and a "Summary:" or "Here is a summary…:" lead-in.
func cleanModelText(s string) string {
	for {
		i := strings.Index(s, "<think>")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "</think>")
		if j < 0 {
			s = s[:i]
			break
		}
		s = s[:i] + s[i+j+len("</think>"):]
	}
	s = strings.TrimSpace(s)
	if first, rest, ok := strings.Cut(s, "\n"); ok {
		f := strings.ToLower(strings.Trim(first, "*# "))
		if strings.HasSuffix(f, ":") && strings.Contains(f, "summary") {
			s = strings.TrimSpace(rest)
		}
	}
	for _, p := range []string{"Summary:", "**Summary:**", "**Summary**:"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			s = strings.TrimSpace(rest)
		}
	}
	return s
}
