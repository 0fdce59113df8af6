package mcptools

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/infmem/infmem/internal/testenv"
)

// maxErrorText bounds what a refusal may say, whatever it was sent.
const maxErrorText = 2048

// Issue 22, item 11: errors echoed their arguments whole (a 1 MB scope
// name gave a 1 MB error, to the model and to the log). Every argument of
// every tool, every prompt argument and a resource's name, sent as 1 MB,
// gets an answer of at most 2 KiB.
func TestErrorsNeverEchoHugeArguments(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	stored := h.ok(c, "store_memory", map[string]any{"content": "Project Apollo ships in June", "metadata": map[string]any{"scope": "Work"}})
	id := stored["memory_id"]
	big := strings.Repeat("Ｗ", 350_000) // 1 MB of a letter that is no scope's
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"store_memory", map[string]any{"content": "x", "metadata": map[string]any{"scope": big}}},
		{"store_memory", map[string]any{"content": "x", "metadata": map[string]any{"tags": []any{big}}}},
		{"store_memory", map[string]any{"content": "x", "metadata": map[string]any{"source": big}}},
		{"store_memory", map[string]any{"content": "x", "metadata": map[string]any{"speaker": big}}},
		{"store_memory", map[string]any{"content": "x", "metadata": map[string]any{"timestamp": big}}},
		{"store_memory", map[string]any{"content": big + big}},
		{"store_memory", map[string]any{"content": "x", big: 1}},
		{"retrieve_memory", map[string]any{"query": "apollo", "filters": map[string]any{"scope": big}}},
		{"retrieve_memory", map[string]any{"query": "apollo", "filters": map[string]any{"time_range": map[string]any{"phrase": big}}}},
		{"search_by_tag", map[string]any{"tag": big}},
		{"search_by_scope", map[string]any{"scope": big}},
		{"recall_memory_by_time", map[string]any{"phrase": big}},
		{"recall_memory_by_time", map[string]any{"from": big}},
		{"list_memories", map[string]any{"scope": big}},
		{"update_memory", map[string]any{"memory_id": big, "content": "y"}},
		{"update_memory", map[string]any{"memory_id": id, "metadata": map[string]any{"scope": big}}},
		{"delete_memory", map[string]any{"memory_id": big}},
		{"delete_memory", map[string]any{"target": map[string]any{"scope": big}}},
		{"unforget_memory", map[string]any{"memory_id": big}},
		{"create_memory_scope", map[string]any{"scope": big}},
		{"create_memory_scope", map[string]any{"scope": "Ok", "parent": big}},
		{"create_memory_scope", map[string]any{"scope": "Ok2", "description": big}},
		{"set_active_scope", map[string]any{"scope": big}},
		{"update_user_profile", map[string]any{"preferences": map[string]any{big: "x"}}},
		{"update_user_profile", map[string]any{"name": big}},
		{"memory", map[string]any{"command": big}},
		{"memory", map[string]any{"command": "view", "path": "/memories/" + big}},
		{"memory", map[string]any{"command": "create", "path": "/memories/a.md", "file_text": big + big}},
		{"memory", map[string]any{"command": "str_replace", "path": "/memories/" + big, "old_str": big, "new_str": "x"}},
		{"memory", map[string]any{"command": "rename", "old_path": "/memories/" + big, "new_path": "/memories/b"}},
	} {
		r := h.call(c, tc.tool, tc.args)
		if r.isError && len(r.text) > maxErrorText {
			t.Errorf("%s: a %d-byte error: %.200s…", tc.tool, len(r.text), r.text)
		}
	}
	// Prompts and resources answer protocol errors.
	for _, name := range []string{"recall", "lessons"} {
		req := mcp.GetPromptRequest{}
		req.Params.Name = name
		req.Params.Arguments = map[string]string{"topic": big, big: "x"}
		if _, err := c.GetPrompt(testenv.Context(t), req); err != nil && len(err.Error()) > maxErrorText {
			t.Errorf("prompt %s: a %d-byte error", name, len(err.Error()))
		}
	}
	req := mcp.ReadResourceRequest{}
	req.Params.URI = "memory://scope/" + big + "/recent"
	if _, err := c.ReadResource(testenv.Context(t), req); err != nil && len(err.Error()) > maxErrorText {
		t.Errorf("resource: a %d-byte error: %.200s", len(err.Error()), err)
	}
}
