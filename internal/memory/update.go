package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
)

// UpdateRequest edits a memory; nil fields stay as they are.
type UpdateRequest struct {
	ID         string
	Content    *string
	Tags       *[]string // replaces all tags
	AddTags    []string
	RemoveTags []string
	Importance *float64
	Category   *string
	Scope      *string // moves the memory
	// Pinned protects the memory from maintenance (archival, pruning).
	Pinned *bool
	// SupersededBy marks the memory as replaced by a newer one (its id),
	// or, "", as current again (supersede.go).
	SupersededBy *string
	ActiveScope  string
}

// UpdateResult says what changed.
type UpdateResult struct {
	ID           string
	Changed      []string
	PreviousText string
	Scope        string
	// MergedInto is set when the edit would have made this memory an
	// exact copy of another live memory in its scope: instead of keeping
	// two, this memory was merged into that one (see mergeEdit), and
	// unforgetting it undoes that.
	MergedInto string
}

// Update edits a memory, keeping the previous version in its history.
func (e *Engine) Update(ctx context.Context, req UpdateRequest) (UpdateResult, error) {
	if err := e.waitWrite(ctx); err != nil {
		return UpdateResult{}, err
	}
	id, err := parseID(req.ID)
	if err != nil {
		return UpdateResult{}, err
	}
	if req.Content == nil && req.Tags == nil && req.AddTags == nil && req.RemoveTags == nil && req.Importance == nil && req.Category == nil && req.Scope == nil && req.Pinned == nil && req.SupersededBy == nil {
		return UpdateResult{}, inputErrorf("nothing to change: send content, tags, add_tags, remove_tags, importance, category, scope, pinned or superseded_by")
	}
	// Embed a new text before taking the write lock.
	var newVec []float32
	if req.Content != nil {
		newVec = e.embedText(ctx, normalizeContent(*req.Content))
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	it, ok := e.index().Lookup(id)
	if !ok || !it.Live() {
		return UpdateResult{}, inputErrorf("no live memory has id %s; it may have been forgotten (unforget_memory restores it)", req.ID)
	}
	cur, err := e.get(ctx, id, it.Kind)
	if err != nil {
		return UpdateResult{}, err
	}
	next := cur
	var changed []string
	if req.Content != nil {
		text := normalizeContent(*req.Content)
		if text == "" {
			return UpdateResult{}, inputErrorf("content must not be empty; to remove the memory use delete_memory")
		}
		if len(text) > e.opts.MaxContentBytes {
			return UpdateResult{}, inputErrorf("content is %d bytes; the limit is %d bytes", len(text), e.opts.MaxContentBytes)
		}
		if text != cur.Text {
			next.Text = text
			changed = append(changed, "content")
		}
	}
	tags := slices.Clone(cur.Tags)
	if req.Tags != nil {
		tags = *req.Tags
	}
	tags = append(tags, req.AddTags...)
	if len(req.RemoveTags) > 0 {
		drop := map[string]bool{}
		for _, t := range req.RemoveTags {
			drop[memindex.FoldTag(t)] = true
		}
		tags = slices.DeleteFunc(tags, func(t string) bool { return drop[memindex.FoldTag(t)] })
	}
	if tags, err = normalizeTags(tags); err != nil {
		return UpdateResult{}, err
	}
	if !slices.Equal(tags, cur.Tags) {
		next.Tags = tags
		changed = append(changed, "tags")
	}
	if req.Importance != nil {
		imp, err := checkImportance(req.Importance)
		if err != nil {
			return UpdateResult{}, err
		}
		if imp != cur.Importance {
			next.Importance = imp
			changed = append(changed, "importance")
		}
	}
	if req.Category != nil {
		_, _, cat, err := checkSmallFields("", "", *req.Category)
		if err != nil {
			return UpdateResult{}, err
		}
		if cat != cur.Category {
			next.Category = cat
			changed = append(changed, "category")
		}
	}
	if req.Scope != nil {
		scope, _, err := e.storeScope(ctx, *req.Scope, req.ActiveScope)
		if err != nil {
			return UpdateResult{}, err
		}
		if scope != cur.Scope {
			next.Scope = scope
			changed = append(changed, "scope")
		}
	}
	pinned := it.Has(memindex.FlagPinned)
	if req.Pinned != nil && *req.Pinned != pinned {
		pinned = *req.Pinned
		changed = append(changed, "pinned")
	}
	var links memindex.Links
	relink := false
	if req.SupersededBy != nil {
		if it.Kind != memindex.KindMemory {
			return UpdateResult{}, inputErrorf("a summary is never superseded; superseded_by is for memories")
		}
		if links, relink, err = e.supersededLinks(id, strings.TrimSpace(*req.SupersededBy)); err != nil {
			return UpdateResult{}, err
		}
	}
	res := UpdateResult{ID: req.ID, Changed: changed, Scope: next.Scope}
	if relink {
		res.Changed = append(res.Changed, "superseded_by")
	}
	if len(changed) == 0 {
		if relink {
			return res, e.applyLinks(ctx, id, links)
		}
		return res, nil
	}
	now := e.now()
	rev := mongostore.Revision{Text: cur.Text, Tags: cur.Tags, Importance: cur.Importance, Scope: cur.Scope, Category: cur.Category, ChangedAt: now}
	key := contentKey(next.Text)
	if dup, ok := e.index().Duplicate(next.Scope, key); ok && dup != id {
		return e.mergeEdit(ctx, res, id, it.Kind, dup, next, pinned)
	}
	set := bson.D{
		{Key: "tags", Value: next.Tags}, {Key: "importance", Value: next.Importance}, {Key: "scope", Value: next.Scope},
		{Key: "content_hash", Value: keyHex(key)}, {Key: "pinned", Value: pinned}, {Key: "updated_at", Value: now},
	}
	if it.Kind == memindex.KindSummary {
		set = append(set, bson.E{Key: "summary_text", Value: next.Text})
	} else {
		set = append(set, bson.E{Key: "text", Value: next.Text}, bson.E{Key: "category", Value: next.Category})
	}
	c := change{op: opEdit, id: id, kind: it.Kind,
		update: bson.D{{Key: "$set", Value: set}, {Key: "$push", Value: bson.D{{Key: "history", Value: rev}}}},
		doc: memindex.Doc{Text: next.Text, Source: cur.Source, Scope: next.Scope, Conv: cur.ConversationID, Speaker: cur.Speaker, Tags: next.Tags,
			TS: cur.Timestamp, Created: cur.CreatedAt, Importance: next.Importance, UseCount: it.UseCount, Key: key,
			Archived: cur.Archived, Pinned: pinned, KeepVec: true}}
	if slices.Contains(changed, "content") {
		res.PreviousText = cur.Text
		c.doc.Vec, c.doc.KeepVec = newVec, false
	}
	if err := e.apply(ctx, &c); err != nil {
		return UpdateResult{}, fmt.Errorf("cannot update memory %s: %w", req.ID, err)
	}
	if relink {
		return res, e.applyLinks(ctx, id, links)
	}
	return res, nil
}

// mergeEdit handles an edit that would leave two identical memories in a
// scope (the text or scope of id now equals that of into): into is kept
// and gets what the edit asked for (the union of the tags, the higher
// importance, the category when it had none, pinned when either was) and
// is brought out of the archive; id is left as it was and soft-forgotten
// as merged into it, the way maintenance merges duplicates, so that
// unforget_memory (or undoing the merge on the page) brings it back as it
// was before the edit. The caller holds writeMu.
func (e *Engine) mergeEdit(ctx context.Context, res UpdateResult, id bson.ObjectID, kind memindex.Kind, into bson.ObjectID, next Memory, pinned bool) (UpdateResult, error) {
	kit, ok := e.index().Lookup(into)
	if !ok || !kit.Live() {
		return UpdateResult{}, fmt.Errorf("cannot update memory %s: its duplicate %s is gone", id.Hex(), into.Hex())
	}
	kept, err := e.get(ctx, into, kit.Kind)
	if err != nil {
		return UpdateResult{}, err
	}
	tags, err := normalizeTags(append(slices.Clone(kept.Tags), next.Tags...))
	if err != nil {
		return UpdateResult{}, err
	}
	importance := max(kept.Importance, next.Importance)
	category := kept.Category
	if category == "" && kit.Kind != memindex.KindSummary {
		category = next.Category
	}
	pinned = pinned || kit.Has(memindex.FlagPinned)
	now := e.now()
	e.markDirty(ctx, into, id)
	set := bson.D{{Key: "tags", Value: tags}, {Key: "importance", Value: importance}, {Key: "pinned", Value: pinned},
		{Key: "archived", Value: false}, {Key: "updated_at", Value: now}}
	if kit.Kind != memindex.KindSummary {
		set = append(set, bson.E{Key: "category", Value: category})
	}
	update := bson.D{{Key: "$set", Value: set}}
	if kept.Archived {
		update = append(update, bson.E{Key: "$unset", Value: bson.D{{Key: "archived_at", Value: ""}, {Key: "archive_reason", Value: ""}}})
	}
	err = e.apply(ctx, &change{op: opEdit, id: into, kind: kit.Kind, update: update,
		doc: memindex.Doc{Text: kept.Text, Source: kept.Source, Scope: kept.Scope, Conv: kept.ConversationID, Speaker: kept.Speaker,
			Tags: tags, TS: kept.Timestamp, Created: kept.CreatedAt, Importance: importance, UseCount: kit.UseCount, Key: kit.Key,
			Pinned: pinned, KeepVec: true}})
	if err != nil {
		return UpdateResult{}, fmt.Errorf("cannot update memory %s (merging it into its duplicate %s): %w", id.Hex(), into.Hex(), err)
	}
	err = e.apply(ctx, &change{op: opForget, id: id, kind: kind, at: now,
		update: bson.D{{Key: "$set", Value: bson.D{{Key: "forgotten_at", Value: now}, {Key: "merged_into", Value: into.Hex()}, {Key: "updated_at", Value: now}}}}})
	if err != nil {
		return UpdateResult{}, fmt.Errorf("cannot merge memory %s into its duplicate %s: %w", id.Hex(), into.Hex(), err)
	}
	res.MergedInto, res.Scope = into.Hex(), kept.Scope
	return res, nil
}
