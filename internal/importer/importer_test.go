package importer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// newTarget opens an empty memory on the embedded engine, with the hash
// embedder so stores take the semantic path.
func newTarget(t testing.TB) Target {
	t.Helper()
	return targetOn(t, testenv.Store(t), true)
}

func targetOn(t testing.TB, store *mongostore.Store, autoCreate bool) Target {
	t.Helper()
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: autoCreate})
	if err != nil {
		t.Fatal(err)
	}
	eng := memory.New(store, reg, memory.Options{Location: time.UTC, Logger: testenv.Logger(t), Embedder: embed.NewHash(embed.HashDim)})
	eng.Start(ctx)
	t.Cleanup(func() { eng.Close(context.Background()) })
	select {
	case <-eng.Loaded():
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	return Target{Memory: eng, Store: store}
}

// all lists every live memory and summary, archived ones included, oldest
// first.
func all(t testing.TB, eng *memory.Engine) []memory.Memory {
	t.Helper()
	ctx := testenv.Context(t)
	var out []memory.Memory
	for off := 0; ; {
		res, err := eng.List(ctx, memory.ListRequest{Scope: scopes.All, IncludeArchived: true, Sort: "oldest", Limit: memory.MaxLimit, Offset: off})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res.Memories...)
		if res.NextOffset == 0 || len(res.Memories) == 0 {
			return out
		}
		off = res.NextOffset
	}
}

func texts(ms []memory.Memory) []string {
	var s []string
	for _, m := range ms {
		s = append(s, m.Text)
	}
	return s
}

func find(t testing.TB, ms []memory.Memory, text string) memory.Memory {
	t.Helper()
	for _, m := range ms {
		if m.Text == text {
			return m
		}
	}
	t.Fatalf("no memory %q among %q", text, texts(ms))
	return memory.Memory{}
}

