package mcpserve

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestSamplingRoundTrip sends a sampling request to a client over the
// stream and reads the client's answer back.
func TestSamplingRoundTrip(t *testing.T) {
	srv := server.NewMCPServer("t", "1")
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	sessions := make(chan *Session, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Serve(ctx, srv, c2sR, s2cW, Options{OnSession: func(s *Session) { sessions <- s }})
	sess := <-sessions
	sess.SetClientCapabilities(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}})

	// The client: answer the first request it receives.
	go func() {
		sc := bufio.NewScanner(s2cR)
		for sc.Scan() {
			var req struct {
				ID     string          `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			json.Unmarshal(sc.Bytes(), &req)
			var p mcp.CreateMessageParams
			json.Unmarshal(req.Params, &p)
			text := "no messages"
			if len(p.Messages) == 1 && p.MaxTokens == 64 && p.SystemPrompt == "be brief" {
				text = "summary of: " + p.Messages[0].Content.(map[string]any)["text"].(string)
			}
			resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{
				"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": text}}})
			c2sW.Write(append(resp, '\n'))
		}
	}()
	req := mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
		Messages:     []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.TextContent{Type: "text", Text: "hello"}}},
		SystemPrompt: "be brief", MaxTokens: 64,
	}}
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
	defer rcancel()
	res, err := sess.RequestSampling(rctx, req)
	if err != nil {
		t.Fatal(err)
	}
	tc, ok := res.Content.(mcp.TextContent)
	if !ok || tc.Text != "summary of: hello" {
		t.Fatalf("result %+v", res.Content)
	}
}
