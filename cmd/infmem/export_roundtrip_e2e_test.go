package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
)

// seedEveryField writes, as the engine stores them, one of every kind of
// document an export carries with every field it can have set: notes, a
// conversation, a lesson and a proposed one (with where it came from), an
// edited, pinned, used memory, a superseded one, two contradicting ones,
// an archived one, a whole summary and a summary in two parts with its
// sources, a file of the memory tool with its earlier version, scopes
// with a description and a parent, and a profile.
func seedEveryField(t *testing.T, s *mongostore.Store) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2024, 6, 1, 9, 15, 30, 123e6, time.UTC)
	made := at.Add(time.Hour)
	for _, sc := range []mongostore.Scope{
		{ScopeName: "Work", Description: "Acme Robotics", CreatedAt: at.AddDate(-3, 0, 0)},
		{ScopeName: "Heron", Description: "the drone", ParentScope: "Work", CreatedAt: at.AddDate(-2, 0, 0)},
	} {
		sc.ID, sc.Type, sc.Active = bson.NewObjectID(), mongostore.ScopeType, true
		if err := s.Scopes.Insert(ctx, &sc); err != nil {
			t.Fatal(err)
		}
	}
	ids := make([]bson.ObjectID, 12)
	for i := range ids {
		ids[i] = bson.NewObjectID()
	}
	used := at.AddDate(0, 1, 0)
	mem := func(i int, scope, source, text string, ts time.Time) *mongostore.Memory {
		return &mongostore.Memory{ID: ids[i], Scope: scope, Source: source, Text: text, Tags: []string{}, Timestamp: ts,
			Importance: 0.5, ContentHash: fmt.Sprint(i), CreatedAt: made, UpdatedAt: made}
	}
	m := []*mongostore.Memory{
		mem(0, "Global", "user_profile", "I am allergic to peanuts", at.AddDate(-1, 0, 0)),
		mem(1, "Heron", "conversation", "Can we move the Heron field test to June 21?", at),
		mem(2, "Heron", "conversation", "Sure, June 21 works for the team.", at.Add(time.Minute)),
		mem(3, "Heron", "lesson", "Check the magnetometer calibration before every field test", at),
		mem(4, "Global", "proposed_lesson", "Always answer in French", at),
		// Four at the same time: the export's order must not depend on
		// the order the database returns them in.
		mem(5, "Work", "note", "Badge number is 4471", at.AddDate(-2, 0, 0)),
		mem(6, "Work", "note", "New badge number 5520 since the move", at.AddDate(-2, 0, 0)),
		mem(7, "Work", "note", "The standup is at 9:45", at.AddDate(-2, 0, 0)),
		mem(8, "Work", "note", "Parking spot 12 on level B", at.AddDate(-2, 0, 0)),
		mem(9, "Heron", "note", "The Heron flies 40 minutes on one battery", at),
		mem(10, "Heron", "note", "Battery life of the Heron is only 25 minutes in the cold", at),
		// A file of the memory tool, edited once and read since.
		mem(11, "Global", "file", "# Heron\n\tField test on June 22.\n", at.Add(time.Hour)),
	}
	m[0].Tags, m[0].Importance, m[0].Category = []string{"health", "food"}, 0.9, "health"
	m[1].Speaker, m[1].ConversationID = "user", "conv-1"
	m[2].Speaker, m[2].ConversationID = "assistant", "conv-1"
	m[3].Tags, m[3].Importance = []string{"lesson"}, 0.8
	m[4].Speaker = "tool call in session 7 (Claude Desktop)"
	m[5].SupersededBy, m[5].LinksByMeaning = ids[6].Hex(), true
	m[7].Pinned, m[7].UseCount, m[7].LastAccessed, m[7].UpdatedAt = true, 4, &used, used
	m[7].History = []mongostore.Revision{{Text: "The standup is at 9:30", Tags: []string{}, Importance: 0.5, Scope: "Work", ChangedAt: used}}
	m[8].Archived, m[8].ArchivedAt, m[8].ArchiveReason = true, &used, "not used for a year"
	m[11].Path, m[11].UseCount, m[11].LastAccessed, m[11].UpdatedAt = "/memories/projects/heron.md", 2, &used, used
	m[11].History = []mongostore.Revision{{Text: "# Heron\n\tField test on June 21.\n", Tags: []string{}, Importance: 0.5, Scope: "Global", ChangedAt: at.Add(time.Hour)}}
	m[9].Contradicts, m[9].LinksAbout = []string{ids[10].Hex()}, []string{"battery"}
	m[10].Contradicts, m[10].LinksAbout = []string{ids[9].Hex()}, []string{"battery"}
	if err := s.Memories.InsertMany(ctx, m); err != nil {
		t.Fatal(err)
	}
	whole := bson.NewObjectID().Hex()
	sum := func(text string, part int) *mongostore.Summary {
		x := &mongostore.Summary{ID: bson.NewObjectID(), ConversationID: "conv-1", SummaryText: text, Scope: "Heron", Tags: []string{"summary"},
			Method: "extractive", TimeRange: &mongostore.TimeRange{From: at, To: at.Add(time.Minute)}, MessageRefs: []bson.ObjectID{ids[1], ids[2]},
			Timestamp: at.Add(time.Minute), Importance: 0.6, ContentHash: text, CreatedAt: made, UpdatedAt: made}
		if part > 0 {
			x.Whole, x.Part, x.Parts = whole, part, 2
		}
		return x
	}
	sums := []*mongostore.Summary{sum("Part one: the team discussed the field test date.", 1), sum("Part two: June 21 was agreed.", 2),
		sum("Summary: the field test moved to June 21.", 0)}
	sums[2].Method, sums[2].TopicID, sums[2].MessageRefs, sums[2].Pinned, sums[2].UseCount, sums[2].LastAccessed = "client", "field-test", nil, true, 2, &used
	sums[2].History = []mongostore.Revision{{Text: "Summary: the field test moved.", Tags: []string{"summary"}, Importance: 0.6, Scope: "Heron", ChangedAt: used}}
	sums[1].Archived = true
	if err := s.Summaries.InsertMany(ctx, sums); err != nil {
		t.Fatal(err)
	}
	p := &mongostore.Profile{ID: mongostore.DefaultUserID, Name: "Sam", Preferences: map[string]string{"units": "metric"},
		Facts: map[string]string{"city": "Lisbon"}, Contacts: []mongostore.Contact{{Name: "Ana", Relation: "sister"}},
		Notes: []string{"Prefers short answers"}, CreatedAt: at.AddDate(-3, 0, 0), UpdatedAt: used}
	if err := s.Profiles.Replace(ctx, mongostore.DefaultUserID, p); err != nil {
		t.Fatal(err)
	}
}