func readFixture(t testing.TB, path string, want Format) *Input {
	t.Helper()
	if f, err := Detect(path); err != nil || f != want {
		t.Fatalf("Detect(%s) = %q, %v; want %q", path, f, err, want)
	}
	in, err := Read(path, FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if in.Format != want {
		t.Fatalf("format %q", in.Format)
	}
	return in
}

func item(t testing.TB, in *Input, text string) Item {
	t.Helper()
	for _, it := range in.Items {
		if it.Text == text {
			return it
		}
	}
	var all []string
	for _, it := range in.Items {
		all = append(all, it.Text)
	}
	t.Fatalf("no item %q among %q", text, all)
	return Item{}
}

func TestReadMemoryJSONL(t *testing.T) {
	in := readFixture(t, "testdata/memory.jsonl", FormatMemoryJSONL)
	if len(in.Items) != 14 || in.Units != "5 entities and 4 relations" {
		t.Fatalf("%d items, %s", len(in.Items), in.Units)
	}
	if it := item(t, in, "Maya: Birthday on 3 September"); !slices.Equal(it.Tags, []string{"Maya", "person"}) || it.Source != "note" || it.Where != "memory.jsonl:4 (observation 2 of \"Maya\")" {
		t.Fatalf("%+v", it)
	}
	if it := item(t, in, "default_user works_at Acme Robotics"); !slices.Equal(it.Tags, []string{"default_user", "Acme Robotics"}) {
		t.Fatalf("%+v", it)
	}
	item(t, in, "Lisbon Climbing Club (organization)")
}

func TestReadClaudeCode(t *testing.T) {
	in := readFixture(t, "testdata/claude-code/heron", FormatClaudeCode)
	if len(in.Items) != 11 || in.Units != "3 memory files" {
		t.Fatalf("%d items, %s", len(in.Items), in.Units)
	}
	for _, it := range in.Items {
		if !slices.Equal(it.Tags, []string{"claude-code", "heron"}) {
			t.Fatalf("tags %v of %q", it.Tags, it.Text)
		}
	}
	item(t, in, "Code style: Keep modules under 500 lines")
	item(t, in, "Code style: Log with `tracing`, never `println!`")
	item(t, in, "Local notes: The bench rig is on /dev/ttyACM1 on this laptop")
	// A rule of .claude/rules: its front matter (paths) is not memory.
	if it := item(t, in, "Unsafe code: Every `unsafe` block has a `// SAFETY:` comment saying why it is sound"); it.Where != filepath.Join(".claude", "rules", "unsafe.md")+":8" {
		t.Fatalf("%+v", it)
	}
	// A nested item stays with its parent; prose is one memory per section.
	nested := item(t, in, "Build and test: Run `cargo nextest run` before every commit\n  - the hardware-in-the-loop tests are behind `--features hil` and need the\n    bench rig plugged in")
	if nested.Where != "CLAUDE.md:9" {
		t.Fatalf("where %q", nested.Where)
	}
	item(t, in, "Architecture\n\nThe estimator runs at 200 Hz on its own thread and publishes over a\nlock-free ring buffer. Planning never blocks on it.\n\nSee @docs/architecture.md for the state machine.")

	// The user's folder: their own CLAUDE.md and rules (no project) and
	// each project's auto-memory folder, the project named by its
	// transcripts. The index lines of MEMORY.md that point at the
	// folder's memory files are skipped: the files are imported.
	in = readFixture(t, "testdata/claude-code/home/.claude", FormatClaudeCode)
	if len(in.Items) != 8 || in.Skipped != 2 || in.Units != "5 memory files" {
		t.Fatalf("%d items, %d skipped, %s", len(in.Items), in.Skipped, in.Units)
	}
	for _, it := range in.Items {
		if strings.Contains(it.Text, "](") {
			t.Fatalf("index line imported: %q", it.Text)
		}
	}
	if it := item(t, in, "Personal preferences: Ask before adding a new dependency"); !slices.Equal(it.Tags, []string{"claude-code"}) {
		t.Fatalf("%+v", it)
	}
	if it := item(t, in, "Commits: Sign off every commit (`git commit -s`)"); !slices.Equal(it.Tags, []string{"claude-code"}) {
		t.Fatalf("%+v", it)
	}
	if it := item(t, in, "Heron memory: Field tests happen at the Montijo airfield on Saturdays"); !slices.Equal(it.Tags, []string{"claude-code", "heron"}) {
		t.Fatalf("%+v", it)
	}
	// A memory file: led by its name, tagged with its type.
	if it := item(t, in, "Logic analyser setup\n\nChannel 0 is UART TX, channel 1 is UART RX, sample at 8 MHz. Trigger on the\nfalling edge of the heartbeat pin (GPIO 17)."); !slices.Equal(it.Tags, []string{"claude-code", "heron", "reference"}) {
		t.Fatalf("%+v", it)
	}
	if it := in.Items[slices.IndexFunc(in.Items, func(it Item) bool { return strings.HasPrefix(it.Text, "Ask before HIL tests\n\n") })]; !slices.Contains(it.Tags, "feedback") || !strings.Contains(it.Text, "**Why:**") {
		t.Fatalf("%+v", it)
	}
	// One file alone.
	in, err := Read("testdata/claude-code/heron/CLAUDE.local.md", FormatAuto)
	if err != nil || in.Format != FormatClaudeCode || len(in.Items) != 2 || in.Items[0].Tags[1] != "heron" {
		t.Fatalf("%+v %v", in, err)
	}
}

func TestProjectFromSlug(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src", "my-app.v2"), 0o755); err != nil {
		t.Fatal(err)
	}
	slug := slugOf(filepath.Join(dir, "src", "my-app.v2"))
	if got := projectFromSlug(filepath.Join(t.TempDir(), slug)); got != "my-app.v2" {
		t.Fatalf("resolved on disk: %q", got)
	}
	if got := projectFromSlug(filepath.Join(t.TempDir(), "-nowhere-on-this-machine")); got != "nowhere-on-this-machine" {
		t.Fatalf("fallback: %q", got)
	}
}

