package webui

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/infmem/infmem/internal/clip"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/timephrase"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

//go:embed static/index.html static/app.js static/app.css static/favicon.svg
var static embed.FS

type sessionKey struct{}

func withSession(ctx context.Context, s *session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

func sessionOf(ctx context.Context) *session {
	s, _ := ctx.Value(sessionKey{}).(*session)
	return s
}

// routes is the page and its API, behind guard.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", asset("static/index.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /app.js", asset("static/app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /app.css", asset("static/app.css", "text/css; charset=utf-8"))
	// The icon, also at the path browsers ask for by themselves.
	mux.HandleFunc("GET /favicon.svg", asset("static/favicon.svg", "image/svg+xml"))
	mux.HandleFunc("GET /favicon.ico", asset("static/favicon.svg", "image/svg+xml"))

	mux.HandleFunc("GET /api/session", s.getSession)
	mux.Handle("GET /api/stats", s.api(s.stats))
	mux.Handle("GET /api/search", s.api(s.search))
	mux.Handle("GET /api/memories", s.api(s.list))
	mux.Handle("GET /api/memories/{id}", s.api(s.get))
	mux.Handle("POST /api/memories/{id}/update", s.api(s.update))
	mux.Handle("POST /api/memories/{id}/forget", s.api(s.forget))
	mux.Handle("POST /api/memories/{id}/confirm-lesson", s.api(s.confirmLesson))
	mux.Handle("POST /api/unforget", s.api(s.unforget))
	mux.Handle("GET /api/scopes", s.api(s.scopes))
	mux.Handle("POST /api/scopes", s.api(s.createScope))
	mux.Handle("POST /api/scopes/active", s.api(s.setScopeActive))
	mux.Handle("POST /api/scopes/describe", s.api(s.describeScope))
	mux.Handle("GET /api/profile", s.api(s.profile))
	mux.Handle("POST /api/profile", s.api(s.updateProfile))
	mux.Handle("GET /api/timeline", s.api(s.timeline))
	mux.Handle("GET /api/maintenance", s.api(s.maintenanceView))
	mux.Handle("POST /api/maintenance/undo", s.api(s.undo))
	mux.Handle("POST /api/maintenance/run", s.plain(s.runMaintenance))
	mux.Handle("GET /api/backups", s.plain(s.backupsView))
	mux.Handle("POST /api/backups/now", s.plain(s.backupNow))
	mux.Handle("POST /api/backups/verify", s.plain(s.verifyBackup))
	mux.HandleFunc("GET /api/tasks/{id}", s.getTask)
	return s.guard(mux)
}

func asset(name, contentType string) http.HandlerFunc {
	b, err := static.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(b)
	}
}

// getSession gives the page its CSRF token (readable only by the page
// itself: no other origin may read this answer).
func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	sess := sessionOf(r.Context())
	writeJSON(w, http.StatusOK, map[string]string{"csrf_token": string(sess.csrf), "version": s.opts.Version})
}

// apiFunc handles one API call with the engine.
type apiFunc func(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error)

// api waits for the memory as a tool call does, runs fn and answers JSON:
// refused input 400, unknown id 404, still loading 503, anything else 500
// (logged, redacted).
func (s *Server) api(fn apiFunc) http.Handler { return s.apiWith(true, fn) }

// apiWith is api; without needEngine fn gets no engine and nothing waits
// for the memory (the backups view works while it loads).
func (s *Server) apiWith(needEngine bool, fn apiFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var eng *memory.Engine
		release := func() {}
		var err error
		if needEngine {
			eng, release, err = s.opts.Memory(r.Context())
		}
		var out any
		if err == nil {
			func() {
				defer release()
				out, err = fn(r.Context(), eng, r)
			}()
		}
		if err == nil {
			writeJSON(w, http.StatusOK, out)
			return
		}
		var bad badRequest
		var busy conflict
		switch {
		case errors.As(err, &bad), memory.IsInputError(err):
			writeError(w, http.StatusBadRequest, err.Error())
		case errors.As(err, &busy):
			writeError(w, http.StatusConflict, err.Error())
		case errors.Is(err, errNoService):
			writeError(w, http.StatusNotImplemented, err.Error())
		case errors.Is(err, memory.ErrNotFound):
			writeError(w, http.StatusNotFound, err.Error())
		case errors.Is(err, memory.ErrLoading):
			writeError(w, http.StatusServiceUnavailable, err.Error())
		default:
			msg := s.opts.Redact(err.Error())
			s.log.Error("UI request failed", "path", r.URL.Path, "err", msg)
			writeError(w, http.StatusInternalServerError, msg)
		}
	})
}

