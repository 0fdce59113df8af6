package backup

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/infmem/infmem/internal/version"
	"github.com/infmem/infmem/mongostore"
)

// ExportNotice goes at the top of every export and with every report of
// one: exports are plain text by design.
const ExportNotice = "This export contains your personal memory data in plain text. Keep it somewhere safe, and delete it when you no longer need it. It is not a backup: 'infmem restore' uses the files in backups/."

// ExportOptions configures an export.
type ExportOptions struct {
	// Dir is the export directory, normally the data root's export/.
	Dir string
	// Scopes limits the export to these scope names; empty exports all.
	Scopes []string
	// JSON and Markdown select the formats; neither means both.
	JSON, Markdown bool
	// Now is the clock; nil means time.Now.
	Now      func() time.Time
	Progress func(Progress)
	// Space is the free-space floor the export keeps on Dir's file
	// system; its zero value is the default (see DefaultMinFree).
	Space Space
	// Location is the user's time zone (memory.Engine.UserLocation):
	// every time is written in UTC and, beside it, in this zone with its
	// offset. nil or UTC: UTC only.
	Location *time.Location
}

// ExportResult says what an export wrote.
type ExportResult struct {
	// Dir is the directory holding this export's files.
	Dir string
	// Files are the files written, relative to Dir.
	Files     []string
	Scopes    int
	Memories  int
	Summaries int
	// Notice is ExportNotice, for callers to show.
	Notice string
}

// exportDoc is the JSON export: one document per scope plus the profile.
// It is written field by field (writeExportJSON), never built whole.
type exportDoc struct {
	exportHead
	Scopes []*exportScope `json:"scopes"`
}

// exportHead is the export's fields before its scopes.
type exportHead struct {
	Format        string    `json:"format"`
	FormatVersion int       `json:"format_version"`
	ExportedAt    time.Time `json:"exported_at"`
	InfmemVersion string    `json:"infmem_version"`
	Notice        string    `json:"notice"`
	// TimeZone is the zone of the local_time fields (empty: none).
	TimeZone string          `json:"time_zone,omitempty"`
	Profiles []exportProfile `json:"profile"`
}

type exportProfile struct {
	ID          string               `json:"id"`
	Name        string               `json:"name,omitempty"`
	Preferences map[string]string    `json:"preferences"`
	Facts       map[string]string    `json:"facts"`
	Contacts    []mongostore.Contact `json:"contacts"`
	Notes       []string             `json:"notes"`
	CreatedAt   time.Time            `json:"created_at"`
	UpdatedAt   time.Time            `json:"updated_at"`
}

type exportScope struct {
	scopeHead
	Memories  []exportMemory  `json:"memories"`
	Summaries []exportSummary `json:"summaries"`
}

// scopeHead is a scope's fields before its memories and summaries.
type scopeHead struct {
	Scope       string      `json:"scope"`
	Description string      `json:"description,omitempty"`
	ParentScope string      `json:"parent_scope,omitempty"`
	CreatedAt   *time.Time  `json:"created_at,omitempty"`
	Tags        []exportTag `json:"tags"`
}

type exportTag struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

