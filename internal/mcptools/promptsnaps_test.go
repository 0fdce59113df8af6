package mcptools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPromptAndResourceSnapshots compares every prompt's definition with
// its snapshot in __promptsnaps__, and every resource's and resource
// template's with its snapshot in __resourcesnaps__, as the tools are
// snapshotted; regenerate on purpose with UPDATE_TOOLSNAPS=true.
func TestPromptAndResourceSnapshots(t *testing.T) {
	defs := map[string]map[string]any{"__promptsnaps__": {}, "__resourcesnaps__": {}}
	for _, p := range Prompts(Deps{}) {
		defs["__promptsnaps__"][p.Prompt.Name] = p.Prompt
	}
	for _, r := range Resources(Deps{}) {
		defs["__resourcesnaps__"][r.Resource.Name] = r.Resource
	}
	for _, r := range ResourceTemplates(Deps{}) {
		defs["__resourcesnaps__"][r.Template.Name] = r.Template
	}
	update := os.Getenv("UPDATE_TOOLSNAPS") == "true"
	for dir, byName := range defs {
		for name, def := range byName {
			got, err := json.MarshalIndent(def, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join(dir, name+".snap")
			if update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
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
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if _, ok := byName[strings.TrimSuffix(e.Name(), ".snap")]; !ok {
				t.Errorf("snapshot %s/%s belongs to nothing; delete it", dir, e.Name())
			}
		}
	}
}

// TestPromptAndResourceInvariants checks what every prompt and resource
// must have: a description for the user, every argument described, a
// title and a MIME type, a memory:// address, and (for prompts) a text
// for the bundle manifest.
func TestPromptAndResourceInvariants(t *testing.T) {
	seen := map[string]bool{}
	for _, sp := range Prompts(Deps{}) {
		p := sp.Prompt
		if seen[p.Name] {
			t.Errorf("duplicate prompt %s", p.Name)
		}
		seen[p.Name] = true
		if sp.Handler == nil || len(p.Description) < 40 || p.Title == "" || PromptText(p.Name) == "" {
			t.Errorf("prompt %s: handler, description, title or manifest text missing", p.Name)
		}
		for _, a := range p.Arguments {
			if strings.TrimSpace(a.Description) == "" {
				t.Errorf("prompt %s: argument %s has no description", p.Name, a.Name)
			}
		}
	}
	for _, sr := range Resources(Deps{}) {
		r := sr.Resource
		if sr.Handler == nil || len(r.Description) < 40 || r.Title == "" || r.MIMEType == "" || !strings.HasPrefix(r.URI, "memory://") {
			t.Errorf("resource %s: handler, description, title, MIME type or memory:// URI missing", r.URI)
		}
	}
	for _, st := range ResourceTemplates(Deps{}) {
		r := st.Template
		if st.Handler == nil || len(r.Description) < 40 || r.Title == "" || r.MIMEType == "" || !strings.HasPrefix(r.URITemplate.Raw(), "memory://") {
			t.Errorf("resource template %s: handler, description, title, MIME type or memory:// URI missing", r.Name)
		}
	}
}
