package memory

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/memory/recall"
	"github.com/infmem/infmem/internal/memory/usecount"
	"github.com/infmem/infmem/internal/timephrase"
	"github.com/infmem/infmem/mongostore"
)

// SearchRequest is a recall by query and filters.
type SearchRequest struct {
	// Query is what to look for; empty lists the newest matches instead.
	Query       string
	Scope       string
	ActiveScope string
	// ExactScope searches Scope alone, without its ancestors and Global.
	ExactScope bool
	// Subtree searches Scope and every active scope beneath it (by
	// parent_scope or a slash in the name), without its ancestors and
	// Global; Scope itself need not exist if scopes lie beneath it.
	Subtree bool
	// Tags must all be present on a result.
	Tags []string
	// Source, when set, admits only memories of this source (e.g. lesson).
	Source string
	// From and To bound when the memory happened, [From, To); zero is open.
	From, To time.Time
	Limit    int
	// IncludeArchived lists archived memories too when there is no Query;
	// a search with a Query always ranks them (archiving only condenses
	// listings).
	IncludeArchived bool
	// Mode is hybrid (default with an embedder), keyword or vector.
	Mode string
	// Location reads the time words of Query ("last May"); nil is the
	// engine's configured zone.
	Location *time.Location
	// NoTouch: the search does not count as a use of what it finds (a
	// person looking through the memory in the local page, not Claude
	// recalling it).
	NoTouch bool
}

// SearchResult holds the ranked results and the scopes searched.
type SearchResult struct {
	// Results are the best matches first, up to the limit, whatever their
	// confidence; those under the relevance bar have Weak set.
	Results []Memory
	Scopes  []string
	// NothingRelevant: a query was given and no result clears the
	// relevance bar (or there is no result at all).
	NothingRelevant bool
	// Note explains an empty or unusual result.
	Note string
	// NothingBy names the step that made NothingRelevant (a study's
	// reading, not shown to clients): "bar" (no result cleared the
	// relevance bar and no words-met reading lowered it), "otherthing",
	// "otherowner", "modabs", "answerabsent", "detailabsent", "focusabsent", "nomatch"
	// (no result), "nosearchable".
	NothingBy string
}

// Notes a search can carry.
const (
	noteNoMatch      = "no memory matches; say you do not remember rather than guessing"
	noteAllWeak      = "nothing clears the relevance bar: these are the closest memories, all marked weak. Say you do not remember, unless one of them plainly answers the question"
	noteNoSearchable = "the query has no searchable words; ask with the names, places or topics to recall"
)

// Limits on result counts.
const (
	DefaultLimit = 5
	MaxLimit     = 100
)

