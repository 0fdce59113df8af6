package mcptools

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/mcpserve"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// harness is a real engine behind a real MCP server, reached by mcp-go's
// client over our newline-delimited transport.
type harness struct {
	t     *testing.T
	eng   *memory.Engine
	store *mongostore.Store
	srv   *server.MCPServer
}

func newHarness(t *testing.T) *harness { return newHarnessWith(t, nil) }

// newHarnessWith serves an engine with an embedder (nil: keywords only).
func newHarnessWith(t *testing.T, e embed.Embedder) *harness {
	t.Helper()
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	eng := memory.New(store, reg, memory.Options{Location: time.UTC, Logger: testenv.Logger(t), Embedder: e})
	eng.Start(ctx)
	t.Cleanup(func() { eng.Close(context.Background()) })
	// Every result is checked against its tool's output schema.
	srv := NewServer(Deps{Memory: Ready(eng), Logger: testenv.Logger(t)}, "test", server.WithOutputSchemaValidation())
	return &harness{t: t, eng: eng, store: store, srv: srv}
}

// connect opens one client session (its own active scope).
func (h *harness) connect() *client.Client {
	t := h.t
	t.Helper()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		mcpserve.Serve(ctx, h.srv, c2sR, s2cW, mcpserve.Options{})
		s2cW.Close()
	}()
	c := client.NewClient(transport.NewIO(s2cR, c2sW, nil))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		c2sW.Close()
		cancel()
		<-done
	})
	return c
}

// result is a tool call's outcome.
type result struct {
	isError bool
	text    string
	data    map[string]any
}

func (h *harness) call(c *client.Client, name string, args map[string]any) result {
	h.t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(testenv.Context(h.t), req)
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	var r result
	r.isError = res.IsError
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(mcp.TextContent); ok {
			r.text = tc.Text
		}
	}
	if !r.isError {
		if err := json.Unmarshal([]byte(r.text), &r.data); err != nil {
			h.t.Fatalf("%s: text content is not JSON: %v: %s", name, err, r.text)
		}
		sc, _ := json.Marshal(res.StructuredContent)
		if !jsonEqual(sc, []byte(r.text)) {
			h.t.Fatalf("%s: structured content differs from text:\n%s\n%s", name, sc, r.text)
		}
	}
	return r
}

func (h *harness) ok(c *client.Client, name string, args map[string]any) map[string]any {
	h.t.Helper()
	r := h.call(c, name, args)
	if r.isError {
		h.t.Fatalf("%s(%v) failed: %s", name, args, r.text)
	}
	return r.data
}

func (h *harness) fails(c *client.Client, name string, args map[string]any, want string) {
	h.t.Helper()
	r := h.call(c, name, args)
	if !r.isError || !strings.Contains(r.text, want) {
		h.t.Fatalf("%s(%v) = %v %q; want an isError result containing %q", name, args, r.isError, r.text, want)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// texts extracts result texts from a recall response.
func texts(data map[string]any, key string) []string {
	var out []string
	list, _ := data[key].([]any)
	for _, r := range list {
		out = append(out, r.(map[string]any)["text"].(string))
	}
	return out
}