func TestReadMarkdownNotes(t *testing.T) {
	in := readFixture(t, "testdata/notes", FormatMarkdown)
	if len(in.Items) != 9 || in.Units != "5 notes" {
		t.Fatalf("%d items, %s", len(in.Items), in.Units)
	}
	trip := item(t, in, "Trip to Japan\n\nFlights booked for 12–26 April: Lisbon → Tokyo via Helsinki, Finnair.\nRyokan in Hakone for two nights (the 18th and 19th). Need a JR pass\nfor the Tokyo–Kyoto leg. #todo buy the pocket wifi before leaving.")
	if !slices.Equal(trip.Tags, []string{"travel", "japan", "todo"}) || !trip.Timestamp.Equal(time.Date(2024, 3, 2, 0, 0, 0, 0, time.Local)) {
		t.Fatalf("%+v", trip)
	}
	foc := item(t, in, "Focaccia\n\n500 g flour, 400 g water, 10 g salt, 3 g instant yeast. Cold proof in\nthe fridge overnight, then 2 hours at room temperature. Bake at 230 °C\nfor 22 minutes with plenty of olive oil.")
	if !slices.Equal(foc.Tags, []string{"baking", "bread"}) || !foc.Timestamp.Equal(time.Date(2023, 11, 20, 18, 30, 0, 0, time.UTC)) || foc.Where != "Recipes/Focaccia.md:6" {
		t.Fatalf("%+v", foc)
	}
	// Tags in code are not tags.
	inbox := in.Items[slices.IndexFunc(in.Items, func(it Item) bool { return strings.HasPrefix(it.Text, "Inbox") })]
	if !slices.Equal(inbox.Tags, []string{"home"}) {
		t.Fatalf("%+v", inbox)
	}
	// The long note: one memory per section, each led by its heading.
	var sections []string
	for _, it := range in.Items {
		if strings.HasPrefix(it.Where, "Heron design.md") {
			sections = append(sections, firstLine(it.Text))
			if !slices.Contains(it.Tags, "heron") || !it.Timestamp.Equal(time.Date(2024, 5, 10, 9, 30, 0, 0, time.Local)) {
				t.Fatalf("%+v", it)
			}
		}
	}
	if want := []string{"Heron design", "Heron design › Estimator", "Heron design › Planner", "Heron design › Field tests", "Heron design › Open questions"}; !slices.Equal(sections, want) {
		t.Fatalf("sections %q", sections)
	}
	if it := in.Items[slices.IndexFunc(in.Items, func(it Item) bool { return strings.HasPrefix(it.Text, "Heron design › Planner") })]; !slices.Contains(it.Tags, "planning") {
		t.Fatalf("%+v", it)
	}
}

func TestReadMCPMemoryService(t *testing.T) {
	in := readFixture(t, mcpmsFixture(t), FormatMCPMS)
	// The deleted row and the superseded one are skipped.
	if len(in.Items) != 4 || in.Skipped != 2 || in.Units != "6 rows" {
		t.Fatalf("%d items, %d skipped, %s", len(in.Items), in.Skipped, in.Units)
	}
	for _, it := range in.Items {
		if strings.Contains(it.Text, "Wednesdays") || strings.Contains(it.Text, "Old idea") {
			t.Fatalf("imported %q", it.Text)
		}
	}
	pg := item(t, in, "Decided to use PostgreSQL 16 for the billing service; SQLite stays for the CLI cache.")
	if !slices.Equal(pg.Tags, []string{"architecture", "decision", "billing"}) || pg.Category != "decision" ||
		!pg.Timestamp.Equal(time.Date(2024, 6, 3, 8, 0, 0, 250e6, time.UTC)) || pg.Where != "sqlite_vec.db: memories row 1" {
		t.Fatalf("%+v", pg)
	}
	// JSON tags, and a time only in created_at_iso.
	sync := item(t, in, "Weekly sync with the payments team moved to Thursdays at 15:00 CET.")
	if !slices.Equal(sync.Tags, []string{"meeting", "payments"}) || !sync.Timestamp.Equal(time.Date(2024, 7, 4, 13, 30, 0, 0, time.UTC)) {
		t.Fatalf("%+v", sync)
	}
	if it := item(t, in, "Use ruff instead of flake8 in every Python repository."); !slices.Equal(it.Tags, []string{"python", "tooling"}) {
		t.Fatalf("%+v", it)
	}
	// The committed copy is the same database.
	if in2, err := Read("testdata/mcp-memory-service/sqlite_vec.db", FormatAuto); err != nil || len(in2.Items) != 4 {
		t.Fatalf("committed fixture: %v", err)
	}
}