// Search recalls memories matching a query within the visible scopes.
func (e *Engine) Search(ctx context.Context, req SearchRequest) (SearchResult, error) {
	if err := checkQuery(req.Query); err != nil {
		return SearchResult{}, err
	}
	if err := e.wait(ctx); err != nil {
		return SearchResult{}, err
	}
	var f memindex.Filter
	var set []string
	var err error
	if req.Subtree {
		if set, err = e.subtreeScopes(req.Scope); err == nil {
			f, err = filterFor(set, req.Tags, req.From, req.To)
		}
	} else {
		f, set, err = e.searchFilter(req.Scope, req.ActiveScope, req.ExactScope, req.Tags, req.From, req.To)
	}
	if err != nil {
		return SearchResult{}, err
	}
	// Archived memories stay in recall: archiving condenses what is
	// listed and counted, and a summary adds a way in without walling
	// off the turns it condenses. Only a listing (no query) leaves them
	// out unless asked.
	f.IncludeArchived = req.IncludeArchived || strings.TrimSpace(req.Query) != ""
	if req.Source != "" {
		src, err := checkSource(req.Source)
		if err != nil {
			return SearchResult{}, err
		}
		f.Sources = []string{src}
	}
	limit, err := checkLimit(req.Limit, DefaultLimit)
	if err != nil {
		return SearchResult{}, err
	}
	query := normalizeContent(req.Query)
	var hits []hit
	note := ""
	if query == "" {
		found, _ := e.index().Scan(f, memindex.Newest, 0, limit)
		hits = asHits(found)
		for i := range hits {
			hits[i].score = 1
		}
	} else {
		mode, err := e.mode(req.Mode)
		if err != nil {
			return SearchResult{}, err
		}
		if mode == ModeKeyword && e.index().Analyze(query).Empty() {
			return SearchResult{Scopes: set, NothingRelevant: true, Note: noteNoSearchable, NothingBy: "nosearchable"}, nil
		}
		if hits, err = e.rank(ctx, query, req.Location, f, limit, mode); err != nil {
			return SearchResult{}, err
		}
	}
	res, turns, err := e.fetchAlso(ctx, hits, contextTurns(hits))
	if err != nil {
		return SearchResult{}, err
	}
	e.curated(ctx, hits, res)
	e.withContext(hits, res, turns)
	e.withRelated(ctx, res)
	if !req.NoTouch {
		e.recordAccess(hits)
	}
	by := ""
	if query != "" {
		uncut := uncutOrder(hits, res)
		by = e.settle(ctx, query, res)
		if uncut != nil {
			// The coordination cut reorders the results only: whether
			// each rank is weak, and so whether anything relevant is
			// stored, is what the rules read in the order without it.
			by = e.settle(ctx, query, uncut)
			for i := range res {
				res[i].Weak = uncut[i].Weak
			}
		}
	}
	if query != "" && e.opts.Rank.KindLead > 0 {
		kindLead(query, res, &e.opts.Rank)
	}
	nothing := query != ""
	for _, m := range res {
		nothing = nothing && m.Weak
	}
	switch {
	case len(res) == 0:
		note, nothing, by = noteNoMatch, true, "nomatch"
	case nothing:
		note = noteAllWeak
	}
	if !nothing {
		by = ""
	}
	return SearchResult{Results: res, Scopes: set, NothingRelevant: nothing, Note: note, NothingBy: by}, nil
}

// allWeak: res has results and all are weak.
func allWeak(res []Memory) bool {
	for _, m := range res {
		if !m.Weak {
			return false
		}
	}
	return len(res) > 0
}

// settle runs the rules after ranking on res, a search's results for
// query, best first: currentFirst's move, then the rules that lower or
// raise the relevance bar (WordsMetBar, WordsMetFirstBar, OtherThingBar,
// OtherOwnerBar, ModifierAbsentBar, AnswerAbsentBar, DetailAbsentBar,
// FocusAbsentBar).
// Several read the first results (wordsMet, focusAbsent, currentFirst)
// or a rank's confidence (modifierAbsent), so their verdict depends on
// the order of res. It returns the step after which every result is
// weak and none after it cleared one again (SearchResult.NothingBy), or
// "".
func (e *Engine) settle(ctx context.Context, query string, res []Memory) string {
	by := ""
	step := func(name string) {
		if !allWeak(res) {
			by = ""
		} else if by == "" {
			by = name
		}
	}
	currentFirst(query, res)
	step("bar")
	if e.opts.Rank.GlossKeywords > 0 {
		// The rules read a note's words of another language in English,
		// as its keyword terms do.
		defer e.withGlosses(res)()
	}
	if e.opts.Rank.WordsMetBar > 0 {
		wordsMet(query, res, 3, e.opts.Rank.WordsMetBar, 0, nil)
	}
	if e.opts.Rank.WordsMetFirstBar > 0 {
		var contacts []mongostore.Contact
		if int(e.opts.Rank.WordsMetKinds)&recall.KindPerson != 0 {
			contacts = e.contacts(ctx)
		}
		wordsMet(query, res, 1, e.opts.Rank.WordsMetFirstBar, int(e.opts.Rank.WordsMetKinds), contacts)
	}
	step("bar")
	if e.opts.Rank.OtherThingBar > 0 {
		// A value asked of a thing the results give only for other
		// things of its kind.
		e.weakenWhen(ctx, query, res, recall.OtherThing, e.opts.Rank.OtherThingBar)
	}
	step("otherthing")
	if e.opts.Rank.OtherOwnerBar > 0 {
		// A value asked of someone's thing the results give only for
		// someone else.
		e.weakenWhen(ctx, query, res, recall.OtherOwner, e.opts.Rank.OtherOwnerBar)
	}
	step("otherowner")
	if e.opts.Rank.ModifierAbsentBar > 0 {
		e.modifierAbsent(query, res)
	}
	step("modabs")
	if e.opts.Rank.AnswerAbsentBar > 0 {
		e.answerAbsent(query, res)
	}
	step("answerabsent")
	if e.opts.Rank.DetailAbsentBar > 0 {
		e.detailAbsent(query, res)
	}
	step("detailabsent")
	if e.opts.Rank.FocusAbsentBar > 0 {
		e.focusAbsent(query, res)
	}
	step("focusabsent")
	return by
}