// badRequest is input the UI's API refuses before the engine sees it.
type badRequest struct{ msg string }

func (b badRequest) Error() string { return b.msg }

func badf(format string, args ...any) error { return badRequest{fmt.Sprintf(format, args...)} }

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cannot encode the answer")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": clip.Text(msg)})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}

// decode reads a JSON body strictly: an unknown field is refused.
func decode(r *http.Request, into any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return badf("cannot read the request: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return badf("the request is not valid: %v", err)
	}
	return nil
}

// memoryOut is one memory as the page shows it.
type memoryOut struct {
	ID             string        `json:"id"`
	Text           string        `json:"text"`
	Source         string        `json:"source"`
	Path           string        `json:"path,omitempty"`
	Scope          string        `json:"scope"`
	Tags           []string      `json:"tags"`
	Importance     float64       `json:"importance"`
	Category       string        `json:"category,omitempty"`
	ConversationID string        `json:"conversation_id,omitempty"`
	Speaker        string        `json:"speaker,omitempty"`
	Timestamp      time.Time     `json:"timestamp"`
	CreatedAt      time.Time     `json:"created_at"`
	UpdatedAt      time.Time     `json:"updated_at"`
	UseCount       int64         `json:"use_count"`
	LastAccessed   *time.Time    `json:"last_accessed,omitempty"`
	ForgottenAt    *time.Time    `json:"forgotten_at,omitempty"`
	Archived       bool          `json:"archived,omitempty"`
	Pinned         bool          `json:"pinned,omitempty"`
	MergedInto     string        `json:"merged_into,omitempty"`
	History        []revisionOut `json:"history,omitempty"`
	Confidence     *float64      `json:"confidence,omitempty"`
	Weak           bool          `json:"weak,omitempty"`
	// Folded counts the look-alike copies a search showed as this one.
	Folded int `json:"folded,omitempty"`
	// Context are the turns next to it in its conversation that a search
	// folded into it (memory.Memory.Context), shown under it.
	Context []turnOut `json:"context,omitempty"`
	// SupersededBy, Supersedes and Contradicts: knowledge updates (the
	// memory engine's supersede.go).
	SupersededBy *linkOut  `json:"superseded_by,omitempty"`
	Supersedes   []linkOut `json:"supersedes,omitempty"`
	Contradicts  []linkOut `json:"contradicts,omitempty"`
	// Related is set on one memory's page only (get).
	Related *relatedOut `json:"related,omitempty"`
}

// turnOut is a conversation turn shown as a result's context.
type turnOut struct {
	ID        string    `json:"id"`
	Text      string    `json:"text"`
	Speaker   string    `json:"speaker,omitempty"`
	Timestamp time.Time `json:"timestamp"`
}

func turnsOut(ts []memory.Turn) []turnOut {
	var out []turnOut
	for _, t := range ts {
		out = append(out, turnOut{ID: t.ID, Text: t.Text, Speaker: t.Speaker, Timestamp: t.Timestamp})
	}
	return out
}

// linkOut names a memory another one updates, is updated by or
// contradicts.
type linkOut struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

func linksOut(ls []memory.Link) []linkOut {
	var out []linkOut
	for _, l := range ls {
		out = append(out, linkOut{ID: l.ID, Text: l.Text})
	}
	return out
}