type exportMemory struct {
	ID        string    `json:"id"`
	Text      string    `json:"text"`
	Timestamp time.Time `json:"timestamp"`
	LocalTime string    `json:"local_time,omitempty"`
	Tags      []string  `json:"tags"`
	Source    string    `json:"source"`
	// Path is a memory file's path in /memories (source file).
	Path           string     `json:"path,omitempty"`
	Speaker        string     `json:"speaker,omitempty"`
	ConversationID string     `json:"conversation_id,omitempty"`
	Category       string     `json:"category,omitempty"`
	Importance     float64    `json:"importance"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	LastAccessed   *time.Time `json:"last_accessed,omitempty"`
	UseCount       int64      `json:"use_count"`
	Archived       bool       `json:"archived,omitempty"`
	ArchivedAt     *time.Time `json:"archived_at,omitempty"`
	ArchiveReason  string     `json:"archive_reason,omitempty"`
	Pinned         bool       `json:"pinned,omitempty"`
	// SupersededBy, Contradicts and LinksAbout are its links to other
	// memories, by id (the supersede marks); LinksByMeaning: the
	// superseded_by link was found by meaning, not by shared words.
	SupersededBy   string           `json:"superseded_by,omitempty"`
	Contradicts    []string         `json:"contradicts,omitempty"`
	LinksAbout     []string         `json:"links_about,omitempty"`
	LinksByMeaning bool             `json:"links_by_meaning,omitempty"`
	History        []exportRevision `json:"history,omitempty"`
}

// exportRevision is an earlier version of an edited memory.
type exportRevision struct {
	Text       string    `json:"text"`
	Tags       []string  `json:"tags"`
	Importance float64   `json:"importance"`
	Scope      string    `json:"scope"`
	Category   string    `json:"category,omitempty"`
	ChangedAt  time.Time `json:"changed_at"`
}

type exportSummary struct {
	ID             string                `json:"id"`
	Text           string                `json:"text"`
	Timestamp      time.Time             `json:"timestamp"`
	LocalTime      string                `json:"local_time,omitempty"`
	TimeRange      *mongostore.TimeRange `json:"time_range,omitempty"`
	Tags           []string              `json:"tags"`
	ConversationID string                `json:"conversation_id,omitempty"`
	TopicID        string                `json:"topic_id,omitempty"`
	Method         string                `json:"method,omitempty"`
	Importance     float64               `json:"importance"`
	// MessageRefs are the messages it condenses; a summary in parts has
	// Whole (the id its parts share), Part (1 to Parts) and Parts.
	MessageRefs  []string         `json:"message_refs,omitempty"`
	Whole        string           `json:"whole,omitempty"`
	Part         int              `json:"part,omitempty"`
	Parts        int              `json:"parts,omitempty"`
	CreatedAt    time.Time        `json:"created_at"`
	UpdatedAt    time.Time        `json:"updated_at"`
	LastAccessed *time.Time       `json:"last_accessed,omitempty"`
	UseCount     int64            `json:"use_count"`
	Archived     bool             `json:"archived,omitempty"`
	Pinned       bool             `json:"pinned,omitempty"`
	History      []exportRevision `json:"history,omitempty"`
}

// Export writes the memory in user-readable form into a new directory
// export_<UTC time> under opts.Dir: memory.json (one document per scope
// with its memories, summaries and tags, plus the profile) and one
// Markdown file per scope plus profile.md. Forgotten items and embeddings
// are left out; archived ones are included and marked. The directory
// appears complete or not at all.
func Export(ctx context.Context, store *mongostore.Store, opts ExportOptions) (*ExportResult, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if !opts.JSON && !opts.Markdown {
		opts.JSON, opts.Markdown = true, true
	}
	now := opts.Now().UTC()
	// A killed export leaves a folder of plaintext memories: remove it.
	if _, err := RemoveLeftovers(nil, now, opts.Dir); err != nil {
		return nil, err
	}
	// Refused at once when the disk is already at the floor; while the
	// files are written the free space is measured every few megabytes.
	space := opts.Space.guard("export", opts.Dir)
	if err := space.before(0); err != nil {
		return nil, err
	}
	rep := newReporter(opts.Progress, "export")
	rep.step("reading", 3, 0)

	doc := &exportDoc{exportHead: exportHead{Format: "infmem-export", FormatVersion: 1, ExportedAt: now, InfmemVersion: version.String(), Notice: ExportNotice}}
	z := zoneOf(opts.Location)
	doc.TimeZone = z.name()
	scopes := map[string]*exportScope{}
	want := func(name string) bool { return len(opts.Scopes) == 0 || slices.Contains(opts.Scopes, name) }
	scopeOf := func(name string) *exportScope {
		s := scopes[name]
		if s == nil {
			s = &exportScope{scopeHead: scopeHead{Scope: name, Tags: []exportTag{}}, Memories: []exportMemory{}, Summaries: []exportSummary{}}
			scopes[name] = s
		}
		return s
	}
	defs, err := store.Scopes.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot export: %w", err)
	}
	for _, d := range defs {
		if want(d.ScopeName) {
			s := scopeOf(d.ScopeName)
			s.Description, s.ParentScope = d.Description, d.ParentScope
			t := d.CreatedAt.UTC()
			s.CreatedAt = &t
		}
	}
	res := &ExportResult{Notice: ExportNotice}

	err = each(ctx, store.Memories, func(m *mongostore.Memory) {
		if m.ForgottenAt != nil || !want(m.Scope) {
			return
		}
		s := scopeOf(m.Scope)
		s.Memories = append(s.Memories, exportMemory{
			ID: m.ID.Hex(), Text: m.Text, Timestamp: m.Timestamp.UTC(), LocalTime: z.rfc3339(m.Timestamp), Tags: nonNil(m.Tags), Source: m.Source,
			Path: m.Path, Speaker: m.Speaker, ConversationID: m.ConversationID, Category: m.Category, Importance: m.Importance,
			CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(), LastAccessed: utcPtr(m.LastAccessed),
			UseCount: m.UseCount, Archived: m.Archived, ArchivedAt: utcPtr(m.ArchivedAt), ArchiveReason: m.ArchiveReason, Pinned: m.Pinned,
			SupersededBy: m.SupersededBy, Contradicts: m.Contradicts, LinksAbout: m.LinksAbout, LinksByMeaning: m.LinksByMeaning,
			History: revisions(m.History),
		})
		res.Memories++
		rep.update(false, func(p *Progress) { p.Docs++; p.Collection = mongostore.ConversationHistory })
	})
	if err != nil {
		return nil, err
	}
	rep.update(true, func(p *Progress) { p.CollectionsDone++ })
	err = each(ctx, store.Summaries, func(m *mongostore.Summary) {
		if m.ForgottenAt != nil || !want(m.Scope) {
			return
		}
		s := scopeOf(m.Scope)
		s.Summaries = append(s.Summaries, exportSummary{
			ID: m.ID.Hex(), Text: m.SummaryText, Timestamp: m.Timestamp.UTC(), LocalTime: z.rfc3339(m.Timestamp), TimeRange: m.TimeRange, Tags: nonNil(m.Tags),
			ConversationID: m.ConversationID, TopicID: m.TopicID, Method: m.Method, Importance: m.Importance,
			MessageRefs: hexes(m.MessageRefs), Whole: m.Whole, Part: m.Part, Parts: m.Parts,
			CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(), LastAccessed: utcPtr(m.LastAccessed), UseCount: m.UseCount,
			Archived: m.Archived, Pinned: m.Pinned, History: revisions(m.History),
		})
		res.Summaries++
		rep.update(false, func(p *Progress) { p.Docs++; p.Collection = mongostore.Summaries })
	})
	if err != nil {
		return nil, err
	}
	rep.update(true, func(p *Progress) { p.CollectionsDone++ })
	err = scan(ctx, store.Profiles.Raw(), nil, func(p *mongostore.Profile) {
		doc.Profiles = append(doc.Profiles, exportProfile{
			ID: p.ID, Name: p.Name, Preferences: p.Preferences, Facts: p.Facts, Contacts: p.Contacts, Notes: p.Notes,
			CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(),
		})
	})
	if err != nil {
		return nil, err
	}
	rep.update(true, func(p *Progress) { p.CollectionsDone++ })
	for _, name := range opts.Scopes {
		if scopes[name] == nil {
			return nil, fmt.Errorf("cannot export scope %q: there is no such scope", name)
		}
	}

	// In time order, and by id at the same time: the same memories give
	// the same file whatever order the database returns them in.
	for _, s := range scopes {
		sort.Slice(s.Memories, func(i, j int) bool {
			a, b := s.Memories[i], s.Memories[j]
			return a.Timestamp.Before(b.Timestamp) || a.Timestamp.Equal(b.Timestamp) && a.ID < b.ID
		})
		sort.Slice(s.Summaries, func(i, j int) bool {
			a, b := s.Summaries[i], s.Summaries[j]
			return a.Timestamp.Before(b.Timestamp) || a.Timestamp.Equal(b.Timestamp) && a.ID < b.ID
		})
		s.Tags = tagCounts(s)
		doc.Scopes = append(doc.Scopes, s)
	}
	sort.Slice(doc.Scopes, func(i, j int) bool { return doc.Scopes[i].Scope < doc.Scopes[j].Scope })
	res.Scopes = len(doc.Scopes)

	rep.step("writing", 0, 0)
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create export directory: %w", err)
	}
	tmp, err := os.MkdirTemp(opts.Dir, tempPattern("export"))
	if err != nil {
		return nil, fmt.Errorf("cannot create export directory: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	// A write the guard stopped reports the guard's reason, not the
	// file's.
	writeExportFile := func(path string, write func(*bufio.Writer) error) error {
		if err := writeGuardedFile(path, space, write); err != nil {
			if serr := space.failed(); serr != nil {
				return serr
			}
			return err
		}
		return nil
	}
	if opts.JSON {
		if err := writeExportFile(filepath.Join(tmp, "memory.json"), func(w *bufio.Writer) error {
			return writeExportJSON(w, doc)
		}); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, "memory.json")
	}
	if opts.Markdown {
		used := map[string]bool{"profile.md": true, "memory.json": true}
		if err := writeExportFile(filepath.Join(tmp, "profile.md"), func(w *bufio.Writer) error {
			return writeProfileMarkdown(w, doc, z)
		}); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, "profile.md")
		for _, s := range doc.Scopes {
			name := uniqueFileName(slug(s.Scope), ".md", used)
			if err := writeExportFile(filepath.Join(tmp, name), func(w *bufio.Writer) error {
				return writeScopeMarkdown(w, doc, s, z)
			}); err != nil {
				return nil, err
			}
			res.Files = append(res.Files, name)
		}
	}
	for suffix := 0; suffix < 100 && res.Dir == ""; suffix++ {
		name := "export_" + now.Format(timeLayout)
		if suffix > 0 {
			name += fmt.Sprintf("-%d", suffix)
		}
		final := filepath.Join(opts.Dir, name)
		if exists(final) {
			continue
		}
		// Rename replaces an empty directory that appeared meanwhile; the
		// check above makes that a near impossibility, not a data loss.
		if err := os.Rename(tmp, final); err != nil {
			if exists(final) {
				continue
			}
			return nil, fmt.Errorf("cannot move export into place: %w", err)
		}
		res.Dir = final
	}
	if res.Dir == "" {
		return nil, fmt.Errorf("cannot find a free export name in %s", opts.Dir)
	}
	ok = true
	syncDir(opts.Dir)
	rep.finish()
	return res, nil
}

// writeExportJSON writes doc as json.Encoder with SetIndent("", "  ")
// does, byte for byte, but one memory or summary at a time: the encoder
// builds the whole document in memory twice (compact, then indented),
// about 300 MB more daemon memory at 100k memories.
func writeExportJSON(w *bufio.Writer, doc *exportDoc) error {
	if err := writeObjectHead(w, doc.exportHead, ""); err != nil {
		return err
	}
	w.WriteString(",\n  \"scopes\": ")
	if err := writeArray(w, doc.Scopes, "  ", func(s *exportScope, prefix string) error {
		if s == nil {
			w.WriteString("null")
			return nil
		}
		if err := writeObjectHead(w, s.scopeHead, prefix); err != nil {
			return err
		}
		in := prefix + "  "
		w.WriteString(",\n" + in + "\"memories\": ")
		if err := writeArray(w, s.Memories, in, writeIndented[exportMemory](w)); err != nil {
			return err
		}
		w.WriteString(",\n" + in + "\"summaries\": ")
		if err := writeArray(w, s.Summaries, in, writeIndented[exportSummary](w)); err != nil {
			return err
		}
		w.WriteString("\n" + prefix + "}")
		return nil
	}); err != nil {
		return err
	}
	_, err := w.WriteString("\n}\n")
	return err
}

// writeObjectHead writes v, a struct, at prefix without its closing
// brace, for more fields to follow.
func writeObjectHead(w *bufio.Writer, v any, prefix string) error {
	b, err := json.MarshalIndent(v, prefix, "  ")
	if err != nil {
		return err
	}
	head, ok := bytes.CutSuffix(b, []byte("\n"+prefix+"}"))
	if !ok {
		return fmt.Errorf("cannot write export: unexpected JSON object %.40q", b)
	}
	_, err = w.Write(head)
	return err
}

// writeArray writes s as an indented JSON array whose brackets sit at
// prefix, each element written by elem at prefix plus two spaces.
func writeArray[T any](w *bufio.Writer, s []T, prefix string, elem func(T, string) error) error {
	switch {
	case s == nil:
		w.WriteString("null")
		return nil
	case len(s) == 0:
		w.WriteString("[]")
		return nil
	}
	in := prefix + "  "
	w.WriteString("[\n")
	for i, v := range s {
		if i > 0 {
			w.WriteString(",\n")
		}
		w.WriteString(in)
		if err := elem(v, in); err != nil {
			return err
		}
	}
	_, err := w.WriteString("\n" + prefix + "]")
	return err
}

// writeIndented writes one element with json.MarshalIndent.
func writeIndented[T any](w *bufio.Writer) func(T, string) error {
	return func(v T, prefix string) error {
		b, err := json.MarshalIndent(v, prefix, "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
}

// each calls fn with every document of c: on the embedded engine read
// straight from SQLite (Collection.Iterate), where FerretDB's cursor took
// most of an export's time at 100k memories and its garbage a share of the
// daemon's memory (BENCHMARKS.md, mem15).
func each[T any](ctx context.Context, c mongostore.Collection[T], fn func(*T)) error {
	err := c.Iterate(ctx, 1000, func(batch []T) error {
		for i := range batch {
			fn(&batch[i])
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("cannot export: %w", err)
	}
	return nil
}

// scan decodes every document matching filter into a fresh T. This is a
// full scan; an export is the rare operation that needs one.
func scan[T any](ctx context.Context, coll *mongo.Collection, filter bson.D, fn func(*T)) error {
	if filter == nil {
		filter = bson.D{}
	}
	cur, err := coll.Find(ctx, filter, options.Find().SetBatchSize(1000))
	if err != nil {
		return fmt.Errorf("cannot export %s: %w", coll.Name(), err)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		var v T
		if err := cur.Decode(&v); err != nil {
			return fmt.Errorf("cannot export %s: a document does not decode: %w", coll.Name(), err)
		}
		fn(&v)
	}
	if err := cur.Err(); err != nil {
		return fmt.Errorf("cannot export %s: %w", coll.Name(), err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func hexes(ids []bson.ObjectID) []string {
	if len(ids) == 0 {
		return nil
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.Hex()
	}
	return out
}

func revisions(h []mongostore.Revision) []exportRevision {
	if len(h) == 0 {
		return nil
	}
	out := make([]exportRevision, len(h))
	for i, r := range h {
		out[i] = exportRevision{Text: r.Text, Tags: nonNil(r.Tags), Importance: r.Importance, Scope: r.Scope, Category: r.Category, ChangedAt: r.ChangedAt.UTC()}
	}
	return out
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// tagCounts lists a scope's tags, most used first.
func tagCounts(s *exportScope) []exportTag {
	n := map[string]int{}
	for _, m := range s.Memories {
		for _, t := range m.Tags {
			n[t]++
		}
	}
	for _, m := range s.Summaries {
		for _, t := range m.Tags {
			n[t]++
		}
	}
	out := []exportTag{}
	for t, c := range n {
		out = append(out, exportTag{Tag: t, Count: c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Tag < out[j].Tag
	})
	return out
}

// writeGuardedFile writes a new export file at path through write,
// keeping space's floor.
func writeGuardedFile(path string, space *spaceGuard, write func(*bufio.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("cannot write export: %w", err)
	}
	w := bufio.NewWriterSize(space.writer(f), 1<<16)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cannot write export file %s: %w", filepath.Base(path), err)
	}
	return nil
}

// slug turns a scope name into a portable file name: letters and digits
// kept, everything else folded into single dashes.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if s == "" {
		s = "scope"
	}
	return s
}

// uniqueFileName avoids two scopes landing in one file (scope names that
// differ only in punctuation or case, on case-insensitive file systems).
func uniqueFileName(base, ext string, used map[string]bool) string {
	name := base + ext
	for i := 2; used[strings.ToLower(name)]; i++ {
		name = fmt.Sprintf("%s-%d%s", base, i, ext)
	}
	used[strings.ToLower(name)] = true
	return name
}

const mdTime = "2006-01-02 15:04 UTC"

// plural is "1 memory", "2 memories".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// zone writes times in the user's zone beside UTC; nil: UTC only.
type zone struct{ loc *time.Location }

func zoneOf(loc *time.Location) zone {
	if loc == nil || loc == time.UTC || loc.String() == "UTC" {
		return zone{}
	}
	return zone{loc}
}

// name is the zone's name ("America/Los_Angeles"; the system's zone by
// its abbreviation now), empty for UTC only.
func (z zone) name() string {
	switch {
	case z.loc == nil:
		return ""
	case z.loc.String() == "Local":
		return "the system's time zone (" + time.Now().In(z.loc).Format("MST") + ")"
	}
	return z.loc.String()
}

// rfc3339 is t in the zone with its offset, empty for UTC only.
func (z zone) rfc3339(t time.Time) string {
	if z.loc == nil || t.IsZero() {
		return ""
	}
	return t.In(z.loc).Format(time.RFC3339)
}

// md is t for a Markdown heading: local time with its offset, then UTC.
func (z zone) md(t time.Time) string {
	if z.loc == nil {
		return t.UTC().Format(mdTime)
	}
	return t.In(z.loc).Format("2006-01-02 15:04 MST (UTC-07:00)") + " · " + t.UTC().Format(mdTime)
}

// header is the line that opens every Markdown file.
func (z zone) header(doc *exportDoc) string {
	line := fmt.Sprintf("_Exported from infmem on %s. %s_\n\n", z.md(doc.ExportedAt), ExportNotice)
	if z.loc != nil {
		line += fmt.Sprintf("_Times are in %s, with UTC beside them._\n\n", z.name())
	}
	return line
}

func writeScopeMarkdown(w *bufio.Writer, doc *exportDoc, s *exportScope, z zone) error {
	fmt.Fprintf(w, "# Scope: %s\n\n", s.Scope)
	fmt.Fprint(w, z.header(doc))
	if s.Description != "" {
		fmt.Fprintf(w, "%s\n\n", s.Description)
	}
	if s.ParentScope != "" {
		fmt.Fprintf(w, "Part of scope: %s\n\n", s.ParentScope)
	}
	fmt.Fprintf(w, "%s, %s.\n\n", plural(len(s.Memories), "memory", "memories"), plural(len(s.Summaries), "summary", "summaries"))
	if len(s.Tags) > 0 {
		var tags []string
		for _, t := range s.Tags {
			tags = append(tags, fmt.Sprintf("#%s (%d)", t.Tag, t.Count))
		}
		fmt.Fprintf(w, "Tags: %s\n\n", strings.Join(tags, ", "))
	}
	if len(s.Summaries) > 0 {
		fmt.Fprint(w, "## Summaries\n\n")
		for _, m := range s.Summaries {
			when := z.md(m.Timestamp)
			if m.TimeRange != nil {
				when = z.md(m.TimeRange.From) + " to " + z.md(m.TimeRange.To)
			}
			fmt.Fprintf(w, "### %s%s\n\n", when, archivedMark(m.Archived))
			writeQuoted(w, m.Text)
			writeTags(w, m.Tags)
		}
	}
	if len(s.Memories) > 0 {
		fmt.Fprint(w, "## Memories\n\n")
		for _, m := range s.Memories {
			head := z.md(m.Timestamp) + " · " + m.Source
			if m.Path != "" {
				head += " · " + m.Path
			}
			if m.Speaker != "" {
				head += " · " + m.Speaker
			}
			fmt.Fprintf(w, "### %s%s\n\n", head, archivedMark(m.Archived))
			writeQuoted(w, m.Text)
			writeTags(w, m.Tags)
		}
	}
	return nil
}

func archivedMark(archived bool) string {
	if archived {
		return " (archived)"
	}
	return ""
}

// writeQuoted writes text as a block quote, so whatever Markdown the
// memory holds stays inside its entry.
func writeQuoted(w *bufio.Writer, text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if line == "" {
			fmt.Fprint(w, ">\n")
		} else {
			fmt.Fprintf(w, "> %s\n", line)
		}
	}
	fmt.Fprint(w, "\n")
}

func writeTags(w *bufio.Writer, tags []string) {
	if len(tags) == 0 {
		return
	}
	var ts []string
	for _, t := range tags {
		ts = append(ts, "#"+t)
	}
	fmt.Fprintf(w, "Tags: %s\n\n", strings.Join(ts, " "))
}

func writeProfileMarkdown(w *bufio.Writer, doc *exportDoc, z zone) error {
	fmt.Fprint(w, "# User profile\n\n")
	fmt.Fprint(w, z.header(doc))
	for _, p := range doc.Profiles {
		if len(doc.Profiles) > 1 {
			fmt.Fprintf(w, "## %s\n\n", p.ID)
		}
		if p.Name != "" {
			fmt.Fprintf(w, "Name: %s\n\n", p.Name)
		}
		writeMap(w, "Preferences", p.Preferences)
		writeMap(w, "Facts", p.Facts)
		if len(p.Contacts) > 0 {
			fmt.Fprint(w, "### Contacts\n\n")
			for _, c := range p.Contacts {
				line := "- " + c.Name
				if c.Relation != "" {
					line += " (" + c.Relation + ")"
				}
				if c.Notes != "" {
					line += ": " + c.Notes
				}
				fmt.Fprintln(w, line)
			}
			fmt.Fprintln(w)
		}
		if len(p.Notes) > 0 {
			fmt.Fprint(w, "### Notes\n\n")
			for _, n := range p.Notes {
				fmt.Fprintf(w, "- %s\n", n)
			}
			fmt.Fprintln(w)
		}
	}
	return nil
}

func writeMap(w *bufio.Writer, title string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "### %s\n\n", title)
	for _, k := range keys {
		fmt.Fprintf(w, "- %s: %s\n", k, m[k])
	}
	fmt.Fprintln(w)
}