// withGlosses adds to the text of each of res the English glosses of its
// words of another language (gloss.Text; with RankOptions.GlossShorthand,
// of its shorthand too), as the index kept them when it was stored
// (memindex's Glosses), for the rules that read the results' words, and
// returns what puts the texts back as stored.
func (e *Engine) withGlosses(res []Memory) func() {
	ids := make([]bson.ObjectID, len(res))
	for i := range res {
		ids[i], _ = bson.ObjectIDFromHex(res[i].ID)
	}
	glosses := e.index().Glosses(ids)
	stored := make(map[string]string, len(res))
	for i := range res {
		if g := glosses[i]; g != "" {
			stored[res[i].ID] = res[i].Text
			res[i].Text += "\n" + g
		}
	}
	return func() {
		for i := range res {
			if t, ok := stored[res[i].ID]; ok {
				res[i].Text = t
			}
		}
	}
}

// uncutOrder is a copy of res (in the order hits returned them) in the
// order they would have without the coordination cut (hit.uncut), each
// rank with its own confidence and verdict (they belong to the rank, not
// to the memory); nil when the cut moved nothing.
func uncutOrder(hits []hit, res []Memory) []Memory {
	place := make(map[string]int, len(hits))
	moved := false
	for i, h := range hits {
		place[h.id.Hex()] = h.uncut
		moved = moved || h.uncut != i
	}
	if !moved {
		return nil
	}
	out := slices.Clone(res)
	slices.SortStableFunc(out, func(a, b Memory) int { return cmp.Compare(place[a.ID], place[b.ID]) })
	for i := range out {
		out[i].Confidence, out[i].Weak = res[i].Confidence, res[i].Weak
	}
	return out
}

// mode resolves a ranking mode: hybrid when an embedder is configured,
// keyword otherwise.
func (e *Engine) mode(m string) (string, error) {
	switch m {
	case "":
		if e.opts.Embedder != nil {
			return ModeHybrid, nil
		}
		return ModeKeyword, nil
	case ModeKeyword:
		return m, nil
	case ModeHybrid, ModeVector:
		if e.opts.Embedder == nil {
			return "", inputErrorf("ranking mode %q needs an embedding model; embedding.model is none", m)
		}
		return m, nil
	}
	return "", inputErrorf("ranking mode %q is not hybrid, keyword or vector", m)
}

// recordAccess counts the results a client was given as used; weak ones
// (under the relevance bar) do not count.
func (e *Engine) recordAccess(hits []hit) {
	used := make([]hit, 0, len(hits))
	for _, h := range hits {
		if !h.weak {
			used = append(used, h)
		}
	}
	if len(used) == 0 {
		return
	}
	ids := make([]bson.ObjectID, len(used))
	for i, h := range used {
		ids[i] = h.id
	}
	e.index().Touch(ids)
	uses := make([]usecount.Use, len(used))
	for i, h := range used {
		uses[i] = usecount.Use{ID: h.id, Kind: h.kind}
	}
	e.access.Record(uses)
}

