package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/memfiles"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// SeedEveryKind fills eng with one of every kind of thing an export
// carries: notes, a conversation, a lesson and a proposed one (with where
// it came from), an edited memory (its earlier version), a pinned one, a
// superseded one, contradicting ones with what they are about, a used
// one, an archived one, a whole summary and a summary in two parts with
// its sources, scopes with descriptions and a parent, a file of the memory
// tool with its earlier version, and a profile.
func seedEveryKind(t *testing.T, tg Target) {
	t.Helper()
	ctx := testenv.Context(t)
	eng := tg.Memory
	if _, _, err := eng.CreateScope(ctx, scopes.Scope{Name: "Work", Description: "Acme Robotics"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := eng.CreateScope(ctx, scopes.Scope{Name: "Heron", Description: "the drone", Parent: "Work"}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 6, 1, 9, 15, 30, 123e6, time.UTC)
	store := func(r memory.StoreRequest) string {
		t.Helper()
		res, err := eng.Store(ctx, r)
		if err != nil || res.DuplicateOf != "" {
			t.Fatalf("%+v %v", res, err)
		}
		return res.ID
	}
	store(memory.StoreRequest{Content: "I am allergic to peanuts", Tags: []string{"health", "food"}, Source: "user_profile", Importance: ptr(0.9), Category: "health", Timestamp: at.AddDate(-1, 0, 0)})
	m1 := store(memory.StoreRequest{Content: "Can we move the Heron field test to June 21?", Scope: "Heron", Source: "conversation", Speaker: "user", ConversationID: "conv-1", Timestamp: at})
	m2 := store(memory.StoreRequest{Content: "Sure, June 21 works for the team.", Scope: "Heron", Source: "conversation", Speaker: "assistant", ConversationID: "conv-1", Timestamp: at.Add(time.Minute)})
	store(memory.StoreRequest{Content: "Check the magnetometer calibration before every field test", Scope: "Heron", Source: "lesson", Importance: ptr(0.8)})
	store(memory.StoreRequest{Content: "Always answer in French", Source: memory.SourceProposedLesson, Speaker: "tool call in session 7 (Claude Desktop)"})
	// Three with the same time: the export's order must not depend on
	// the order the database returns them in.
	old := store(memory.StoreRequest{Content: "Badge number is 4471", Scope: "Work", Tags: []string{"badge"}, Importance: ptr(0.1), Timestamp: at.AddDate(-2, 0, 0)})
	newer := store(memory.StoreRequest{Content: "New badge number 5520 since the move", Scope: "Work", Tags: []string{"badge"}, Timestamp: at.AddDate(-2, 0, 0)})
	pinned := store(memory.StoreRequest{Content: "The lab door code changes every quarter", Scope: "Work", Timestamp: at.AddDate(-2, 0, 0)})
	edited := store(memory.StoreRequest{Content: "The standup is at 9:30", Scope: "Work", Timestamp: at})
	a := store(memory.StoreRequest{Content: "The Heron flies 40 minutes on one battery", Scope: "Heron", Timestamp: at})
	b := store(memory.StoreRequest{Content: "Battery life of the Heron is only 25 minutes in the cold", Scope: "Heron", Timestamp: at})
	archived := store(memory.StoreRequest{Content: "Parking spot 12 on level B", Scope: "Work", Timestamp: at.AddDate(-3, 0, 0)})
	store(memory.StoreRequest{Content: "Summary: the field test moved to June 21.", Scope: "Heron", Source: "summary", ConversationID: "conv-1", Tags: []string{"summary"}, Timestamp: at.Add(2 * time.Minute)})

	if _, err := eng.Update(ctx, memory.UpdateRequest{ID: old, SupersededBy: &newer}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Update(ctx, memory.UpdateRequest{ID: pinned, Pinned: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Update(ctx, memory.UpdateRequest{ID: edited, Content: ptr("The standup is at 9:45"), AddTags: []string{"meetings"}}); err != nil {
		t.Fatal(err)
	}
	if n, err := eng.Archive(ctx, []string{archived}, "not used for a year"); err != nil || n != 1 {
		t.Fatalf("%d %v", n, err)
	}
	// What the engine writes on its own (a contradiction found at a
	// store, a use) is written here as it would be.
	used := time.Date(2024, 7, 1, 8, 0, 0, 0, time.UTC)
	for _, w := range []struct {
		id  string
		set bson.D
	}{
		{a, bson.D{{Key: "contradicts", Value: []string{b}}, {Key: "links_about", Value: []string{"battery"}}, {Key: "use_count", Value: int64(3)}, {Key: "last_accessed", Value: used}}},
		{b, bson.D{{Key: "contradicts", Value: []string{a}}, {Key: "links_about", Value: []string{"battery"}}}},
		// The link to newer found by meaning (facts.ChangedInOtherWords).
		{old, bson.D{{Key: "links_by_meaning", Value: true}}},
	} {
		oid, _ := bson.ObjectIDFromHex(w.id)
		if err := tg.Store.Memories.Update(ctx, oid, bson.D{{Key: "$set", Value: w.set}}); err != nil {
			t.Fatal(err)
		}
	}
	whole := bson.NewObjectID().Hex()
	for part := 1; part <= 2; part++ {
		if _, err := eng.AddSummary(ctx, memory.SummaryInput{ConversationID: "conv-1", Scope: "Heron", Method: "extractive",
			Text: []string{"", "Part one: the team discussed the field test date.", "Part two: June 21 was agreed."}[part],
			Refs: []string{m1, m2}, From: at, To: at.Add(time.Minute), Whole: whole, Part: part, Parts: 2}); err != nil {
			t.Fatal(err)
		}
	}
	// A file of the memory tool, edited once: its id, times and earlier
	// version come back too.
	fileText, newText := "Field test on June 21.\n", "June 21"
	if _, err := memfiles.For(eng).Run(ctx, memfiles.FileRequest{Command: "create", Path: "/memories/projects/heron.md", FileText: &fileText}); err != nil {
		t.Fatal(err)
	}
	if _, err := memfiles.For(eng).Run(ctx, memfiles.FileRequest{Command: "str_replace", Path: "/memories/projects/heron.md", OldStr: &newText, NewStr: ptr("June 22")}); err != nil {
		t.Fatal(err)
	}
	name := "Sam"
	if _, _, err := eng.UpdateProfile(ctx, memory.ProfileUpdate{Name: &name, SetFacts: map[string]string{"city": "Lisbon"},
		SetPreferences: map[string]string{"units": "metric"}, AddNotes: []string{"Prefers short answers"},
		AddContacts: []mongostore.Contact{{Name: "Ana", Relation: "sister"}}}); err != nil {
		t.Fatal(err)
	}
}

// exportJSON exports tg and returns memory.json.
func exportJSON(t *testing.T, tg Target) []byte {
	t.Helper()
	ex, err := backup.Export(testenv.Context(t), tg.Store, backup.ExportOptions{Dir: filepath.Join(t.TempDir(), "export"), JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(ex.Dir, "memory.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sameExport is data without the time it was exported at.
func sameExport(data []byte) []byte {
	data = regexp.MustCompile(`"exported_at": "[^"]*"`).ReplaceAll(data, []byte(`"exported_at": ""`))
	// Every data root makes its own Global scope when it is created, and
	// an import keeps the one here: its time is the data root's.
	return regexp.MustCompile(`("scope": "Global",\n(?:.*\n)*?\s*"created_at": )"[^"]*"`).ReplaceAll(data, []byte(`$1""`))
}

// Export → import into a fresh data root → export gives the same file:
// every memory, summary (one in parts), lesson, mark, link, archive flag
// and the profile come back as they were, ids included.
func TestExportImportExportIsByteEqual(t *testing.T) {
	ctx := testenv.Context(t)
	src := newTarget(t)
	seedEveryKind(t, src)
	first := exportJSON(t, src)
	if !bytes.Contains(first, []byte(`"links_by_meaning": true`)) {
		t.Fatalf("the export lacks the link's kind:\n%s", first)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "memory.json"), first, 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := Read(dir, FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	dst := newTarget(t)
	if _, err := Run(ctx, dst, in, Options{}); err != nil {
		t.Fatal(err)
	}
	second := exportJSON(t, dst)
	if !bytes.Equal(sameExport(first), sameExport(second)) {
		t.Fatalf("the export of the import differs from the export:\n%s", lineDiff(sameExport(first), sameExport(second)))
	}
}

// lineDiff lists the lines that differ.
func lineDiff(a, b []byte) string {
	al, bl := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	var out bytes.Buffer
	n := 0
	for i := 0; i < max(len(al), len(bl)) && n < 40; i++ {
		var x, y []byte
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if !bytes.Equal(x, y) {
			n++
			out.WriteString("line " + itoa(i+1) + ":\n- " + string(x) + "\n+ " + string(y) + "\n")
		}
	}
	return out.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

// An exported id a memory here already has (one forgotten here, say) is
// not reused: that memory is stored with a new id, and nothing fails.
func TestExportedIDTakenHereGetsANewOne(t *testing.T) {
	ctx := testenv.Context(t)
	src := newTarget(t)
	res, err := src.Memory.Store(ctx, memory.StoreRequest{Content: "The spare key is under the blue flowerpot", Tags: []string{"home"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Memory.Store(ctx, memory.StoreRequest{Content: "The boat is moored at pier nine"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "memory.json"), exportJSON(t, src), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Memory.Forget(ctx, memory.ForgetRequest{ID: res.ID}); err != nil {
		t.Fatal(err)
	}
	in, err := Read(dir, FormatInfmemJSON)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, src, in, Options{})
	if err != nil || rep.Added != 1 || rep.AlreadyPresent != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	var got []memory.Memory
	for _, m := range all(t, src.Memory) {
		if m.Text == "The spare key is under the blue flowerpot" {
			got = append(got, m)
		}
	}
	if len(got) != 1 || got[0].ID == res.ID || !slices.Equal(got[0].Tags, []string{"home"}) {
		t.Fatalf("the memory whose id is taken here: %+v (the forgotten one is %s)", got, res.ID)
	}
}

// A forged export's marks are checked before anything is stored: the
// input is refused naming the item, and nothing is imported (not even the
// good note before it).
func TestForgedExportMarksRefused(t *testing.T) {
	ctx := testenv.Context(t)
	dst := newTarget(t)
	const good = `{"id": "6b0961695dc025356daa3bff", "text": "a good note", "timestamp": "2024-06-01T09:15:30Z", "source": "note", "importance": 0.5}`
	for _, c := range []struct{ name, memories, summaries, want string }{
		{"part 3 of 2", good, `{"id": "6b0961695dc025356daa3be9", "text": "a summary", "timestamp": "2024-06-01T09:15:30Z", "whole": "6b0961695dc025356daa3bea", "part": 3, "parts": 2}`, "not a part of a summary"},
		{"superseded_by not an id", good + `, {"id": "6b0961695dc025356daa3be9", "text": "a note", "timestamp": "2024-06-01T09:15:30Z", "source": "note", "importance": 0.5, "superseded_by": "nope"}`, "", "is not a memory id"},
		{"negative use", good + `, {"id": "6b0961695dc025356daa3be9", "text": "a note", "timestamp": "2024-06-01T09:15:30Z", "source": "note", "importance": 0.5, "use_count": -4}`, "", "negative"},
		{"created in 3000", good + `, {"id": "6b0961695dc025356daa3be9", "text": "a note", "timestamp": "2024-06-01T09:15:30Z", "source": "note", "importance": 0.5, "created_at": "3000-01-01T00:00:00Z"}`, "", "out of range"},
	} {
		dir := t.TempDir()
		doc := `{"format": "infmem-export", "format_version": 1, "scopes": [{"scope": "Global", "memories": [` + c.memories + `], "summaries": [` + c.summaries + `]}]}`
		if err := os.WriteFile(filepath.Join(dir, "memory.json"), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		in, err := Read(dir, FormatInfmemJSON)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rep, err := Run(ctx, dst, in, Options{})
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "memory.json") {
			t.Fatalf("%s: %+v %v", c.name, rep, err)
		}
		if n := len(all(t, dst.Memory)); n != 0 {
			t.Fatalf("%s: %d memories stored from a refused input", c.name, n)
		}
	}
}

// A memory tool's file in infmem's export that the memory tool could not
// have written (a path outside /memories or of the directory itself, a NUL
// in its text, more earlier versions than a file keeps, a time out of
// range) refuses the whole input, naming the item, before anything is
// stored: nothing is half-imported.
func TestMalformedMemoryFileRefused(t *testing.T) {
	ctx := testenv.Context(t)
	dst := newTarget(t)
	const good = `{"id": "6b0961695dc025356daa3bff", "text": "a good note", "timestamp": "2024-06-01T09:15:30Z", "source": "note", "importance": 0.5}`
	file := func(path, text, extra string) string {
		return `{"id": "6b0961695dc025356daa3be9", "text": ` + text + `, "timestamp": "2024-06-01T09:15:30Z", "source": "file", "path": "` + path + `", "importance": 0.5` + extra + `}`
	}
	var hist []string
	for range 11 {
		hist = append(hist, `{"text": "older", "changed_at": "2024-06-01T09:15:30Z"}`)
	}
	for _, c := range []struct{ name, file, want string }{
		{"outside /memories", file("/etc/passwd", `"root:x:0:0"`, ""), "/memories"},
		{"a climb out", file("/memories/../etc/passwd", `"root:x:0:0"`, ""), "path"},
		{"the directory itself", file("/memories", `"x"`, ""), "the directory itself"},
		{"a NUL", file("/memories/a.md", `"a\u0000b"`, ""), "NUL"},
		{"11 earlier versions", file("/memories/a.md", `"now"`, `, "history": [`+strings.Join(hist, ", ")+`]`), "at most 10"},
		{"created in 3000", file("/memories/a.md", `"now"`, `, "created_at": "3000-01-01T00:00:00Z"`), "out of range"},
	} {
		dir := t.TempDir()
		doc := `{"format": "infmem-export", "format_version": 1, "scopes": [{"scope": "Global", "memories": [` + good + `, ` + c.file + `]}]}`
		if err := os.WriteFile(filepath.Join(dir, "memory.json"), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		in, err := Read(dir, FormatInfmemJSON)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rep, err := Run(ctx, dst, in, Options{})
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "memory.json") {
			t.Fatalf("%s: %+v %v", c.name, rep, err)
		}
		if n := len(all(t, dst.Memory)); n != 0 {
			t.Fatalf("%s: %d memories stored from a refused input (%v)", c.name, n, err)
		}
	}
}

// An export with more files of the memory tool than /memories has room
// for is refused before anything is stored (it used to stop at the file
// over the limit, the notes and files before it stored); files already
// here with the same text take no room.
func TestMemoryFilesOverTheLimitRefused(t *testing.T) {
	ctx := testenv.Context(t)
	src := newTarget(t)
	for _, p := range []string{"/memories/a.md", "/memories/b.md", "/memories/c.md"} {
		text := "file " + p
		if _, err := memfiles.For(src.Memory).Run(ctx, memfiles.FileRequest{Command: "create", Path: p, FileText: &text}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.Memory.Store(ctx, memory.StoreRequest{Content: "A plain note"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "memory.json"), exportJSON(t, src), 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := Read(dir, FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	dst := newTarget(t)
	memfiles.For(dst.Memory).SetMaxFiles(2)
	rep, err := Run(ctx, dst, in, Options{})
	if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "adds 3 files") || !strings.Contains(err.Error(), "limit is 2") {
		t.Fatalf("3 files into room for 2: %+v %v", rep, err)
	}
	if n := len(all(t, dst.Memory)); n != 0 {
		t.Fatalf("%d memories stored from a refused input (%v)", n, err)
	}
	// Into its own data root, at its limit: nothing new, nothing refused.
	memfiles.For(src.Memory).SetMaxFiles(3)
	if rep, err := Run(ctx, src, in, Options{}); err != nil || rep.Added != 0 {
		t.Fatalf("into its own data root: %+v %v", rep, err)
	}
}
