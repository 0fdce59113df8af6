package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
)

// infmem's own JSON export (backup.Export's memory.json: one document per
// scope with its memories and summaries, plus the profile) comes back as
// it left: each memory with its scope, tags, source, time, speaker,
// conversation, importance and category, archived ones archived again,
// the memory tool's files as files at their paths;
// summaries as summaries; scopes with their descriptions and parents; the
// profile merged into the one here. Each memory and summary keeps its id
// (unless a memory here has it: then it gets a new one), its bookkeeping
// (times, use, pin, earlier versions), its supersede and contradiction
// links and a summary its parts and sources (memory.Restored), so that
// exporting what was imported gives the same file.

type exportFile struct {
	Format        string          `json:"format"`
	FormatVersion int             `json:"format_version"`
	Profiles      []exportProfile `json:"profile"`
	Scopes        []exportScope   `json:"scopes"`
}

type exportProfile struct {
	ID          string            `json:"id"`
	CreatedAt   time.Time         `json:"created_at"`
	UpdatedAt   time.Time         `json:"updated_at"`
	Name        string            `json:"name"`
	Preferences map[string]string `json:"preferences"`
	Facts       map[string]string `json:"facts"`
	Contacts    []Contact         `json:"contacts"`
	Notes       []string          `json:"notes"`
}

type exportScope struct {
	Scope       string          `json:"scope"`
	Description string          `json:"description"`
	ParentScope string          `json:"parent_scope"`
	CreatedAt   time.Time       `json:"created_at"`
	Memories    []exportMemory  `json:"memories"`
	Summaries   []exportSummary `json:"summaries"`
}

type exportMemory struct {
	ID             string    `json:"id"`
	Text           string    `json:"text"`
	Timestamp      time.Time `json:"timestamp"`
	Tags           []string  `json:"tags"`
	Source         string    `json:"source"`
	Path           string    `json:"path"`
	Speaker        string    `json:"speaker"`
	ConversationID string    `json:"conversation_id"`
	Category       string    `json:"category"`
	Importance     *float64  `json:"importance"`
	Archived       bool      `json:"archived"`
	exportMarks
	ArchivedAt    *time.Time `json:"archived_at"`
	ArchiveReason string     `json:"archive_reason"`
	SupersededBy  string     `json:"superseded_by"`
	Contradicts   []string   `json:"contradicts"`
	LinksAbout    []string   `json:"links_about"`
	// LinksByMeaning: the superseded_by link was found by meaning.
	LinksByMeaning bool `json:"links_by_meaning"`
}

type exportSummary struct {
	ID             string    `json:"id"`
	Text           string    `json:"text"`
	Timestamp      time.Time `json:"timestamp"`
	Tags           []string  `json:"tags"`
	ConversationID string    `json:"conversation_id"`
	Importance     *float64  `json:"importance"`
	Archived       bool      `json:"archived"`
	exportMarks
	TimeRange   *mongostore.TimeRange `json:"time_range"`
	TopicID     string                `json:"topic_id"`
	Method      string                `json:"method"`
	MessageRefs []string              `json:"message_refs"`
	Whole       string                `json:"whole"`
	Part        int                   `json:"part"`
	Parts       int                   `json:"parts"`
}

// exportMarks is what a memory and a summary of the export carry beyond
// what other formats have: their bookkeeping, kept on import
// (memory.Restored).
type exportMarks struct {
	CreatedAt    time.Time        `json:"created_at"`
	UpdatedAt    time.Time        `json:"updated_at"`
	LastAccessed *time.Time       `json:"last_accessed"`
	UseCount     int64            `json:"use_count"`
	Pinned       bool             `json:"pinned"`
	History      []exportRevision `json:"history"`
}

type exportRevision struct {
	Text       string    `json:"text"`
	Tags       []string  `json:"tags"`
	Importance float64   `json:"importance"`
	Scope      string    `json:"scope"`
	Category   string    `json:"category"`
	ChangedAt  time.Time `json:"changed_at"`
}

// restored is what the engine keeps of id and x beyond a store's fields.
func (x exportMarks) restored(id string, archived bool) *memory.Restored {
	r := &memory.Restored{CreatedAt: x.CreatedAt, UpdatedAt: x.UpdatedAt, LastAccessed: x.LastAccessed, UseCount: x.UseCount,
		Pinned: x.Pinned, Archived: archived}
	// An id that is not one gets a new one (the ledger still knows the
	// item by it).
	if oid, err := bson.ObjectIDFromHex(id); err == nil {
		r.ID = oid
	}
	for _, h := range x.History {
		r.History = append(r.History, mongostore.Revision{Text: h.Text, Tags: nonNilTags(h.Tags), Importance: h.Importance, Scope: h.Scope,
			Category: h.Category, ChangedAt: h.ChangedAt.UTC()})
	}
	return r
}

func nonNilTags(t []string) []string {
	if t == nil {
		return []string{}
	}
	return t
}

// The export format this reads.
const (
	exportFormat        = "infmem-export"
	exportFormatVersion = 1
)