// searchFilter builds the filter shared by searches and listings.
func (e *Engine) searchFilter(scope, active string, exact bool, tags []string, from, to time.Time) (memindex.Filter, []string, error) {
	set, err := e.searchScopes(scope, active, exact)
	if err != nil {
		return memindex.Filter{}, nil, err
	}
	f, err := filterFor(set, tags, from, to)
	return f, set, err
}

// filterFor builds the filter of a scope set, tags and a period.
func filterFor(set, tags []string, from, to time.Time) (memindex.Filter, error) {
	f := memindex.Filter{Scopes: set, From: from, To: to}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		return memindex.Filter{}, inputErrorf("the time range is empty: from %s is not before to %s", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	for _, t := range tags {
		ft := memindex.FoldTag(t)
		if ft == "" {
			return memindex.Filter{}, inputErrorf("tags to filter by must not be empty")
		}
		f.Tags = append(f.Tags, ft)
	}
	return f, nil
}

// MaxQueryBytes bounds a search or forget query: a question or a few key
// words, not a document (a 5.6 MB query kept a core busy for minutes).
const MaxQueryBytes = 4096

func checkQuery(q string) error {
	if len(q) > MaxQueryBytes {
		return inputErrorf("the query is %d bytes; the limit is %d bytes (a question or a few key words, not a document)", len(q), MaxQueryBytes)
	}
	return nil
}

func checkLimit(n, def int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0 || n > MaxLimit:
		return 0, inputErrorf("the number of results must be between 1 and %d, not %d", MaxLimit, n)
	}
	return n, nil
}

// TimeRequest recalls what happened in a period.
type TimeRequest struct {
	// Phrase is a natural-language period ("last week", "March 2023").
	Phrase string
	// From and To give the period directly, [From, To); they win over Phrase.
	From, To    time.Time
	Scope       string
	ActiveScope string
	Limit       int
}

// TimeResult lists memories of a period, oldest first.
type TimeResult struct {
	Results  []Memory
	From, To time.Time
	// Total is how many memories the period holds; Results may be fewer.
	Total  int
	Scopes []string
}

// Time limits.
const (
	DefaultTimeLimit = 50
)

// ByTime recalls the memories of a period, oldest first.
func (e *Engine) ByTime(ctx context.Context, req TimeRequest) (TimeResult, error) {
	if err := e.wait(ctx); err != nil {
		return TimeResult{}, err
	}
	from, to := req.From, req.To
	if from.IsZero() && to.IsZero() {
		phrase := strings.TrimSpace(req.Phrase)
		if phrase == "" {
			return TimeResult{}, inputErrorf("say which period: send time_query like \"last week\" or \"March 2023\", or range with from/to ISO dates")
		}
		r, err := timephrase.Parse(phrase, e.opts.Now().In(e.opts.Location), e.opts.Location)
		if errors.Is(err, timephrase.ErrUnrecognized) {
			return TimeResult{}, inputErrorf("%s", err.Error()+"; or send range with from/to ISO dates")
		} else if err != nil {
			return TimeResult{}, err
		}
		from, to = r.From, r.To
	}
	limit, err := checkLimit(req.Limit, DefaultTimeLimit)
	if err != nil {
		return TimeResult{}, err
	}
	f, set, err := e.searchFilter(req.Scope, req.ActiveScope, false, nil, from, to)
	if err != nil {
		return TimeResult{}, err
	}
	found, total := e.index().Scan(f, memindex.Oldest, 0, limit)
	hits := asHits(found)
	res, err := e.fetch(ctx, hits)
	if err != nil {
		return TimeResult{}, err
	}
	e.withRelated(ctx, res)
	e.recordAccess(hits)
	return TimeResult{Results: res, From: from, To: to, Total: total, Scopes: set}, nil
}

// ListRequest browses memories with filters, sorting and paging.
type ListRequest struct {
	Scope       string
	ActiveScope string
	Tags        []string
	Source      string
	From, To    time.Time
	// IncludeForgotten adds soft-forgotten memories; OnlyForgotten lists just those.
	IncludeForgotten, OnlyForgotten, IncludeArchived bool
	// Sort is newest (default), oldest, most_used or importance.
	Sort          string
	Limit, Offset int
}

