package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func listPromptNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatalf("prompts/list: %v", err)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	return names
}

func promptText(c *client.Client, name string, args map[string]string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.GetPromptRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.GetPrompt(ctx, req)
	if err != nil {
		return "", err
	}
	return res.Messages[0].Content.(mcp.TextContent).Text, nil
}

func resourceText(c *client.Client, uri string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.ReadResource(ctx, req)
	if err != nil {
		return "", err
	}
	return res.Contents[0].(mcp.TextResourceContents).Text, nil
}

var wantPrompts = []string{"lessons", "recall", "remember-decisions"}

// TestPromptsAndResourcesThroughTheDaemon: two Claude windows (two
// 'infmem mcp' bridges to one daemon) each get the prompts and resources,
// and each reads its own session's active scope.
func TestPromptsAndResourcesThroughTheDaemon(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	a := bridgeClient(t, env)
	b := bridgeClient(t, env)
	for _, c := range []*client.Client{a, b} {
		if got := listPromptNames(t, c); !slices.Equal(got, wantPrompts) {
			t.Fatalf("prompts/list: %v, want %v", got, wantPrompts)
		}
	}
	if _, err := tryCall(a, "set_active_scope", map[string]any{"scope": "Work", "create": true}); err != nil {
		t.Fatal(err)
	}
	if _, err := tryCall(a, "store_memory", map[string]any{"content": "The quarterly review is on Friday."}); err != nil {
		t.Fatal(err)
	}
	if _, err := tryCall(b, "store_memory", map[string]any{"content": "The garden needs new tulip bulbs.", "metadata": map[string]any{"scope": "Home"}}); err != nil {
		t.Fatal(err)
	}
	recall, err := promptText(a, "recall", map[string]string{"topic": "quarterly review"})
	if err != nil || !strings.Contains(recall, `"The quarterly review is on Friday."`) || !strings.Contains(recall, "kind: recalled_memory") {
		t.Fatalf("recall prompt: %v\n%s", err, recall)
	}
	ra, err := resourceText(a, "memory://recent")
	if err != nil || !strings.Contains(ra, `active scope "Work"`) || !strings.Contains(ra, "quarterly review") || strings.Contains(ra, "tulip") {
		t.Fatalf("memory://recent in the window working in Work: %v\n%s", err, ra)
	}
	rb, err := resourceText(b, "memory://recent")
	if err != nil || !strings.Contains(rb, "tulip") || !strings.Contains(rb, "no active scope") {
		t.Fatalf("memory://recent in the other window: %v\n%s", err, rb)
	}
	if _, err := resourceText(b, "memory://nothing"); err == nil || !strings.Contains(err.Error(), "resource not found") {
		t.Fatalf("unknown resource: %v", err)
	}
}

// TestPromptsInProcess: 'infmem mcp --in-process' serves them too.
func TestPromptsInProcess(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	c, err := client.NewStdioMCPClient(infmemBinary(t), env, "mcp", "--in-process")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if res.Capabilities.Prompts == nil || res.Capabilities.Resources == nil || !strings.Contains(res.Instructions, `metadata.source "lesson"`) {
		t.Fatalf("initialize: capabilities %+v, instructions %q", res.Capabilities, res.Instructions)
	}
	if got := listPromptNames(t, c); !slices.Equal(got, wantPrompts) {
		t.Fatalf("prompts/list: %v", got)
	}
	if _, err := tryCall(c, "store_memory", map[string]any{"content": "Use pnpm, not npm, in this repository.", "metadata": map[string]any{"source": "lesson"}}); err != nil {
		t.Fatal(err)
	}
	if text, err := promptText(c, "lessons", nil); err != nil || !strings.Contains(text, "Use pnpm, not npm") {
		t.Fatalf("lessons prompt: %v\n%s", err, text)
	}
}

// TestPromptsDespiteBadConfig: while infmem cannot work, prompts and
// resources are listed, and getting or reading one says what is wrong,
// as the tools do.
func TestPromptsDespiteBadConfig(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	writeFile(t, envValue(env, "INFMEM_CONFIG"), `{"mongo": {"mode": "cloud"}}`)
	c := bridgeClient(t, env)
	if got := listPromptNames(t, c); !slices.Equal(got, wantPrompts) {
		t.Fatalf("prompts/list: %v", got)
	}
	_, err := promptText(c, "recall", map[string]string{"topic": "anything"})
	if err == nil || !strings.Contains(err.Error(), "cannot work right now") || !strings.Contains(err.Error(), `"mongo.mode"`) {
		t.Fatalf("recall prompt with a broken config: %v", err)
	}
	_, err = resourceText(c, "memory://profile")
	if err == nil || !strings.Contains(err.Error(), "memory://profile: infmem cannot work right now") {
		t.Fatalf("memory://profile with a broken config: %v", err)
	}
}
