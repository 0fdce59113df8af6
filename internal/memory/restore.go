package memory

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
)

// Restored is what infmem's own export keeps of a memory beyond a
// StoreRequest's fields: its id, its bookkeeping, its marks and its links
// to other memories. An import of that export stores each memory with all
// of it (StoreRequest.Restore), in the same write as the memory, so that
// exporting the imported memory gives what was exported, byte for byte,
// and a crash never leaves a memory stored without its marks.
type Restored struct {
	// ID is the memory's id; zero means a new one. An id some memory here
	// already has is refused (the importer checks first and passes none).
	ID bson.ObjectID
	// CreatedAt and UpdatedAt are the memory's bookkeeping times (zero:
	// now); UseCount and LastAccessed its use.
	CreatedAt, UpdatedAt time.Time
	UseCount             int64
	LastAccessed         *time.Time
	Pinned               bool
	History              []mongostore.Revision
	Archived             bool
	ArchivedAt           *time.Time
	ArchiveReason        string
	// SupersededBy, Contradicts and LinksAbout are the memory's links
	// (memories only), by the ids the other memories have in the export.
	SupersededBy string
	Contradicts  []string
	LinksAbout   []string
	// LinksByMeaning: the SupersededBy link was found by meaning, not by
	// shared words (mongostore.Memory.LinksByMeaning).
	LinksByMeaning bool
	// Summaries only: what a summary says of what it condenses and, for a
	// summary in parts, which part of which whole it is.
	TimeRange   *mongostore.TimeRange
	TopicID     string
	Method      string
	MessageRefs []bson.ObjectID
	Whole       string
	Part, Parts int
}

// Limits on what a restored memory carries beyond its text.
const (
	maxRestoredHistory = 1000
	maxRestoredRefs    = 100000
	maxRestoredParts   = 1000
	maxRestoredSmall   = 128
)

// CheckRestored checks r against the rules a store applies to it, so that
// an import can refuse a bad input before it stores anything.
func (e *Engine) CheckRestored(r *Restored) error {
	return e.checkRestore(r, e.now())
}

// checkRestore checks r against the engine's rules; now is the store's time.
func (e *Engine) checkRestore(r *Restored, now time.Time) error {
	if r == nil {
		return nil
	}
	checkTime := func(what string, t time.Time) error {
		if t.IsZero() {
			return nil
		}
		if _, err := checkTimestamp(t, now); err != nil {
			return inputErrorf("%s %s is out of range (1900 to a year from now)", what, t.UTC().Format(time.RFC3339))
		}
		return nil
	}
	for _, c := range []struct {
		what string
		t    *time.Time
	}{{"created_at", &r.CreatedAt}, {"updated_at", &r.UpdatedAt}, {"last_accessed", r.LastAccessed}, {"archived_at", r.ArchivedAt}} {
		if c.t != nil {
			if err := checkTime(c.what, *c.t); err != nil {
				return err
			}
		}
	}
	if r.TimeRange != nil {
		if err := checkTime("time_range.from", r.TimeRange.From); err != nil {
			return err
		}
		if err := checkTime("time_range.to", r.TimeRange.To); err != nil {
			return err
		}
	}
	switch {
	case r.UseCount < 0:
		return inputErrorf("use_count %d is negative", r.UseCount)
	case len(r.History) > maxRestoredHistory:
		return inputErrorf("%d earlier versions; the limit is %d", len(r.History), maxRestoredHistory)
	case len(r.Contradicts) > memindex.MaxContradicts:
		return inputErrorf("contradicts names %d memories; the limit is %d", len(r.Contradicts), memindex.MaxContradicts)
	case len(r.LinksAbout) > memindex.MaxAbout:
		return inputErrorf("links_about has %d words; the limit is %d", len(r.LinksAbout), memindex.MaxAbout)
	case len(r.MessageRefs) > maxRestoredRefs:
		return inputErrorf("message_refs names %d messages; the limit is %d", len(r.MessageRefs), maxRestoredRefs)
	case r.Parts < 0 || r.Parts > maxRestoredParts || r.Part < 0 || r.Part > r.Parts || (r.Parts > 0) != (r.Part > 0) || (r.Parts > 0) != (r.Whole != ""):
		return inputErrorf("part %d of %d (whole %q) is not a part of a summary", r.Part, r.Parts, snippet(r.Whole, 30))
	}
	for _, id := range append([]string{r.SupersededBy, r.Whole}, r.Contradicts...) {
		if id == "" {
			continue
		}
		if _, err := bson.ObjectIDFromHex(id); err != nil {
			return inputErrorf("%q is not a memory id", snippet(id, 30))
		}
	}
	for _, s := range append([]string{r.ArchiveReason, r.TopicID, r.Method}, r.LinksAbout...) {
		if len(s) > maxRestoredSmall {
			return inputErrorf("%q is longer than %d bytes", snippet(s, 30), maxRestoredSmall)
		}
	}
	for i, h := range r.History {
		if len(h.Text) > e.opts.MaxContentBytes {
			return inputErrorf("earlier version %d is %d bytes; the limit is %d", i+1, len(h.Text), e.opts.MaxContentBytes)
		}
		if err := checkTime("an earlier version's changed_at", h.ChangedAt); err != nil {
			return err
		}
	}
	return nil
}

