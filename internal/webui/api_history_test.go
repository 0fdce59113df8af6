package webui

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
)

// A memory's page gets its relations from the engine, and scopes are
// created and described through the engine, with its refusals as 400.
func TestAPIRelationsAndScopes(t *testing.T) {
	eng := engine(t)
	ctx := testenv.Context(t)
	f := newHistoryFixture(t, eng)
	s, _ := uiServer(t, eng, Options{})
	link, _ := s.Open()
	br := launch(t, link)

	type mem struct {
		ID       string `json:"id"`
		Archived bool   `json:"archived"`
		Related  *struct {
			MergedInto   *mem  `json:"merged_into"`
			Merged       []mem `json:"merged"`
			Sources      []mem `json:"sources"`
			SourcesTotal int   `json:"sources_total"`
			Summaries    []mem `json:"summaries"`
		} `json:"related"`
	}
	idsOf := func(ms []mem) []string {
		out := []string{}
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	var sum mem
	br.getJSON("/api/memories/"+f.summary, &sum)
	if sum.Related == nil || !slices.Equal(idsOf(sum.Related.Sources), f.msgs) || sum.Related.SourcesTotal != 3 || !sum.Related.Sources[0].Archived {
		t.Fatalf("summary relations: %+v", sum.Related)
	}
	var msg mem
	br.getJSON("/api/memories/"+f.msgs[0], &msg)
	if !slices.Equal(idsOf(msg.Related.Summaries), []string{f.summary}) {
		t.Fatalf("message relations: %+v", msg.Related)
	}
	var kept, dup mem
	br.getJSON("/api/memories/"+f.keep, &kept)
	br.getJSON("/api/memories/"+f.dup, &dup)
	if !slices.Equal(idsOf(kept.Related.Merged), []string{f.dup}) || dup.Related.MergedInto == nil || dup.Related.MergedInto.ID != f.keep {
		t.Fatalf("merge relations: kept %+v, dup %+v", kept.Related, dup.Related)
	}
	// Lists are never null, for the page.
	var list struct {
		Memories []map[string]any `json:"memories"`
	}
	br.getJSON("/api/memories?limit=5", &list)
	if len(list.Memories) == 0 || list.Memories[0]["related"] != nil {
		t.Fatalf("lists carry no relations: %v", list.Memories)
	}

	var created struct {
		Scope   scopeOut `json:"scope"`
		Created bool     `json:"created"`
	}
	br.postJSON("/api/scopes", map[string]any{"name": "Health", "description": "  Doctors and running\t", "parent": ""}, &created)
	if !created.Created || created.Scope.Name != "Health" || created.Scope.Description != "Doctors and running" {
		t.Fatalf("create: %+v", created)
	}
	br.postJSON("/api/scopes", map[string]any{"name": "health"}, &created)
	if created.Created || created.Scope.Name != "Health" {
		t.Fatalf("create again: %+v", created)
	}
	for _, bad := range []map[string]any{{"name": "ALL"}, {"name": "a;b"}, {"name": "Knee", "parent": "Nope"}, {"name": "X", "description": strings.Repeat("x", 1001)}, {"name": "X", "bogus": 1}} {
		if code, body := br.do(http.MethodPost, "/api/scopes", bad, nil); code != http.StatusBadRequest {
			t.Errorf("create %v: %d %s; want 400", bad["name"], code, body)
		}
	}
	var described struct {
		Scope scopeOut `json:"scope"`
	}
	br.postJSON("/api/scopes/describe", map[string]any{"name": "HEALTH", "description": "Doctors, running and sleep"}, &described)
	list2, err := eng.ListScopes(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list2, func(s2 memory.ScopeInfo) bool { return s2.Name == "Health" })
	if described.Scope.Description != "Doctors, running and sleep" || i < 0 || list2[i].Description != "Doctors, running and sleep" {
		t.Fatalf("describe: %+v; engine %+v", described, list2)
	}
	if code, _ := br.do(http.MethodPost, "/api/scopes/describe", map[string]any{"name": "Nope", "description": "x"}, nil); code != http.StatusBadRequest {
		t.Errorf("describe an unknown scope: %d; want 400", code)
	}
	// Without the CSRF token, nothing is created.
	if code, _ := br.do(http.MethodPost, "/api/scopes", map[string]any{"name": "Sneaky"}, func(r *http.Request) { r.Header.Del(csrfHeader) }); code == http.StatusOK {
		t.Error("a scope was created without the CSRF token")
	}
	if l, _ := eng.ListScopes(ctx, true); slices.ContainsFunc(l, func(s2 memory.ScopeInfo) bool { return s2.Name == "Sneaky" }) {
		t.Error("the engine has a scope created without the CSRF token")
	}
}