// ListResult is one page of a listing.
type ListResult struct {
	Memories   []Memory
	Total      int
	NextOffset int
	Scopes     []string
}

// List browses memories without a query; it does not count as use.
func (e *Engine) List(ctx context.Context, req ListRequest) (ListResult, error) {
	if err := e.wait(ctx); err != nil {
		return ListResult{}, err
	}
	f, set, err := e.searchFilter(req.Scope, req.ActiveScope, false, req.Tags, req.From, req.To)
	if err != nil {
		return ListResult{}, err
	}
	f.IncludeForgotten, f.OnlyForgotten, f.IncludeArchived = req.IncludeForgotten, req.OnlyForgotten, req.IncludeArchived
	if req.Source != "" {
		src, err := checkSource(req.Source)
		if err != nil {
			return ListResult{}, err
		}
		f.Sources = []string{src}
	}
	order, err := parseSort(req.Sort)
	if err != nil {
		return ListResult{}, err
	}
	limit, err := checkLimit(req.Limit, 20)
	if err != nil {
		return ListResult{}, err
	}
	if req.Offset < 0 {
		return ListResult{}, inputErrorf("offset must not be negative")
	}
	found, total := e.index().Scan(f, order, req.Offset, limit)
	// The uses not yet written (package usecount) count already, as in
	// Get: the list's use_count is the one its order (most_used) used.
	e.usesMu.RLock()
	res, err := e.fetch(ctx, asHits(found))
	if err == nil {
		for i := range res {
			if oid, perr := bson.ObjectIDFromHex(res[i].ID); perr == nil {
				if n, at := e.access.Lookup(oid); n > 0 {
					res[i].UseCount += n
					res[i].LastAccessed = &at
				}
			}
		}
	}
	e.usesMu.RUnlock()
	if err != nil {
		return ListResult{}, err
	}
	e.withRelated(ctx, res)
	next := 0
	if req.Offset+len(found) < total {
		next = req.Offset + len(found)
	}
	return ListResult{Memories: res, Total: total, NextOffset: next, Scopes: set}, nil
}

func parseSort(s string) (memindex.Order, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "newest":
		return memindex.Newest, nil
	case "oldest":
		return memindex.Oldest, nil
	case "most_used":
		return memindex.MostUsed, nil
	case "importance":
		return memindex.MostImportant, nil
	}
	return 0, inputErrorf("sort %q is not one of: newest, oldest, most_used, importance", s)
}

// weakenWhen marks weak the results under bar when reading says the
// query's answer is not among the results that clear the bar
// (recall.OtherThing, recall.OtherOwner).
func (e *Engine) weakenWhen(ctx context.Context, query string, res []Memory, reading func(query string, texts []string, clears []bool, contacts []mongostore.Contact) bool, bar float64) {
	texts, clears := make([]string, len(res)), make([]bool, len(res))
	for i, m := range res {
		texts[i], clears[i] = m.Text, !m.Weak
	}
	if !slices.Contains(clears, true) || !reading(query, texts, clears, e.contacts(ctx)) {
		return
	}
	for i := range res {
		res[i].Weak = res[i].Weak || res[i].Confidence < bar
	}
}

// modifierAbsent marks weak each note under Options.ModifierAbsentBar
// that names the owner of the thing the query asks about and gives the
// thing's head but not its modifier, a word no memory holds, in any
// words (recall.AskedAbsent, recall.OtherKindOf). Turns of a
// conversation are left alone.
func (e *Engine) modifierAbsent(query string, res []Memory) {
	ix := e.index()
	asked := recall.AskedAbsent(query, func(w string) bool { return ix.Analyze(w).Empty() || ix.DocFreq(w) > 0 })
	if len(asked) == 0 {
		return
	}
	for i, m := range res {
		if m.Evidence != nil && m.Evidence.Alone && m.Confidence < e.opts.Rank.ModifierAbsentBar && recall.OtherKindOf(asked, m.Text) {
			res[i].Weak = true
		}
	}
}

