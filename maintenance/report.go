package maintenance

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
)

// Report is what one job run did (or, in a dry run, would do).
type Report struct {
	Job      string        `json:"job" bson:"job"`
	DryRun   bool          `json:"dry_run" bson:"dry_run"`
	Trigger  string        `json:"trigger" bson:"trigger"` // schedule or demand
	Started  time.Time     `json:"started" bson:"started"`
	Duration time.Duration `json:"duration_ns" bson:"duration_ns"`
	Outcome  string        `json:"outcome" bson:"outcome"` // ok or failed
	Error    string        `json:"error,omitempty" bson:"error,omitempty"`
	// Operations are short descriptions like the spec's
	// "merged_20_duplicate_entries_undo_with_unforget_memory".
	Operations []string `json:"operations" bson:"operations"`
	// Counts are the numbers behind the operations.
	Counts map[string]int `json:"counts" bson:"counts"`
	// Changes lists what changed, by memory id, for the audit trail.
	Changes []Change `json:"changes,omitempty" bson:"changes,omitempty"`
	// Merges lists each group of duplicates merged (or, in a dry run, that
	// would be), with their texts, so a person can check them.
	Merges []MergeGroup `json:"merges,omitempty" bson:"merges,omitempty"`
	// Warnings say what the job could not do (for status).
	Warnings []string `json:"warnings,omitempty" bson:"warnings,omitempty"`
}

// Change is one kind of change to some memories.
type Change struct {
	Action string   `json:"action" bson:"action"` // archived, merged_into:<id>, summarized:<id>, purged, ...
	IDs    []string `json:"ids" bson:"ids"`
}

// MergeGroup is one memory kept and the duplicates merged into it
// (soft-forgotten with merged_into; unforget_memory undoes it).
type MergeGroup struct {
	Scope  string       `json:"scope" bson:"scope"`
	Kept   MemoryText   `json:"kept" bson:"kept"`
	Merged []MemoryText `json:"merged" bson:"merged"`
	// KeptTags and KeptImportance are the kept memory's before the merge
	// (which gave it the union of the tags and the highest importance),
	// so that an undo can put them back (memory.Engine.UndoMerge). Unset
	// in dry runs and in entries written before they were recorded.
	KeptTags       []string `json:"kept_tags,omitempty" bson:"kept_tags,omitempty"`
	KeptImportance *float64 `json:"kept_importance,omitempty" bson:"kept_importance,omitempty"`
}

// MemoryText names a memory by id and (shortened) text.
type MemoryText struct {
	ID   string `json:"id" bson:"id"`
	Text string `json:"text" bson:"text"`
}

// add counts n under name and, when n > 0, records the operation.
func (r *Report) add(name string, n int, op string) {
	if r.Counts == nil {
		r.Counts = map[string]int{}
	}
	r.Counts[name] += n
	if n > 0 && op != "" {
		r.Operations = append(r.Operations, op)
	}
}

func (r *Report) change(action string, ids ...string) {
	if len(ids) > 0 {
		r.Changes = append(r.Changes, Change{Action: action, IDs: ids})
	}
}

// merge folds a sub-job's report into r.
func (r *Report) merge(sub *Report) {
	if sub == nil {
		return
	}
	r.Operations = append(r.Operations, sub.Operations...)
	for k, v := range sub.Counts {
		r.add(k, v, "")
	}
	r.Changes = append(r.Changes, sub.Changes...)
	r.Merges = append(r.Merges, sub.Merges...)
	r.Warnings = append(r.Warnings, sub.Warnings...)
}

// Run is a job's last recorded run.
type Run struct {
	ID       string         `bson:"_id"`
	Type     string         `bson:"type"`
	Job      string         `bson:"job"`
	LastRun  time.Time      `bson:"last_run"`
	Duration time.Duration  `bson:"duration_ns"`
	Outcome  string         `bson:"outcome"`
	Error    string         `bson:"error,omitempty"`
	Counts   map[string]int `bson:"counts"`
	Warnings []string       `bson:"warnings,omitempty"`
}

// AuditEntry is one run in the audit trail.
type AuditEntry struct {
	ID     string `json:"id" bson:"_id"`
	Type   string `json:"type" bson:"type"`
	Report `bson:",inline"`
}

var auditSeq atomic.Int64

const (
	runType   = "maintenance_run"
	auditType = "audit"
	// keepAudit bounds the audit trail.
	keepAudit = 500
)

func runKey(job string) string { return "maintenance:" + job }

// ReadRun reads a job's last recorded run (a zero Run when it never ran).
func ReadRun(ctx context.Context, store *mongostore.Store, job string) (Run, error) {
	var r Run
	err := store.GetMeta(ctx, runKey(job), &r)
	if errors.Is(err, mongostore.ErrNotFound) {
		return Run{Job: job}, nil
	}
	return r, err
}

// record stores a run's outcome and, for runs that did something or
// failed, an audit entry. Dry runs are audited but do not count as the
// job's last run.
func (s *Scheduler) record(ctx context.Context, rep *Report) error {
	if !rep.DryRun {
		run := Run{ID: runKey(rep.Job), Type: runType, Job: rep.Job, LastRun: rep.Started.UTC().Truncate(time.Millisecond),
			Duration: rep.Duration, Outcome: rep.Outcome, Error: rep.Error, Counts: rep.Counts, Warnings: rep.Warnings}
		if err := s.store.PutMeta(ctx, run.ID, &run); err != nil {
			return err
		}
	}
	// The time orders the trail; the sequence number keeps two runs that
	// share a timestamp apart.
	entry := AuditEntry{ID: fmt.Sprintf("audit:%s:%06d:%s", rep.Started.UTC().Format("20060102T150405.000000000Z"), auditSeq.Add(1)%1000000, rep.Job), Type: auditType, Report: *rep}
	entry.Started = entry.Started.UTC().Truncate(time.Millisecond)
	if err := s.store.PutMeta(ctx, entry.ID, &entry); err != nil {
		return err
	}
	return pruneAudit(ctx, s.store)
}

// Audit reads the audit trail, newest first, at most limit entries.
func Audit(ctx context.Context, store *mongostore.Store, limit int) ([]AuditEntry, error) {
	cur, err := store.Database().Collection(mongostore.Metadata).Find(ctx, bson.D{{Key: "type", Value: auditType}})
	if err != nil {
		return nil, fmt.Errorf("cannot read the maintenance audit trail: %w", err)
	}
	var out []AuditEntry
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("cannot read the maintenance audit trail: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func pruneAudit(ctx context.Context, store *mongostore.Store) error {
	all, err := Audit(ctx, store, 0)
	if err != nil || len(all) <= keepAudit {
		return err
	}
	for _, e := range all[keepAudit:] {
		if err := store.DeleteMeta(ctx, e.ID); err != nil {
			return err
		}
	}
	return nil
}

// Runs reads every job's last run, by job name.
func Runs(ctx context.Context, store *mongostore.Store) (map[string]Run, error) {
	cur, err := store.Database().Collection(mongostore.Metadata).Find(ctx, bson.D{{Key: "type", Value: runType}})
	if err != nil {
		return nil, fmt.Errorf("cannot read maintenance runs: %w", err)
	}
	var list []Run
	if err := cur.All(ctx, &list); err != nil {
		return nil, fmt.Errorf("cannot read maintenance runs: %w", err)
	}
	out := make(map[string]Run, len(list))
	for _, r := range list {
		out[r.Job] = r
	}
	return out, nil
}
