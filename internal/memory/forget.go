package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/memory/recall"
	"github.com/infmem/infmem/scopes"
)

// ForgetRequest names what to forget. Given together, scope, tag and query
// narrow each other; a memory id alone forgets that one memory.
type ForgetRequest struct {
	ID          string
	Scope       string
	Tag         string
	Query       string
	ActiveScope string
	// Hard deletes for good (with its embedding); soft (default) hides the
	// memory from every result and can be undone with Unforget.
	Hard bool
	// DryRun lists what would be forgotten and changes nothing.
	DryRun bool
	// ConfirmCount confirms a forget by query that matches more than
	// QueryForgetConfirm memories: it must equal the number of memories
	// that match (as a preview reported).
	ConfirmCount int
	// Everything, with a query alone, also forgets the memories of the
	// scopes the query names and removes the profile entries naming it
	// (forgetabout.go); without it they are listed and left alone.
	Everything bool
}

// Forgotten describes one forgotten memory.
type Forgotten struct {
	ID   string
	Text string
}

// ForgetResult reports what was forgotten.
type ForgetResult struct {
	// Count is how many were forgotten; Matched how many the request names
	// (the same unless it is a dry run or awaits confirmation).
	Count, Matched int
	// DryRun: nothing was changed. NeedsConfirmation: a query matched more
	// than QueryForgetConfirm memories and ConfirmCount did not confirm
	// them; nothing was changed.
	DryRun, NeedsConfirmation bool
	// Scope is set when a whole scope was forgotten.
	Scope        string
	ScopeDeleted bool
	Items        []Forgotten
	Note         string
	// Scopes and Profile: what a forget by query alone names beyond the
	// memories containing its words (forgetabout.go); forgotten and
	// removed when Everything is set, else left alone.
	Scopes     []ScopeMatch
	Profile    []ProfileMatch
	Everything bool
}

// maxReported bounds the forgotten items listed in a result.
const maxReported = 50

// QueryForgetConfirm is the most memories a forget by query removes
// without confirmation: above it the result lists the matches and the
// caller repeats the request with ConfirmCount.
const QueryForgetConfirm = 10

// Forget hides (soft) or deletes (hard) the memories a request names.
func (e *Engine) Forget(ctx context.Context, req ForgetRequest) (ForgetResult, error) {
	if err := e.waitWrite(ctx); err != nil {
		return ForgetResult{}, err
	}
	if err := checkQuery(req.Query); err != nil {
		return ForgetResult{}, err
	}
	req.Scope, req.Tag, req.Query = strings.TrimSpace(req.Scope), strings.TrimSpace(req.Tag), strings.TrimSpace(req.Query)
	if req.ID == "" && req.Scope == "" && req.Tag == "" && req.Query == "" {
		return ForgetResult{}, inputErrorf("say what to forget: target.memory_id (from an earlier result), target.scope, target.tag or target.query")
	}
	targets, res, err := e.forgetTargets(ctx, req)
	if err != nil {
		return res, err
	}
	var ab about
	if req.ID == "" && req.Scope == "" && req.Tag == "" && req.Query != "" {
		if ab, err = e.forgetAbout(ctx, req, targets); err != nil {
			return res, err
		}
		res.Scopes, res.Profile, res.Everything = ab.scopes, ab.profile, req.Everything
		if req.Everything && len(ab.extra) > 0 {
			targets = append(targets, ab.extra...)
			res.Items = nil
			res = e.withItems(ctx, res, targets)
		}
	}
	if len(targets) == 0 && (!req.Everything || ab.empty()) {
		res.Note += aboutNote(req, ab, true)
		return res, nil
	}
	res.Matched = len(targets)
	switch {
	case req.DryRun:
		res.DryRun = true
		res.Note = fmt.Sprintf("dry run: %s would be forgotten (listed%s); nothing was changed.", plural(len(targets), "memory", "memories"), listedNote(len(targets))) + aboutNote(req, ab, false)
		return res, nil
	case req.Query != "" && len(targets) > QueryForgetConfirm && req.ConfirmCount != len(targets):
		res.NeedsConfirmation = true
		res.Note = fmt.Sprintf("%q matches %s (listed%s); nothing was forgotten. Show them to the user; if they want all of them forgotten, repeat the request with confirm_count %d.",
			snippet(req.Query, 60), plural(len(targets), "memory", "memories"), listedNote(len(targets)), len(targets))
		if req.ConfirmCount != 0 {
			res.Note = fmt.Sprintf("confirm_count %d does not match the %s %q matches now; ", req.ConfirmCount, plural(len(targets), "memory", "memories"), snippet(req.Query, 60)) + res.Note
		}
		res.Note += aboutNote(req, ab, false)
		return res, nil
	}
	if err := e.forgetHits(ctx, req, targets, &res); err != nil {
		return res, err
	}
	if req.Everything {
		if len(ab.profile) > 0 {
			if err := e.removeFromProfile(ctx, ab.profile); err != nil {
				return res, fmt.Errorf("forgot %d memories but cannot remove the profile entries: %w", res.Count, err)
			}
		}
		if req.Hard {
			for _, s := range ab.scopes {
				if err := e.scopes.Delete(ctx, s.Name); err != nil && !errors.Is(err, scopes.ErrNotFound) {
					return res, fmt.Errorf("forgot %d memories but cannot delete scope %q: %w", res.Count, s.Name, err)
				}
			}
		}
	}
	res.Note = forgetNote(req.Hard, res) + aboutNote(req, ab, true)
	return res, nil
}

