package webui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/maintenance"
)

// errNoService: the daemon did not give the server what a view needs.
var errNoService = errors.New("this infmem does not offer that here")

// auditLimit is how many runs the maintenance view shows.
const auditLimit = 30

// maxShown bounds the memories an item lists (and checks) by text.
const maxShown = 5

// runOut is one maintenance run of the audit trail, as the page shows it:
// what it changed, item by item, each with the undo the engine offers.
type runOut struct {
	ID         string         `json:"id"`
	Job        string         `json:"job"`
	Trigger    string         `json:"trigger"`
	DryRun     bool           `json:"dry_run"`
	Started    time.Time      `json:"started"`
	DurationMS int64          `json:"duration_ms"`
	Outcome    string         `json:"outcome"`
	Error      string         `json:"error,omitempty"`
	Operations []string       `json:"operations"`
	Warnings   []string       `json:"warnings,omitempty"`
	Items      []itemOut      `json:"items"`
	Changed    bool           `json:"changed"`
	Counts     map[string]int `json:"counts,omitempty"`
}

// itemOut is one change of a run.
type itemOut struct {
	// Key names the item within its run (m3: the fourth merge group, c0:
	// the first change); an undo names it, never the memories.
	Key string `json:"key"`
	// Kind is merge, archive, purge or preview (a dry run's).
	Kind  string `json:"kind"`
	Title string `json:"title"`
	// Kept and Memories name (some of) the memories, with their text.
	Kept     *textOut  `json:"kept,omitempty"`
	Memories []textOut `json:"memories"`
	Count    int       `json:"count"`
	// Undo is what undoing does (empty: it cannot be undone here, and
	// Note says why); Undone says there is nothing left to undo.
	Undo   string `json:"undo,omitempty"`
	Undone bool   `json:"undone,omitempty"`
	Note   string `json:"note,omitempty"`
}

type textOut struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// State is live, forgotten, archived or gone (now, not at the time).
	State string `json:"state,omitempty"`
}

func (s *Server) audit(ctx context.Context, limit int) ([]maintenance.AuditEntry, error) {
	if s.opts.Audit == nil {
		return nil, fmt.Errorf("%w: the maintenance audit trail needs the daemon", errNoService)
	}
	return s.opts.Audit(ctx, limit)
}

// maintenanceView is the audit trail, newest run first, with the running
// job if any.
func (s *Server) maintenanceView(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	entries, err := s.audit(ctx, auditLimit)
	if err != nil {
		return nil, err
	}
	runs := []runOut{}
	for _, e := range entries {
		runs = append(runs, s.describeRun(ctx, eng, e))
	}
	return map[string]any{"runs": runs, "running": s.runningTask("maintain"), "jobs": maintenanceJobs}, nil
}

// maintenanceJobs are the jobs the page can run, the whole pass first.
var maintenanceJobs = []string{maintenance.JobAll, maintenance.JobSummarize, maintenance.JobNoise, maintenance.JobDedup,
	maintenance.JobPrune, maintenance.JobSize, maintenance.JobPurge, maintenance.JobCompact}

func (s *Server) describeRun(ctx context.Context, eng *memory.Engine, e maintenance.AuditEntry) runOut {
	o := runOut{ID: e.ID, Job: e.Job, Trigger: e.Trigger, DryRun: e.DryRun, Started: e.Started, DurationMS: e.Duration.Milliseconds(),
		Outcome: e.Outcome, Error: e.Error, Operations: e.Operations, Warnings: e.Warnings, Items: []itemOut{}, Counts: e.Counts}
	if o.Operations == nil {
		o.Operations = []string{}
	}
	for _, it := range items(e.Report) {
		o.Items = append(o.Items, s.itemState(ctx, eng, it))
	}
	o.Changed = len(o.Items) > 0
	return o
}

// item is one change of a report and where it came from.
type item struct {
	key    string
	kind   string
	action string
	merge  *maintenance.MergeGroup
	ids    []string
}