// Sources a memory of an export may have (the memory engine's).
var exportSources = []string{"conversation", "note", "user_profile", "summary", "lesson", "proposed_lesson", "file"}

func readInfmemJSON(path string) (*Input, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "memory.json")
	}
	if err := checkFileSize(path, maxFileBytes); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPathError(err))
	}
	name := filepath.Base(path)
	var doc exportFile
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	if err := dec.Decode(&doc); err != nil {
		return nil, syntaxErr(data, name, err)
	}
	if doc.Format != exportFormat {
		return nil, inputErr(name+":1", "not an infmem export (format %q, want %q)", doc.Format, exportFormat)
	}
	if doc.FormatVersion > exportFormatVersion {
		return nil, inputErr(name+":1", "export format version %d is newer than this infmem reads (%d); import it with a newer infmem", doc.FormatVersion, exportFormatVersion)
	}
	// Records are named by their place in the file; the line of each is
	// found by its id, which is unique in the file.
	lineOf := func(id string) int {
		if id == "" {
			return 0
		}
		i := bytes.Index(data, []byte(`"`+id+`"`))
		if i < 0 {
			return 0
		}
		return lineAt(data, int64(i))
	}
	where := func(kind string, scope string, i int, id string) string {
		if l := lineOf(id); l > 0 {
			return fmt.Sprintf("%s:%d (scope %q, %s %d)", name, l, scope, kind, i+1)
		}
		return fmt.Sprintf("%s (scope %q, %s %d)", name, scope, kind, i+1)
	}
	in := &Input{}
	var probs Problems
	probs.Path = path
	memories, summaries := 0, 0
	for si, s := range doc.Scopes {
		swhere := fmt.Sprintf("%s (scope %d)", name, si+1)
		if s.Scope == "" {
			probs.add(inputErr(swhere, "a scope without a name"))
			continue
		}
		in.Scopes = append(in.Scopes, ScopeDef{Name: s.Scope, Description: s.Description, Parent: s.ParentScope, CreatedAt: s.CreatedAt, Where: swhere})
		for i, m := range s.Memories {
			w := where("memory", s.Scope, i, m.ID)
			if m.Source != "" && !slices.Contains(exportSources, m.Source) {
				probs.add(inputErr(w, "source %q is not one of %v", m.Source, exportSources))
				continue
			}
			// A memory tool's file comes back as that file (at its path,
			// or beside a different file there: memory.Engine.Store).
			if (m.Source == "file") != (m.Path != "") {
				probs.add(inputErr(w, "a memory with source file needs its path, and only such a memory has one"))
				continue
			}
			memories++
			key := m.ID
			if key == "" {
				key = s.Scope + "\x00" + clean(m.Text)
			}
			r := m.restored(m.ID, m.Archived)
			r.ArchivedAt, r.ArchiveReason = m.ArchivedAt, m.ArchiveReason
			r.SupersededBy, r.Contradicts, r.LinksAbout, r.LinksByMeaning = m.SupersededBy, m.Contradicts, m.LinksAbout, m.LinksByMeaning
			in.Items = append(in.Items, Item{
				Where: w, Key: "infmem\x00memory\x00" + key, Scope: s.Scope, Text: m.Text, Tags: m.Tags, Source: m.Source, Path: m.Path,
				Timestamp: m.Timestamp, Speaker: m.Speaker, ConversationID: m.ConversationID, Category: m.Category,
				Importance: m.Importance, Archived: m.Archived, Strict: true, Restore: r,
			})
		}
		for i, m := range s.Summaries {
			w := where("summary", s.Scope, i, m.ID)
			summaries++
			key := m.ID
			if key == "" {
				key = s.Scope + "\x00" + clean(m.Text)
			}
			r := m.restored(m.ID, m.Archived)
			r.TimeRange, r.TopicID, r.Method, r.Whole, r.Part, r.Parts = m.TimeRange, m.TopicID, m.Method, m.Whole, m.Part, m.Parts
			bad := false
			for _, ref := range m.MessageRefs {
				oid, err := bson.ObjectIDFromHex(ref)
				if err != nil {
					probs.add(inputErr(w, "message_refs: %q is not a memory id", snippet(ref, 30)))
					bad = true
					break
				}
				r.MessageRefs = append(r.MessageRefs, oid)
			}
			if bad {
				continue
			}
			in.Items = append(in.Items, Item{
				Where: w, Key: "infmem\x00summary\x00" + key, Scope: s.Scope, Text: m.Text,
				Tags: m.Tags, Source: sourceSummary, Timestamp: m.Timestamp, ConversationID: m.ConversationID,
				Importance: m.Importance, Archived: m.Archived, Strict: true, Restore: r,
			})
		}
	}
	for _, p := range doc.Profiles {
		if p.ID != "" && p.ID != "default_user" {
			continue
		}
		in.Profile = &ProfileDef{Name: p.Name, Preferences: p.Preferences, Facts: p.Facts, Contacts: p.Contacts, Notes: p.Notes,
			CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
		break
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	in.Units = pluralOf(memories, "memory", "memories") + " and " + pluralOf(summaries, "summary", "summaries") + " in " + plural(len(doc.Scopes), "scope")
	return in, nil
}
