package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// TestToolSnapshots compares every tool's definition with its snapshot in
// __toolsnaps__; regenerate on purpose with UPDATE_TOOLSNAPS=true.
func TestToolSnapshots(t *testing.T) {
	update := os.Getenv("UPDATE_TOOLSNAPS") == "true"
	seen := map[string]bool{}
	for _, st := range allTools() {
		name := st.Tool.Name
		got, err := json.MarshalIndent(st.Tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("__toolsnaps__", name+".snap")
		seen[name+".snap"] = true
		if update {
			if err := os.MkdirAll("__toolsnaps__", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s has no snapshot (%v); run UPDATE_TOOLSNAPS=true go test ./internal/mcptools", name, err)
			continue
		}
		if !jsonEqual(got, want) {
			t.Errorf("%s changed from its snapshot %s; if intended, run UPDATE_TOOLSNAPS=true go test ./internal/mcptools\ngot:\n%s", name, path, got)
		}
	}
	entries, _ := os.ReadDir("__toolsnaps__")
	for _, e := range entries {
		if !seen[e.Name()] {
			t.Errorf("snapshot %s belongs to no tool; delete it", e.Name())
		}
	}
}

// TestToolInvariants checks what every tool must have.
func TestToolInvariants(t *testing.T) {
	tools := allTools()
	names := map[string]bool{}
	for _, st := range tools {
		tool := st.Tool
		t.Run(tool.Name, func(t *testing.T) {
			if names[tool.Name] {
				t.Errorf("duplicate tool name")
			}
			names[tool.Name] = true
			if st.Handler == nil {
				t.Error("no handler")
			}
			if len(tool.Description) < 80 {
				t.Errorf("description too short to guide a model: %q", tool.Description)
			}
			a := tool.Annotations
			if a.Title == "" || a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
				t.Errorf("annotations not all set explicitly: %+v", a)
			}
			if a.OpenWorldHint != nil && *a.OpenWorldHint {
				t.Error("a local memory tool is not open-world")
			}
			if a.ReadOnlyHint != nil && a.DestructiveHint != nil && *a.ReadOnlyHint && *a.DestructiveHint {
				t.Error("read-only and destructive at once")
			}
			var in map[string]any
			if err := json.Unmarshal(tool.RawInputSchema, &in); err != nil {
				t.Fatalf("input schema: %v", err)
			}
			if in["type"] != "object" {
				t.Errorf("input schema type %v", in["type"])
			}
			for _, k := range []string{"oneOf", "anyOf", "allOf"} {
				if _, ok := in[k]; ok {
					t.Errorf("top-level %s in input schema", k)
				}
			}
			checkDescribed(t, "input", in)
			if tool.OutputSchema.Type != "object" || len(tool.OutputSchema.Properties) == 0 {
				t.Errorf("no output schema")
			}
		})
	}
	want := []string{"backup_memory", "create_memory_scope", "delete_memory", "export_memory", "get_memory_stats", "get_user_profile", "list_memories",
		"list_memory_scopes", "memory", "optimize_memory", "recall_memory_by_time", "retrieve_memory", "search_by_scope", "search_by_tag",
		"set_active_scope", "store_memory", "unforget_memory", "update_memory", "update_user_profile"}
	var got []string
	for n := range names {
		got = append(got, n)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("tools %v, want %v", got, want)
	}
}

// checkDescribed requires a description on every property, recursively.
func checkDescribed(t *testing.T, path string, schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		pm := p.(map[string]any)
		if d, _ := pm["description"].(string); strings.TrimSpace(d) == "" {
			t.Errorf("%s.%s has no description", path, name)
		}
		checkDescribed(t, path+"."+name, pm)
		if items, ok := pm["items"].(map[string]any); ok {
			checkDescribed(t, path+"."+name+"[]", items)
		}
	}
}

// allTools lists every tool definition, with the daemon-wired ones
// included; their hooks are never called here.
func allTools() []server.ServerTool {
	return Tools(Deps{
		Backup: func(context.Context) (BackupResult, error) { return BackupResult{}, errors.New("not called") },
		Export: func(context.Context, ExportRequest) (ExportResult, error) {
			return ExportResult{}, errors.New("not called")
		},
		Optimize: func(context.Context, string, bool) (OptimizeResult, error) {
			return OptimizeResult{}, errors.New("not called")
		},
	})
}

func TestAdminToolsOnlyWithHooks(t *testing.T) {
	for _, st := range Tools(Deps{}) {
		switch st.Tool.Name {
		case "backup_memory", "export_memory", "optimize_memory":
			t.Errorf("%s registered without its hook", st.Tool.Name)
		}
	}
}