// relatedOut is how a memory stands to others (Engine.Relations).
type relatedOut struct {
	// MergedInto is the memory this forgotten duplicate was merged into.
	MergedInto *memoryOut `json:"merged_into,omitempty"`
	// Merged are the duplicates merged into this memory, newest first;
	// MergedUnchecked counts forgotten memories not checked (a bound).
	Merged          []memoryOut `json:"merged"`
	MergedUnchecked int         `json:"merged_unchecked,omitempty"`
	// Sources are a summary's messages; SourcesTotal counts them all and
	// SourcesGone those deleted for good.
	Sources      []memoryOut `json:"sources"`
	SourcesTotal int         `json:"sources_total"`
	SourcesGone  int         `json:"sources_gone,omitempty"`
	// Summaries are the summaries of a message's conversation.
	Summaries []memoryOut `json:"summaries"`
}

func toOuts(ms []memory.Memory) []memoryOut {
	out := make([]memoryOut, len(ms))
	for i, m := range ms {
		out[i] = toOut(m, false)
	}
	return out
}

type revisionOut struct {
	Text       string    `json:"text"`
	Tags       []string  `json:"tags"`
	Importance float64   `json:"importance"`
	Scope      string    `json:"scope"`
	Category   string    `json:"category,omitempty"`
	ChangedAt  time.Time `json:"changed_at"`
}

func toOut(m memory.Memory, history bool) memoryOut {
	o := memoryOut{ID: m.ID, Text: m.Text, Source: m.Source, Path: m.Path, Scope: m.Scope, Tags: m.Tags, Importance: m.Importance,
		Category: m.Category, ConversationID: m.ConversationID, Speaker: m.Speaker, Timestamp: m.Timestamp, CreatedAt: m.CreatedAt,
		UpdatedAt: m.UpdatedAt, UseCount: m.UseCount, LastAccessed: m.LastAccessed, ForgottenAt: m.ForgottenAt, Archived: m.Archived,
		Pinned: m.Pinned, MergedInto: m.MergedInto, Supersedes: linksOut(m.Supersedes), Contradicts: linksOut(m.Contradicts)}
	if m.SupersededBy != nil {
		o.SupersededBy = &linkOut{ID: m.SupersededBy.ID, Text: m.SupersededBy.Text}
	}
	if o.Tags == nil {
		o.Tags = []string{}
	}
	if history {
		for _, h := range m.History {
			o.History = append(o.History, toRevision(h))
		}
	}
	return o
}

func toRevision(h mongostore.Revision) revisionOut {
	tags := h.Tags
	if tags == nil {
		tags = []string{}
	}
	return revisionOut{Text: h.Text, Tags: tags, Importance: h.Importance, Scope: h.Scope, Category: h.Category, ChangedAt: h.ChangedAt}
}

// stats are the header's counts, from the index alone (Engine.Counts:
// Engine.Stats would also ask the database for its size, a second at 100k
// memories, on every view).
func (s *Server) stats(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	c, err := eng.Counts(ctx)
	if err != nil {
		return nil, err
	}
	// time_zone is the zone the page shows times in (the user's, as the
	// tools read it); empty: the browser's own.
	zone := userLocation(ctx, eng).String()
	if zone == "Local" {
		zone = ""
	}
	return map[string]any{"total": c.Live, "forgotten": c.Forgotten, "archived": c.Archived,
		"summaries": c.Summaries, "scopes": c.Scopes, "index_ready": eng.Ready(), "time_zone": zone}, nil
}

// filters are the query parameters search and browse share.
type filters struct {
	scope, source string
	tags          []string
	from, to      time.Time
	limit, offset int
}

func readFilters(r *http.Request, loc *time.Location) (filters, error) {
	q := r.URL.Query()
	f := filters{scope: strings.TrimSpace(q.Get("scope")), source: strings.TrimSpace(q.Get("source"))}
	for _, t := range q["tag"] {
		if t = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(t), "#")); t != "" {
			f.tags = append(f.tags, t)
		}
	}
	var err error
	if f.from, err = day(q.Get("from"), loc, false); err != nil {
		return f, err
	}
	if f.to, err = day(q.Get("to"), loc, true); err != nil {
		return f, err
	}
	if f.limit, err = intParam(q.Get("limit"), 0); err != nil {
		return f, err
	}
	if f.offset, err = intParam(q.Get("offset"), 0); err != nil {
		return f, err
	}
	return f, nil
}