func TestReadChatGPT(t *testing.T) {
	in := readFixture(t, "testdata/chatgpt/conversations.json", FormatChatGPT)
	// The system message, the call to a tool and the tool's answer are
	// skipped, and so is the empty answer; the regenerated answer off the
	// current branch is not part of the conversation.
	if len(in.Items) != 7 || in.Skipped != 4 || in.Units != "2 conversations" {
		t.Fatalf("%d items, %d skipped, %s", len(in.Items), in.Skipped, in.Units)
	}
	for _, it := range in.Items {
		if strings.Contains(it.Text, "regenerated") {
			t.Fatalf("off-branch message imported: %q", it.Text)
		}
	}
	first := in.Items[0]
	if first.Text != "My sourdough starter smells like nail polish remover. Is it dead?" || first.Speaker != "user" || first.Source != "conversation" ||
		first.ConversationID != "6611a2b0-1c2d-4e5f-8a9b-0c1d2e3f4a5b" || !first.Timestamp.Equal(time.Date(2024, 4, 2, 10, 0, 10, 500e6, time.UTC)) ||
		!slices.Equal(first.Tags, []string{"chatgpt"}) {
		t.Fatalf("%+v", first)
	}
	if it := in.Items[1]; it.Speaker != "assistant" || !strings.HasPrefix(it.Text, "Not dead, just hungry") {
		t.Fatalf("%+v", it)
	}
	// The text of a message with an image, and of one said in voice mode.
	item(t, in, "Here is a photo after two feedings. Better?")
	if it := item(t, in, "What is the fastest train from Lisbon to Porto?"); it.Speaker != "user" {
		t.Fatalf("%+v", it)
	}
	if it := item(t, in, "ok"); it.ConversationID != "7722b3c1-2d3e-4f50-9bac-1d2e3f4a5b6c" || !strings.HasPrefix(it.Where, "conversations.json:161 (conversation 2, \"Lisbon to Porto by train\")") {
		t.Fatalf("%+v", it)
	}
}

func TestReadClaudeAI(t *testing.T) {
	in := readFixture(t, "testdata/claude-ai", FormatClaudeAI)
	if len(in.Items) != 4 || in.Skipped != 1 {
		t.Fatalf("%d items, %d skipped", len(in.Items), in.Skipped)
	}
	a := in.Items[1]
	if a.Speaker != "assistant" || a.Text != "Both are endurance bikes. At 2,500 euros the Endurace CF 7 gets you Shimano 105 Di2, while the Domane AL 5 is aluminium with mechanical 105.\n\nIf comfort on rough roads matters most, the Domane's IsoSpeed decoupler is the deciding feature." ||
		a.ConversationID != "2b7e1c0a-9d4f-4e2a-8f3b-5c6d7e8f9a01" || !a.Timestamp.Equal(time.Date(2024, 8, 1, 17, 5, 40, 0, time.UTC)) {
		t.Fatalf("%+v", a)
	}
	if it := item(t, in, "Remind me: my passport expires in March 2027."); it.Speaker != "user" || !slices.Equal(it.Tags, []string{"claude-ai"}) {
		t.Fatalf("%+v", it)
	}
}

