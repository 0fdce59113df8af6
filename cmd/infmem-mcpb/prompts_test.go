package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/infmem/infmem/internal/mcptools"
)

// TestManifestListsPrompts: the manifest lists every prompt the server
// registers, with its arguments and a text, in the shape the MCPB schema
// requires (name, description, arguments as names, text), and the
// template may not list its own.
func TestManifestListsPrompts(t *testing.T) {
	tmplPath := filepath.Join("..", "..", templatePath)
	tmpl, err := readTemplate(tmplPath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := encodeManifest(buildManifest(tmpl, "1.2.3", []platform{{name: "linux", goos: "linux"}}))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Prompts []map[string]any `json:"prompts"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sp := range mcptools.Prompts(mcptools.Deps{}) {
		names = append(names, sp.Prompt.Name)
	}
	var listed []string
	for _, p := range m.Prompts {
		listed = append(listed, p["name"].(string))
		for k := range p {
			if !slices.Contains([]string{"name", "description", "arguments", "text"}, k) {
				t.Errorf("prompt %v has key %q, which the MCPB schema does not allow", p["name"], k)
			}
		}
		if text, _ := p["text"].(string); text == "" {
			t.Errorf("prompt %v has no text", p["name"])
		}
		if args, _ := p["arguments"].([]any); p["name"] == "recall" && (len(args) == 0 || args[0] != "topic" || !strings.Contains(p["text"].(string), "${arguments.topic}")) {
			t.Errorf("recall's arguments or text: %v", p)
		}
	}
	if !slices.Equal(listed, names) || len(names) == 0 {
		t.Errorf("manifest prompts %v, server %v", listed, names)
	}

	tb, err := os.ReadFile(tmplPath)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(tb, &raw); err != nil {
		t.Fatal(err)
	}
	raw["prompts"] = []any{map[string]any{"name": "x", "text": "y"}}
	bad, _ := json.Marshal(raw)
	badPath := filepath.Join(t.TempDir(), "manifest.template.json")
	if err := os.WriteFile(badPath, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readTemplate(badPath); err == nil || !strings.Contains(err.Error(), "prompts are read from internal/mcptools") {
		t.Errorf("a template listing prompts: %v", err)
	}
}
