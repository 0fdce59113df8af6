package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/internal/clip"
	"github.com/infmem/infmem/internal/memory"
)

// Resources are what a user attaches to a conversation from the client's
// menu; prompts (prompts.go) are what they start one with. Both hand the
// model stored text, so both carry the recalled_memory label the tools
// use, quote every stored text as a JSON string (a memory cannot open a
// line of its own), and are capped in size.

// Size caps.
const (
	// MaxResourceBytes caps a resource's text.
	MaxResourceBytes = 16 << 10
	// MaxPromptBytes caps the text of a prompt's messages.
	MaxPromptBytes = 8 << 10
	// maxItemText shortens one memory's text in a resource or prompt.
	maxItemText = 1000
	// recentLimit is how many memories a recent-memories resource reads.
	recentLimit = 50
)

// Resource URIs.
const (
	uriProfile     = "memory://profile"
	uriScopes      = "memory://scopes"
	uriRecent      = "memory://recent"
	uriScopeRecent = "memory://scope/{name}/recent"
)

// Resources returns the fixed resources: the user profile, the scopes,
// and the newest memories this session sees.
func Resources(d Deps) []server.ServerResource {
	d = d.withDefaults()
	return []server.ServerResource{
		{
			Resource: mcp.NewResource(uriProfile, "profile",
				mcp.WithResourceTitle("User profile"),
				mcp.WithResourceDescription("What infmem knows about the user: name, preferences, facts, important people, notes."),
				mcp.WithMIMEType("text/plain")),
			Handler: resourceHandler(d, profileText),
		},
		{
			Resource: mcp.NewResource(uriScopes, "scopes",
				mcp.WithResourceTitle("Memory scopes"),
				mcp.WithResourceDescription("The memory scopes (contexts) with their descriptions, parents and memory counts, and this session's active scope."),
				mcp.WithMIMEType("text/plain")),
			Handler: resourceHandler(d, scopesText),
		},
		{
			Resource: mcp.NewResource(uriRecent, "recent",
				mcp.WithResourceTitle("Recent memories"),
				mcp.WithResourceDescription("The newest memories of this session's active scope (with its parents and Global; every scope when none is active), newest first."),
				mcp.WithMIMEType("text/plain")),
			Handler: resourceHandler(d, recentText),
		},
	}
}

// ResourceTemplates returns the parameterised resources: the newest
// memories of a named scope.
func ResourceTemplates(d Deps) []server.ServerResourceTemplate {
	d = d.withDefaults()
	return []server.ServerResourceTemplate{{
		Template: mcp.NewResourceTemplate(uriScopeRecent, "scope-recent",
			mcp.WithTemplateTitle("Recent memories of a scope"),
			mcp.WithTemplateDescription("The newest memories of one scope and the scopes beneath it, newest first. Percent-encode the name: memory://scope/Work%2FApollo/recent."),
			mcp.WithTemplateMIMEType("text/plain")),
		Handler: server.ResourceTemplateHandlerFunc(resourceHandler(d, scopeRecentText)),
	}}
}

// resourceHandler adapts a function that writes a resource's text to an
// MCP resource handler: it gets the memory engine for the call and turns
// failures into errors that say what went wrong, in words for the user.
func resourceHandler(d Deps, fn func(ctx context.Context, c call, req mcp.ReadResourceRequest) (string, error)) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		uri := req.Params.URI
		var text string
		err := withCall(ctx, d, func(c call) (err error) {
			text, err = fn(ctx, c, req)
			return err
		})
		if err != nil {
			return nil, describeFailure(d, uri, err)
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: text}}, nil
	}
}

// withCall runs fn with the memory engine and the session's scope.
func withCall(ctx context.Context, d Deps, fn func(c call) error) error {
	eng, release, err := d.Memory(ctx)
	if err != nil {
		return err
	}
	defer release()
	return fn(call{eng: eng, sess: sessionScope(ctx, d.fallback), deps: d})
}

// describeFailure words a failed resource read or prompt as an error for
// the client: the user's mistake or a wait as it is, anything else as a
// failure, logged.
func describeFailure(d Deps, what string, err error) error {
	what = clip.Text(what) // a resource's URI may carry any name
	switch {
	case memory.IsInputError(err), errors.Is(err, memory.ErrLoading), errors.Is(err, errInput):
		return errors.New(clip.Text(fmt.Sprintf("%s: %s", what, err.Error())))
	case errors.As(err, new(refusal)):
		return errors.New(clip.Text(fmt.Sprintf("%s: %s", what, d.Redact(err.Error()))))
	}
	msg := clip.Text(d.Redact(err.Error()))
	d.Logger.Error("reading a resource or prompt failed", "what", what, "err", msg)
	return errors.New(failureText(what, msg))
}

