package webui

import (
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
)

// The API answers what the engine answers: the search is retrieve_memory's
// ranking with its confidence, and every write lands in the engine.
func TestAPIGoesThroughTheEngine(t *testing.T) {
	eng := engine(t)
	ctx := testenv.Context(t)
	a := store(t, eng, "The Apollo launch deadline is June 12", "Work", "apollo")
	store(t, eng, "Apollo team lunch is on Fridays", "Work")
	b := store(t, eng, "Buy seeds for the garden", "Home")
	s, _ := uiServer(t, eng, Options{})
	link, _ := s.Open()
	br := launch(t, link)

	var res struct {
		Results []struct {
			ID         string   `json:"id"`
			Confidence *float64 `json:"confidence"`
			Weak       bool     `json:"weak"`
		} `json:"results"`
		NothingRelevant bool `json:"nothing_relevant"`
	}
	br.getJSON("/api/search?"+url.Values{"q": {"Apollo deadline"}}.Encode(), &res)
	want, err := eng.Search(ctx, memory.SearchRequest{Query: "Apollo deadline", Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != len(want.Results) || res.NothingRelevant != want.NothingRelevant {
		t.Fatalf("search: %d results, engine %d", len(res.Results), len(want.Results))
	}
	for i, r := range want.Results {
		got := res.Results[i]
		if got.ID != r.ID || got.Confidence == nil || *got.Confidence != r.Confidence || got.Weak != r.Weak {
			t.Fatalf("result %d: %+v, engine %s %v %v", i, got, r.ID, r.Confidence, r.Weak)
		}
	}
	if code, _ := br.do(http.MethodGet, "/api/search?q=", nil, nil); code != http.StatusBadRequest {
		t.Errorf("empty query: %d", code)
	}

	br.postJSON("/api/memories/"+a+"/update", map[string]any{"text": "The Apollo launch deadline is July 1", "tags": []string{"apollo", "launch"}, "importance": 0.8, "pinned": true}, nil)
	m, err := eng.Get(ctx, a)
	if err != nil || m.Text != "The Apollo launch deadline is July 1" || len(m.Tags) != 2 || m.Importance != 0.8 || !m.Pinned || len(m.History) != 1 {
		t.Fatalf("after update: %+v %v", m, err)
	}
	if code, _ := br.do(http.MethodPost, "/api/memories/"+a+"/update", map[string]any{"importance": 7}, nil); code != http.StatusBadRequest {
		t.Errorf("importance 7: %d; want the engine's refusal as 400", code)
	}
	if code, _ := br.do(http.MethodPost, "/api/memories/"+a+"/update", map[string]any{"bogus": 1}, nil); code != http.StatusBadRequest {
		t.Errorf("unknown field: %d; want 400", code)
	}
	if code, _ := br.do(http.MethodGet, "/api/memories/0123456789abcdef01234567", nil, nil); code != http.StatusNotFound {
		t.Errorf("unknown id: %d; want 404", code)
	}

	br.postJSON("/api/memories/"+a+"/forget", map[string]any{}, nil)
	if m, _ := eng.Get(ctx, a); m.ForgottenAt == nil {
		t.Fatal("forget did not soft-forget")
	}
	var listed struct {
		Total int `json:"total"`
	}
	br.getJSON("/api/memories?forgotten=only", &listed)
	if listed.Total != 1 {
		t.Fatalf("forgotten listed: %d", listed.Total)
	}
	br.postJSON("/api/unforget", map[string]any{"ids": []string{a}}, nil)
	if m, _ := eng.Get(ctx, a); m.ForgottenAt != nil {
		t.Fatal("unforget did not restore")
	}

	// A hard delete needs its confirmation.
	if code, _ := br.do(http.MethodPost, "/api/memories/"+b+"/forget", map[string]any{"mode": "hard"}, nil); code != http.StatusBadRequest {
		t.Fatalf("hard delete without confirmation: %d", code)
	}
	if _, err := eng.Get(ctx, b); err != nil {
		t.Fatalf("an unconfirmed hard delete deleted: %v", err)
	}
	br.postJSON("/api/memories/"+b+"/forget", map[string]any{"mode": "hard", "confirm": b}, nil)
	if _, err := eng.Get(ctx, b); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("after a confirmed hard delete: %v", err)
	}

	br.postJSON("/api/profile", map[string]any{"name": "Ada", "set_facts": map[string]string{"birthday": "December 10"}, "add_notes": []string{"likes tea"}}, nil)
	p, err := eng.Profile(ctx)
	if err != nil || p.Name != "Ada" || p.Facts["birthday"] != "December 10" || len(p.Notes) != 1 {
		t.Fatalf("profile: %+v %v", p, err)
	}

	br.postJSON("/api/scopes/active", map[string]any{"name": "Home", "active": false}, nil)
	var scopes struct {
		Scopes []struct {
			Name   string `json:"name"`
			Active bool   `json:"active"`
		} `json:"scopes"`
	}
	br.getJSON("/api/scopes", &scopes)
	for _, sc := range scopes.Scopes {
		if sc.Name == "Home" && sc.Active {
			t.Fatal("Home is still active")
		}
	}

	var tl struct {
		Unit    string `json:"unit"`
		Buckets []struct {
			Count int `json:"count"`
		} `json:"buckets"`
	}
	br.getJSON("/api/timeline?scope=Work", &tl)
	n := 0
	for _, bk := range tl.Buckets {
		n += bk.Count
	}
	if tl.Unit != "day" || n != 2 {
		t.Fatalf("timeline: %+v", tl)
	}
}
