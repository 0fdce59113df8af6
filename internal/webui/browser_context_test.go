package webui

import (
	"net/url"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
)

// TestInBrowserResultContext: a reply that ranks only by the turn before
// it is folded into that turn's result (recall's FoldShare); the page
// shows it under the result, as retrieve_memory's results[].context does,
// with its speaker and time, linking to its own page. The search API
// gives it as the result's context.
func TestInBrowserResultContext(t *testing.T) {
	chromiumPath(t)
	eng := engine(t)
	eng.SetRankOptions(memory.RankOptions{FoldShare: 0.01}) // off by default
	ctx := testenv.Context(t)
	at := time.Date(2025, 4, 5, 18, 0, 0, 0, time.UTC)
	q, err := eng.Store(ctx, memory.StoreRequest{Content: "did you get the bike brakes fixed?", ConversationID: "chat-1", Speaker: "Lena", Timestamp: at})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := eng.Store(ctx, memory.StoreRequest{Content: "yes! saturday morning", ConversationID: "chat-1", Speaker: "Sam", Timestamp: at.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := uiServer(t, eng, Options{Version: "test"})

	api, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Results []memoryOut `json:"results"`
	}
	launch(t, api).getJSON("/api/search?q="+url.QueryEscape("bike brakes"), &res)
	if len(res.Results) != 1 || res.Results[0].ID != q.ID {
		t.Fatalf("search results %+v; want the question alone (the reply folded into it)", res.Results)
	}
	if c := res.Results[0].Context; len(c) != 1 || c[0].ID != reply.ID || c[0].Text != "yes! saturday morning" || c[0].Speaker != "Sam" || !c[0].Timestamp.Equal(at.Add(time.Minute)) {
		t.Fatalf("the result's context %+v; want the reply %s with its speaker and time", c, reply.ID)
	}

	link, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	shots := screenshotDir(t)
	c := startChrome(t)
	p := c.newTab(false)
	p.size(1280, 900)
	p.navigate(link)
	p.waitView("search")
	p.navigate("http://" + s.Addr() + "/#/search?q=" + url.QueryEscape("bike brakes"))
	p.waitView("search")
	p.waitFor("the result's context", `document.querySelector(".results .card .context .turn")`)
	if got := p.str(`document.querySelectorAll(".results .card").length + " " + document.querySelector(".results .card .cardtop .text").dataset.id`); got != "1 "+q.ID {
		t.Fatalf("results shown: %q; want the question %s alone", got, q.ID)
	}
	turn := p.str(`(t => t.querySelector("a.text").dataset.id + "|" + t.querySelector("a.text").getAttribute("href") + "|" + t.textContent)(document.querySelector(".results .card .context .turn"))`)
	want := reply.ID + "|#/memory/" + reply.ID + "|Sam · "
	if len(turn) < len(want) || turn[:len(want)] != want || !contains(turn, "yes! saturday morning") {
		t.Fatalf("the context shown: %q; want the reply's link, Sam and its text", turn)
	}
	p.screenshot(shots, "search-context")
	p.click(".results .card .context .turn a.text")
	p.waitView("memory")
	p.waitFor("the reply's page", `location.hash === "#/memory/`+reply.ID+`" && document.body.textContent.includes("chat-1 (Sam)") && document.body.textContent.includes("`+reply.ID+`")`)
}