func profileText(ctx context.Context, c call, _ mcp.ReadResourceRequest) (string, error) {
	p, err := c.eng.Profile(ctx)
	if err != nil {
		return "", err
	}
	t := newCapped(MaxResourceBytes, "get_user_profile returns all of it")
	empty := p.Name == "" && len(p.Preferences) == 0 && len(p.Facts) == 0 && len(p.Contacts) == 0 && len(p.Notes) == 0
	if empty {
		t.must("The user profile is empty: nothing is known about the user yet. Facts the user tells about themselves go there with update_user_profile.")
		return t.String(), nil
	}
	t.must("The user's profile, as stored in infmem" + updated(p) + ".")
	t.label()
	if p.Name != "" {
		t.must("name: " + quote(p.Name))
	}
	section := func(title string, m map[string]string) {
		if len(m) == 0 {
			return
		}
		t.item(title + ":")
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			t.item("- " + quote(k) + ": " + quote(shorten(m[k])))
		}
	}
	section("preferences", p.Preferences)
	section("facts", p.Facts)
	if len(p.Contacts) > 0 {
		t.item("contacts:")
		for _, ct := range p.Contacts {
			line := "- " + quote(ct.Name)
			if ct.Relation != "" {
				line += " (relation " + quote(ct.Relation) + ")"
			}
			if ct.Notes != "" {
				line += ": " + quote(shorten(ct.Notes))
			}
			t.item(line)
		}
	}
	if len(p.Notes) > 0 {
		t.item("notes:")
		for _, n := range p.Notes {
			t.item("- " + quote(shorten(n)))
		}
	}
	return t.String(), nil
}

func updated(p memory.Profile) string {
	if p.UpdatedAt.IsZero() {
		return ""
	}
	return " (updated " + iso(p.UpdatedAt) + ")"
}

func scopesText(ctx context.Context, c call, _ mcp.ReadResourceRequest) (string, error) {
	list, err := c.eng.ListScopes(ctx, true)
	if err != nil {
		return "", err
	}
	active := c.sess.ActiveScope()
	t := newCapped(MaxResourceBytes, "list_memory_scopes lists them all")
	if active == "" {
		t.must("Memory scopes, Global first. This session has no active scope: searches read every scope.")
	} else {
		t.must("Memory scopes, Global first. This session's active scope is " + quote(active) + ": stores go there, and searches read it, its parents and Global.")
	}
	// Descriptions and keywords are text a user or another client wrote.
	t.label()
	for _, s := range list {
		var attrs []string
		if s.Parent != "" {
			attrs = append(attrs, "parent "+quote(s.Parent))
		}
		if strings.EqualFold(s.Name, active) {
			attrs = append(attrs, "active scope of this session")
		}
		if !s.Active {
			attrs = append(attrs, "inactive: left out of searches that do not name it")
		}
		line := "- " + quote(s.Name)
		if len(attrs) > 0 {
			line += " (" + strings.Join(attrs, "; ") + ")"
		}
		line += fmt.Sprintf(": %d %s", s.Memories, plural(s.Memories, "memory", "memories"))
		if s.Description != "" {
			line += "; description " + quote(shorten(s.Description))
		}
		if len(s.RelatedKeywords) > 0 {
			kw := make([]string, len(s.RelatedKeywords))
			for i, k := range s.RelatedKeywords {
				kw[i] = quote(k)
			}
			line += "; keywords " + strings.Join(kw, ", ")
		}
		t.item(line)
	}
	return t.String(), nil
}

func recentText(ctx context.Context, c call, _ mcp.ReadResourceRequest) (string, error) {
	active := c.sess.ActiveScope()
	res, err := c.eng.List(ctx, memory.ListRequest{ActiveScope: active, Sort: "newest", Limit: recentLimit})
	if err != nil {
		return "", err
	}
	where := "every scope (this session has no active scope)"
	if active != "" {
		where = "this session's active scope " + quote(active) + " with its parents and Global"
	}
	t := newCapped(MaxResourceBytes, "list_memories pages through the rest")
	if len(res.Memories) == 0 {
		t.must("No memories are stored in " + where + " yet.")
		return t.String(), nil
	}
	t.must(fmt.Sprintf("The newest memories of %s, newest first: %d of %d.", where, len(res.Memories), res.Total))
	t.label()
	for _, m := range res.Memories {
		t.item(memoryLine(m, false))
	}
	if res.Total > len(res.Memories) {
		t.must(fmt.Sprintf("%d older %s; list_memories pages through them.", res.Total-len(res.Memories), plural(res.Total-len(res.Memories), "memory is not listed", "memories are not listed")))
	}
	return t.String(), nil
}

