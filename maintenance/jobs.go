package maintenance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/faultpoint"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/memory/content"
	"github.com/infmem/infmem/internal/summarize"
	"github.com/infmem/infmem/mongostore"
)

// Env is what the jobs work with.
type Env struct {
	Engine *memory.Engine
	Store  *mongostore.Store
	Config config.Config
	// Summarizer condenses conversations (package summarize).
	Summarizer summarize.Summarizer
	// LastBackup reports when the last successful backup finished; purge
	// deletes only what a backup holds.
	LastBackup func(ctx context.Context) (time.Time, bool)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	Log *slog.Logger
	// Pause between batches; zero means the time the batch took (so a job
	// uses at most half of the machine and live requests interleave).
	Pause func(batch time.Duration) time.Duration
}

// Jobs, in the order the nightly pass runs them.
const (
	JobSummarize = "summarize"
	JobNoise     = "noise"
	JobDedup     = "dedup"
	JobPrune     = "prune"
	JobSize      = "size"
	JobPurge     = "purge"
	JobCompact   = "compact"
	// JobAll runs every job above, in that order.
	JobAll = "maintenance"
)

// batchSize bounds the memories one write batch touches.
const batchSize = 50

func (env *Env) now() time.Time {
	if env.Now != nil {
		return env.Now()
	}
	return time.Now()
}

func (env *Env) log() *slog.Logger {
	if env.Log != nil {
		return env.Log
	}
	return slog.New(slog.DiscardHandler)
}

