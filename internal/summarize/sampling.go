package summarize

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// Sampler asks a connected MCP client's model for a completion
// (sampling/createMessage). mcpserve.Session implements it.
type Sampler interface {
	SupportsSampling() bool
	RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)
}

// clientNamer is the optional part of a Sampler that names the client, for
// Summary.Method.
type clientNamer interface {
	GetClientInfo() mcp.Implementation
}

// Sampling summarizes with the connected client's model through MCP
// sampling, when the client advertises it; otherwise, or when the request
// fails, is refused, or returns a summary mentioning facts the
// conversation lacks, the fallback summarizes instead. Set the exported
// fields before the first Summarize.
type Sampling struct {
	sampler  Sampler
	fallback Summarizer

	// Timeout bounds one sampling request; 0 means 2 min. A client may
	// wait for the user to approve the request, and nobody approves at
	// 3 am.
	Timeout time.Duration
	// MaxChars is the summary length asked of the model; 0 means
	// DefaultMaxChars.
	MaxChars int
	// MaxInputChars bounds the transcript sent; a longer conversation
	// goes to the fallback. 0 means 200,000.
	MaxInputChars int
	// Location is the time zone of the timestamps shown to the model; nil
	// means UTC.
	Location *time.Location
	// Logger hears why a summary fell back; nil means slog.Default().
	Logger *slog.Logger
}

const defaultMaxInputChars = 200_000

// NewSampling returns a summarizer using s's client model. s may be nil (no
// client connected): fallback then always summarizes. Pass a nil interface,
// not a nil *mcpserve.Session, whose methods would panic.
func NewSampling(s Sampler, fallback Summarizer) *Sampling {
	return &Sampling{sampler: s, fallback: fallback}
}

// Name implements Summarizer.
func (x *Sampling) Name() string { return "sampling" }

// Summarize implements Summarizer.
func (x *Sampling) Summarize(ctx context.Context, msgs []Message) (Summary, error) {
	if len(msgs) == 0 {
		return Summary{}, ErrEmpty
	}
	if x.sampler == nil || !x.sampler.SupportsSampling() || !hasText(msgs) {
		return useFallback(ctx, x.fallback, msgs, ErrNotConfigured)
	}
	s, err := x.sample(ctx, msgs)
	if err == nil {
		return s, nil
	}
	if ctx.Err() != nil {
		return Summary{}, fmt.Errorf("summarize with sampling: %w", ctx.Err())
	}
	logger(x.Logger).Warn("sampling summary failed; using the fallback", "client", x.clientName(nil), "fallback", fallbackName(x.fallback), "err", err)
	return useFallback(ctx, x.fallback, msgs, err)
}

func (x *Sampling) sample(ctx context.Context, msgs []Message) (Summary, error) {
	maxChars := cmp.Or(x.MaxChars, DefaultMaxChars)
	conv := transcript(msgs, x.Location)
	if n, limit := utf8.RuneCountInString(conv), cmp.Or(x.MaxInputChars, defaultMaxInputChars); n > limit {
		return Summary{}, fmt.Errorf("the conversation has %d characters, more than the %d one request may send", n, limit)
	}
	req := samplingRequest(conv, maxChars)
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(x.Timeout, defaultModelTimeout))
	defer cancel()
	res, err := x.sampler.RequestSampling(ctx, req)
	if err != nil {
		return Summary{}, fmt.Errorf("sampling request: %w", err)
	}
	if res == nil {
		return Summary{}, errors.New("the client returned no sampling result")
	}
	if res.StopReason == "maxTokens" {
		return Summary{}, errors.New("the client's model stopped at the token limit: the summary would be cut off")
	}
	text, err := textOf(res.Content)
	if err != nil {
		return Summary{}, err
	}
	if text = cleanModelText(text); text == "" {
		return Summary{}, errors.New("the client's model returned an empty summary")
	}
	if err := checkFaithful(text, msgs, x.Location); err != nil {
		return Summary{}, err
	}
	return Summary{Text: text, Method: "sampling:" + x.clientName(res)}, nil
}

// samplingRequest asks for a faithful summary of conv. A summary needs
// no intelligence a cheap model lacks, so the preferences favour cost and
// speed; the client's other context is excluded so nothing else leaks into
// the summary.
func samplingRequest(conv string, maxChars int) mcp.CreateMessageRequest {
	return mcp.CreateMessageRequest{
		Request: mcp.Request{Method: string(mcp.MethodSamplingCreateMessage)},
		CreateMessageParams: mcp.CreateMessageParams{
			Messages: []mcp.SamplingMessage{{
				Role:    mcp.RoleUser,
				Content: mcp.NewTextContent("Summarize this conversation.\n\n" + conv),
			}},
			SystemPrompt: instruction(maxChars),
			ModelPreferences: &mcp.ModelPreferences{
				Hints:                []mcp.ModelHint{{Name: "haiku"}},
				CostPriority:         0.9,
				SpeedPriority:        0.6,
				IntelligencePriority: 0.2,
			},
			IncludeContext: "none",
			// About three characters a token, with room to spare.
			MaxTokens: max(maxChars/2, 128),
		},
	}
}

func (x *Sampling) clientName(res *mcp.CreateMessageResult) string {
	if cn, ok := x.sampler.(clientNamer); ok {
		if name := strings.TrimSpace(cn.GetClientInfo().Name); name != "" {
			return name
		}
	}
	if res != nil && strings.TrimSpace(res.Model) != "" {
		return strings.TrimSpace(res.Model)
	}
	return "client"
}

// textOf returns the text of a sampling result's content: a TextContent
// when the result was built in process, or the JSON-decoded map (or list
// of them) when it came over the wire.
func textOf(content any) (string, error) {
	switch c := content.(type) {
	case mcp.TextContent:
		return c.Text, nil
	case *mcp.TextContent:
		if c == nil {
			return "", errors.New("the sampling result has no content")
		}
		return c.Text, nil
	case nil:
		return "", errors.New("the sampling result has no content")
	}
	raw, err := json.Marshal(content)
	if err != nil {
		return "", fmt.Errorf("read the sampling result: %w", err)
	}
	type part struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var parts []part
	if len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", fmt.Errorf("read the sampling result: %w", err)
		}
	} else {
		var p part
		if err := json.Unmarshal(raw, &p); err != nil {
			return "", fmt.Errorf("read the sampling result: %w", err)
		}
		parts = []part{p}
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	if len(texts) == 0 {
		return "", errors.New("the sampling result has no text content")
	}
	return strings.Join(texts, "\n"), nil
}
