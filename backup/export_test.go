package backup

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/mongostore"
)

func TestExport(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 100)
	ctx := context.Background()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	res, err := Export(ctx, env.store, ExportOptions{Dir: env.root.ExportDir(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(res.Dir) != "export_2025-06-01T12-00-00Z" || res.Notice != ExportNotice {
		t.Fatalf("result: %+v", res)
	}
	wantFiles := []string{"memory.json", "profile.md", "Global.md", "Personal-Health.md", "ProjectAlpha.md", "Work-Q3-plans.md"}
	if !slices.Equal(res.Files, wantFiles) {
		t.Fatalf("files %v, want %v", res.Files, wantFiles)
	}
	for _, f := range res.Files {
		fi, err := os.Stat(filepath.Join(res.Dir, f))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", f, fi.Mode(), err)
		}
	}
	// populate forgets every memory i with i%17 == 5: 0-based 5, 22, 39, 56, 73, 90.
	if res.Memories != 94 || res.Summaries != 5 || res.Scopes != 4 {
		t.Fatalf("counts: %+v", res)
	}
	data, err := os.ReadFile(filepath.Join(res.Dir, "memory.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"embedding", "Memory 5:", "Memory 22:", "forgotten"} {
		if strings.Contains(string(data), banned) {
			t.Errorf("memory.json contains %q", banned)
		}
	}
	var doc struct {
		Notice  string `json:"notice"`
		Profile []struct {
			Name  string            `json:"name"`
			Facts map[string]string `json:"facts"`
		} `json:"profile"`
		Scopes []struct {
			Scope       string `json:"scope"`
			Description string `json:"description"`
			Tags        []struct {
				Tag   string `json:"tag"`
				Count int    `json:"count"`
			} `json:"tags"`
			Memories []struct {
				Text      string    `json:"text"`
				Timestamp time.Time `json:"timestamp"`
				Tags      []string  `json:"tags"`
				Archived  bool      `json:"archived"`
			} `json:"memories"`
			Summaries []struct {
				Text string `json:"text"`
			} `json:"summaries"`
		} `json:"scopes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Notice == "" || len(doc.Profile) != 1 || doc.Profile[0].Name != "Sam" || doc.Profile[0].Facts["city"] != "Lyon" {
		t.Fatalf("profile: %+v", doc.Profile)
	}
	g := doc.Scopes[0]
	if g.Scope != "Global" || len(g.Memories) != 24 || g.Tags[0].Tag != "common" || g.Tags[0].Count != 24 || len(g.Summaries) != 2 {
		t.Fatalf("Global: %d memories, tags %+v, %d summaries", len(g.Memories), g.Tags, len(g.Summaries))
	}
	archived := 0
	for _, s := range doc.Scopes {
		for i, m := range s.Memories {
			if i > 0 && m.Timestamp.Before(s.Memories[i-1].Timestamp) {
				t.Fatalf("%s memories out of time order", s.Scope)
			}
			if m.Archived {
				archived++
			}
		}
	}
	if archived == 0 {
		t.Error("archived memories are missing from the export")
	}
	md, err := os.ReadFile(filepath.Join(res.Dir, "ProjectAlpha.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Scope: ProjectAlpha", "personal memory data", "## Memories", "> Memory 1: ", "> # not a heading", "Tags: #tag1 #common"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("ProjectAlpha.md lacks %q", want)
		}
	}
	if profile, _ := os.ReadFile(filepath.Join(res.Dir, "profile.md")); !strings.Contains(string(profile), "- city: Lyon") || !strings.Contains(string(profile), "- Alice (colleague)") {
		t.Errorf("profile.md: %s", profile)
	}
	// A second export at the same moment gets its own directory.
	res2, err := Export(ctx, env.store, ExportOptions{Dir: env.root.ExportDir(), JSON: true, Now: func() time.Time { return now }})
	if err != nil || filepath.Base(res2.Dir) != "export_2025-06-01T12-00-00Z-1" || !slices.Equal(res2.Files, []string{"memory.json"}) {
		t.Fatalf("second export: %+v %v", res2, err)
	}
	des, _ := os.ReadDir(env.root.ExportDir())
	if len(des) != 2 {
		t.Fatalf("export dir holds %d entries; temporary directories left?", len(des))
	}
}

func TestExportScopeFilter(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 40)
	ctx := context.Background()
	res, err := Export(ctx, env.store, ExportOptions{Dir: env.root.ExportDir(), Scopes: []string{"Work: Q3 (plans)"}, Markdown: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scopes != 1 || !slices.Equal(res.Files, []string{"profile.md", "Work-Q3-plans.md"}) || res.Memories != 9 {
		t.Fatalf("%+v", res)
	}
	if _, err := Export(ctx, env.store, ExportOptions{Dir: env.root.ExportDir(), Scopes: []string{"Nope"}}); err == nil || !strings.Contains(err.Error(), `"Nope"`) {
		t.Fatalf("unknown scope: %v", err)
	}
	if n, _ := env.store.Memories.EstimatedCount(ctx); n != 40 {
		t.Fatalf("export changed the data: %d memories", n)
	}
	_ = mongostore.Memory{}
}

func TestSlug(t *testing.T) {
	used := map[string]bool{}
	for _, c := range []struct{ in, want string }{
		{"Work: Q3 (plans)", "Work-Q3-plans.md"},
		{"Work/Q3 plans", "Work-Q3-plans-2.md"},
		{"work-q3-plans", "work-q3-plans-3.md"},
		{"Éte à Paris", "Éte-à-Paris.md"},
		{"###", "scope.md"},
	} {
		if got := uniqueFileName(slug(c.in), ".md", used); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}