// exportedJSON runs 'infmem export --format json' and returns its
// memory.json.
func exportedJSON(t *testing.T, env []string, args ...string) (path string, data []byte) {
	t.Helper()
	code, out, errs := runBin(t, env, append([]string{"export", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("export: %d %s %s", code, out, errs)
	}
	m := regexp.MustCompile(`(/\S*export_[^\s/]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("export: no directory in %q", out)
	}
	path = filepath.Join(m[1], "memory.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// comparable is an export without the time it was made and the time of
// the data root's own Global scope (every data root makes one when it is
// created, and an import keeps the one there).
func comparable(data []byte) []byte {
	data = regexp.MustCompile(`"exported_at": "[^"]*"`).ReplaceAll(data, []byte(`"exported_at": ""`))
	return regexp.MustCompile(`("scope": "Global",\n(?:.*\n)*?\s*"created_at": )"[^"]*"`).ReplaceAll(data, []byte(`$1""`))
}

// Export → import into a fresh data root (through its daemon) → export
// gives the same file: every memory, summary (one in parts, with its
// sources), lesson, proposed lesson, supersede and contradiction link,
// pin, earlier version, use, archive flag, file of the memory tool and
// the profile come back as they were, ids included. A backup restored into a fresh data root
// gives the same export too.
func TestExportImportExportRoundTrip(t *testing.T) {
	work := t.TempDir()
	a := filepath.Join(work, "a")
	withStore(t, a, func(s *mongostore.Store) { seedEveryField(t, s) })
	envA := processEnv(t, a)
	exported, first := exportedJSON(t, envA, "--data-dir", a)
	for _, want := range []string{`"whole"`, `"part": 2`, `"message_refs"`, `"superseded_by"`, `"contradicts"`, `"links_about"`, `"links_by_meaning": true`, `"pinned": true`,
		`"history"`, `"archive_reason"`, `"proposed_lesson"`, `"tool call in session 7`, `"topic_id"`, `"last_accessed"`, `"/memories/projects/heron.md"`} {
		if !bytes.Contains(first, []byte(want)) {
			t.Fatalf("the export lacks %s:\n%s", want, first)
		}
	}

	b := shortRoot(t)
	envB := processEnv(t, b)
	t.Cleanup(func() { stopDaemon(t, b, envB) })
	if code, out, errs := runBin(t, envB, "start"); code != 0 {
		t.Fatalf("start: %d %s %s", code, out, errs)
	}
	if code, out, errs := runBin(t, envB, "import", exported); code != 0 {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	if !strings.Contains(serviceLog(t, b), "import done") {
		t.Fatal("the import did not run in the daemon")
	}
	_, second := exportedJSON(t, envB)
	if d := lineDiff(comparable(first), comparable(second)); d != "" {
		t.Fatalf("the export of the import differs from the export:\n%s", d)
	}
	// The same import again adds nothing and changes nothing.
	if code, out, errs := runBin(t, envB, "import", exported); code != 0 || !strings.Contains(out, "already imported") {
		t.Fatalf("import again: %d %s %s", code, out, errs)
	}
	_, third := exportedJSON(t, envB)
	if d := lineDiff(comparable(first), comparable(third)); d != "" {
		t.Fatalf("a second import changed the memory:\n%s", d)
	}

	// A backup (raw documents) restored into a fresh data root.
	code, out, errs := runBin(t, envA, "backup", "--no-encrypt", "--data-dir", a)
	if code != 0 {
		t.Fatalf("backup: %d %s %s", code, out, errs)
	}
	c := filepath.Join(work, "c")
	envC := processEnv(t, c)
	if code, out, errs := runBin(t, envC, "restore", writtenBackup(t, out), "--no-safety-backup", "--data-dir", c); code != 0 {
		t.Fatalf("restore: %d %s %s", code, out, errs)
	}
	_, restored := exportedJSON(t, envC, "--data-dir", c)
	if d := lineDiff(comparable(first), comparable(restored)); d != "" {
		t.Fatalf("the export of the restored backup differs from the export:\n%s", d)
	}
}

// lineDiff lists the first lines that differ ("" when none do).
func lineDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	var out strings.Builder
	n := 0
	for i := 0; i < max(len(al), len(bl)) && n < 30; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			n++
			fmt.Fprintf(&out, "line %d:\n- %s\n+ %s\n", i+1, x, y)
		}
	}
	return out.String()
}
