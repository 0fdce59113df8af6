package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// mcpRetriever asks retrieve_memory over MCP exactly as a client would:
// the question, filter.scope and top_k, nothing else.
type mcpRetriever struct{ c *client.Client }

func (r mcpRetriever) retrieve(ctx context.Context, scope, question string, k int) (retrieved, error) {
	res, _, err := callTool(ctx, r.c, "retrieve_memory", map[string]any{"query": question, "filter": map[string]any{"scope": scope}, "top_k": k})
	if err != nil {
		return retrieved{}, err
	}
	if res.IsError {
		return retrieved{}, fmt.Errorf("retrieve_memory %q: %s", question, text(res))
	}
	var out struct {
		Results []struct {
			MemoryID   string  `json:"memory_id"`
			Confidence float64 `json:"confidence"`
			Context    []struct {
				MemoryID string `json:"memory_id"`
			} `json:"context"`
		} `json:"results"`
		NothingRelevant bool `json:"nothing_relevant"`
	}
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		return retrieved{}, fmt.Errorf("retrieve_memory %q: cannot read the answer: %w", question, err)
	}
	// An empty answer says nothing relevant too (what builds before
	// nothing_relevant did).
	got := retrieved{nothingRelevant: out.NothingRelevant || len(out.Results) == 0}
	for _, m := range out.Results {
		got.ids = append(got.ids, m.MemoryID)
		got.confidences = append(got.confidences, m.Confidence)
		var turns []string
		for _, t := range m.Context {
			turns = append(turns, t.MemoryID)
		}
		got.context = append(got.context, turns)
	}
	return got, nil
}

// startMCP launches `infmem mcp` on the data root dir with an empty
// configuration (every setting at its default), as Claude would: the
// bridge starts a daemon for the root. done closes the client and stops
// that daemon.
func startMCP(ctx context.Context, dir, bin string) (*client.Client, func(), error) {
	return startMCPConfig(ctx, dir, bin, "{}\n")
}

// startMCPConfig is startMCP with cfgJSON as the configuration file.
func startMCPConfig(ctx context.Context, dir, bin, cfgJSON string) (*client.Client, func(), error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, nil, err
	}
	cfgDir, err := os.MkdirTemp("", "infmem-bench")
	if err != nil {
		return nil, nil, err
	}
	cfg := filepath.Join(cfgDir, "config.json")
	env := append(os.Environ(), "INFMEM_DATA_DIR="+abs, "INFMEM_CONFIG="+cfg)
	done := func() {
		stop := exec.Command(bin, "stop")
		stop.Env = env
		stop.Run()
		os.RemoveAll(cfgDir)
	}
	if err := os.WriteFile(cfg, []byte(cfgJSON), 0o600); err != nil {
		done()
		return nil, nil, err
	}
	c, err := client.NewStdioMCPClient(bin, env, "mcp")
	if err != nil {
		done()
		return nil, nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "infmem-bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		done()
		return nil, nil, err
	}
	return c, func() { c.Close(); done() }, nil
}

// storeWhenReady calls store_memory, waiting while the daemon's index is
// still loading (a fresh daemon answers within moments).
func storeWhenReady(ctx context.Context, c *client.Client, args map[string]any) (*mcp.CallToolResult, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		res, _, err := callTool(ctx, c, "store_memory", args)
		if err != nil {
			return nil, err
		}
		if !res.IsError {
			return res, nil
		}
		if !strings.Contains(text(res), "still loading") || time.Now().After(deadline) {
			return nil, fmt.Errorf("store_memory: %s", text(res))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