// items splits a report into its changes: each merge group (with its
// texts) and each other change; a merge's change line duplicates its
// group and is left out.
func items(rep maintenance.Report) []item {
	var out []item
	grouped := map[string]bool{}
	for i := range rep.Merges {
		g := &rep.Merges[i]
		kind := "merge"
		if rep.DryRun {
			kind = "preview"
		}
		ids := make([]string, len(g.Merged))
		for j, m := range g.Merged {
			ids[j] = m.ID
		}
		out = append(out, item{key: fmt.Sprintf("m%d", i), kind: kind, action: "merged_into:" + g.Kept.ID, merge: g, ids: ids})
		grouped["merged_into:"+g.Kept.ID] = true
		grouped["would_merge_into:"+g.Kept.ID] = true
	}
	for i, c := range rep.Changes {
		if grouped[c.Action] || len(c.IDs) == 0 {
			continue
		}
		kind := "other"
		switch {
		case strings.HasPrefix(c.Action, "would_"):
			kind = "preview"
		case strings.HasPrefix(c.Action, "archived:"):
			kind = "archive"
		case c.Action == "purged":
			kind = "purge"
		case strings.HasPrefix(c.Action, "merged_into:"):
			kind = "merge"
		}
		out = append(out, item{key: fmt.Sprintf("c%d", i), kind: kind, action: c.Action, ids: c.IDs})
	}
	return out
}

// itemState describes an item and whether there is still something to
// undo, from the memories as they are now (the first maxShown of them).
func (s *Server) itemState(ctx context.Context, eng *memory.Engine, it item) itemOut {
	o := itemOut{Key: it.key, Kind: it.kind, Count: len(it.ids), Memories: []textOut{}}
	plural := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	shown := it.ids[:min(len(it.ids), maxShown)]
	if it.merge != nil {
		o.Kept = &textOut{ID: it.merge.Kept.ID, Text: it.merge.Kept.Text, State: memState(ctx, eng, it.merge.Kept.ID, "")}
		for _, m := range it.merge.Merged {
			o.Memories = append(o.Memories, textOut{ID: m.ID, Text: m.Text, State: memState(ctx, eng, m.ID, it.merge.Kept.ID)})
		}
	} else {
		for _, id := range shown {
			t := textOut{ID: id, State: memState(ctx, eng, id, "")}
			if m, err := eng.Get(ctx, id); err == nil {
				t.Text = shortText(m.Text, 200)
			}
			o.Memories = append(o.Memories, t)
		}
	}
	// Nothing left to undo when none of the memories checked is still in
	// the state the run left it in.
	still := func(state string) bool {
		return slices.ContainsFunc(o.Memories, func(t textOut) bool { return t.State == state })
	}
	switch it.kind {
	case "merge":
		o.Title = fmt.Sprintf("Merged %s into one", plural(len(it.ids)+1, "memory", "memories that said the same"))
		o.Undo = "Brings the merged memories back on their own and takes back the tags and importance they gave the one kept."
		if it.merge == nil {
			o.Undo = "Brings the merged memories back on their own (the tags and importance the kept one got stay: this run did not record them)."
		} else if it.merge.KeptTags == nil && it.merge.KeptImportance == nil {
			o.Undo = "Brings the merged memories back on their own (the tags and importance the kept one got stay: this run did not record them)."
		}
		o.Undone = !still("merged")
	case "archive":
		reason := strings.TrimPrefix(it.action, "archived:")
		o.Title = fmt.Sprintf("Archived %s (%s)", plural(len(it.ids), "memory", "memories"), reason)
		o.Undo = "Brings them back into recall and pins them, so maintenance does not archive them again."
		if strings.HasPrefix(reason, "summarized") {
			o.Note = "The conversation's summary stays."
		}
		o.Undone = !still("archived") && len(it.ids) <= maxShown
	case "purge":
		o.Title = fmt.Sprintf("Deleted %s for good (forgotten long ago, held by a backup)", plural(len(it.ids), "forgotten memory", "forgotten memories"))
		o.Note = "Deleted for good: only a backup made before this run holds them (restore it with 'infmem restore')."
	case "preview":
		o.Title = fmt.Sprintf("Would %s: %s (dry run, nothing changed)", strings.ReplaceAll(strings.TrimPrefix(strings.SplitN(it.action, ":", 2)[0], "would_"), "_", " "),
			plural(len(it.ids), "memory", "memories"))
		if it.merge != nil {
			o.Title = fmt.Sprintf("Would merge %s into one (dry run, nothing changed)", plural(len(it.ids)+1, "memory", "memories"))
		}
	default:
		o.Title = fmt.Sprintf("%s: %s", strings.ReplaceAll(it.action, "_", " "), plural(len(it.ids), "memory", "memories"))
	}
	if o.Undone {
		o.Undo = ""
		o.Note = strings.TrimSpace("Undone (or changed since). " + o.Note)
	}
	return o
}