// day reads a YYYY-MM-DD date in loc; end gives the start of the next day
// (the period includes the whole day).
func day(s string, loc *time.Location, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation("2006-01-02", s, loc)
	if err != nil {
		return time.Time{}, badf("%q is not a date like 2024-03-05", s)
	}
	if end {
		t = t.AddDate(0, 0, 1)
	}
	return t, nil
}

func intParam(s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, badf("%q is not a number", s)
	}
	return n, nil
}

// search ranks memories by a query exactly as retrieve_memory does (the
// same Engine.Search, the user's time zone for time words), with each
// result's confidence; unlike the tool's, it does not count as a use of
// the memories found. Rankings stop at memory.MaxLimit results, as the
// tool's do; browsing (list) pages through everything.
func (s *Server) search(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	loc := userLocation(ctx, eng)
	f, err := readFilters(r, loc)
	if err != nil {
		return nil, err
	}
	query := r.URL.Query().Get("q")
	if strings.TrimSpace(query) == "" {
		return nil, badf("type something to search for")
	}
	if f.limit == 0 {
		f.limit = 20
	}
	f.limit = min(f.limit, memory.MaxLimit)
	var qloc *time.Location
	if _, ok := timephrase.Scan(query, time.Now(), eng.Location()); ok {
		qloc = loc
	}
	res, err := eng.Search(ctx, memory.SearchRequest{Query: query, Scope: f.scope, Tags: f.tags, Source: f.source,
		From: f.from, To: f.to, Limit: f.limit, Location: qloc,
		// A person looking is not Claude recalling: the page's searches do
		// not count as use (use keeps memories from being pruned).
		NoTouch: true})
	if err != nil {
		return nil, err
	}
	out := struct {
		Results         []memoryOut `json:"results"`
		NothingRelevant bool        `json:"nothing_relevant"`
		Scopes          []string    `json:"scopes_searched"`
		Note            string      `json:"note,omitempty"`
		Limit           int         `json:"limit"`
		MaxLimit        int         `json:"max_limit"`
	}{Results: []memoryOut{}, NothingRelevant: res.NothingRelevant, Scopes: res.Scopes, Note: res.Note, Limit: f.limit, MaxLimit: memory.MaxLimit}
	for _, m := range res.Results {
		o := toOut(m, false)
		c := m.Confidence
		o.Confidence, o.Weak, o.Folded, o.Context = &c, m.Weak, m.Folded, turnsOut(m.Context)
		out.Results = append(out.Results, o)
	}
	return out, nil
}

// list browses memories with filters and paging (Engine.List, as
// list_memories); it does not count as use.
func (s *Server) list(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	f, err := readFilters(r, userLocation(ctx, eng))
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	req := memory.ListRequest{Scope: f.scope, Tags: f.tags, Source: f.source, From: f.from, To: f.to,
		Sort: q.Get("sort"), Limit: f.limit, Offset: f.offset, IncludeArchived: q.Get("archived") == "1"}
	switch q.Get("forgotten") {
	case "", "hide":
	case "include":
		req.IncludeForgotten = true
	case "only":
		req.OnlyForgotten = true
	default:
		return nil, badf("forgotten must be hide, include or only")
	}
	if req.Limit == 0 {
		req.Limit = 50
	}
	res, err := eng.List(ctx, req)
	if err != nil {
		return nil, err
	}
	out := struct {
		Memories   []memoryOut `json:"memories"`
		Total      int         `json:"total"`
		Offset     int         `json:"offset"`
		NextOffset int         `json:"next_offset,omitempty"`
		Scopes     []string    `json:"scopes_searched"`
	}{Memories: []memoryOut{}, Total: res.Total, Offset: f.offset, NextOffset: res.NextOffset, Scopes: res.Scopes}
	for _, m := range res.Memories {
		out.Memories = append(out.Memories, toOut(m, false))
	}
	return out, nil
}

