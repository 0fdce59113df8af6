package webui

import (
	"net/http"
	"strings"
	"testing"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
)

// Issue 22, item 9: the page shows where a proposed lesson came from and
// confirms it on the user's click.
func TestConfirmLessonOnThePage(t *testing.T) {
	eng := engine(t)
	ctx := testenv.Context(t)
	res, err := eng.Store(ctx, memory.StoreRequest{Content: "Answer in French on Fridays.", Source: memory.SourceProposedLesson, Speaker: "proposed via Claude Desktop"})
	if err != nil {
		t.Fatal(err)
	}
	note := store(t, eng, "The printer is on the second floor.", "")
	s, _ := uiServer(t, eng, Options{})
	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	b := launch(t, link)
	if code, body := b.do(http.MethodGet, "/api/memories/"+res.ID, nil, nil); code != http.StatusOK || !contains(string(body), `"source":"proposed_lesson"`, `"speaker":"proposed via Claude Desktop"`) {
		t.Fatalf("the proposal: %d %s", code, body)
	}
	if code, body := b.do(http.MethodPost, "/api/memories/"+res.ID+"/confirm-lesson", map[string]any{}, nil); code != http.StatusOK || !strings.Contains(string(body), `"confirmed":true`) {
		t.Fatalf("confirming: %d %s", code, body)
	}
	if m, err := eng.Get(ctx, res.ID); err != nil || m.Source != memory.SourceLesson {
		t.Fatalf("after confirming: %+v %v", m, err)
	}
	if code, body := b.do(http.MethodPost, "/api/memories/"+note+"/confirm-lesson", map[string]any{}, nil); code != http.StatusBadRequest || !strings.Contains(string(body), "not a proposed lesson") {
		t.Fatalf("confirming a note: %d %s", code, body)
	}
}