// rest yields to live requests after a batch that took d.
func (env *Env) rest(ctx context.Context, d time.Duration) error {
	p := d
	if env.Pause != nil {
		p = env.Pause(d)
	}
	if p <= 0 {
		return ctx.Err()
	}
	select {
	case <-time.After(p):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// inBatches applies fn to ids batchSize at a time, resting between
// batches, and returns how many fn reported changed.
func (env *Env) inBatches(ctx context.Context, ids []string, fn func([]string) (int, error)) (int, error) {
	total := 0
	for len(ids) > 0 {
		n := min(batchSize, len(ids))
		start := time.Now()
		done, err := fn(ids[:n])
		total += done
		if err != nil {
			return total, err
		}
		ids = ids[n:]
		if err := env.rest(ctx, time.Since(start)); err != nil {
			return total, err
		}
	}
	return total, nil
}

// Register adds every job to s: the nightly pass on schedule (nil: on
// demand only) and each job on demand.
func Register(s *Scheduler, env *Env, schedule interface{ Next(time.Time) time.Time }) {
	jobs := env.jobs()
	for _, name := range order {
		s.Add(name, nil, jobs[name])
	}
	if schedule != nil {
		s.Add(JobAll, schedule, env.All)
	} else {
		s.Add(JobAll, nil, env.All)
	}
}

var order = []string{JobSummarize, JobNoise, JobDedup, JobPrune, JobSize, JobPurge, JobCompact}

func (env *Env) jobs() map[string]JobFunc {
	return map[string]JobFunc{
		JobSummarize: env.Summarize,
		JobNoise:     env.Noise,
		JobDedup:     env.Dedup,
		JobPrune:     env.Prune,
		JobSize:      env.Size,
		JobPurge:     env.Purge,
		JobCompact:   env.Compact,
	}
}

// All runs every job in order. One failing does not stop the others; their
// errors are joined.
func (env *Env) All(ctx context.Context, dryRun bool) (*Report, error) {
	rep := &Report{}
	var errs []error
	jobs := env.jobs()
	for _, name := range order {
		sub, err := func() (sub *Report, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panicked: %v", r)
				}
			}()
			return jobs[name](ctx, dryRun)
		}()
		rep.merge(sub)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			env.log().Warn("maintenance job failed; continuing with the next", "job", name, "err", err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	return rep, errors.Join(errs...)
}

// Summarize gives every conversation older than retention.keep_full_days
// without a summary one, then archives its raw messages (never deletes
// them).
func (env *Env) Summarize(ctx context.Context, dryRun bool) (*Report, error) {
	cutoff := env.now().AddDate(0, 0, -env.Config.Retention.KeepFullDays)
	rep := &Report{}
	n, archived, err := env.summarizeConversations(ctx, env.Engine.Conversations(cutoff), dryRun, rep, -1)
	rep.add("conversations_summarized", n, fmt.Sprintf("summarized_%d_old_conversations", n))
	rep.add("messages_archived", archived, fmt.Sprintf("archived_%d_summarized_messages", archived))
	return rep, err
}

// summarizeConversations summarizes and archives convs in order until
// budget messages are archived (budget < 0: all). It returns conversations
// summarized and messages archived.
func (env *Env) summarizeConversations(ctx context.Context, convs []memory.ConversationInfo, dryRun bool, rep *Report, budget int) (int, int, error) {
	summarized, archived := 0, 0
	for _, c := range convs {
		if budget >= 0 && archived >= budget {
			break
		}
		start := time.Now()
		msgs, err := env.Engine.ConversationMessages(ctx, c.ID)
		if err != nil {
			return summarized, archived, err
		}
		if len(msgs) == 0 {
			continue
		}
		ids := make([]string, len(msgs))
		for i, m := range msgs {
			ids[i] = m.ID
		}
		if dryRun {
			rep.change("would_summarize:"+c.ID, ids...)
			summarized++
			archived += len(ids)
			continue
		}
		// What earlier passes left: a summary stored whole covers its
		// messages; the parts of one a crash cut short cover nothing, and
		// are dropped once the conversation's summary is stored whole.
		covered, all, unfinished := map[string]bool{}, false, []string(nil)
		if c.Summarized {
			sums, err := env.Engine.ConversationSummaries(ctx, c.ID)
			if err != nil {
				return summarized, archived, err
			}
			covered, all, unfinished = summaryCoverage(sums)
		}
		var todo []memory.Memory
		for _, m := range msgs {
			if !all && !covered[m.ID] {
				todo = append(todo, m)
			}
		}
		summaryID := ""
		if len(todo) > 0 {
			partIDs, err := env.summarizeMessages(ctx, c, todo, len(todo) == len(msgs))
			if err != nil {
				return summarized, archived, err
			}
			if partIDs == nil {
				// Nothing worth keeping was said (acknowledgements only);
				// the messages stay as they are rather than be lost.
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("conversation %q produced an empty summary; left unarchived", c.ID))
				continue
			}
			summaryID = strings.Join(partIDs, ", ")
			summarized++
		}
		if len(unfinished) > 0 {
			n, err := env.Engine.DropSummaries(ctx, unfinished)
			rep.add("unfinished_summary_parts_dropped", n, fmt.Sprintf("dropped_%d_parts_of_an_unfinished_summary_of_%s", n, c.ID))
			rep.change("dropped_unfinished_summary:"+c.ID, unfinished...)
			if err != nil {
				return summarized, archived, err
			}
		}
		// Messages are archived only once a whole summary covers them
		// (one a crash interrupted after its summary needs no new one).
		reason := "summarized"
		if summaryID != "" {
			reason = "summarized into " + summaryID
		}
		n, err := env.inBatches(ctx, ids, func(b []string) (int, error) { return env.Engine.Archive(ctx, b, reason) })
		archived += n
		rep.change("archived:"+reason, ids...)
		if err != nil {
			return summarized, archived, err
		}
		if err := env.rest(ctx, time.Since(start)); err != nil {
			return summarized, archived, err
		}
	}
	return summarized, archived, nil
}

// summarizeMessages summarizes msgs of conversation c (all of its live
// messages when whole) and stores the summary, in parts if it is longer
// than a memory may be (memory.max_content_bytes: every fact sentence of a
// long session is kept), each part naming the whole summary and its
// number so that a pass after a crash between parts sees the summary is
// unfinished. It returns the ids stored, none for an empty summary.
func (env *Env) summarizeMessages(ctx context.Context, c memory.ConversationInfo, msgs []memory.Memory, whole bool) ([]string, error) {
	in := make([]summarize.Message, len(msgs))
	ids := make([]string, len(msgs))
	from, to := c.From, c.To
	for i, m := range msgs {
		in[i] = summarize.Message{Text: m.Text, Speaker: m.Speaker, Timestamp: m.Timestamp}
		ids[i] = m.ID
		if !whole && (i == 0 || m.Timestamp.Before(from)) {
			from = m.Timestamp
		}
		if !whole && (i == 0 || m.Timestamp.After(to)) {
			to = m.Timestamp
		}
	}
	sum, err := env.Summarizer.Summarize(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("cannot summarize conversation %q: %w", c.ID, err)
	}
	if strings.TrimSpace(sum.Text) == "" {
		return nil, nil
	}
	parts := content.Split(sum.Text, env.Config.Memory.MaxContentBytes)
	wholeID := ""
	if len(parts) > 1 {
		wholeID = bson.NewObjectID().Hex()
	}
	partIDs := make([]string, 0, len(parts))
	for k, part := range parts {
		in := memory.SummaryInput{ConversationID: c.ID, Scope: c.Scope, Text: part, Method: sum.Method, Refs: ids, From: from, To: to}
		if wholeID != "" {
			in.Whole, in.Part, in.Parts = wholeID, k+1, len(parts)
		}
		id, err := env.Engine.AddSummary(ctx, in)
		if err != nil {
			return nil, err
		}
		partIDs = append(partIDs, id)
		faultpoint.Crash("summary-part")
	}
	return partIDs, nil
}

// summaryCoverage reads a conversation's summaries: the messages those
// stored whole cover (all: one names none, as a client's summary of the
// conversation) and the ids of the parts of summaries left unfinished.
func summaryCoverage(sums []memory.SummaryPart) (covered map[string]bool, all bool, unfinished []string) {
	covered = map[string]bool{}
	type whole struct {
		parts int
		have  map[int]bool
		ids   []string
		refs  []string
	}
	wholes := map[string]*whole{}
	cover := func(refs []string) {
		all = all || len(refs) == 0
		for _, r := range refs {
			covered[r] = true
		}
	}
	for _, s := range sums {
		if s.Parts <= 1 || s.Whole == "" {
			cover(s.Refs)
			continue
		}
		w := wholes[s.Whole]
		if w == nil {
			w = &whole{have: map[int]bool{}}
			wholes[s.Whole] = w
		}
		w.parts = max(w.parts, s.Parts)
		w.have[s.Part] = true
		w.ids = append(w.ids, s.ID)
		w.refs = append(w.refs, s.Refs...)
	}
	for _, w := range wholes {
		done := true
		for k := 1; k <= w.parts; k++ {
			done = done && w.have[k]
		}
		if done {
			cover(w.refs)
		} else {
			unfinished = append(unfinished, w.ids...)
		}
	}
	slices.Sort(unfinished)
	return covered, all, unfinished
}

// Noise archives acknowledgements ("ok", "thanks", …) older than a day.
func (env *Env) Noise(ctx context.Context, dryRun bool) (*Report, error) {
	rep := &Report{}
	ids := env.Engine.NoiseCandidates(env.now().Add(-24 * time.Hour))
	return env.archive(ctx, rep, ids, dryRun, "acknowledgement", "noise_archived", "archived_%d_acknowledgements")
}

func (env *Env) archive(ctx context.Context, rep *Report, ids []string, dryRun bool, reason, count, op string) (*Report, error) {
	if dryRun {
		rep.change("would_archive:"+reason, ids...)
		rep.add(count, len(ids), fmt.Sprintf(op, len(ids)))
		return rep, nil
	}
	n, err := env.inBatches(ctx, ids, func(b []string) (int, error) { return env.Engine.Archive(ctx, b, reason) })
	rep.change("archived:"+reason, ids...)
	rep.add(count, n, fmt.Sprintf(op, n))
	return rep, err
}

// Dedup merges duplicates within each scope: identical normalised text,
// or the same facts in nearly the same words (memory.DuplicateGroups: the
// embedding's cosine of at least dedup.threshold only proposes a pair).
// The most used (else the newest) is kept, with the union of the tags and
// the highest importance; the others are soft-forgotten with merged_into,
// so unforget undoes it. Every group is reported with its texts, in a dry
// run too. Only memories stored since the last run are compared with the
// rest.
func (env *Env) Dedup(ctx context.Context, dryRun bool) (*Report, error) {
	rep := &Report{}
	var cur dedupCursor
	if err := env.Store.GetMeta(ctx, dedupCursorKey, &cur); err != nil && !errors.Is(err, mongostore.ErrNotFound) {
		return rep, err
	}
	started := env.now()
	groups, err := env.Engine.DuplicateGroups(ctx, env.Config.Dedup.Threshold, cur.Since)
	if err != nil {
		return rep, err
	}
	merged := 0
	for _, g := range groups {
		if dryRun {
			rep.change("would_merge_into:"+g.Keep, g.Others...)
			rep.Merges = append(rep.Merges, mergeGroup(g))
			merged += len(g.Others)
			continue
		}
		start := time.Now()
		// What the kept memory is before the merge, for an undo.
		before, berr := env.Engine.Get(ctx, g.Keep)
		n, err := env.Engine.Merge(ctx, g.Keep, g.Others)
		merged += n
		if n > 0 {
			rep.change("merged_into:"+g.Keep, g.Others...)
			mg := mergeGroup(g)
			if berr == nil {
				mg.KeptTags, mg.KeptImportance = append([]string{}, before.Tags...), &before.Importance
			}
			rep.Merges = append(rep.Merges, mg)
		}
		if err != nil {
			return rep, err
		}
		if err := env.rest(ctx, time.Since(start)); err != nil {
			return rep, err
		}
	}
	op := "merged_%d_duplicate_entries_undo_with_unforget_memory"
	if dryRun {
		op = "would_merge_%d_duplicate_entries"
	}
	rep.add("duplicates_merged", merged, fmt.Sprintf(op, merged))
	if !dryRun {
		// The next run compares what is stored from an hour before this one
		// started (clock slack), against everything.
		cur = dedupCursor{ID: dedupCursorKey, Type: "dedup_cursor", Since: started.Add(-time.Hour).UTC()}
		if err := env.Store.PutMeta(ctx, dedupCursorKey, &cur); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// mergeGroup is a duplicate group as reports show it.
func mergeGroup(g memory.DuplicateGroup) MergeGroup {
	out := MergeGroup{Scope: g.Scope, Kept: MemoryText{ID: g.Keep, Text: shorten(g.Texts[g.Keep])}}
	for _, id := range g.Others {
		out.Merged = append(out.Merged, MemoryText{ID: id, Text: shorten(g.Texts[id])})
	}
	return out
}

// shorten keeps report texts to a readable length.
func shorten(s string) string {
	const max = 200
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}

const dedupCursorKey = "maintenance:dedup-cursor"

type dedupCursor struct {
	ID    string    `bson:"_id"`
	Type  string    `bson:"type"`
	Since time.Time `bson:"since"`
}

// pruneRule is relevance pruning's age and importance bar for a mode.
func pruneRule(mode string) (days int, maxImportance float64, ok bool) {
	switch mode {
	case "moderate":
		return 365, 0.4, true
	case "aggressive":
		return 90, 0.6, true
	}
	return 0, 0, false
}

// Prune archives never-recalled, low-importance raw memories when
// retention.mode is moderate or aggressive. Notes, profile facts,
// summaries, pinned and important (0.7+) memories are never pruned.
func (env *Env) Prune(ctx context.Context, dryRun bool) (*Report, error) {
	rep := &Report{}
	days, maxImp, ok := pruneRule(env.Config.Retention.Mode)
	if !ok {
		rep.add("pruned", 0, "")
		return rep, nil
	}
	ids := env.Engine.StaleCandidates(env.now().AddDate(0, 0, -days), maxImp)
	return env.archive(ctx, rep, ids, dryRun, fmt.Sprintf("not recalled in %d days", days), "pruned", "archived_%d_unused_memories")
}

// Size enforces the soft limits. Above max_memory_items, or when the live
// memories' share of the database is above max_memory_size_mb, the oldest
// conversations are summarized and archived until live memories are under
// 90 % of the limit. The live share is the database size times the live
// fraction of its memories: archiving leaves the file as large as it was
// (archived memories are kept), so measuring the file alone would archive
// everything night after night. When only memories it may not touch remain,
// it warns instead of deleting; a file over the limit because of what is
// archived or forgotten is reported too.
func (env *Env) Size(ctx context.Context, dryRun bool) (*Report, error) {
	rep := &Report{}
	st, err := env.Engine.Stats(ctx)
	if err != nil {
		return rep, err
	}
	// The data's own size, not the files' (Stats: they include the
	// write-ahead log and free pages).
	if st.DBSizeMB, err = env.Engine.DataSizeMB(ctx); err != nil {
		return rep, err
	}
	limit, limitMB := env.Config.MaxMemoryItems, float64(env.Config.MaxMemorySizeMB)
	excess := 0
	if st.TotalMemories > limit {
		excess = st.TotalMemories - limit*9/10
	}
	perMemoryMB := 0.0
	if docs := st.TotalMemories + st.Archived + st.Forgotten; docs > 0 {
		perMemoryMB = st.DBSizeMB / float64(docs)
	}
	liveMB := perMemoryMB * float64(st.TotalMemories)
	if limitMB > 0 && liveMB > limitMB {
		excess = max(excess, int(math.Ceil((liveMB-0.9*limitMB)/perMemoryMB)))
	}
	left := st.TotalMemories
	if excess > 0 {
		n, archived, err := env.summarizeConversations(ctx, env.Engine.Conversations(env.now()), dryRun, rep, excess)
		rep.add("size_conversations_summarized", n, fmt.Sprintf("summarized_%d_conversations_over_the_size_limit", n))
		rep.add("size_messages_archived", archived, fmt.Sprintf("archived_%d_messages_over_the_size_limit", archived))
		if err != nil {
			return rep, err
		}
		left = st.TotalMemories - archived + n
		if left > limit {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d live memories exceed max_memory_items (%d), but the rest are notes, summaries or pinned memories, which maintenance never deletes; raise the limit or forget some", left, limit))
		}
		if mb := perMemoryMB * float64(left); limitMB > 0 && mb > limitMB {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("live memories take about %.1f MB, above max_memory_size_mb (%d), but the rest are notes, summaries or pinned memories, which maintenance never deletes; raise the limit or forget some", mb, env.Config.MaxMemorySizeMB))
		}
	}
	if limitMB > 0 && st.DBSizeMB > limitMB {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the database file holds %.1f MB, above max_memory_size_mb (%d), of which about %.1f MB are archived or forgotten memories, which are kept: forget what is not needed (purge follows the next backup) or raise the limit",
			st.DBSizeMB, env.Config.MaxMemorySizeMB, st.DBSizeMB-perMemoryMB*float64(left)))
	}
	return rep, nil
}