func TestReadInfmemJSON(t *testing.T) {
	in := readFixture(t, "testdata/infmem-export", FormatInfmemJSON)
	if len(in.Items) != 4 || len(in.Scopes) != 3 || in.Profile == nil || in.Profile.Name != "Sam" {
		t.Fatalf("%+v", in)
	}
	m := item(t, in, "Old badge number 4471 (replaced in 2023)")
	if m.Scope != "Work" || !m.Archived || *m.Importance != 0.2 || m.Where != `memory.json:59 (scope "Work", memory 2)` {
		t.Fatalf("%+v", m)
	}
	if s := item(t, in, "Sam asked to move the Heron field test to June 21."); s.Source != "summary" || s.ConversationID != "conv-2024-06-01" {
		t.Fatalf("%+v", s)
	}
}

// Each format imports into an empty memory; a dry run first changes
// nothing, and importing again adds nothing.
func TestImportEachFixture(t *testing.T) {
	for _, c := range []struct {
		path   string
		format Format
		added  int
		// present: the same text twice in one scope (the engine keeps one).
		present int
		check   func(t *testing.T, ms []memory.Memory)
	}{
		{"testdata/memory.jsonl", FormatMemoryJSONL, 14, 0, func(t *testing.T, ms []memory.Memory) {
			if m := find(t, ms, "Project Heron: Deadline for the first field test is June 14"); !slices.Equal(m.Tags, []string{"Project Heron", "project"}) || m.Scope != "Global" {
				t.Fatalf("%+v", m)
			}
		}},
		{"testdata/claude-code/heron", FormatClaudeCode, 11, 0, func(t *testing.T, ms []memory.Memory) {
			find(t, ms, "Code style: Keep modules under 500 lines")
		}},
		{"testdata/notes", FormatMarkdown, 9, 0, func(t *testing.T, ms []memory.Memory) {
			if m := ms[0]; !strings.HasPrefix(m.Text, "Focaccia") || !m.Timestamp.Equal(time.Date(2023, 11, 20, 18, 30, 0, 0, time.UTC)) {
				t.Fatalf("oldest: %+v", m)
			}
		}},
		{"", FormatMCPMS, 4, 0, func(t *testing.T, ms []memory.Memory) {
			if m := find(t, ms, "The staging database password rotates on the first Monday of each month."); m.Category != "note" || !slices.Equal(m.Tags, []string{"ops", "staging"}) {
				t.Fatalf("%+v", m)
			}
		}},
		{"testdata/chatgpt/conversations.json", FormatChatGPT, 7, 0, func(t *testing.T, ms []memory.Memory) {
			m := find(t, ms, "What is the fastest train from Lisbon to Porto?")
			if m.Source != "conversation" || m.Speaker != "user" || m.ConversationID != "7722b3c1-2d3e-4f50-9bac-1d2e3f4a5b6c" ||
				!m.Timestamp.Equal(time.Date(2024, 5, 1, 8, 0, 10, 0, time.UTC)) {
				t.Fatalf("%+v", m)
			}
		}},
		{"testdata/claude-ai/conversations.json", FormatClaudeAI, 4, 0, func(t *testing.T, ms []memory.Memory) {
			find(t, ms, "Remind me: my passport expires in March 2027.")
		}},
		{"testdata/infmem-export/memory.json", FormatInfmemJSON, 4, 0, func(t *testing.T, ms []memory.Memory) {
			m := find(t, ms, "Can we move the Heron field test to June 21?")
			if m.Scope != "Work" || m.Speaker != "user" || m.ConversationID != "conv-2024-06-01" {
				t.Fatalf("%+v", m)
			}
			if m := find(t, ms, "Old badge number 4471 (replaced in 2023)"); !m.Archived {
				t.Fatalf("not archived: %+v", m)
			}
		}},
	} {
		t.Run(string(c.format), func(t *testing.T) {
			path := c.path
			if path == "" {
				path = mcpmsFixture(t)
			}
			tg := newTarget(t)
			ctx := testenv.Context(t)
			in, err := Read(path, FormatAuto)
			if err != nil {
				t.Fatal(err)
			}
			dry, err := Run(ctx, tg, in, Options{DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			if !dry.DryRun || dry.Added != c.added || dry.AlreadyImported != 0 || len(all(t, tg.Memory)) != 0 {
				t.Fatalf("dry run: %+v", dry)
			}
			var head ledgerHead
			if err := tg.Store.GetMeta(ctx, ledgerID, &head); !errors.Is(err, mongostore.ErrNotFound) {
				t.Fatalf("a dry run wrote the ledger: %v", err)
			}
			rep, err := Run(ctx, tg, in, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Added != c.added || rep.AlreadyPresent != c.present || rep.Items != c.added+c.present {
				t.Fatalf("import: %+v", rep)
			}
			ms := all(t, tg.Memory)
			if len(ms) != c.added {
				t.Fatalf("%d memories stored: %q", len(ms), texts(ms))
			}
			c.check(t, ms)
			// Read again from the file (as a second 'infmem import' would).
			in2, err := Read(path, FormatAuto)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Run(ctx, tg, in2, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if again.Added != 0 || again.AlreadyImported != rep.Items {
				t.Fatalf("second import: %+v", again)
			}
			if n := len(all(t, tg.Memory)); n != c.added {
				t.Fatalf("%d memories after the second import", n)
			}
			if dry, err := Run(ctx, tg, in2, Options{DryRun: true}); err != nil || dry.Added != 0 || dry.AlreadyImported != rep.Items {
				t.Fatalf("dry run after import: %+v %v", dry, err)
			}
		})
	}
}

// The ledger survives a restart: a new engine on the same database still
// knows what was imported.
func TestLedgerSurvivesRestart(t *testing.T) {
	root := testenv.Root(t)
	ctx := testenv.Context(t)
	in, err := Read("testdata/memory.jsonl", FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	func() {
		s, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: root, Database: testenv.DBName(t)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		tg := targetOn(t, s, true)
		if rep, err := Run(ctx, tg, in, Options{}); err != nil || rep.Added != 14 {
			t.Fatalf("%+v %v", rep, err)
		}
		tg.Memory.Close(ctx)
	}()
	tg := targetOn(t, testenv.StoreAt(t, root), true)
	rep, err := Run(ctx, tg, in, Options{})
	if err != nil || rep.Added != 0 || rep.AlreadyImported != 14 {
		t.Fatalf("%+v %v", rep, err)
	}
}

// Bad input is refused whole, naming the file and line or record, and
// nothing is written.
func TestMalformedInputRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gpt, _ := os.ReadFile("testdata/chatgpt/conversations.json")
	for _, c := range []struct {
		path   string
		format Format
		want   []string
	}{
		{"testdata/bad/memory.jsonl", FormatAuto, []string{"2 problems", `memory.jsonl:2: a relation needs "from", "to" and "relationType"`, "memory.jsonl:3: not a JSON object", "nothing was imported"}},
		{write("unknown.jsonl", `{"type":"entity","name":"A","entityType":"t","observations":["x"]}`+"\n"+`{"type":"person","name":"B"}`+"\n"), FormatAuto, []string{`unknown.jsonl:2: unknown type "person"`}},
		{write("cut/conversations.json", string(gpt[:len(gpt)/2])), FormatChatGPT, []string{"conversations.json:", "ends in the middle"}},
		{write("bad-time/conversations.json", strings.Replace(string(gpt), `"create_time": 1712052010.5`, `"create_time": 1e300`, 1)), FormatAuto, []string{`conversations.json:2 (conversation 1, "Sourdough starter help"), message 2: create_time`}},
		{write("wrong/conversations.json", `[{"uuid": "x", "name": "n", "created_at": "2024-01-01T00:00:00Z"}]`), FormatClaudeAI, []string{`conversations.json:1 (conversation 1, "n")`, "chat_messages"}},
		{write("notes/a.md", "---\ndate: last tuesday\n---\nbody\n"), FormatMarkdown, []string{`a.md:2: date "last tuesday" is not a date`}},
		{write("notes2/b.md", "---\ntags: [x]\nbody without an end\n"), FormatMarkdown, []string{"b.md:1", "never closed"}},
		{write("export/memory.json", `{"format": "infmem-export", "format_version": 1, "scopes": [{"scope": "ALL", "memories": [{"id": "a1", "text": "x", "source": "note", "timestamp": "2024-01-01T00:00:00Z"}]}]}`), FormatAuto, []string{`memory.json (scope 1)`, "reserved"}},
		{write("export2/memory.json", `{"format": "infmem-export", "format_version": 1, "scopes": [{"scope": "W", "memories": [{"id": "a1", "text": "x", "source": "gossip", "timestamp": "2024-01-01T00:00:00Z"}]}]}`), FormatAuto, []string{`memory.json:1 (scope "W", memory 1): source "gossip"`}},
		{write("random.txt", "hello"), FormatAuto, []string{"cannot tell the format", "--format"}},
	} {
		t.Run(filepath.Base(filepath.Dir(c.path))+"/"+filepath.Base(c.path), func(t *testing.T) {
			tg := newTarget(t)
			ctx := testenv.Context(t)
			in, err := Read(c.path, c.format)
			if err == nil {
				_, err = Run(ctx, tg, in, Options{})
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q lacks %q", err, w)
				}
			}
			if n := len(all(t, tg.Memory)); n != 0 {
				t.Fatalf("%d memories written", n)
			}
		})
	}
}

// Values beyond the engine's limits: infmem's own export must be within
// them; other formats are fitted (long texts split, long tags shortened).
func TestLimits(t *testing.T) {
	tg := newTarget(t)
	ctx := testenv.Context(t)
	long := strings.Repeat("The estimator fuses the IMU and the barometer. ", 40) // ~1.9 KB
	in := &Input{Path: "x", Format: FormatMarkdown, Items: []Item{
		{Where: "a.md:1", Key: "a", Text: long + "\n\n" + long, Tags: []string{strings.Repeat("t", 80)}},
		{Where: "b.md:1", Key: "b", Text: "short one"},
	}}
	rep, err := Run(ctx, tg, in, Options{MaxContentBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Split != 1 || rep.Added < 5 {
		t.Fatalf("%+v", rep)
	}
	for _, m := range all(t, tg.Memory) {
		if len(m.Text) > 1024 {
			t.Fatalf("part of %d bytes", len(m.Text))
		}
		if strings.HasPrefix(m.Text, "The estimator") && (!strings.Contains(m.Text, "(part ") || len(m.Tags[0]) != maxTagLen) {
			t.Fatalf("%q %v", m.Text, m.Tags)
		}
	}
	strict := &Input{Path: "memory.json", Format: FormatInfmemJSON, Items: []Item{
		{Where: "memory.json:3", Key: "a", Text: "x", Tags: []string{strings.Repeat("t", 80)}, Strict: true},
		{Where: "memory.json:9", Key: "b", Text: "y", Importance: ptr(1.5), Strict: true},
		{Where: "memory.json:12", Key: "c", Text: "z", Timestamp: time.Date(1850, 1, 1, 0, 0, 0, 0, time.UTC), Strict: true},
	}}
	_, err = Run(ctx, tg, strict, Options{})
	for _, w := range []string{"3 problems", "memory.json:3: tag", "memory.json:9: importance 1.5", "memory.json:12: time 1850"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("%v lacks %q", err, w)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// The ledger spans several records once it outgrows one.
func TestLedgerChunks(t *testing.T) {
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	l, err := loadLedger(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	n := ledgerChunk*2 + 10
	for i := range n {
		if err := l.add(ctx, itemKey(FormatChatGPT, "global", fmt.Sprint(i), 0)); err != nil {
			t.Fatal(err)
		}
		if i == 100 {
			if err := l.flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := l.flush(ctx); err != nil {
		t.Fatal(err)
	}
	l2, err := loadLedger(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	if l2.chunks != 3 || len(l2.keys) != n || !l2.has(itemKey(FormatChatGPT, "global", "0", 0)) || !l2.has(itemKey(FormatChatGPT, "global", fmt.Sprint(n-1), 0)) {
		t.Fatalf("chunks %d, keys %d", l2.chunks, len(l2.keys))
	}
	// It carries on where it stopped.
	if err := l2.add(ctx, itemKey(FormatChatGPT, "global", "new", 0)); err != nil {
		t.Fatal(err)
	}
	if err := l2.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if l3, err := loadLedger(ctx, store); err != nil || len(l3.keys) != n+1 || l3.chunks != 3 {
		t.Fatalf("%v", err)
	}
}

// --scope puts everything into one scope, created when missing even with
// automatic creation off; an invalid name is refused before anything.
func TestScopeOption(t *testing.T) {
	tg := targetOn(t, testenv.Store(t), false)
	ctx := testenv.Context(t)
	in, err := Read("testdata/infmem-export", FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, tg, in, Options{Scope: "ALL"}); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Fatalf("%v", err)
	}
	dry, err := Run(ctx, tg, in, Options{Scope: "Old laptop", DryRun: true})
	if err != nil || len(dry.Scopes) != 1 || !dry.Scopes[0].Created || dry.Scopes[0].Added != 4 {
		t.Fatalf("%+v %v", dry, err)
	}
	if _, ok := tg.Memory.Scopes().Get("Old laptop"); ok {
		t.Fatal("a dry run created the scope")
	}
	rep, err := Run(ctx, tg, in, Options{Scope: "Old laptop"})
	if err != nil || rep.Added != 4 {
		t.Fatalf("%+v %v", rep, err)
	}
	for _, m := range all(t, tg.Memory) {
		if m.Scope != "Old laptop" {
			t.Fatalf("%+v", m)
		}
	}
	// Into another scope it is another import.
	if rep, err := Run(ctx, tg, in, Options{Scope: "old LAPTOP"}); err != nil || rep.AlreadyImported != 4 {
		t.Fatalf("same scope in other letters: %+v %v", rep, err)
	}
}

// Repeated texts in one scope are stored once and reported as already
// present; the same text elsewhere in the input stays recorded.
func TestRepeatedTextsCollapse(t *testing.T) {
	tg := newTarget(t)
	ctx := testenv.Context(t)
	in := &Input{Path: "x", Format: FormatChatGPT, Items: []Item{
		{Where: "c1 m1", Key: "c1/m1", Text: "ok", Source: "conversation", Speaker: "user", ConversationID: "c1"},
		{Where: "c2 m1", Key: "c2/m1", Text: "OK ", Source: "conversation", Speaker: "user", ConversationID: "c2"},
		{Where: "c2 m2", Key: "c2/m2", Text: "Something else", Source: "conversation", Speaker: "assistant", ConversationID: "c2"},
	}}
	dry, err := Run(ctx, tg, in, Options{DryRun: true})
	if err != nil || dry.Added != 2 || dry.AlreadyPresent != 1 {
		t.Fatalf("%+v %v", dry, err)
	}
	rep, err := Run(ctx, tg, in, Options{Workers: 1})
	if err != nil || rep.Added != 2 || rep.AlreadyPresent != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	if again, err := Run(ctx, tg, in, Options{}); err != nil || again.AlreadyImported != 3 || again.Added != 0 {
		t.Fatalf("%+v %v", again, err)
	}
}
