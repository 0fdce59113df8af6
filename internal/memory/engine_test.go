package memory

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

var la, _ = time.LoadLocation("America/Los_Angeles")

// newEngine opens an engine on a fresh embedded store with a fixed clock
// (Wednesday 2025-05-14 15:04 in Los Angeles).
func newEngine(t *testing.T) (*Engine, *mongostore.Store, *clock) {
	t.Helper()
	store := testenv.Store(t)
	return engineOn(t, store)
}

func engineOn(t *testing.T, store *mongostore.Store) (*Engine, *mongostore.Store, *clock) {
	t.Helper()
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Date(2025, 5, 14, 15, 4, 0, 0, la)}
	e := New(store, reg, Options{Now: clk.Now, Location: la, Logger: testenv.Logger(t)})
	e.Start(ctx)
	t.Cleanup(func() { e.Close(context.Background()) })
	if err := e.wait(ctx); err != nil {
		t.Fatal(err)
	}
	return e, store, clk
}

func mustStore(t *testing.T, e *Engine, req StoreRequest) StoreResult {
	t.Helper()
	res, err := e.Store(testenv.Context(t), req)
	if err != nil {
		t.Fatalf("store %q: %v", req.Content, err)
	}
	return res
}

// mustStoreTexts stores each text as a memory of its own, in order.
func mustStoreTexts(t *testing.T, e *Engine, texts ...string) {
	t.Helper()
	for _, c := range texts {
		mustStore(t, e, StoreRequest{Content: c})
	}
}

// relevant keeps the results that clear the relevance bar.
func relevant(res SearchResult) []Memory {
	var out []Memory
	for _, m := range res.Results {
		if !m.Weak {
			out = append(out, m)
		}
	}
	return out
}

func texts(ms []Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Text
	}
	return out
}

func TestStoreAndRetrieve(t *testing.T) {
	e, store, _ := newEngine(t)
	ctx := testenv.Context(t)
	res := mustStore(t, e, StoreRequest{Content: "  Project Apollo deadline is June 5\r\n", Tags: []string{"#Apollo", " deadline ", "apollo"}})
	if res.Scope != "Global" || res.DuplicateOf != "" || res.Collection != mongostore.ConversationHistory {
		t.Fatalf("store result: %+v", res)
	}
	id, _ := bson.ObjectIDFromHex(res.ID)
	doc, err := store.Memories.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "Project Apollo deadline is June 5" || !slices.Equal(doc.Tags, []string{"Apollo", "deadline"}) ||
		doc.Source != "note" || doc.Importance != 0.5 || doc.ContentHash == "" || doc.Timestamp.IsZero() {
		t.Fatalf("stored document: %+v", doc)
	}
	got, err := e.Search(ctx, SearchRequest{Query: "When is the Apollo deadline?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 1 || got.Results[0].ID != res.ID || got.Results[0].Confidence <= 0 || got.Results[0].Confidence > 1 {
		t.Fatalf("search: %+v", got)
	}
	// An identical memory (case and spacing aside) is not stored twice.
	dup := mustStore(t, e, StoreRequest{Content: "project apollo   DEADLINE is june 5"})
	if dup.DuplicateOf != res.ID || dup.ID != res.ID {
		t.Fatalf("duplicate: %+v", dup)
	}
	// The same text in another scope is a different memory.
	other := mustStore(t, e, StoreRequest{Content: "Project Apollo deadline is June 5", Scope: "Work"})
	if other.DuplicateOf != "" || other.Scope != "Work" || !other.ScopeCreated {
		t.Fatalf("other scope: %+v", other)
	}
	if n, _ := store.Memories.EstimatedCount(ctx); n != 2 {
		t.Fatalf("%d documents, want 2", n)
	}
}

func TestStoreSummaryGoesToSummaries(t *testing.T) {
	e, store, _ := newEngine(t)
	res := mustStore(t, e, StoreRequest{Content: "We agreed to ship Apollo in June.", Source: "summary", ConversationID: "c-1"})
	if res.Collection != mongostore.Summaries {
		t.Fatalf("%+v", res)
	}
	id, _ := bson.ObjectIDFromHex(res.ID)
	s, err := store.Summaries.Get(testenv.Context(t), id)
	if err != nil || s.SummaryText != "We agreed to ship Apollo in June." || s.Method != "client" {
		t.Fatalf("%+v %v", s, err)
	}
	got, _ := e.Search(testenv.Context(t), SearchRequest{Query: "ship Apollo"})
	if len(got.Results) != 1 || got.Results[0].Source != "summary" {
		t.Fatalf("%+v", got.Results)
	}
}

func TestStoreRejects(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	bad := 1.5
	cases := []struct {
		req  StoreRequest
		want string
	}{
		{StoreRequest{Content: "   \x00\x01 "}, "content is empty"},
		{StoreRequest{Content: strings.Repeat("x", 40000)}, "the limit is 32768 bytes"},
		{StoreRequest{Content: "x", Source: "diary"}, `source "diary" is not one of`},
		{StoreRequest{Content: "x", Importance: &bad}, "importance must be a number from 0"},
		{StoreRequest{Content: "x", Scope: "ALL"}, "scope ALL is for searching"},
		{StoreRequest{Content: "x", Scope: "bad;name"}, "invalid scope name"},
		{StoreRequest{Content: "x", Tags: []string{"#"}}, "tags must not be empty"},
		{StoreRequest{Content: "x", Tags: []string{strings.Repeat("t", 70)}}, "the limit is 64"},
		{StoreRequest{Content: "x", Speaker: strings.Repeat("s", 100)}, "speaker must be a short name"},
		{StoreRequest{Content: "x", Timestamp: time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC)}, "out of range"},
	}
	for _, c := range cases {
		_, err := e.Store(ctx, c.req)
		if !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want input error containing %q", c.req.Source, err, c.want)
		}
	}
}

