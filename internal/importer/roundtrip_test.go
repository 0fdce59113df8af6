package importer

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/scopes"
)

// What a memory is, ids and bookkeeping aside.
type memoryFacts struct {
	Text, Scope, Source, Speaker, Conv, Category string
	Tags                                         []string
	Timestamp                                    time.Time
	Importance                                   float64
	Archived                                     bool
}

func factsOf(ms []memory.Memory) []memoryFacts {
	var out []memoryFacts
	for _, m := range ms {
		out = append(out, memoryFacts{Text: m.Text, Scope: m.Scope, Source: m.Source, Speaker: m.Speaker, Conv: m.ConversationID,
			Category: m.Category, Tags: m.Tags, Timestamp: m.Timestamp.UTC(), Importance: m.Importance, Archived: m.Archived})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Text < out[j].Text })
	return out
}

// Export → import into an empty data root → the same memories, summaries,
// scopes and profile, ids aside.
func TestRoundTripThroughExport(t *testing.T) {
	ctx := testenv.Context(t)
	src := newTarget(t)
	eng := src.Memory
	if _, _, err := eng.CreateScope(ctx, scopes.Scope{Name: "Work", Description: "Acme Robotics"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := eng.CreateScope(ctx, scopes.Scope{Name: "Heron", Description: "the drone", Parent: "Work"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := eng.CreateScope(ctx, scopes.Scope{Name: "Empty one"}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 6, 1, 9, 15, 30, 123e6, time.UTC)
	reqs := []memory.StoreRequest{
		{Content: "I am allergic to peanuts", Tags: []string{"health", "food"}, Source: "user_profile", Importance: ptr(0.9), Category: "health", Timestamp: at.AddDate(-1, 0, 0)},
		{Content: "Can we move the Heron field test to June 21?", Scope: "Heron", Source: "conversation", Speaker: "user", ConversationID: "conv-1", Timestamp: at},
		{Content: "Sure, June 21 works for the team.", Scope: "Heron", Source: "conversation", Speaker: "assistant", ConversationID: "conv-1", Timestamp: at.Add(time.Minute)},
		{Content: "Lesson: check the magnetometer calibration before every field test", Scope: "Heron", Source: "lesson", Tags: []string{"lesson"}, Importance: ptr(0.8)},
		{Content: "Old badge number 4471", Scope: "Work", Tags: []string{"badge"}, Importance: ptr(0.1), Timestamp: at.AddDate(-2, 0, 0)},
		{Content: "Summary: the field test moved to June 21.", Scope: "Heron", Source: "summary", ConversationID: "conv-1", Tags: []string{"summary"}, Timestamp: at.Add(2 * time.Minute)},
	}
	ids := map[string]string{}
	for _, r := range reqs {
		res, err := eng.Store(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		ids[r.Content] = res.ID
	}
	if n, err := eng.Archive(ctx, []string{ids["Old badge number 4471"]}, "test"); err != nil || n != 1 {
		t.Fatalf("%d %v", n, err)
	}
	name := "Sam"
	if _, _, err := eng.UpdateProfile(ctx, memory.ProfileUpdate{Name: &name, SetFacts: map[string]string{"city": "Lisbon"}, AddNotes: []string{"Prefers metric units"}}); err != nil {
		t.Fatal(err)
	}
	want := factsOf(all(t, eng))
	if len(want) != len(reqs) {
		t.Fatalf("%d memories before export", len(want))
	}

	ex, err := backup.Export(ctx, src.Store, backup.ExportOptions{Dir: filepath.Join(t.TempDir(), "export"), JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	dst := newTarget(t)
	in, err := Read(ex.Dir, FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if in.Format != FormatInfmemJSON {
		t.Fatalf("format %q", in.Format)
	}
	rep, err := Run(ctx, dst, in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != len(reqs) || rep.Archived != 1 {
		t.Fatalf("%+v", rep)
	}
	got := factsOf(all(t, dst.Memory))
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("round trip changed the memories:\n got %+v\nwant %+v", got, want)
	}
	for _, name := range []string{"Work", "Heron", "Empty one"} {
		a, _ := eng.Scopes().Get(name)
		b, ok := dst.Memory.Scopes().Get(name)
		if !ok || a.Description != b.Description || a.Parent != b.Parent {
			t.Fatalf("scope %q: %+v, want %+v", name, b, a)
		}
	}
	p, err := dst.Memory.Profile(ctx)
	if err != nil || p.Name != "Sam" || p.Facts["city"] != "Lisbon" || !slices.Contains(p.Notes, "Prefers metric units") {
		t.Fatalf("profile %+v %v", p, err)
	}
	// Importing the export again, or into the data root it came from, adds
	// nothing.
	if rep, err := Run(ctx, dst, in, Options{}); err != nil || rep.Added != 0 || rep.AlreadyImported != len(reqs) {
		t.Fatalf("%+v %v", rep, err)
	}
	if rep, err := Run(ctx, src, in, Options{}); err != nil || rep.Added != 0 || rep.AlreadyPresent != len(reqs) {
		t.Fatalf("into its own data root: %+v %v", rep, err)
	}
}