func (s *Server) get(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	m, err := eng.Get(ctx, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	o := toOut(m, true)
	rel, err := eng.Relations(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	o.Related = &relatedOut{Merged: toOuts(rel.Merged), MergedUnchecked: rel.MergedUnchecked, Sources: toOuts(rel.Sources),
		SourcesTotal: rel.SourcesTotal, SourcesGone: rel.SourcesGone, Summaries: toOuts(rel.Summaries)}
	if rel.MergedInto != nil {
		k := toOut(*rel.MergedInto, false)
		o.Related.MergedInto = &k
	}
	return o, nil
}

type updateIn struct {
	Text       *string   `json:"text,omitempty"`
	Tags       *[]string `json:"tags,omitempty"`
	Importance *float64  `json:"importance,omitempty"`
	Category   *string   `json:"category,omitempty"`
	Scope      *string   `json:"scope,omitempty"`
	Pinned     *bool     `json:"pinned,omitempty"`
	// SupersededBy "" makes a superseded memory current again.
	SupersededBy *string `json:"superseded_by,omitempty"`
}

// update edits a memory through Engine.Update, as update_memory does.
func (s *Server) update(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	var in updateIn
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	res, err := eng.Update(ctx, memory.UpdateRequest{ID: r.PathValue("id"), Content: in.Text, Tags: in.Tags,
		Importance: in.Importance, Category: in.Category, Scope: in.Scope, Pinned: in.Pinned, SupersededBy: in.SupersededBy})
	if err != nil {
		return nil, err
	}
	if res.Changed == nil {
		res.Changed = []string{}
	}
	return map[string]any{"id": res.ID, "changed": res.Changed, "scope": res.Scope, "merged_into": res.MergedInto}, nil
}

type forgetIn struct {
	// Mode is soft (default) or hard.
	Mode string `json:"mode,omitempty"`
	// Confirm must repeat the memory's id for a hard delete: the page
	// sends it only after the user confirmed.
	Confirm string `json:"confirm,omitempty"`
}

// confirmLesson makes a proposed lesson one (memory.Engine.ConfirmLesson):
// the user confirms it on the page.
func (s *Server) confirmLesson(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	var in struct{}
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	m, confirmed, err := eng.ConfirmLesson(ctx, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": m.ID, "confirmed": confirmed}, nil
}

// forget forgets one memory through Engine.Forget, as delete_memory does.
func (s *Server) forget(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	var in forgetIn
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	hard := false
	switch in.Mode {
	case "", "soft":
	case "hard":
		if in.Confirm != id {
			return nil, badf("deleting for good needs confirmation")
		}
		hard = true
	default:
		return nil, badf("mode must be soft or hard")
	}
	res, err := eng.Forget(ctx, memory.ForgetRequest{ID: id, Hard: hard})
	if err != nil {
		return nil, err
	}
	return map[string]any{"count": res.Count, "note": res.Note, "hard": hard}, nil
}

type unforgetIn struct {
	IDs []string `json:"ids"`
}

func (s *Server) unforget(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	var in unforgetIn
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	restored, err := eng.Unforget(ctx, in.IDs)
	if err != nil {
		return nil, err
	}
	if restored == nil {
		restored = []string{}
	}
	return map[string]any{"restored": restored}, nil
}

type scopeOut struct {
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Parent      string    `json:"parent,omitempty"`
	Active      bool      `json:"active"`
	Keywords    []string  `json:"related_keywords"`
	Memories    int       `json:"memories"`
	CreatedAt   time.Time `json:"created_at"`
}

func (s *Server) scopes(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	list, err := eng.ListScopes(ctx, true)
	if err != nil {
		return nil, err
	}
	out := []scopeOut{}
	for _, sc := range list {
		out = append(out, toScopeOut(sc))
	}
	return map[string]any{"scopes": out}, nil
}

func toScopeOut(sc memory.ScopeInfo) scopeOut {
	return scopeOut{Name: sc.Name, Description: sc.Description, Parent: sc.Parent, Active: sc.Active,
		Keywords: sc.RelatedKeywords, Memories: sc.Memories, CreatedAt: sc.CreatedAt}
}

type scopeCreateIn struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Parent      string `json:"parent,omitempty"`
}

// createScope defines a scope through Engine.CreateScope, as
// create_memory_scope does; one that exists is answered with created
// false and left as it is.
func (s *Server) createScope(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	var in scopeCreateIn
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	info, created, err := eng.CreateScope(ctx, scopes.Scope{Name: in.Name, Description: in.Description, Parent: strings.TrimSpace(in.Parent)})
	if err != nil {
		return nil, err
	}
	return map[string]any{"scope": toScopeOut(info), "created": created}, nil
}

type scopeDescribeIn struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// describeScope replaces a scope's description (Engine.DescribeScope).
func (s *Server) describeScope(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	var in scopeDescribeIn
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	info, err := eng.DescribeScope(ctx, in.Name, in.Description)
	if err != nil {
		return nil, err
	}
	return map[string]any{"scope": toScopeOut(info)}, nil
}

type scopeActiveIn struct {
	Name   string `json:"name"`
	Active bool   `json:"active"`
}

func (s *Server) setScopeActive(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	var in scopeActiveIn
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	info, err := eng.SetScopeActive(ctx, in.Name, in.Active)
	if err != nil {
		return nil, err
	}
	return map[string]any{"name": info.Name, "active": info.Active}, nil
}

type profileOut struct {
	Name        string               `json:"name"`
	Preferences map[string]string    `json:"preferences"`
	Facts       map[string]string    `json:"facts"`
	Contacts    []mongostore.Contact `json:"contacts"`
	Notes       []string             `json:"notes"`
	UpdatedAt   time.Time            `json:"updated_at"`
}

func toProfileOut(p memory.Profile) profileOut {
	return profileOut{Name: p.Name, Preferences: p.Preferences, Facts: p.Facts, Contacts: p.Contacts, Notes: p.Notes, UpdatedAt: p.UpdatedAt}
}

func (s *Server) profile(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	p, err := eng.Profile(ctx)
	if err != nil {
		return nil, err
	}
	return toProfileOut(p), nil
}

type profileIn struct {
	Name              *string              `json:"name,omitempty"`
	SetPreferences    map[string]string    `json:"set_preferences,omitempty"`
	RemovePreferences []string             `json:"remove_preferences,omitempty"`
	SetFacts          map[string]string    `json:"set_facts,omitempty"`
	RemoveFacts       []string             `json:"remove_facts,omitempty"`
	AddContacts       []mongostore.Contact `json:"add_contacts,omitempty"`
	RemoveContacts    []string             `json:"remove_contacts,omitempty"`
	AddNotes          []string             `json:"add_notes,omitempty"`
	RemoveNotes       []string             `json:"remove_notes,omitempty"`
}

// updateProfile changes the profile through Engine.UpdateProfile, as
// update_user_profile does.
func (s *Server) updateProfile(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	var in profileIn
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	p, changed, err := eng.UpdateProfile(ctx, memory.ProfileUpdate{Name: in.Name, SetPreferences: in.SetPreferences,
		RemovePreferences: in.RemovePreferences, SetFacts: in.SetFacts, RemoveFacts: in.RemoveFacts, AddContacts: in.AddContacts,
		RemoveContacts: in.RemoveContacts, AddNotes: in.AddNotes, RemoveNotes: in.RemoveNotes})
	if err != nil {
		return nil, err
	}
	if changed == nil {
		changed = []string{}
	}
	return map[string]any{"profile": toProfileOut(p), "changed": changed}, nil
}

// userLocation is the zone dates are read in, as the MCP tools read them:
// the profile's time_zone, else the engine's configured zone.
func userLocation(ctx context.Context, eng *memory.Engine) *time.Location {
	loc, _ := eng.UserLocation(ctx)
	return loc
}
