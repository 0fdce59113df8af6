package memory

import (
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
)

// Undoing what maintenance did, for the audit trail the local page shows:
// an archive (Unarchive) and a merge of duplicates (UndoMerge). A soft
// forget is undone by Unforget. Each change goes through apply, as every
// write does.

// Unarchive makes archived memories live again: listed, counted and
// browsed by default (searches with a query find archived ones too). With
// pin each is also pinned, so that the job that archived it (noise,
// relevance pruning, a summarized conversation) leaves it alone on its
// next run: those jobs archive by rules the memory still meets, and
// never touch a pinned memory. Memories that are forgotten, gone or not
// archived are skipped. It returns the ids brought back.
func (e *Engine) Unarchive(ctx context.Context, ids []string, pin bool) ([]string, error) {
	if err := e.wait(ctx); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, inputErrorf("send the ids of archived memories")
	}
	oids, err := parseIDs(ids)
	if err != nil {
		return nil, err
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	e.markDirty(ctx, oids...)
	var restored []string
	for _, id := range oids {
		it, ok := e.index().Lookup(id)
		if !ok || !it.Live() || !it.Has(memindex.FlagArchived) {
			continue
		}
		now := e.now()
		err := e.apply(ctx, &change{op: opFlag, id: id, kind: it.Kind, flag: memindex.FlagArchived, on: false,
			update: bson.D{
				{Key: "$set", Value: bson.D{{Key: "archived", Value: false}, {Key: "updated_at", Value: now}}},
				{Key: "$unset", Value: bson.D{{Key: "archived_at", Value: ""}, {Key: "archive_reason", Value: ""}}},
			}})
		if errIsNotFound(err) {
			continue
		}
		if err != nil {
			return restored, fmt.Errorf("cannot unarchive memory %s: %w", id.Hex(), err)
		}
		if pin && !it.Has(memindex.FlagPinned) {
			err = e.apply(ctx, &change{op: opFlag, id: id, kind: it.Kind, flag: memindex.FlagPinned, on: true,
				update: bson.D{{Key: "$set", Value: bson.D{{Key: "pinned", Value: true}, {Key: "updated_at", Value: now}}}}})
			if err != nil && !errIsNotFound(err) {
				return restored, fmt.Errorf("unarchived memory %s but cannot pin it: %w", id.Hex(), err)
			}
		}
		restored = append(restored, id.Hex())
	}
	return restored, nil
}

// UndoMergeRequest names a merge to undo: the memory kept and those merged
// into it, with what the kept memory was before, when known.
type UndoMergeRequest struct {
	Keep   string
	Merged []string
	// KeptTags and KeptImportance are the kept memory's tags and importance
	// before the merge (the audit trail records them); nil leaves the kept
	// memory as it is.
	KeptTags       []string
	KeptImportance *float64
}

// UndoMergeResult says what an undo changed.
type UndoMergeResult struct {
	// Restored are the merged memories brought back; Skipped those that
	// are no longer merged into Keep (already restored, forgotten by hand,
	// purged).
	Restored, Skipped []string
	// KeptChanged lists what of the kept memory was put back: tags,
	// importance.
	KeptChanged []string
}

// UndoMerge undoes a merge of duplicates: the memories merged into Keep
// stand on their own again (as Unforget does) and, when the request says
// what the kept memory was before, it loses the tags only the merged ones
// brought and gets its importance back — unless it was changed since the
// merge (a tag the user added stays; an importance set since stays).
func (e *Engine) UndoMerge(ctx context.Context, req UndoMergeRequest) (UndoMergeResult, error) {
	var res UndoMergeResult
	if err := e.wait(ctx); err != nil {
		return res, err
	}
	keepID, err := parseID(req.Keep)
	if err != nil {
		return res, err
	}
	oids, err := parseIDs(req.Merged)
	if err != nil {
		return res, err
	}
	if len(oids) == 0 {
		return res, inputErrorf("send the ids of the memories merged into %s", req.Keep)
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	e.markDirty(ctx, append([]bson.ObjectID{keepID}, oids...)...)
	now := e.now()
	var broughtTags []string
	broughtImportance := -1.0
	for _, id := range oids {
		it, ok := e.index().Lookup(id)
		if !ok || it.Live() {
			res.Skipped = append(res.Skipped, id.Hex())
			continue
		}
		m, err := e.get(ctx, id, it.Kind)
		if errIsNotFound(err) || err == nil && m.MergedInto != req.Keep {
			res.Skipped = append(res.Skipped, id.Hex())
			continue
		}
		if err != nil {
			return res, err
		}
		err = e.apply(ctx, &change{op: opUnforget, id: id, kind: it.Kind, doc: memindex.Doc{Text: m.Text},
			update: bson.D{
				{Key: "$unset", Value: bson.D{{Key: "forgotten_at", Value: ""}, {Key: "merged_into", Value: ""}}},
				{Key: "$set", Value: bson.D{{Key: "updated_at", Value: now}}},
			}})
		if errIsNotFound(err) {
			res.Skipped = append(res.Skipped, id.Hex())
			continue
		}
		if err != nil {
			return res, fmt.Errorf("cannot restore memory %s: %w", id.Hex(), err)
		}
		res.Restored = append(res.Restored, id.Hex())
		broughtTags = append(broughtTags, m.Tags...)
		broughtImportance = max(broughtImportance, m.Importance)
	}
	if len(res.Restored) == 0 || (req.KeptTags == nil && req.KeptImportance == nil) {
		return res, nil
	}
	kit, ok := e.index().Lookup(keepID)
	if !ok || !kit.Live() {
		return res, nil
	}
	kept, err := e.get(ctx, keepID, kit.Kind)
	if errIsNotFound(err) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	tags, importance := kept.Tags, kept.Importance
	if req.KeptTags != nil {
		before := map[string]bool{}
		for _, t := range req.KeptTags {
			before[memindex.FoldTag(t)] = true
		}
		brought := map[string]bool{}
		for _, t := range broughtTags {
			if f := memindex.FoldTag(t); !before[f] {
				brought[f] = true
			}
		}
		tags = slices.DeleteFunc(slices.Clone(kept.Tags), func(t string) bool { return brought[memindex.FoldTag(t)] })
		if len(tags) != len(kept.Tags) {
			res.KeptChanged = append(res.KeptChanged, "tags")
		}
	}
	if req.KeptImportance != nil && *req.KeptImportance < importance && importance == broughtImportance {
		importance = *req.KeptImportance
		res.KeptChanged = append(res.KeptChanged, "importance")
	}
	if len(res.KeptChanged) == 0 {
		return res, nil
	}
	if tags, err = normalizeTags(tags); err != nil {
		return res, err
	}
	err = e.apply(ctx, &change{op: opEdit, id: keepID, kind: kit.Kind,
		update: bson.D{{Key: "$set", Value: bson.D{{Key: "tags", Value: tags}, {Key: "importance", Value: importance}, {Key: "updated_at", Value: now}}}},
		doc: memindex.Doc{Text: kept.Text, Source: kept.Source, Scope: kept.Scope, Conv: kept.ConversationID, Speaker: kept.Speaker,
			Tags: tags, TS: kept.Timestamp, Created: kept.CreatedAt, Importance: importance, UseCount: kit.UseCount, Key: kit.Key,
			Archived: kept.Archived, Pinned: kit.Has(memindex.FlagPinned), KeepVec: true}})
	if err != nil {
		res.KeptChanged = nil
		return res, fmt.Errorf("restored %d memories but cannot put back the kept memory %s: %w", len(res.Restored), req.Keep, err)
	}
	return res, nil
}
