package maintenance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/summarize"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// today is the fake clock's "now" for the seeded data.
var today = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func daysAgo(n int) time.Time { return today.AddDate(0, 0, -n) }

type fixture struct {
	t     *testing.T
	store *mongostore.Store
	eng   *memory.Engine
	clk   *clock
	env   *Env
	ids   map[string]string // label -> memory id
}

// newFixture seeds two years of memories: old and recent conversations,
// notes, acknowledgements, stale and protected memories, duplicates.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	emb, err := embed.NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: today}
	eng := memory.New(store, reg, memory.Options{Embedder: emb, Now: clk.Now, Logger: testenv.Logger(t)})
	eng.Start(ctx)
	t.Cleanup(func() { eng.Close(context.Background()) })
	f := &fixture{t: t, store: store, eng: eng, clk: clk, ids: map[string]string{}}
	cfg := config.Defaults()
	f.env = &Env{
		Engine: eng, Store: store, Config: cfg, Now: clk.Now, Log: testenv.Logger(t),
		Summarizer: summarize.NewExtractive(emb, summarize.ExtractiveOptions{}),
		Pause:      func(time.Duration) time.Duration { return 0 },
	}

	conv := func(label string, days int, scope string, lines ...string) {
		for i, l := range lines {
			speaker := "user"
			if i%2 == 1 {
				speaker = "assistant"
			}
			f.put(fmt.Sprintf("%s#%d", label, i), memory.StoreRequest{
				Content: l, Scope: scope, ConversationID: label, Speaker: speaker, Source: "conversation",
				Timestamp: daysAgo(days).Add(time.Duration(i) * time.Minute),
			})
		}
	}
	conv("trip-2023", 600, "Travel",
		"We are planning a trip to Lisbon in September 2023.",
		"Great, how many days will you stay?",
		"Seven days, and Maria will join us on the 12th.",
		"I booked the Alfama hotel for 340 euros per night.",
		"ok",
	)
	conv("launch-2024", 200, "Work",
		"The Apollo launch moved to March 3.",
		"Who owns the checklist?",
		"Dana owns it and we decided to freeze the scope on Friday.",
	)
	conv("recent-chat", 10, "Work",
		"Remind me to review Priya's pull request tomorrow.",
		"Sure, I will remember the review.",
	)
	f.put("ack-old", memory.StoreRequest{Content: "thanks!", Timestamp: daysAgo(30), Source: "conversation"})
	f.put("ack-new", memory.StoreRequest{Content: "thank you", Timestamp: today.Add(-time.Hour), Source: "conversation"})
	f.put("note-old", memory.StoreRequest{Content: "My passport number ends in 4412", Timestamp: daysAgo(700)})
	low := 0.2
	f.put("stale", memory.StoreRequest{Content: "The cafeteria had lentil soup on a Tuesday", Timestamp: daysAgo(400), Source: "conversation", Importance: &low})
	f.put("stale-recent", memory.StoreRequest{Content: "The cafeteria had tomato soup today", Timestamp: daysAgo(20), Source: "conversation", Importance: &low})
	high := 0.8
	f.put("important", memory.StoreRequest{Content: "The server rack key is in the blue drawer", Timestamp: daysAgo(500), Source: "conversation", Importance: &high})
	f.put("pinned", memory.StoreRequest{Content: "Grandma's recipe uses three eggs", Timestamp: daysAgo(500), Source: "conversation", Importance: &low})
	if _, err := eng.Update(ctx, memory.UpdateRequest{ID: f.ids["pinned"], Pinned: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	f.put("dup-a", memory.StoreRequest{Content: "My sister Alice lives in Porto", Tags: []string{"family"}, Timestamp: daysAgo(100)})
	f.put("dup-b", memory.StoreRequest{Content: "My sister Alice lives in Porto.", Tags: []string{"alice"}, Timestamp: daysAgo(50), Importance: &high})
	return f
}

func ptr[T any](v T) *T { return &v }

// ctx is a context for one step of a test (testenv.Context's minute):
// the steps of one test add up to minutes under -race on a loaded
// machine, so no context is shared by all of them.
func (f *fixture) ctx() context.Context { return testenv.Context(f.t) }

func (f *fixture) put(label string, req memory.StoreRequest) {
	f.t.Helper()
	res, err := f.eng.Store(f.ctx(), req)
	if err != nil {
		f.t.Fatalf("store %s: %v", label, err)
	}
	if res.DuplicateOf != "" {
		f.t.Fatalf("store %s: duplicate of %s", label, res.DuplicateOf)
	}
	f.ids[label] = res.ID
}

func (f *fixture) get(label string) memory.Memory {
	f.t.Helper()
	m, err := f.eng.Get(f.ctx(), f.ids[label])
	if err != nil {
		f.t.Fatalf("get %s: %v", label, err)
	}
	return m
}

func (f *fixture) archived(labels ...string) []string {
	var out []string
	for _, l := range labels {
		if f.get(l).Archived {
			out = append(out, l)
		}
	}
	return out
}

func TestSummarizeAndArchive(t *testing.T) {
	f := newFixture(t)
	dry, err := f.env.Summarize(f.ctx(), true)
	if err != nil || dry.Counts["conversations_summarized"] != 2 || dry.Counts["messages_archived"] != 8 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	if got := f.archived("trip-2023#0", "launch-2024#0"); len(got) != 0 {
		t.Fatalf("dry run archived %v", got)
	}
	rep, err := f.env.Summarize(f.ctx(), false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts["conversations_summarized"] != 2 || rep.Counts["messages_archived"] != 8 {
		t.Fatalf("report: %+v", rep)
	}
	if got := f.archived("trip-2023#0", "trip-2023#3", "launch-2024#2"); len(got) != 3 {
		t.Fatalf("old messages not archived: %v", got)
	}
	if got := f.archived("recent-chat#0"); len(got) != 0 {
		t.Fatal("a recent conversation was archived")
	}
	// The archived turn is still recalled, and the summary keeps the facts.
	res, err := f.eng.Search(f.ctx(), memory.SearchRequest{Query: "how much was the Lisbon hotel per night", Scope: "Travel"})
	if err != nil || len(res.Results) == 0 || res.NothingRelevant {
		t.Fatalf("nothing recalled: %+v %v", res, err)
	}
	if top := res.Results[0]; top.ID != f.ids["trip-2023#3"] || !top.Archived {
		t.Fatalf("top result: %+v", top)
	}
	sums, err := f.eng.List(f.ctx(), memory.ListRequest{Scope: "Travel", Source: "summary"})
	if err != nil || len(sums.Memories) != 1 {
		t.Fatalf("summaries of Travel: %+v %v", sums, err)
	}
	top := sums.Memories[0]
	if !strings.Contains(top.Text, "340 euros") || !strings.Contains(top.Text, "Maria") {
		t.Fatalf("summary: %+v", top)
	}
	var sum mongostore.Summary
	id, _ := parseHex(top.ID)
	s, err := f.store.Summaries.Get(f.ctx(), id)
	if err != nil {
		t.Fatal(err)
	}
	sum = *s
	if sum.Method != "extractive" || len(sum.MessageRefs) != 5 || sum.TimeRange == nil || sum.ConversationID != "trip-2023" || sum.Scope != "Travel" {
		t.Fatalf("summary doc: %+v", sum)
	}
	// Archived messages are kept: listed with include_archived.
	l, _ := f.eng.List(f.ctx(), memory.ListRequest{Scope: "Travel", IncludeArchived: true, Limit: 100})
	travel := 0
	for _, m := range l.Memories {
		if m.Scope == "Travel" {
			travel++
		}
	}
	if travel != 6 {
		t.Fatalf("archived messages not kept: %d of Travel listed, want the 5 messages and the summary", travel)
	}
	// And exported: archived means condensed, not out of the user's hands.
	ex, err := backup.Export(f.ctx(), f.store, backup.ExportOptions{Dir: t.TempDir(), JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(ex.Dir, "memory.json"))
	if err != nil || !strings.Contains(string(data), "I booked the Alfama hotel for 340 euros per night.") {
		t.Fatalf("archived message missing from the export: %v", err)
	}
	// A second run has nothing left to do.
	again, _ := f.env.Summarize(f.ctx(), false)
	if again.Counts["conversations_summarized"] != 0 {
		t.Fatalf("second run: %+v", again)
	}
}

func TestNoiseArchivesOldAcknowledgements(t *testing.T) {
	f := newFixture(t)
	rep, err := f.env.Noise(f.ctx(), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.archived("ack-old", "ack-new", "trip-2023#4"); !slices.Equal(got, []string{"ack-old", "trip-2023#4"}) {
		t.Fatalf("archived %v (report %+v)", got, rep)
	}
}

func TestDedupMergesAndUndo(t *testing.T) {
	f := newFixture(t)
	f.env.Config.Dedup.Threshold = 0.95
	// dup-a, older, is recalled: the most used is kept over the newest.
	if _, err := f.eng.Update(f.ctx(), memory.UpdateRequest{ID: f.ids["dup-b"], Category: ptr("family")}); err != nil {
		t.Fatal(err)
	}
	l, _ := f.eng.List(f.ctx(), memory.ListRequest{Tags: []string{"family"}})
	if l.Total != 1 {
		t.Fatalf("setup: %d", l.Total)
	}
	res, _ := f.eng.Search(f.ctx(), memory.SearchRequest{Query: "Alice lives in Porto", Tags: []string{"family"}, Limit: 1})
	if len(res.Results) != 1 || res.Results[0].ID != f.ids["dup-a"] {
		t.Fatalf("setup: %v", res.Results)
	}
	rep, err := f.env.Dedup(f.ctx(), false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts["duplicates_merged"] != 1 {
		t.Fatalf("report: %+v", rep)
	}
	k, g := f.get("dup-a"), f.get("dup-b")
	if k.ForgottenAt != nil || g.ForgottenAt == nil || g.MergedInto != k.ID {
		t.Fatalf("kept %+v, merged %+v", k, g)
	}
	if !slices.Contains(k.Tags, "family") || !slices.Contains(k.Tags, "alice") || k.Importance != 0.8 {
		t.Fatalf("kept memory did not absorb tags and importance: %+v", k)
	}
	// The report records what the kept memory was before, so an undo
	// can put it back.
	if len(rep.Merges) != 1 || rep.Merges[0].KeptImportance == nil || *rep.Merges[0].KeptImportance != 0.5 || !slices.Equal(rep.Merges[0].KeptTags, []string{"family"}) {
		t.Fatalf("merge group without the kept memory's earlier state: %+v", rep.Merges)
	}
	mg := rep.Merges[0]
	undo, err := f.eng.UndoMerge(f.ctx(), memory.UndoMergeRequest{Keep: mg.Kept.ID, Merged: []string{mg.Merged[0].ID}, KeptTags: mg.KeptTags, KeptImportance: mg.KeptImportance})
	if err != nil || len(undo.Restored) != 1 {
		t.Fatalf("undo: %+v %v", undo, err)
	}
	if g = f.get("dup-b"); g.ForgottenAt != nil || g.MergedInto != "" {
		t.Fatalf("undo did not restore the merged memory: %+v", g)
	}
	if k = f.get("dup-a"); !slices.Equal(k.Tags, []string{"family"}) || k.Importance != 0.5 {
		t.Fatalf("undo left the kept memory as merged: %v %v", k.Tags, k.Importance)
	}
	// Distinct facts are never merged.
	if f.get("stale").ForgottenAt != nil || f.get("stale-recent").ForgottenAt != nil {
		t.Fatal("similar but different memories merged")
	}
}

func TestPruneRespectsModeAndProtections(t *testing.T) {
	f := newFixture(t)
	rep, err := f.env.Prune(f.ctx(), false)
	if err != nil || rep.Counts["pruned"] != 0 || len(f.archived("stale")) != 0 {
		t.Fatalf("mode keep pruned: %+v %v", rep, err)
	}
	f.env.Config.Retention.Mode = "moderate"
	if _, err := f.env.Prune(f.ctx(), false); err != nil {
		t.Fatal(err)
	}
	if got := f.archived("stale", "stale-recent", "note-old", "important", "pinned", "ack-new"); !slices.Equal(got, []string{"stale"}) {
		t.Fatalf("moderate archived %v", got)
	}
	f.env.Config.Retention.Mode = "aggressive"
	f.env.Prune(f.ctx(), false)
	if got := f.archived("note-old", "important", "pinned"); len(got) != 0 {
		t.Fatalf("protected memories archived: %v", got)
	}
	if _, err := f.store.Profiles.Get(f.ctx(), mongostore.DefaultUserID); err != nil {
		t.Fatal(err)
	}
}

func TestSizeLimitArchivesOldestConversationsFirst(t *testing.T) {
	f := newFixture(t)
	st, _ := f.eng.Stats(f.ctx())
	f.env.Config.MaxMemoryItems = st.TotalMemories - 3
	rep, err := f.env.Size(f.ctx(), false)
	if err != nil {
		t.Fatal(err)
	}
	// The oldest conversation goes first; the 2024 one only if needed.
	if got := f.archived("trip-2023#0"); len(got) != 1 {
		t.Fatalf("oldest conversation not archived: %+v", rep)
	}
	if got := f.archived("recent-chat#0"); len(got) != 0 {
		t.Fatal("archived more than needed")
	}
	// Only protected memories left: warn, never delete.
	f.env.Config.MaxMemoryItems = 1
	rep, err = f.env.Size(f.ctx(), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) == 0 || !strings.Contains(strings.Join(rep.Warnings, " "), "never deletes") {
		t.Fatalf("no warning: %+v", rep)
	}
	if f.get("note-old").Archived || f.get("pinned").Archived {
		t.Fatal("protected memory archived for size")
	}
}

// TestSizeLimitInMB: over max_memory_size_mb, conversations are archived
// oldest first until the live memories' share of the database is under
// 90 % of it; the file itself does not shrink, which is reported, and the
// next pass archives nothing more.
func TestSizeLimitInMB(t *testing.T) {
	f := newFixture(t)
	filler := strings.Repeat("The quarterly numbers were discussed at length again. ", 500) // ~27 KB
	bulk := func(label string, days, n int) {
		for i := 0; i < n; i++ {
			f.put(fmt.Sprintf("%s#%d", label, i), memory.StoreRequest{
				Content: fmt.Sprintf("%s part %d: %s", label, i, filler), ConversationID: label, Source: "conversation",
				Timestamp: daysAgo(days).Add(time.Duration(i) * time.Minute),
			})
		}
	}
	bulk("bulk-old", 650, 25)
	bulk("bulk-new", 5, 25)
	// The limits measure the data (DataSizeMB), not the files, which
	// include the write-ahead log.
	dataMB, _ := f.eng.DataSizeMB(f.ctx())
	if dataMB < 1.2 {
		t.Fatalf("fixture too small to test a 1 MB limit: %.2f MB", dataMB)
	}
	f.env.Config.MaxMemorySizeMB = 1
	rep, err := f.env.Size(f.ctx(), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.archived("bulk-old#0", "bulk-old#24")) != 2 || len(f.archived("bulk-new#0", "bulk-new#24", "note-old", "pinned")) != 0 {
		t.Fatalf("did not archive the oldest conversations first: %+v", rep)
	}
	after, _ := f.eng.Stats(f.ctx())
	afterMB, _ := f.eng.DataSizeMB(f.ctx())
	liveMB := afterMB * float64(after.TotalMemories) / float64(after.TotalMemories+after.Archived+after.Forgotten)
	if liveMB > 0.9*float64(f.env.Config.MaxMemorySizeMB)+0.05 {
		t.Fatalf("live share still %.2f MB of %.2f: %+v", liveMB, afterMB, rep)
	}
	m := regexp.MustCompile(`the database file holds .* about (\d+\.\d) MB are archived`).FindStringSubmatch(strings.Join(rep.Warnings, " "))
	if m == nil {
		t.Fatalf("file over the limit not reported: %+v", rep.Warnings)
	}
	// What was just archived counts as archived.
	if mb, _ := strconv.ParseFloat(m[1], 64); mb < 0.2 {
		t.Fatalf("archived share reported as %s MB: %v", m[1], rep.Warnings)
	}
	again, err := f.env.Size(f.ctx(), false)
	if err != nil || again.Counts["size_messages_archived"] != 0 {
		t.Fatalf("second pass archived more: %+v %v", again, err)
	}
}

func TestPurgeOnlyWhatABackupHolds(t *testing.T) {
	f := newFixture(t)
	f.clk.Set(daysAgo(40))
	if _, err := f.eng.Forget(f.ctx(), memory.ForgetRequest{ID: f.ids["stale"]}); err != nil {
		t.Fatal(err)
	}
	f.clk.Set(daysAgo(5))
	if _, err := f.eng.Forget(f.ctx(), memory.ForgetRequest{ID: f.ids["stale-recent"]}); err != nil {
		t.Fatal(err)
	}
	f.clk.Set(today)
	// No backup yet: nothing is deleted.
	rep, err := f.env.Purge(f.ctx(), false)
	if err != nil || rep.Counts["purged"] != 0 || len(rep.Warnings) == 0 {
		t.Fatalf("purged without a backup: %+v %v", rep, err)
	}
	// A backup from before the first forget holds neither: still nothing.
	f.env.LastBackup = func(context.Context) (time.Time, bool) { return daysAgo(45), true }
	if rep, _ = f.env.Purge(f.ctx(), false); rep.Counts["purged"] != 0 {
		t.Fatalf("purged what no backup holds: %+v", rep)
	}
	// A backup from 2 days ago holds both; only the one forgotten over 30 days ago goes.
	f.env.LastBackup = func(context.Context) (time.Time, bool) { return daysAgo(2), true }
	if rep, _ = f.env.Purge(f.ctx(), true); rep.Counts["purged"] != 1 {
		t.Fatalf("dry run: %+v", rep)
	}
	if _, err := f.eng.Get(f.ctx(), f.ids["stale"]); err != nil {
		t.Fatal("dry run deleted")
	}
	if rep, _ = f.env.Purge(f.ctx(), false); rep.Counts["purged"] != 1 {
		t.Fatalf("purge: %+v", rep)
	}
	if _, err := f.eng.Get(f.ctx(), f.ids["stale"]); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("purged memory still there: %v", err)
	}
	if m := f.get("stale-recent"); m.ForgottenAt == nil {
		t.Fatal("recently forgotten memory lost")
	}
}

func TestCompactAndAllJobs(t *testing.T) {
	f := newFixture(t)
	f.env.Config.Retention.Mode = "moderate"
	rep, err := f.env.All(f.ctx(), false)
	if err != nil {
		t.Fatalf("%v (%+v)", err, rep)
	}
	ops := strings.Join(rep.Operations, " ")
	for _, want := range []string{"summarized_2_old_conversations", "archived_", "merged_1_duplicate_entries_undo_with_unforget_memory", "compacted_db", "refreshed_stats"} {
		if !strings.Contains(ops, want) {
			t.Errorf("operations %v lack %q", rep.Operations, want)
		}
	}
	var stats statsRecord
	if err := f.store.GetMeta(f.ctx(), "stats", &stats); err != nil || stats.TotalMemories == 0 {
		t.Fatalf("stats not refreshed: %+v %v", stats, err)
	}
}

// TestOneFailingJobDoesNotStopTheOthers: the summarizer fails; every other
// job still runs, and the error is reported.
func TestOneFailingJobDoesNotStopTheOthers(t *testing.T) {
	f := newFixture(t)
	f.env.Summarizer = failing{}
	rep, err := f.env.All(f.ctx(), false)
	if err == nil || !strings.Contains(err.Error(), "summarize") {
		t.Fatalf("error not reported: %v", err)
	}
	if !strings.Contains(strings.Join(rep.Operations, " "), "compacted_db") || len(f.archived("ack-old")) != 1 {
		t.Fatalf("later jobs did not run: %+v", rep)
	}
}

type failing struct{}

func (failing) Name() string { return "failing" }
func (failing) Summarize(context.Context, []summarize.Message) (summarize.Summary, error) {
	return summarize.Summary{}, errors.New("model unavailable")
}

// TestDedupNeverMergesDifferentFacts is the regression fixture of issue 12:
// memories that read alike but state different facts (another date, time,
// amount, number or name) are never merged, however close their
// embeddings; the dry run lists the groups it would merge with their texts.
func TestDedupNeverMergesDifferentFacts(t *testing.T) {
	f := newFixture(t)
	pairs := [][2]string{
		{"Dentist appointment on December 2 at 9:30.", "Dentist appointment on January 14 at 11:00."},               // cosine 0.977
		{"Paid the electricity bill of 84 euros in October.", "Paid the electricity bill of 97 euros in November."}, // 0.992
		{"Alice's birthday is Jan 20", "Bob's birthday is Jan 20"},
		{"I like coffee in the morning", "I don't like coffee in the morning"},
	}
	for i, p := range pairs {
		f.put(fmt.Sprintf("pair%d-a", i), memory.StoreRequest{Content: p[0], Scope: "Facts"})
		f.put(fmt.Sprintf("pair%d-b", i), memory.StoreRequest{Content: p[1], Scope: "Facts"})
	}
	for n := 1; n <= 75; n++ {
		f.put(fmt.Sprintf("widget%d", n), memory.StoreRequest{Content: fmt.Sprintf("note a number %d about widget %d", n, n), Scope: "Widgets"})
	}
	// A true duplicate among them is still merged.
	f.put("widget17-again", memory.StoreRequest{Content: "note a number 17 about widget 17.", Scope: "Widgets"})

	dry, err := f.env.Dedup(f.ctx(), true)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]bool{}
	for _, g := range dry.Merges {
		texts[g.Kept.Text] = true
		for _, m := range g.Merged {
			texts[m.Text] = true
		}
	}
	if dry.Counts["duplicates_merged"] != 2 || len(dry.Merges) != 2 || !texts["note a number 17 about widget 17."] || !texts["note a number 17 about widget 17"] ||
		!texts["My sister Alice lives in Porto"] {
		t.Fatalf("dry run: %+v", dry)
	}
	rep, err := f.env.Dedup(f.ctx(), false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts["duplicates_merged"] != 2 || !slices.Contains(rep.Operations, "merged_2_duplicate_entries_undo_with_unforget_memory") {
		t.Fatalf("report: %+v", rep)
	}
	for label := range f.ids {
		if strings.HasPrefix(label, "pair") || strings.HasPrefix(label, "widget") && label != "widget17" && label != "widget17-again" {
			if m := f.get(label); m.ForgottenAt != nil {
				t.Errorf("%s (%q) merged into %s", label, m.Text, m.MergedInto)
			}
		}
	}
	res, err := f.eng.Search(f.ctx(), memory.SearchRequest{Query: "widget 24", Scope: "Widgets", Limit: 1})
	if err != nil || len(res.Results) != 1 || res.Results[0].Text != "note a number 24 about widget 24" {
		t.Fatalf("widget 24: %v %v", res.Results, err)
	}
}

// TestDedupPropertyOneDetailApart: sentences that differ in one number,
// date, time or name are never merged.
func TestDedupPropertyOneDetailApart(t *testing.T) {
	f := newFixture(t)
	names := []string{"Hughes", "Fenwick", "Alvarez", "Okafor", "Jensen", "Moreau"}
	months := []string{"January", "March", "June", "October", "December"}
	templates := []func(name, month string, day, hour int) string{
		func(n, m string, d, h int) string {
			return fmt.Sprintf("Dentist appointment with Dr. %s on %s %d at %d:30.", n, m, d, h)
		},
		func(n, m string, d, h int) string {
			return fmt.Sprintf("Paid %s %d euros for the boiler repair on %s %d.", n, 40+h, m, d)
		},
		func(n, m string, d, h int) string {
			return fmt.Sprintf("%s booked %d seats on the flight to Lisbon for %s %d.", n, h, m, d)
		},
	}
	seen := map[string]bool{}
	for i := 0; len(seen) < 60; i++ {
		tpl := templates[i%len(templates)]
		n, m, d, h := names[i%len(names)], months[(i/2)%len(months)], 1+i%27, 8+i%9
		base := tpl(n, m, d, h)
		var variant string
		switch i % 4 {
		case 0:
			variant = tpl(names[(i+1)%len(names)], m, d, h)
		case 1:
			variant = tpl(n, months[(i/2+1)%len(months)], d, h)
		case 2:
			variant = tpl(n, m, 1+(i+5)%27, h)
		default:
			variant = tpl(n, m, d, 8+(i+4)%9)
		}
		for _, s := range []string{base, variant} {
			if !seen[s] {
				seen[s] = true
				f.put(fmt.Sprintf("prop%d", len(seen)), memory.StoreRequest{Content: s, Scope: "Property"})
			}
		}
	}
	rep, err := f.env.Dedup(f.ctx(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range rep.Merges {
		if g.Scope == "Property" {
			t.Errorf("merged sentences one detail apart: %q <- %+v", g.Kept.Text, g.Merged)
		}
	}
}