// memState is what a memory is now: live, archived, forgotten, merged
// (forgotten into mergedInto) or gone.
func memState(ctx context.Context, eng *memory.Engine, id, mergedInto string) string {
	m, err := eng.Get(ctx, id)
	switch {
	case err != nil:
		return "gone"
	case m.ForgottenAt != nil && mergedInto != "" && m.MergedInto == mergedInto:
		return "merged"
	case m.ForgottenAt != nil:
		return "forgotten"
	case m.Archived:
		return "archived"
	}
	return "live"
}

type undoIn struct {
	Run  string `json:"run"`
	Item string `json:"item"`
}

// undo undoes one change of a run, read again from the audit trail (the
// page names the run and the item, never the memories), through the
// engine: UndoMerge for a merge, Unarchive (and pin) for an archive.
func (s *Server) undo(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	var in undoIn
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	entries, err := s.audit(ctx, 0)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(entries, func(e maintenance.AuditEntry) bool { return e.ID == in.Run })
	if i < 0 {
		return nil, badf("no maintenance run %q in the audit trail", in.Run)
	}
	its := items(entries[i].Report)
	j := slices.IndexFunc(its, func(it item) bool { return it.key == in.Item })
	if j < 0 {
		return nil, badf("that run has no change %q", in.Item)
	}
	it := its[j]
	switch it.kind {
	case "merge":
		keep := strings.TrimPrefix(it.action, "merged_into:")
		req := memory.UndoMergeRequest{Keep: keep, Merged: it.ids}
		if it.merge != nil {
			req.KeptTags, req.KeptImportance = it.merge.KeptTags, it.merge.KeptImportance
		}
		res, err := eng.UndoMerge(ctx, req)
		if err != nil {
			return nil, err
		}
		s.log.Info("UI undid a merge", "run", in.Run, "kept", keep, "restored", len(res.Restored))
		return map[string]any{"restored": nonNil(res.Restored), "skipped": nonNil(res.Skipped), "kept_changed": nonNil(res.KeptChanged)}, nil
	case "archive":
		restored, err := eng.Unarchive(ctx, it.ids, true)
		if err != nil {
			return nil, err
		}
		s.log.Info("UI undid an archive", "run", in.Run, "restored", len(restored))
		return map[string]any{"restored": nonNil(restored), "pinned": true}, nil
	}
	return nil, badf("this change cannot be undone")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

type runIn struct {
	Job    string `json:"job"`
	DryRun bool   `json:"dry_run"`
}

// runMaintenance starts a maintenance job now, as a task the page polls.
func (s *Server) runMaintenance(ctx context.Context, r *http.Request) (any, error) {
	var in runIn
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	if in.Job == "" {
		in.Job = maintenance.JobAll
	}
	if !slices.Contains(maintenanceJobs, in.Job) {
		return nil, badf("no maintenance job %q (jobs: %s)", in.Job, strings.Join(maintenanceJobs, ", "))
	}
	if s.opts.Maintain == nil {
		return nil, fmt.Errorf("%w: running maintenance needs the daemon", errNoService)
	}
	label := "maintenance (" + in.Job + ")"
	if in.Job == maintenance.JobAll {
		label = "the whole maintenance pass"
	}
	if in.DryRun {
		label += ", dry run"
	}
	return s.startTask("maintain", label, func(ctx context.Context, t *task) (any, error) {
		rep, err := s.opts.Maintain(ctx, in.Job, in.DryRun)
		if rep == nil {
			return nil, err
		}
		out := map[string]any{"operations": nonNil(rep.Operations), "counts": rep.Counts, "warnings": nonNil(rep.Warnings),
			"changes": len(items(*rep))}
		if err != nil {
			// A job that failed part-way still reports what it did.
			out["warnings"] = append(nonNil(rep.Warnings), "some jobs failed: "+s.opts.Redact(err.Error()))
		}
		return out, nil
	})
}

// shortText keeps at most n runes of s.
func shortText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