// answerAbsent marks weak the results under Options.AnswerAbsentBar when
// the query asks for a value of one kind and none of the results that
// clear the bar, all notes, gives one (recall.AnswerAbsent).
func (e *Engine) answerAbsent(query string, res []Memory) {
	var texts []string
	for _, m := range res {
		if m.Weak {
			continue
		}
		if m.Evidence == nil || !m.Evidence.Alone {
			return // a turn of a conversation: dated by its session
		}
		texts = append(texts, m.Text)
	}
	if !recall.AnswerAbsentIn(query, texts, e.opts.Rank.AnswerAbsentLower > 0, e.opts.Rank.AnswerAbsentShort > 0) {
		return
	}
	for i := range res {
		res[i].Weak = res[i].Weak || res[i].Confidence < e.opts.Rank.AnswerAbsentBar
	}
}

// detailAbsent marks weak the results under Options.DetailAbsentBar when
// the query asks for a detail of a kind (an identifier, a person by role,
// a time of day, …) that none of the notes clearing the bar holds
// (recall.DetailAbsent). Notes only, as answerAbsent.
func (e *Engine) detailAbsent(query string, res []Memory) {
	var texts []string
	top := -1.0
	for i, m := range res {
		if m.Weak {
			// A note the bar hid, scoring nearly as the first: a
			// candidate answer the reading keeps in view.
			if near := e.opts.Rank.DetailNear; near > 0 && i > 0 && m.Evidence != nil && m.Evidence.Alone && m.Confidence >= near*res[0].Confidence {
				texts = append(texts, m.Text)
			}
			continue
		}
		if m.Evidence == nil || !m.Evidence.Alone {
			return // a turn of a conversation
		}
		if top < 0 {
			top = m.Confidence
		}
		if e.opts.Rank.DetailFirst > 0 && m.Confidence < e.opts.Rank.DetailFirst*top {
			continue
		}
		texts = append(texts, m.Text)
	}
	if !recall.DetailAbsent(query, texts, int(e.opts.Rank.DetailKinds)) {
		return
	}
	for i := range res {
		res[i].Weak = res[i].Weak || res[i].Confidence < e.opts.Rank.DetailAbsentBar
	}
}

// wordsMet lowers the relevance bar of the first n results to bar
// when they are notes that hold every content word of the query
// (recall.WordsMet); the others keep theirs, so that the rules after it
// (AnswerAbsent) read the notes that hold the question's words. kinds
// adds recall.WordsMetKinds's readings (its Kind bits).
func wordsMet(query string, res []Memory, n int, bar float64, kinds int, contacts []mongostore.Contact) {
	var texts []string
	for i, m := range res[:min(n, len(res))] {
		if m.Evidence == nil || !m.Evidence.Alone {
			return // a turn of a conversation
		}
		texts = append(texts, res[i].Text)
	}
	if !recall.WordsMetKinds(query, texts, kinds, contacts) {
		return
	}
	for i := range texts {
		res[i].Weak = res[i].Weak && res[i].Confidence < bar
	}
}

// focusAbsent marks weak the results under Options.FocusAbsentBar when
// the query asks for a detail of a thing that neither the first result,
// which covers the query's words, nor any other result that covers them
// gives (recall.FocusAbsent). A result that does not cover them is about
// something else: its word for the detail is another thing's ("the
// atmosphere at the office" for a question on a dinner's).
func (e *Engine) focusAbsent(query string, res []Memory) {
	if len(res) == 0 || res[0].Evidence == nil || res[0].Evidence.Coverage < recall.FocusCoverage {
		return
	}
	var texts []string
	for _, m := range res {
		if m.Evidence == nil || m.Evidence.Coverage < recall.FocusCoverage {
			continue
		}
		texts = append(texts, m.Text)
		for _, t := range m.Context {
			texts = append(texts, t.Text)
		}
	}
	if !recall.FocusAbsent(query, texts) {
		return
	}
	for i := range res {
		res[i].Weak = res[i].Weak || res[i].Confidence < e.opts.Rank.FocusAbsentBar
	}
}