// restoreTimes gives a restored memory's bookkeeping times, now for those
// the export left out.
func (r *Restored) times(now time.Time) (created, updated time.Time) {
	created, updated = now, now
	if !r.CreatedAt.IsZero() {
		created = r.CreatedAt.UTC().Truncate(time.Millisecond)
	}
	if !r.UpdatedAt.IsZero() {
		updated = r.UpdatedAt.UTC().Truncate(time.Millisecond)
	}
	return created, updated
}

// memory sets on m what r restores.
func (r *Restored) memory(m *mongostore.Memory) {
	m.CreatedAt, m.UpdatedAt = r.times(m.CreatedAt)
	m.UseCount, m.LastAccessed, m.Pinned, m.History = r.UseCount, msTime(r.LastAccessed), r.Pinned, r.History
	m.Archived, m.ArchivedAt, m.ArchiveReason = r.Archived, msTime(r.ArchivedAt), r.ArchiveReason
	m.SupersededBy, m.Contradicts, m.LinksAbout = r.SupersededBy, r.Contradicts, r.LinksAbout
	m.LinksByMeaning = r.LinksByMeaning && r.SupersededBy != ""
}

// summary sets on s what r restores.
func (r *Restored) summary(s *mongostore.Summary) {
	s.CreatedAt, s.UpdatedAt = r.times(s.CreatedAt)
	s.UseCount, s.LastAccessed, s.Pinned, s.History, s.Archived = r.UseCount, msTime(r.LastAccessed), r.Pinned, r.History, r.Archived
	s.TimeRange, s.TopicID, s.MessageRefs, s.Whole, s.Part, s.Parts = r.TimeRange, r.TopicID, r.MessageRefs, r.Whole, r.Part, r.Parts
	if r.Method != "" {
		s.Method = r.Method
	}
}

// restoredDoc is the index's entry for a restored memory (or summary),
// as a load from the database would make it; vec is its embedding.
func restoredDoc(m *mongostore.Memory, s *mongostore.Summary, vec []float32) memindex.Doc {
	var d memindex.Doc
	if s != nil {
		d = docFromSummary(s)
	} else {
		d = docFromMemory(m)
	}
	d.Vec = vec
	return d
}

// restoredID is the id a store uses: r's, refused when a memory here has
// it, or a new one.
func (e *Engine) restoredID(r *Restored) (bson.ObjectID, error) {
	if r == nil || r.ID.IsZero() {
		return e.newID(), nil
	}
	if _, ok := e.index().Lookup(r.ID); ok {
		return bson.ObjectID{}, inputErrorf("a memory with id %s is already here", r.ID.Hex())
	}
	return r.ID, nil
}

func msTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Millisecond)
	return &u
}

// restoreInto sets what r restores on the document a store inserts (a
// *mongostore.Memory or *mongostore.Summary) and returns it as the one
// it is.
func restoreInto(r *Restored, doc any) (*mongostore.Memory, *mongostore.Summary) {
	switch d := doc.(type) {
	case *mongostore.Memory:
		r.memory(d)
		return d, nil
	case *mongostore.Summary:
		r.summary(d)
		return nil, d
	}
	return nil, nil
}