func scopeRecentText(ctx context.Context, c call, req mcp.ReadResourceRequest) (string, error) {
	name, err := templateArg(req, "name")
	if err != nil {
		return "", err
	}
	res, err := c.eng.Search(ctx, memory.SearchRequest{Scope: name, Subtree: true, Limit: recentLimit})
	if err != nil {
		return "", err
	}
	t := newCapped(MaxResourceBytes, "search_by_scope reads the scope with a query")
	if len(res.Results) == 0 {
		t.must("No memories are stored in scope " + quote(name) + " or beneath it yet.")
		return t.String(), nil
	}
	t.must(fmt.Sprintf("The newest memories of scope %s and the scopes beneath it, newest first (up to %d).", quote(name), recentLimit))
	t.label()
	for _, m := range res.Results {
		t.item(memoryLine(m, false))
	}
	return t.String(), nil
}

// templateArg reads a resource template's variable, percent-decoded.
func templateArg(req mcp.ReadResourceRequest, name string) (string, error) {
	var raw string
	switch v := req.Params.Arguments[name].(type) {
	case string:
		raw = v
	case []string:
		raw = strings.Join(v, "/")
	}
	s, err := url.PathUnescape(raw)
	if err != nil {
		return "", badInput("the %s in the URI is not validly percent-encoded: %v", name, err)
	}
	if strings.TrimSpace(s) == "" {
		return "", badInput("the URI names no %s; send e.g. memory://scope/Work/recent", name)
	}
	return s, nil
}

// memoryLine is one memory on one line: when, scope, source, relevance
// and id in brackets, then its text as a JSON string.
func memoryLine(m memory.Memory, withConfidence bool) string {
	attrs := []string{m.Timestamp.UTC().Format("2006-01-02"), "scope " + quote(m.Scope), m.Source}
	if m.Source == memory.SourceProposedLesson && m.Speaker != "" {
		attrs = append(attrs, m.Speaker) // where it came from
	}
	if withConfidence {
		attrs = append(attrs, fmt.Sprintf("confidence %.2f", m.Confidence))
		if m.Weak {
			attrs = append(attrs, "weak")
		}
	}
	if len(m.Tags) > 0 {
		tags := make([]string, len(m.Tags))
		for i, tg := range m.Tags {
			tags[i] = quote(tg)
		}
		attrs = append(attrs, "tags "+strings.Join(tags, " "))
	}
	text := shorten(m.Text)
	if len(text) < len(m.Text) {
		attrs = append(attrs, "shortened")
	}
	attrs = append(attrs, "id "+m.ID)
	return "- [" + strings.Join(attrs, " · ") + "] " + quote(text)
}

// quote writes stored text as a JSON string: newlines and quotes are
// escaped, so it stays on its line and inside its quotes.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// shorten cuts a long text to maxItemText bytes, on a character
// boundary, with an ellipsis.
func shorten(s string) string {
	if len(s) <= maxItemText {
		return s
	}
	cut := maxItemText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// capped builds a text of at most max bytes, line by line. Lines added
// with must always go in (headers, a closing instruction: keep them
// short); items go in while they fit, and once one does not, it and every
// later item are left out and the text says how many and where the rest
// can be read.
type capped struct {
	max    int
	head   strings.Builder
	items  strings.Builder
	tail   strings.Builder
	cut    int
	more   string // where the rest can be read
	inBody bool
}

// Room kept free under the cap: for the note that says what was cut, and
// for the closing lines added after the items (keep them under it).
const (
	noteRoom = 200
	tailRoom = 600
)

func newCapped(max int, more string) *capped { return &capped{max: max, more: more} }

// must adds a line that always goes in: before the items while none was
// added, after them otherwise.
func (t *capped) must(line string) {
	if t.inBody {
		t.tail.WriteString(line + "\n")
		return
	}
	t.head.WriteString(line + "\n")
}

// label adds the recalled-memory label and notice the tools carry.
func (t *capped) label() {
	t.must("kind: " + recalledKind)
	t.must("notice: " + recalledNotice + " Texts are JSON strings.")
}

// item adds a line if it fits.
func (t *capped) item(line string) {
	t.inBody = true
	if t.cut == 0 && t.head.Len()+t.items.Len()+len(line)+1+noteRoom+tailRoom <= t.max {
		t.items.WriteString(line + "\n")
		return
	}
	t.cut++
}

func (t *capped) String() string {
	var b strings.Builder
	b.WriteString(t.head.String())
	b.WriteString(t.items.String())
	if t.cut > 0 {
		fmt.Fprintf(&b, "[cut: %d more %s not shown; this text is capped at %d KB; %s]\n", t.cut, plural(t.cut, "line", "lines"), t.max>>10, t.more)
	}
	b.WriteString(t.tail.String())
	return b.String()
}