// Purge deletes soft-forgotten memories forgotten more than
// forget.purge_after_days ago, and only those a successful backup made
// after they were forgotten holds.
func (env *Env) Purge(ctx context.Context, dryRun bool) (*Report, error) {
	rep := &Report{}
	cutoff := env.now().AddDate(0, 0, -env.Config.Forget.PurgeAfterDays)
	last, ok := time.Time{}, false
	if env.LastBackup != nil {
		last, ok = env.LastBackup(ctx)
	}
	if !ok {
		if len(env.Engine.PurgeCandidates(cutoff)) > 0 {
			rep.Warnings = append(rep.Warnings, "forgotten memories are due for deletion, but no successful backup holds them yet; they are kept until one does")
		}
		rep.add("purged", 0, "")
		return rep, nil
	}
	if last.Before(cutoff) {
		cutoff = last
	}
	ids := env.Engine.PurgeCandidates(cutoff)
	if dryRun {
		rep.change("would_purge", ids...)
		rep.add("purged", len(ids), fmt.Sprintf("deleted_%d_forgotten_memories", len(ids)))
		return rep, nil
	}
	n, err := env.inBatches(ctx, ids, func(b []string) (int, error) { return env.Engine.Purge(ctx, b) })
	rep.change("purged", ids...)
	rep.add("purged", n, fmt.Sprintf("deleted_%d_forgotten_memories", n))
	return rep, err
}