func TestNormalizeContent(t *testing.T) {
	cases := map[string]string{
		"  hello\tworld \r\n":         "hello world",
		"line1\nline2":                "line1\nline2",
		"bell\x07 and nul\x00":        "bell and nul",
		"e\u0301te":                   "éte", // NFC
		"safe\u202Egnirts\u202C text": "safegnirts text",
		"bad \xff utf8":               "bad \uFFFD utf8",
	}
	for in, want := range cases {
		if got := normalizeContent(in); got != want {
			t.Errorf("normalizeContent(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScopeIsolationAndSearchSets(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	if _, _, err := e.CreateScope(ctx, scopes.Scope{Name: "Work"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.CreateScope(ctx, scopes.Scope{Name: "Project Alpha", Parent: "Work"}); err != nil {
		t.Fatal(err)
	}
	mustStore(t, e, StoreRequest{Content: "budget owner is Dana (global)"})
	mustStore(t, e, StoreRequest{Content: "budget for work is 10k", Scope: "Work"})
	mustStore(t, e, StoreRequest{Content: "budget for alpha is 2k", Scope: "project alpha"})
	mustStore(t, e, StoreRequest{Content: "budget for health is private", Scope: "Health"})

	search := func(req SearchRequest) []string {
		req.Query, req.Limit = "budget", 10
		res, err := e.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got := texts(res.Results)
		slices.Sort(got)
		return got
	}
	all := []string{"budget for alpha is 2k", "budget for health is private", "budget for work is 10k", "budget owner is Dana (global)"}
	if got := search(SearchRequest{}); !slices.Equal(got, all) {
		t.Errorf("no scope, no active scope, default Global → every scope: %v", got)
	}
	if got := search(SearchRequest{Scope: "ALL"}); !slices.Equal(got, all) {
		t.Errorf("ALL: %v", got)
	}
	if got := search(SearchRequest{Scope: "Project Alpha"}); !slices.Equal(got, []string{"budget for alpha is 2k", "budget for work is 10k", "budget owner is Dana (global)"}) {
		t.Errorf("child reads itself, its parent and Global: %v", got)
	}
	if got := search(SearchRequest{ActiveScope: "Work"}); !slices.Equal(got, []string{"budget for work is 10k", "budget owner is Dana (global)"}) {
		t.Errorf("active Work: %v", got)
	}
	if got := search(SearchRequest{Scope: "Health", ExactScope: true}); !slices.Equal(got, []string{"budget for health is private"}) {
		t.Errorf("exact scope: %v", got)
	}
	if _, err := e.Search(ctx, SearchRequest{Query: "budget", Scope: "Nowhere"}); !IsInputError(err) || !strings.Contains(err.Error(), "no scope named") {
		t.Errorf("unknown scope: %v", err)
	}
	if _, err := e.SetScopeActive(ctx, "Health", false); err != nil {
		t.Fatal(err)
	}
	if got := search(SearchRequest{Scope: "ALL"}); slices.Contains(got, "budget for health is private") {
		t.Errorf("inactive scope searched by ALL: %v", got)
	}
	if got := search(SearchRequest{Scope: "Health"}); !slices.Contains(got, "budget for health is private") {
		t.Errorf("inactive scope named explicitly: %v", got)
	}
}

// TestScopeIsolationProperty stores random memories in random scopes and
// checks that no query in scope B ever returns a memory outside B's
// search set.
func TestScopeIsolationProperty(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"Global", "A", "B", "C", "Work", "Work/Child"}
	for _, n := range names[1:] {
		parent := ""
		if n == "Work/Child" {
			parent = "Work"
		}
		if _, _, err := e.CreateScope(ctx, scopes.Scope{Name: n, Parent: parent}); err != nil {
			t.Fatal(err)
		}
	}
	words := []string{"apple", "budget", "meeting", "deadline", "alice", "travel", "doctor", "launch", "paris", "invoice"}
	// The memories go in through one StoreMany (one insert, one journal
	// sync): what is checked is the searches, and 300 single stores took
	// minutes under -race on a loaded machine.
	reqs := make([]StoreRequest, 300)
	for i := range reqs {
		var ws []string
		for j := 0; j < 4; j++ {
			ws = append(ws, words[rng.IntN(len(words))])
		}
		reqs[i] = StoreRequest{Content: fmt.Sprintf("%s %d", strings.Join(ws, " "), i), Scope: names[rng.IntN(len(names))]}
	}
	stored, errs, err := e.StoreMany(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	scopeOf := map[string]string{}
	for i, res := range stored {
		if errs[i] != nil {
			t.Fatalf("store %q: %v", reqs[i].Content, errs[i])
		}
		if res.Scope != reqs[i].Scope || res.DuplicateOf != "" {
			t.Fatalf("store %q in %q: %+v", reqs[i].Content, reqs[i].Scope, res)
		}
		scopeOf[res.ID] = res.Scope
	}
	if len(scopeOf) != len(reqs) {
		t.Fatalf("%d memories stored, want %d", len(scopeOf), len(reqs))
	}
	for i := 0; i < 200; i++ {
		s := names[rng.IntN(len(names))]
		set, err := e.Scopes().SearchSet(s)
		if err != nil {
			t.Fatal(err)
		}
		req := SearchRequest{Query: words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))], Limit: 100}
		if rng.IntN(2) == 0 {
			req.Scope = s
		} else {
			req.ActiveScope = s
		}
		// A context per search, as mustStore has per store: 300 stores
		// and 200 searches take minutes under -race on a loaded machine.
		res, err := e.Search(testenv.Context(t), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range res.Results {
			if !slices.Contains(set, scopeOf[m.ID]) || m.Scope != scopeOf[m.ID] {
				t.Fatalf("query in %q returned memory %s of scope %q (allowed %v)", s, m.ID, m.Scope, set)
			}
		}
	}
}

