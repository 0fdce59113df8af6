package memory

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// CheckStoredMemory applies the rules the tools apply when they write a
// memory to a document that arrives another way (a restored backup): the
// text (valid UTF-8, not empty, at most maxText bytes; a memory with a
// path's may be empty, and its path must be plain: paths.go), tags, scope name,
// source, importance, the short fields and the timestamp. It returns the
// first rule broken, worded for a person.
func CheckStoredMemory(m *mongostore.Memory, maxText int, now time.Time) error {
	if m.ID.IsZero() {
		return fmt.Errorf("it has no ObjectID _id")
	}
	switch {
	case m.Source == sourceFile:
		// Its text may be empty; its path must be plain (paths.go).
		if err := checkPath(m.Path); err != nil {
			return fmt.Errorf("its path %q: %v", snippet(m.Path, 60), err)
		}
		switch {
		case !utf8.ValidString(m.Text):
			return fmt.Errorf("its text is not valid UTF-8")
		case len(m.Text) > maxText:
			return fmt.Errorf("its text is %d bytes; the limit is %d", len(m.Text), maxText)
		}
	case m.Path != "":
		return fmt.Errorf("it has a path but its source is %q; only source %q has one", m.Source, sourceFile)
	default:
		if err := checkStoredText(m.Text, maxText); err != nil {
			return err
		}
	}
	if err := checkStoredTags(m.Tags); err != nil {
		return err
	}
	if err := scopes.ValidateName(m.Scope); err != nil {
		return fmt.Errorf("its scope: %w", err)
	}
	if m.Source != "" && !slices.Contains(Sources, m.Source) {
		return fmt.Errorf("its source %q is not one of: %s", m.Source, strings.Join(Sources, ", "))
	}
	imp := m.Importance
	if _, err := checkImportance(&imp); err != nil {
		return fmt.Errorf("its importance is %v, not a number from 0 to 1", m.Importance)
	}
	if _, _, _, err := checkSmallFields(m.Speaker, m.ConversationID, m.Category); err != nil {
		return fmt.Errorf("its speaker, conversation_id or category: %w", err)
	}
	if _, err := checkTimestamp(m.Timestamp, now); err != nil {
		return fmt.Errorf("its timestamp %s is not between 1900 and a year from now", m.Timestamp.UTC().Format(time.RFC3339))
	}
	return checkStoredLinks(m)
}

// checkStoredLinks: superseded_by and contradicts name memories by id.
func checkStoredLinks(m *mongostore.Memory) error {
	if m.SupersededBy != "" {
		if _, err := bson.ObjectIDFromHex(m.SupersededBy); err != nil {
			return fmt.Errorf("its superseded_by %q is not a memory id", snippet(m.SupersededBy, 40))
		}
	}
	if len(m.Contradicts) > memindex.MaxContradicts {
		return fmt.Errorf("it names %d contradicting memories; the limit is %d", len(m.Contradicts), memindex.MaxContradicts)
	}
	for _, c := range m.Contradicts {
		if _, err := bson.ObjectIDFromHex(c); err != nil {
			return fmt.Errorf("its contradicts names %q, not a memory id", snippet(c, 40))
		}
	}
	if len(m.LinksAbout) > memindex.MaxAbout {
		return fmt.Errorf("its links_about has %d words; the limit is %d", len(m.LinksAbout), memindex.MaxAbout)
	}
	for _, w := range m.LinksAbout {
		if len(w) > 256 || !utf8.ValidString(w) {
			return fmt.Errorf("its links_about has a word that is not short UTF-8 text")
		}
	}
	return nil
}

// CheckStoredSummary is CheckStoredMemory for a summary.
func CheckStoredSummary(s *mongostore.Summary, maxText int) error {
	if s.ID.IsZero() {
		return fmt.Errorf("it has no ObjectID _id")
	}
	if err := checkStoredText(s.SummaryText, maxText); err != nil {
		return err
	}
	if err := checkStoredTags(s.Tags); err != nil {
		return err
	}
	if err := scopes.ValidateName(s.Scope); err != nil {
		return fmt.Errorf("its scope: %w", err)
	}
	return nil
}

func checkStoredText(s string, limit int) error {
	switch {
	case !utf8.ValidString(s):
		return fmt.Errorf("its text is not valid UTF-8")
	case strings.TrimSpace(s) == "":
		return fmt.Errorf("its text is empty")
	case len(s) > limit:
		return fmt.Errorf("its text is %d bytes; the limit is %d", len(s), limit)
	}
	return nil
}

// checkStoredTags is normalizeTags' rules for tags already normalized.
func checkStoredTags(tags []string) error {
	if len(tags) > MaxTags {
		return fmt.Errorf("it has %d tags; the limit is %d", len(tags), MaxTags)
	}
	for _, t := range tags {
		if _, err := normalizeTags([]string{t}); err != nil {
			return fmt.Errorf("a tag: %w", err)
		}
		if !utf8.ValidString(t) {
			return fmt.Errorf("tag %q is not UTF-8", snippet(t, 20))
		}
	}
	return nil
}
