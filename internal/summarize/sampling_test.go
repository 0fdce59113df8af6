package summarize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/infmem/infmem/internal/mcpserve"
	"github.com/mark3labs/mcp-go/mcp"
)

var _ Sampler = (*mcpserve.Session)(nil)

// fakeSampler is a client that samples (or not) and records the request.
type fakeSampler struct {
	supports bool
	client   string
	res      *mcp.CreateMessageResult
	err      error

	mu   sync.Mutex
	reqs []mcp.CreateMessageRequest
}

func (f *fakeSampler) SupportsSampling() bool { return f.supports }
func (f *fakeSampler) GetClientInfo() mcp.Implementation {
	return mcp.Implementation{Name: f.client, Version: "1.0"}
}
func (f *fakeSampler) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	return f.res, f.err
}

func textResult(text string) *mcp.CreateMessageResult {
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(text)},
		Model:           "claude-3-5-haiku",
		StopReason:      "endTurn",
	}
}

// overTheWire returns res as mcpserve.Session would: decoded from JSON,
// with the content a map.
func overTheWire(t *testing.T, res *mcp.CreateMessageResult) *mcp.CreateMessageResult {
	t.Helper()
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var out mcp.CreateMessageResult
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if _, ok := out.Content.(map[string]any); !ok {
		t.Fatalf("decoded content is %T, want a map", out.Content)
	}
	return &out
}

func TestSamplingSummarizes(t *testing.T) {
	msgs := fixtures(t)[0].msgs
	for _, wire := range []bool{false, true} {
		res := textResult("Summary: " + tripSummary)
		if wire {
			res = overTheWire(t, res)
		}
		s := &fakeSampler{supports: true, client: "claude-ai", res: res}
		fb := &recorder{}
		got, err := NewSampling(s, fb).Summarize(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != tripSummary || got.Method != "sampling:claude-ai" || got.Kept != nil {
			t.Errorf("wire=%v: got %+v", wire, got)
		}
		if fb.calls.Load() != 0 {
			t.Error("the fallback ran although the client answered")
		}
		req := s.reqs[0]
		if req.Method != "sampling/createMessage" {
			t.Errorf("request method %q", req.Method)
		}
		if !strings.Contains(req.SystemPrompt, "Do not add") {
			t.Errorf("system prompt is not the strict instruction: %q", req.SystemPrompt)
		}
		p := req.ModelPreferences
		if p == nil || p.CostPriority <= p.IntelligencePriority || p.SpeedPriority <= p.IntelligencePriority {
			t.Errorf("model preferences %+v do not favour low cost", p)
		}
		if req.MaxTokens <= 0 || req.MaxTokens > 1000 {
			t.Errorf("maxTokens %d is not bounded", req.MaxTokens)
		}
		if req.IncludeContext != "none" {
			t.Errorf("includeContext %q, want none", req.IncludeContext)
		}
		if len(req.Messages) != 1 || req.Messages[0].Role != mcp.RoleUser {
			t.Fatalf("messages %+v", req.Messages)
		}
		tc, ok := req.Messages[0].Content.(mcp.TextContent)
		if !ok || !strings.Contains(tc.Text, "Alice: Hey! Are we still doing the Portugal trip this summer?") {
			t.Errorf("the request does not carry the conversation: %+v", req.Messages[0].Content)
		}
	}
}

func TestSamplingMethodNamesModelWithoutClientInfo(t *testing.T) {
	type bare struct{ Sampler }
	s := bare{&fakeSampler{supports: true, res: textResult(tripSummary)}}
	got, err := NewSampling(s, nil).Summarize(context.Background(), fixtures(t)[0].msgs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Method != "sampling:claude-3-5-haiku" {
		t.Errorf("Method = %q", got.Method)
	}
}

func TestSamplingFallsBack(t *testing.T) {
	msgs := fixtures(t)[0].msgs
	multi := textResult("")
	multi.Content = []mcp.Content{mcp.NewTextContent("Flights cost $999.")}
	tests := []struct {
		name    string
		s       Sampler
		wantLog string // "" when falling back is not worth a warning
	}{
		{"no client", nil, ""},
		{"client without sampling", &fakeSampler{supports: false, res: textResult(tripSummary)}, ""},
		{"unconnected session", &mcpserve.Session{}, ""},
		{"request fails", &fakeSampler{supports: true, err: errors.New("user declined")}, "user declined"},
		{"no result", &fakeSampler{supports: true}, "no sampling result"},
		{"image content", &fakeSampler{supports: true, res: &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Content: mcp.NewImageContent("AAAA", "image/png")}}}, "no text content"},
		{"cut off", &fakeSampler{supports: true, res: func() *mcp.CreateMessageResult { r := textResult(tripSummary); r.StopReason = "maxTokens"; return r }()}, "token limit"},
		{"invented amount", &fakeSampler{supports: true, res: multi}, "999"},
		{"invented name", &fakeSampler{supports: true, res: textResult("Alice, Bob and Carol planned the trip.")}, "Carol"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := &recorder{}
			x := NewSampling(tt.s, fb)
			var logs bytes.Buffer
			x.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			got, err := x.Summarize(context.Background(), msgs)
			if err != nil {
				t.Fatal(err)
			}
			if got.Method != "recorder" || fb.calls.Load() != 1 {
				t.Errorf("got %+v after %d fallback calls, want the fallback's summary", got, fb.calls.Load())
			}
			if tt.wantLog == "" && logs.Len() != 0 {
				t.Errorf("unexpected warning %q", logs.String())
			}
			if tt.wantLog != "" && !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("log %q does not say %q", logs.String(), tt.wantLog)
			}
		})
	}
}

func TestSamplingWithoutFallback(t *testing.T) {
	msgs := fixtures(t)[0].msgs
	if _, err := NewSampling(nil, nil).Summarize(context.Background(), msgs); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("no client, no fallback: err = %v, want ErrNotConfigured", err)
	}
	s := &fakeSampler{supports: true, res: textResult("They spent $77.")}
	x := NewSampling(s, nil)
	x.Logger = discardLogger()
	if _, err := x.Summarize(context.Background(), msgs); !errors.Is(err, ErrUnfaithful) {
		t.Errorf("unfaithful summary, no fallback: err = %v, want ErrUnfaithful", err)
	}
	if _, err := x.Summarize(context.Background(), nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("no messages: err = %v, want ErrEmpty", err)
	}
}

func TestSamplingTooLongFallsBackWithoutSending(t *testing.T) {
	s := &fakeSampler{supports: true, res: textResult(tripSummary)}
	x := NewSampling(s, &recorder{})
	x.Logger = discardLogger()
	x.MaxInputChars = 500
	if got, err := x.Summarize(context.Background(), fixtures(t)[0].msgs); err != nil || got.Method != "recorder" {
		t.Errorf("got %+v, %v; want the fallback's summary", got, err)
	}
	if len(s.reqs) != 0 {
		t.Error("a conversation over MaxInputChars was sent")
	}
}

// Sampling falls back to Ollama, which falls back to Extractive: the
// chain the daemon builds.
func TestChainEndsInExtractive(t *testing.T) {
	f := &fakeOllama{status: 500}
	ex := NewExtractive(nil, ExtractiveOptions{})
	o, _ := newTestOllama(t, f, ex)
	x := NewSampling(&fakeSampler{supports: false}, o)
	got, err := x.Summarize(context.Background(), fixtures(t)[1].msgs)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ex.Summarize(context.Background(), fixtures(t)[1].msgs)
	if got.Method != "extractive" || got.Text != want.Text {
		t.Errorf("got %+v, want the extractive summary", got)
	}
}
