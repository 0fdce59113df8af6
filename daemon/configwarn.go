package daemon

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/internal/mcpserve"
)

// A configuration file that no longer loads never takes recall away: the
// daemon runs on with its last good configuration and keeps serving, and
// every MCP client is told, so that the model can tell the user: the
// server instructions of a session that starts meanwhile say it, and
// every tool result carries a "warning" (an error result, a note at the
// end of its text). Status and doctor report the same record
// (control.ConfigStatus.Error).

// SetConfigProblem records why the configuration file was refused ("" when
// it loads): what the MCP sessions are warned about.
func (r *Runtime) SetConfigProblem(msg string) {
	if msg == "" {
		r.cfgProblem.Store(nil)
		return
	}
	r.cfgProblem.Store(&msg)
}

// configWarning is the warning MCP clients get, or "" when the
// configuration file loads.
func (r *Runtime) configWarning() string {
	p := r.cfgProblem.Load()
	if p == nil {
		return ""
	}
	return "infmem's configuration file was refused, so infmem runs on with its previous configuration (memories are stored and recalled as usual). Tell the user: " +
		*p + ". 'infmem doctor' in a terminal shows how to fix it; infmem reads the file again by itself once it is fixed."
}

// configWarningOptions make the server add the warning to the instructions
// of a session that starts while the file is refused (initialize, or
// server/discover) and to every tool result. onInitialize, when set, is
// called first, so that a file broken a moment ago is noticed at once.
func (r *Runtime) configWarningOptions() []server.ServerOption {
	hooks := &server.Hooks{}
	warned := func(instructions *string) {
		if f := r.onInitialize.Load(); f != nil {
			(*f)()
		}
		if w := r.configWarning(); w != "" {
			*instructions += "\n\nWarning: " + w
		}
	}
	hooks.AddAfterInitialize(func(_ context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		if res != nil {
			warned(&res.Instructions)
		}
	})
	// Clients of protocol 2026-07-28 and later ask server/discover instead.
	hooks.AddAfterDiscover(func(_ context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
		if res != nil {
			warned(&res.Instructions)
		}
	})
	return []server.ServerOption{server.WithHooks(hooks), server.WithToolHandlerMiddleware(r.warnOnResults)}
}

// warnOnResults adds the configuration warning to a tool's result: a
// "warning" member first in a structured (object) result, and a note at
// the end of an error's text.
func (r *Runtime) warnOnResults(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := next(ctx, req)
		w := r.configWarning()
		if w == "" || err != nil || res == nil {
			return res, err
		}
		if res.IsError {
			for i, c := range res.Content {
				if tc, ok := c.(mcp.TextContent); ok {
					tc.Text += "\n\nWarning: " + w
					res.Content[i] = tc
					break
				}
			}
			return res, nil
		}
		var raw []byte
		switch sc := res.StructuredContent.(type) {
		case json.RawMessage:
			raw = sc
		case mcpserve.JSON:
			raw = sc
		}
		if len(raw) < 2 || raw[0] != '{' {
			return res, nil
		}
		ws, _ := json.Marshal(w)
		var b bytes.Buffer
		b.WriteString(`{"warning":`)
		b.Write(ws)
		if rest := bytes.TrimSpace(raw[1:]); len(rest) > 0 && rest[0] != '}' {
			b.WriteByte(',')
		}
		b.Write(raw[1:])
		out := b.Bytes()
		if _, ok := res.StructuredContent.(mcpserve.JSON); ok {
			// Still as json.Marshal writes: ws is its output, and raw's
			// members follow as they were.
			res.StructuredContent = mcpserve.JSON(out)
		} else {
			res.StructuredContent = json.RawMessage(out)
		}
		for i, c := range res.Content {
			if tc, ok := c.(mcp.TextContent); ok && tc.Text == string(raw) {
				tc.Text = string(out)
				res.Content[i] = tc
			}
		}
		return res, nil
	}
}