// Compact compacts the database the way its engine allows, repairs the
// embedding index against the memories, and refreshes the stats record.
func (env *Env) Compact(ctx context.Context, dryRun bool) (*Report, error) {
	rep := &Report{}
	if dryRun {
		return rep, nil
	}
	how, err := env.Store.Compact(ctx)
	if err != nil {
		rep.Warnings = append(rep.Warnings, "compaction failed: "+err.Error())
	} else {
		rep.add("compacted", 1, "compacted_db ("+how+")")
	}
	removed, queued, err := env.Engine.Reconcile(ctx)
	if err != nil {
		return rep, err
	}
	rep.add("orphaned_embeddings_removed", removed, fmt.Sprintf("removed_%d_orphaned_embeddings", removed))
	rep.add("memories_queued_for_embedding", queued, fmt.Sprintf("queued_%d_memories_for_embedding", queued))
	st, err := env.Engine.Stats(ctx)
	if err != nil {
		return rep, err
	}
	rec := statsRecord{ID: "stats", Type: "stats", TotalMemories: st.TotalMemories, Scopes: st.Scopes, Summaries: st.Summaries,
		Forgotten: st.Forgotten, Archived: st.Archived, DBSizeMB: st.DBSizeMB, UpdatedAt: env.now().UTC()}
	if err := env.Store.PutMeta(ctx, rec.ID, &rec); err != nil {
		return rep, err
	}
	rep.add("stats_refreshed", 1, "refreshed_stats")
	return rep, nil
}

type statsRecord struct {
	ID            string         `bson:"_id"`
	Type          string         `bson:"type"`
	TotalMemories int            `bson:"total_memories"`
	Scopes        map[string]int `bson:"scopes"`
	Summaries     int            `bson:"summaries"`
	Forgotten     int            `bson:"forgotten"`
	Archived      int            `bson:"archived"`
	DBSizeMB      float64        `bson:"db_size_mb"`
	UpdatedAt     time.Time      `bson:"updated_at"`
}