// forgetHits forgets (or, hard, deletes) targets, counting them in res.
func (e *Engine) forgetHits(ctx context.Context, req ForgetRequest, targets []hit, res *ForgetResult) error {
	if len(targets) == 0 {
		return nil
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	touched := make([]bson.ObjectID, len(targets))
	for i, h := range targets {
		touched[i] = h.id
	}
	now := e.now()
	done, err := e.writeBatch(ctx, touched, func(i int, id bson.ObjectID) (*change, error) {
		if req.Hard {
			return &change{op: opDelete, id: id, kind: targets[i].kind}, nil
		}
		return &change{op: opForget, id: id, kind: targets[i].kind, at: now}, nil
	}, func(c *change, done int, err error) error {
		return fmt.Errorf("cannot forget memory %s (after forgetting %d): %w", c.id.Hex(), done, err)
	})
	res.Count = len(done)
	if err != nil {
		return err
	}
	if req.Hard && res.Scope != "" && !strings.EqualFold(res.Scope, scopes.Global) {
		if err := e.scopes.Delete(ctx, res.Scope); err != nil {
			return fmt.Errorf("forgot %d memories but cannot delete scope %q: %w", res.Count, res.Scope, err)
		}
		res.ScopeDeleted = true
	}
	return nil
}

func listedNote(n int) string {
	if n > maxReported {
		return fmt.Sprintf(", the first %d", maxReported)
	}
	return ""
}

func forgetNote(hard bool, res ForgetResult) string {
	how := "marked as forgotten: they no longer appear in any result; unforget_memory undoes it"
	if res.Count == 1 {
		how = "marked as forgotten: it no longer appears in any result; unforget_memory undoes it"
	}
	if hard {
		how = "deleted permanently"
	}
	switch {
	case res.Count == 0 && len(res.Profile) > 0 && res.Everything:
		return "No memory matched."
	case res.Count == 0:
		return "nothing matched, so nothing was forgotten"
	case res.ScopeDeleted:
		return fmt.Sprintf("%s of scope %q %s; the scope itself was deleted.", plural(res.Count, "memory", "memories"), res.Scope, how)
	}
	return fmt.Sprintf("%s %s.", plural(res.Count, "memory", "memories"), how)
}

// forgetTargets finds what a request names; it may also fill the
// result's Scope, Items and Note.
func (e *Engine) forgetTargets(ctx context.Context, req ForgetRequest) ([]hit, ForgetResult, error) {
	var res ForgetResult
	f := memindex.Filter{IncludeArchived: true, IncludeForgotten: req.Hard}
	if req.ID != "" {
		oid, err := parseID(req.ID)
		if err != nil {
			return nil, res, err
		}
		it, ok := e.index().Lookup(oid)
		if !ok || (!req.Hard && !it.Live()) {
			res.Note = "no memory has that id (or it is already forgotten), so nothing was forgotten"
			return nil, res, nil
		}
		if req.Scope != "" || req.Tag != "" {
			if !e.matches(oid, req, f) {
				res.Note = "that memory is not in the named scope or does not carry the named tag, so nothing was forgotten"
				return nil, res, nil
			}
		}
		target := []hit{{id: oid, kind: it.Kind}}
		return target, e.withItems(ctx, res, target), nil
	}
	if req.Scope != "" {
		if strings.EqualFold(req.Scope, scopes.All) {
			return nil, res, inputErrorf("forgetting ALL at once is not allowed; forget scopes one by one (existing: %s)", e.scopeList())
		}
		s, ok := e.scopes.Get(req.Scope)
		if !ok {
			res.Note = fmt.Sprintf("there is no scope named %q, so nothing was forgotten; scopes: %s", req.Scope, e.scopeList())
			return nil, res, nil
		}
		f.Scopes = []string{s.Name}
		if req.Tag == "" && req.Query == "" {
			res.Scope = s.Name
		}
	} else {
		set, err := e.searchScopes("", req.ActiveScope, false)
		if err != nil {
			return nil, res, err
		}
		f.Scopes = set
	}
	if req.Tag != "" {
		f.Tags = []string{memindex.FoldTag(req.Tag)}
	}
	var targets []hit
	if req.Query != "" {
		// Forgetting everything about X reaches every memory whose words
		// include all of X's (keyword match over the scopes, not a top-k
		// ranking, which would leave some behind).
		ix := e.index()
		q := recall.Keywords(ix, ix.Analyze(normalizeContent(req.Query)))
		if q.Empty() {
			return nil, res, inputErrorf("the query %q has no searchable words; name what to forget by its words (a name, a place, a topic), or use its memory_id, tag or scope", snippet(req.Query, 60))
		}
		f.IncludeForgotten = false
		if targets = asHits(ix.MatchAll(q, f)); len(targets) == 0 {
			res.Note = fmt.Sprintf("no memory contains all the words of %q, so nothing was forgotten; retrieve_memory finds memories by meaning, with their memory_id", snippet(req.Query, 60))
			return nil, res, nil
		}
	} else {
		found, _ := e.index().Scan(f, memindex.Newest, 0, 0)
		targets = asHits(found)
	}
	return targets, e.withItems(ctx, res, targets), nil
}

// matches checks an id against a request's scope and tag.
func (e *Engine) matches(id bson.ObjectID, req ForgetRequest, f memindex.Filter) bool {
	if req.Scope != "" {
		s, ok := e.scopes.Get(req.Scope)
		if !ok {
			return false
		}
		f.Scopes = []string{s.Name}
	}
	if req.Tag != "" {
		f.Tags = []string{memindex.FoldTag(req.Tag)}
	}
	return e.index().Matches(id, f)
}

// withItems lists (up to maxReported of) the targets with their text, so
// the client can tell the user what was forgotten.
func (e *Engine) withItems(ctx context.Context, res ForgetResult, targets []hit) ForgetResult {
	n := min(len(targets), maxReported)
	ms, err := e.fetch(ctx, targets[:n])
	if err != nil {
		e.log.Warn("cannot list forgotten memories", "err", err)
		return res
	}
	for _, m := range ms {
		res.Items = append(res.Items, Forgotten{ID: m.ID, Text: snippet(m.Text, 200)})
	}
	return res
}

// Unforget restores soft-forgotten memories.
func (e *Engine) Unforget(ctx context.Context, ids []string) (restored []string, err error) {
	if err := e.waitWrite(ctx); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, inputErrorf("send memory_ids of forgotten memories (list_memories with only_forgotten shows them)")
	}
	now := e.now()
	done, err := e.writeIDs(ctx, ids, func(_ int, id bson.ObjectID) (*change, error) {
		it, ok := e.index().Lookup(id)
		if !ok || it.Live() {
			return nil, nil
		}
		m, err := e.get(ctx, id, it.Kind)
		if errIsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		// Unforgetting also undoes a merge: the memory stands on its own again.
		return &change{op: opUnforget, id: id, kind: it.Kind, doc: memindex.Doc{Text: m.Text},
			update: bson.D{
				{Key: "$unset", Value: bson.D{{Key: "forgotten_at", Value: ""}, {Key: "merged_into", Value: ""}}},
				{Key: "$set", Value: bson.D{{Key: "updated_at", Value: now}}},
			}}, nil
	}, func(c *change, _ int, err error) error {
		return fmt.Errorf("cannot unforget memory %s: %w", c.id.Hex(), err)
	})
	for _, c := range done {
		restored = append(restored, c.id.Hex())
	}
	return restored, err
}
