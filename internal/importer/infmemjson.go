package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// infmem's own JSON export (backup.Export's memory.json: one document per
// scope with its memories and summaries, plus the profile) comes back as
// it left: each memory with its scope, tags, source, time, speaker,
// conversation, importance and category, archived ones archived again,
// the memory tool's files as files at their paths;
// summaries as summaries; scopes with their descriptions and parents; the
// profile merged into the one here. Ids are new.

type exportFile struct {
	Format        string          `json:"format"`
	FormatVersion int             `json:"format_version"`
	Profiles      []exportProfile `json:"profile"`
	Scopes        []exportScope   `json:"scopes"`
}

type exportProfile struct {
	ID          string            `json:"id"`
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
}

type exportSummary struct {
	ID             string    `json:"id"`
	Text           string    `json:"text"`
	Timestamp      time.Time `json:"timestamp"`
	Tags           []string  `json:"tags"`
	ConversationID string    `json:"conversation_id"`
	Archived       bool      `json:"archived"`
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
		in.Scopes = append(in.Scopes, ScopeDef{Name: s.Scope, Description: s.Description, Parent: s.ParentScope, Where: swhere})
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
			in.Items = append(in.Items, Item{
				Where: w, Key: "infmem\x00memory\x00" + key, Scope: s.Scope, Text: m.Text, Tags: m.Tags, Source: m.Source, Path: m.Path,
				Timestamp: m.Timestamp, Speaker: m.Speaker, ConversationID: m.ConversationID, Category: m.Category,
				Importance: m.Importance, Archived: m.Archived, Strict: true,
			})
		}
		for i, m := range s.Summaries {
			summaries++
			key := m.ID
			if key == "" {
				key = s.Scope + "\x00" + clean(m.Text)
			}
			in.Items = append(in.Items, Item{
				Where: where("summary", s.Scope, i, m.ID), Key: "infmem\x00summary\x00" + key, Scope: s.Scope, Text: m.Text,
				Tags: m.Tags, Source: sourceSummary, Timestamp: m.Timestamp, ConversationID: m.ConversationID,
				Archived: m.Archived, Strict: true,
			})
		}
	}
	for _, p := range doc.Profiles {
		if p.ID != "" && p.ID != "default_user" {
			continue
		}
		in.Profile = &ProfileDef{Name: p.Name, Preferences: p.Preferences, Facts: p.Facts, Contacts: p.Contacts, Notes: p.Notes}
		break
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	in.Units = pluralOf(memories, "memory", "memories") + " and " + pluralOf(summaries, "summary", "summaries") + " in " + plural(len(doc.Scopes), "scope")
	return in, nil
}