// currentFirst moves up, among res (a search's results for query, best
// first), the latest memory that states the value the question asks for
// as it stands now (recall.CurrentMove); each rank keeps its confidence.
// A pair it reads as an update that the store did not link is shown as
// one (supersedes / superseded_by), for this search only.
func currentFirst(query string, res []Memory) {
	said := make([]recall.Said, len(res))
	for i, m := range res {
		said[i] = recall.Said{Text: m.Text, At: m.Timestamp, ID: m.ID, Skip: m.SupersededBy != nil || m.Weak, Updates: len(m.Supersedes) > 0,
			Assistant: strings.EqualFold(m.Speaker, "assistant")}
		if m.SupersededBy != nil {
			said[i].Successor = m.SupersededBy.ID
		}
	}
	from, to, older := recall.CurrentMove(query, said)
	if from <= to {
		return
	}
	if older >= 0 {
		// An update the store did not link, read at question time: the
		// results show it as one ("20 May, moved from 10 May"); nothing
		// is stored.
		newer, old := &res[from], &res[older]
		if !slices.ContainsFunc(newer.Supersedes, func(l Link) bool { return l.ID == old.ID }) {
			newer.Supersedes = append(slices.Clip(newer.Supersedes), Link{ID: old.ID, Text: old.Text})
		}
		if old.SupersededBy == nil {
			old.SupersededBy = &Link{ID: newer.ID, Text: newer.Text}
		}
	}
	// Confidence belongs to the rank: it stays monotone.
	type rank struct {
		confidence float64
		weak       bool
	}
	ranks := make([]rank, 0, from-to+1)
	for i := to; i <= from; i++ {
		ranks = append(ranks, rank{res[i].Confidence, res[i].Weak})
	}
	m := res[from]
	copy(res[to+1:from+1], res[to:from])
	res[to] = m
	for i, r := range ranks {
		res[to+i].Confidence, res[to+i].Weak = r.confidence, r.weak
	}
}

// TimeSpread is when the memories of one listing happened, from the
// in-memory index alone (memindex.Spread: Len, Oldest, Newest, Count).
type TimeSpread = memindex.Spread

// TimeSpread reads when the memories a List with req's filters would show
// happened (req's sort, limit and offset do not matter). A Count over a
// period equals the Total of that List over the same period.
func (e *Engine) TimeSpread(ctx context.Context, req ListRequest) (TimeSpread, error) {
	if err := e.wait(ctx); err != nil {
		return TimeSpread{}, err
	}
	f, _, err := e.searchFilter(req.Scope, req.ActiveScope, false, req.Tags, req.From, req.To)
	if err != nil {
		return TimeSpread{}, err
	}
	f.IncludeForgotten, f.OnlyForgotten, f.IncludeArchived = req.IncludeForgotten, req.OnlyForgotten, req.IncludeArchived
	if req.Source != "" {
		src, err := checkSource(req.Source)
		if err != nil {
			return TimeSpread{}, err
		}
		f.Sources = []string{src}
	}
	return e.index().Spread(f), nil
}

// kindLead applies recall.Options.KindLead to res, a search's results
// after the rules that read their order: the result it names moves first,
// the others keep their order, and each rank keeps its confidence and
// verdict (they belong to the rank: whether anything relevant is stored
// is read without the move).
func kindLead(query string, res []Memory, ro *recall.Options) {
	texts := make([]string, len(res))
	ev := make([]*Evidence, len(res))
	for i := range res {
		texts[i], ev[i] = res[i].Text, res[i].Evidence
	}
	held := func(i int) bool {
		m := &res[i]
		return m.SupersededBy != nil || len(m.Supersedes) > 0 || len(m.Contradicts) > 0
	}
	j := recall.KindLeadOrder(query, texts, ev, held, ro)
	if j <= 0 {
		return
	}
	moved := slices.Clone(res[:j+1])
	res[0] = moved[j]
	copy(res[1:j+1], moved[:j])
	for i := 0; i <= j; i++ {
		res[i].Confidence, res[i].Weak = moved[i].Confidence, moved[i].Weak
	}
}