func TestTagsAndTimeFilters(t *testing.T) {
	e, _, clk := newEngine(t)
	ctx := testenv.Context(t)
	day := func(d int) time.Time { return time.Date(2025, 5, d, 12, 0, 0, 0, la) }
	mustStore(t, e, StoreRequest{Content: "login password hint is the dog's name", Tags: []string{"login"}, Timestamp: day(1)})
	mustStore(t, e, StoreRequest{Content: "login page redesign planned", Tags: []string{"login", "design"}, Timestamp: day(10)})
	mustStore(t, e, StoreRequest{Content: "login bug fixed", Tags: []string{"bugs"}, Timestamp: day(13)})

	res, _ := e.Search(ctx, SearchRequest{Query: "login", Tags: []string{"#LOGIN"}, Limit: 10})
	if len(res.Results) != 2 {
		t.Fatalf("tag filter: %v", texts(res.Results))
	}
	res, _ = e.Search(ctx, SearchRequest{Query: "login", Tags: []string{"login", "design"}})
	if !slices.Equal(texts(res.Results), []string{"login page redesign planned"}) {
		t.Fatalf("all tags must match: %v", texts(res.Results))
	}
	res, _ = e.Search(ctx, SearchRequest{Query: "login", Tags: []string{"unknown-tag"}})
	if len(res.Results) != 0 || res.Note == "" {
		t.Fatalf("unknown tag: %+v", res)
	}
	res, _ = e.Search(ctx, SearchRequest{Query: "login", From: day(9), To: day(14)})
	if len(res.Results) != 2 {
		t.Fatalf("time range: %v", texts(res.Results))
	}
	// Without a query, a tag search lists newest first.
	res, _ = e.Search(ctx, SearchRequest{Tags: []string{"login"}, Limit: 10})
	if !slices.Equal(texts(res.Results), []string{"login page redesign planned", "login password hint is the dog's name"}) {
		t.Fatalf("tag listing: %v", texts(res.Results))
	}
	if _, err := e.Search(ctx, SearchRequest{Query: "login", From: day(10), To: day(9)}); !IsInputError(err) {
		t.Fatalf("inverted range: %v", err)
	}

	// Time recall: "yesterday" is May 13 in Los Angeles.
	tr, err := e.ByTime(ctx, TimeRequest{Phrase: "yesterday"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(texts(tr.Results), []string{"login bug fixed"}) || tr.From.Day() != 13 || tr.Total != 1 {
		t.Fatalf("yesterday: %+v", tr)
	}
	tr, _ = e.ByTime(ctx, TimeRequest{Phrase: "this month"})
	if !slices.Equal(texts(tr.Results), []string{"login password hint is the dog's name", "login page redesign planned", "login bug fixed"}) {
		t.Fatalf("this month, oldest first: %v", texts(tr.Results))
	}
	tr, _ = e.ByTime(ctx, TimeRequest{Phrase: "this month", Limit: 1})
	if len(tr.Results) != 1 || tr.Total != 3 {
		t.Fatalf("limited: %d of %d", len(tr.Results), tr.Total)
	}
	tr, _ = e.ByTime(ctx, TimeRequest{From: day(9), To: day(11), Phrase: "ignored when a range is given"})
	if !slices.Equal(texts(tr.Results), []string{"login page redesign planned"}) {
		t.Fatalf("explicit range: %v", texts(tr.Results))
	}
	if _, err := e.ByTime(ctx, TimeRequest{Phrase: "purple elephants"}); !IsInputError(err) || !strings.Contains(err.Error(), "purple elephants") {
		t.Fatalf("unparseable: %v", err)
	}
	if _, err := e.ByTime(ctx, TimeRequest{}); !IsInputError(err) {
		t.Fatalf("no period: %v", err)
	}
	clk.Set(time.Date(2025, 5, 20, 9, 0, 0, 0, la))
	tr, _ = e.ByTime(ctx, TimeRequest{Phrase: "last week"})
	if !slices.Equal(texts(tr.Results), []string{"login bug fixed"}) {
		t.Fatalf("last week from May 20: %v (%v–%v)", texts(tr.Results), tr.From, tr.To)
	}
}

func TestForgetSoftAndUnforget(t *testing.T) {
	e, store, _ := newEngine(t)
	ctx := testenv.Context(t)
	a := mustStore(t, e, StoreRequest{Content: "my locker code is 4821"})
	mustStore(t, e, StoreRequest{Content: "the gym locker is on floor 2"})

	res, err := e.Forget(ctx, ForgetRequest{ID: a.ID})
	if err != nil || res.Count != 1 || len(res.Items) != 1 || !strings.Contains(res.Note, "unforget") {
		t.Fatalf("forget: %+v %v", res, err)
	}
	got, _ := e.Search(ctx, SearchRequest{Query: "locker code"})
	if slices.Contains(texts(got.Results), "my locker code is 4821") {
		t.Fatal("soft-forgotten memory still recalled")
	}
	oid, _ := bson.ObjectIDFromHex(a.ID)
	if doc, err := store.Memories.Get(ctx, oid); err != nil || doc.ForgottenAt == nil {
		t.Fatalf("soft forget not stored: %+v %v", doc, err)
	}
	l, _ := e.List(ctx, ListRequest{OnlyForgotten: true})
	if len(l.Memories) != 1 || l.Memories[0].ForgottenAt == nil {
		t.Fatalf("list forgotten: %+v", l)
	}
	// Storing the same text again is allowed once the old one is forgotten.
	again := mustStore(t, e, StoreRequest{Content: "my locker code is 4821"})
	if again.DuplicateOf != "" {
		t.Fatalf("forgotten memory counted as duplicate: %+v", again)
	}
	if res, _ := e.Forget(ctx, ForgetRequest{ID: a.ID}); res.Count != 0 {
		t.Fatalf("forgetting twice: %+v", res)
	}
	restored, err := e.Unforget(ctx, []string{a.ID})
	if err != nil || !slices.Equal(restored, []string{a.ID}) {
		t.Fatalf("unforget: %v %v", restored, err)
	}
	got, _ = e.Search(ctx, SearchRequest{Query: "locker code", Limit: 10})
	if n := strings.Count(strings.Join(texts(got.Results), "|"), "my locker code is 4821"); n != 1 {
		t.Fatalf("after unforget, the two copies should be recalled as one: %v", texts(got.Results))
	}
	if l, _ := e.List(ctx, ListRequest{}); l.Total != 3 {
		t.Fatalf("after unforget %d live memories, want 3", l.Total)
	}
	if res, err := e.Forget(ctx, ForgetRequest{ID: bson.NewObjectID().Hex()}); err != nil || res.Count != 0 || res.Note == "" {
		t.Fatalf("unknown id: %+v %v", res, err)
	}
	if _, err := e.Forget(ctx, ForgetRequest{ID: "not-an-id"}); !IsInputError(err) {
		t.Fatalf("bad id: %v", err)
	}
	if _, err := e.Forget(ctx, ForgetRequest{}); !IsInputError(err) {
		t.Fatalf("empty target: %v", err)
	}
}

func TestForgetHardRemovesEmbedding(t *testing.T) {
	e, store, _ := newEngine(t)
	ctx := testenv.Context(t)
	a := mustStore(t, e, StoreRequest{Content: "delete me for good"})
	oid, _ := bson.ObjectIDFromHex(a.ID)
	// An embedding row, as the semantic index writes one, must go too.
	if err := store.Index.Insert(ctx, &mongostore.IndexEntry{ID: oid, SourceID: oid, SourceCollection: mongostore.ConversationHistory, Scope: "Global", Embedding: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Forget(ctx, ForgetRequest{ID: a.ID, Hard: true})
	if err != nil || res.Count != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := store.Memories.Get(ctx, oid); !errors.Is(err, mongostore.ErrNotFound) {
		t.Fatalf("document still there: %v", err)
	}
	if _, err := store.Index.Get(ctx, oid); !errors.Is(err, mongostore.ErrNotFound) {
		t.Fatalf("embedding still there: %v", err)
	}
	if _, err := e.Unforget(ctx, []string{a.ID}); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.Search(ctx, SearchRequest{Query: "delete me"}); len(got.Results) != 0 {
		t.Fatalf("hard-deleted memory recalled: %v", texts(got.Results))
	}
}

func idsOf(items []Forgotten) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// TestForgetByQueryReachesEveryMatch: "forget everything about Apollo"
// reaches every memory that says Apollo, however it ranks (issue 12: one
// of five survived a top-k ranking), and a dry run lists them first.
func TestForgetByQueryReachesEveryMatch(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	ctx := testenv.Context(t)
	apollo := []string{
		"The Apollo deadline is December 19.",
		"Decided to use Terraform for the Apollo infrastructure.",
		"User: I'm worried the Apollo migration will slip because the vendor API is still undocumented.",
		"Apollo standup moved to 9:45.",
		"Dana owns the Apollo launch checklist.",
	}
	mustStoreTexts(t, e, apollo...)
	for _, c := range []string{"The Artemis migration is done.", "Lunch with Dana on Friday."} {
		mustStore(t, e, StoreRequest{Content: c})
	}
	dry, err := e.Forget(ctx, ForgetRequest{Query: "Apollo", DryRun: true})
	if err != nil || !dry.DryRun || dry.Count != 0 || dry.Matched != 5 || len(dry.Items) != 5 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	if res := search(t, e, SearchRequest{Query: "Apollo", Limit: 10}); len(relevant(res)) == 0 {
		t.Fatal("the dry run forgot something")
	}
	res, err := e.Forget(ctx, ForgetRequest{Query: "Apollo"})
	if err != nil || res.Count != 5 {
		t.Fatalf("forget: %+v %v", res, err)
	}
	got := texts(search(t, e, SearchRequest{Query: "Apollo", Limit: 10}).Results)
	for _, c := range apollo {
		if slices.Contains(got, c) {
			t.Errorf("survived: %q", c)
		}
	}
	if len(got) != 2 {
		t.Errorf("others forgotten too: left %v", got)
	}
}

func TestForgetByTagScopeQuery(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	for i := 0; i < 3; i++ {
		mustStore(t, e, StoreRequest{Content: fmt.Sprintf("temporary note %d", i), Tags: []string{"temp"}})
	}
	mustStore(t, e, StoreRequest{Content: "keep this note", Tags: []string{"keep"}})
	mustStore(t, e, StoreRequest{Content: "trip to Lisbon in July", Scope: "Travel"})
	mustStore(t, e, StoreRequest{Content: "hotel booked near Alfama", Scope: "Travel", Tags: []string{"temp"}})
	mustStore(t, e, StoreRequest{Content: "dentist appointment on Friday at 9", Scope: "Health"})

	res, err := e.Forget(ctx, ForgetRequest{Tag: "TEMP", Scope: "Global"})
	if err != nil || res.Count != 3 {
		t.Fatalf("tag within scope: %+v %v", res, err)
	}
	res, _ = e.Forget(ctx, ForgetRequest{Query: "dentist appointment"})
	if res.Count != 1 || !strings.Contains(res.Items[0].Text, "dentist") {
		t.Fatalf("query: %+v", res)
	}
	res, _ = e.Forget(ctx, ForgetRequest{Query: "dentist on Tuesday with Dr Ruiz"})
	if res.Count != 0 || !strings.Contains(res.Note, "no memory contains all the words") {
		t.Fatalf("a memory that lacks some of the words must not be forgotten: %+v", res)
	}
	for i := 0; i < 12; i++ {
		mustStore(t, e, StoreRequest{Content: fmt.Sprintf("reminder number %d", i)})
	}
	// Over QueryForgetConfirm matches, nothing is forgotten until the
	// count is confirmed; a stale count is refused.
	res, err = e.Forget(ctx, ForgetRequest{Query: "reminder"})
	if err != nil || res.Count != 0 || res.Matched != 12 || !res.NeedsConfirmation || len(res.Items) != 12 || !strings.Contains(res.Note, "confirm_count 12") {
		t.Fatalf("a query matching many must ask first: %+v %v", res, err)
	}
	if res, _ = e.Forget(ctx, ForgetRequest{Query: "reminder", ConfirmCount: 11}); res.Count != 0 || !res.NeedsConfirmation {
		t.Fatalf("wrong confirm_count accepted: %+v", res)
	}
	if res, _ = e.Forget(ctx, ForgetRequest{Query: "reminder", ConfirmCount: 12}); res.Count != 12 {
		t.Fatalf("confirmed forget: %+v", res)
	}
	if _, err := e.Unforget(ctx, idsOf(res.Items)); err != nil {
		t.Fatal(err)
	}
	res, err = e.Forget(ctx, ForgetRequest{Scope: "travel", Hard: true})
	if err != nil || res.Count != 2 || !res.ScopeDeleted || res.Scope != "Travel" {
		t.Fatalf("hard scope: %+v %v", res, err)
	}
	if _, ok := e.Scopes().Get("Travel"); ok {
		t.Fatal("scope definition survived a hard scope forget")
	}
	if _, err := e.Forget(ctx, ForgetRequest{Scope: "ALL"}); !IsInputError(err) {
		t.Fatalf("ALL: %v", err)
	}
	st, _ := e.Stats(ctx)
	if st.TotalMemories != 13 || st.Forgotten != 4 {
		t.Fatalf("stats after forgetting: %+v", st)
	}
}

func TestUpdateKeepsHistory(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	a := mustStore(t, e, StoreRequest{Content: "Apollo ships June 5", Tags: []string{"apollo"}})
	content := "Apollo ships June 12"
	imp := 0.9
	res, err := e.Update(ctx, UpdateRequest{ID: a.ID, Content: &content, AddTags: []string{"deadline"}, Importance: &imp})
	if err != nil || !slices.Equal(res.Changed, []string{"content", "tags", "importance"}) || res.PreviousText != "Apollo ships June 5" {
		t.Fatalf("%+v %v", res, err)
	}
	m, err := e.Get(ctx, a.ID)
	if err != nil || m.Text != content || len(m.History) != 1 || m.History[0].Text != "Apollo ships June 5" || !slices.Equal(m.Tags, []string{"apollo", "deadline"}) {
		t.Fatalf("%+v %v", m, err)
	}
	got, _ := e.Search(ctx, SearchRequest{Query: "June 12"})
	if len(got.Results) != 1 {
		t.Fatalf("new text not indexed: %v", texts(got.Results))
	}
	got, _ = e.Search(ctx, SearchRequest{Query: "5"})
	if len(got.Results) != 0 {
		t.Fatalf("old text still indexed: %v", texts(got.Results))
	}
	scope := "Work"
	res, _ = e.Update(ctx, UpdateRequest{ID: a.ID, Scope: &scope, RemoveTags: []string{"APOLLO"}})
	if !slices.Equal(res.Changed, []string{"tags", "scope"}) || res.Scope != "Work" {
		t.Fatalf("move: %+v", res)
	}
	if got, _ := e.Search(ctx, SearchRequest{Query: "Apollo", Scope: "Global", ExactScope: true}); len(got.Results) != 0 {
		t.Fatal("moved memory still in Global")
	}
	if _, err := e.Update(ctx, UpdateRequest{ID: a.ID}); !IsInputError(err) {
		t.Fatalf("empty update: %v", err)
	}
	if _, err := e.Update(ctx, UpdateRequest{ID: bson.NewObjectID().Hex(), Content: &content}); !IsInputError(err) {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestProfile(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	name := "Jane Doe"
	p, changed, err := e.UpdateProfile(ctx, ProfileUpdate{
		Name: &name, SetFacts: map[string]string{"Favorite Color": "blue", "birthday": "1990-05-15"},
		SetPreferences: map[string]string{"tone": "casual"},
		AddContacts:    []mongostore.Contact{{Name: "Alice", Relation: "sister"}},
		AddNotes:       []string{"allergic to penicillin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.Facts["favorite_color"] != "blue" || p.Name != name || len(p.Contacts) != 1 || len(changed) != 5 {
		t.Fatalf("%+v %v", p, changed)
	}
	p, changed, _ = e.UpdateProfile(ctx, ProfileUpdate{RemoveFacts: []string{"favorite color"}, AddContacts: []mongostore.Contact{{Name: "alice", Relation: "older sister"}}})
	if _, ok := p.Facts["favorite_color"]; ok || len(p.Contacts) != 1 || p.Contacts[0].Relation != "older sister" {
		t.Fatalf("%+v %v", p, changed)
	}
	again, err := e.Profile(ctx)
	if err != nil || again.Facts["birthday"] != "1990-05-15" || again.Contacts[0].Relation != "older sister" {
		t.Fatalf("read back: %+v %v", again, err)
	}
	if _, _, err := e.UpdateProfile(ctx, ProfileUpdate{SetFacts: map[string]string{"$where": "x"}}); !IsInputError(err) {
		t.Fatalf("bad key: %v", err)
	}
	if _, _, err := e.UpdateProfile(ctx, ProfileUpdate{SetFacts: map[string]string{"k": " "}}); !IsInputError(err) {
		t.Fatalf("empty value: %v", err)
	}
	if _, changed, _ := e.UpdateProfile(ctx, ProfileUpdate{SetFacts: map[string]string{"birthday": "1990-05-15"}}); len(changed) != 0 {
		t.Fatalf("no-op update reported changes: %v", changed)
	}
}

func TestListSortAndPaging(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	for i := 0; i < 25; i++ {
		imp := float64(i) / 25
		mustStore(t, e, StoreRequest{Content: fmt.Sprintf("item %02d", i), Importance: &imp, Timestamp: time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC)})
	}
	l, err := e.List(ctx, ListRequest{Limit: 10})
	if err != nil || len(l.Memories) != 10 || l.Total != 25 || l.NextOffset != 10 || l.Memories[0].Text != "item 24" {
		t.Fatalf("first page: %+v %v", l.Total, err)
	}
	l, _ = e.List(ctx, ListRequest{Limit: 10, Offset: 20})
	if len(l.Memories) != 5 || l.NextOffset != 0 {
		t.Fatalf("last page: %d next %d", len(l.Memories), l.NextOffset)
	}
	l, _ = e.List(ctx, ListRequest{Sort: "oldest", Limit: 1})
	if l.Memories[0].Text != "item 00" {
		t.Fatal(l.Memories[0].Text)
	}
	l, _ = e.List(ctx, ListRequest{Sort: "importance", Limit: 1})
	if l.Memories[0].Text != "item 24" {
		t.Fatal(l.Memories[0].Text)
	}
	if _, err := e.List(ctx, ListRequest{Sort: "random"}); !IsInputError(err) {
		t.Fatal(err)
	}
	if _, err := e.List(ctx, ListRequest{Limit: 1000}); !IsInputError(err) {
		t.Fatal(err)
	}
}

func TestRetrievalCountsUse(t *testing.T) {
	e, store, _ := newEngine(t)
	ctx := testenv.Context(t)
	a := mustStore(t, e, StoreRequest{Content: "favourite tea is genmaicha"})
	for i := 0; i < 3; i++ {
		e.Search(ctx, SearchRequest{Query: "genmaicha"})
	}
	e.access.Settle()
	oid, _ := bson.ObjectIDFromHex(a.ID)
	doc, _ := store.Memories.Get(ctx, oid)
	if doc.UseCount != 3 || doc.LastAccessed == nil {
		t.Fatalf("use_count %d last_accessed %v", doc.UseCount, doc.LastAccessed)
	}
	l, _ := e.List(ctx, ListRequest{Sort: "most_used", Limit: 1})
	if l.Memories[0].ID != a.ID {
		t.Fatal("most_used order")
	}
}

func TestIndexReloadsFromDatabase(t *testing.T) {
	store := testenv.Store(t)
	e1, _, _ := engineOn(t, store)
	ctx := testenv.Context(t)
	a := mustStore(t, e1, StoreRequest{Content: "persisted across restarts", Scope: "Work", Tags: []string{"durable"}})
	b := mustStore(t, e1, StoreRequest{Content: "forgotten across restarts"})
	e1.Forget(ctx, ForgetRequest{ID: b.ID})
	e1.Close(ctx)

	e2, _, _ := engineOn(t, store)
	got, err := e2.Search(ctx, SearchRequest{Query: "restarts", Limit: 10})
	if err != nil || !slices.Equal(texts(got.Results), []string{"persisted across restarts"}) || got.Results[0].ID != a.ID {
		t.Fatalf("%+v %v", got, err)
	}
	if dup := mustStore(t, e2, StoreRequest{Content: "Persisted across restarts", Scope: "work"}); dup.DuplicateOf != a.ID {
		t.Fatalf("dedup after reload: %+v", dup)
	}
	if err := e2.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := e2.Search(ctx, SearchRequest{Query: "restarts", Tags: []string{"durable"}}); len(got.Results) != 1 {
		t.Fatalf("after Reload: %v", texts(got.Results))
	}
}

func TestRequestsWaitForLoad(t *testing.T) {
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	reg, _ := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	e := New(store, reg, Options{LoadWait: 50 * time.Millisecond})
	// Never started: the index never becomes ready.
	_, err := e.Search(ctx, SearchRequest{Query: "x"})
	if !errors.Is(err, ErrLoading) || !strings.Contains(err.Error(), "try again") {
		t.Fatalf("%v", err)
	}
}

func TestConcurrentStoresAndSearches(t *testing.T) {
	e, store, _ := newEngine(t)
	ctx := testenv.Context(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ids := map[string]bool{}
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				res, err := e.Store(ctx, StoreRequest{Content: fmt.Sprintf("worker %d wrote note %d about rockets", w, i), Tags: []string{"load"}})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				ids[res.ID] = true
				mu.Unlock()
				if _, err := e.Search(ctx, SearchRequest{Query: "rockets", Limit: 5}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	// The same text stored concurrently must land once.
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.Store(ctx, StoreRequest{Content: "one shared fact"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if len(ids) != 100 {
		t.Fatalf("%d distinct ids", len(ids))
	}
	if n, _ := store.Memories.EstimatedCount(ctx); n != 101 {
		t.Fatalf("%d documents, want 101", n)
	}
	l, _ := e.List(ctx, ListRequest{Tags: []string{"load"}, Limit: 100})
	if l.Total != 100 {
		t.Fatalf("index holds %d", l.Total)
	}
}

func mustOID(t *testing.T, id string) bson.ObjectID {
	t.Helper()
	oid, err := bson.ObjectIDFromHex(id)
	if err != nil {
		t.Fatal(err)
	}
	return oid
}

// TestUserLocationCached: the zone the profile names is read from the
// database at most once per peopleTTL (every retrieval formats its
// results' times in it); the engine's own profile updates are seen at
// once, another writer's once the cache is dropped or old.
func TestUserLocationCached(t *testing.T) {
	e, store, _ := newEngine(t)
	ctx := testenv.Context(t)
	if loc, err := e.UserLocation(ctx); err != nil || loc != la {
		t.Fatalf("no zone in the profile: %v %v, want the configured %v", loc, err, la)
	}
	if _, _, err := e.UpdateProfile(ctx, ProfileUpdate{SetPreferences: map[string]string{"time_zone": "Asia/Tokyo"}}); err != nil {
		t.Fatal(err)
	}
	if loc, err := e.UserLocation(ctx); err != nil || loc.String() != "Asia/Tokyo" {
		t.Fatalf("after the engine's own update: %v %v, want Asia/Tokyo", loc, err)
	}
	// Another writer (a synced device) changes the profile behind the engine.
	p, err := store.Profiles.Get(ctx, mongostore.DefaultUserID)
	if err != nil {
		t.Fatal(err)
	}
	p.Preferences["time_zone"] = "Europe/Paris"
	if err := store.Profiles.Replace(ctx, mongostore.DefaultUserID, p); err != nil {
		t.Fatal(err)
	}
	if loc, _ := e.UserLocation(ctx); loc.String() != "Asia/Tokyo" {
		t.Fatalf("read the profile again within its TTL: %v", loc)
	}
	e.people.drop() // what peopleTTL's expiry does
	if loc, err := e.UserLocation(ctx); err != nil || loc.String() != "Europe/Paris" {
		t.Fatalf("after the cache's expiry: %v %v, want Europe/Paris", loc, err)
	}
	// A zone that is not valid: the configured one, and why.
	p.Preferences["time_zone"] = "Mars/Olympus"
	if err := store.Profiles.Replace(ctx, mongostore.DefaultUserID, p); err != nil {
		t.Fatal(err)
	}
	e.people.drop()
	if loc, err := e.UserLocation(ctx); err == nil || loc != la {
		t.Fatalf("invalid zone: %v %v, want the configured zone and an error", loc, err)
	}
}
