package backup

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/infmem/infmem/mongostore"
)

// memory.json is written one memory at a time, byte for byte what
// json.Encoder with SetIndent("", "  ") writes for the whole document:
// empty and nil lists, HTML-escaped text, nested history, no profile.
func TestWriteExportJSONMatchesEncoder(t *testing.T) {
	at := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	later := at.Add(time.Hour)
	full := &exportScope{scopeHead: scopeHead{Scope: "Work <&> \"q\"", Description: "d\nline", ParentScope: "Global", CreatedAt: &at,
		Tags: []exportTag{{Tag: "a", Count: 2}, {Tag: "<b>", Count: 1}}},
		Memories: []exportMemory{
			{ID: "m1", Text: "Dinner with Sam & <Jo>\n\"quoted\" \u2028", Timestamp: at, LocalTime: "x", Tags: []string{"a"}, Source: "note",
				Importance: 0.5, CreatedAt: at, UpdatedAt: later, LastAccessed: &later, UseCount: 3, Archived: true, ArchivedAt: &later,
				Contradicts: []string{"m2"}, LinksAbout: []string{}, History: []exportRevision{{Text: "old", Tags: []string{}, ChangedAt: at}}},
			{ID: "m2", Text: "", Tags: []string{}, Source: "chat"},
		},
		Summaries: []exportSummary{{ID: "s1", Text: "sum", Tags: []string{"a", "<b>"}, TimeRange: &mongostore.TimeRange{From: at, To: later},
			MessageRefs: []string{"m1"}, Whole: "w", Part: 1, Parts: 2}},
	}
	empty := &exportScope{scopeHead: scopeHead{Scope: "Empty", Tags: []exportTag{}}, Memories: []exportMemory{}, Summaries: []exportSummary{}}
	nils := &exportScope{scopeHead: scopeHead{Scope: "Nil"}}
	head := exportHead{Format: "infmem-export", FormatVersion: 1, ExportedAt: at, InfmemVersion: "v", Notice: ExportNotice}
	withProfile := head
	withProfile.TimeZone = "Europe/Berlin"
	withProfile.Profiles = []exportProfile{{ID: "default", Name: "N", Preferences: map[string]string{"b": "2", "a": "<1>"}, Facts: map[string]string{},
		Contacts: []mongostore.Contact{{Name: "Sam"}}, CreatedAt: at}}
	for name, doc := range map[string]*exportDoc{
		"full":      {exportHead: withProfile, Scopes: []*exportScope{empty, full, nils}},
		"no scopes": {exportHead: head},
		"empty":     {exportHead: head, Scopes: []*exportScope{}},
		"one":       {exportHead: head, Scopes: []*exportScope{full}},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		w := bufio.NewWriter(&got)
		if err := writeExportJSON(w, doc); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: streamed JSON differs from the encoder's\n got: %s\nwant: %s", name, got.Bytes(), want.Bytes())
		}
	}
}
