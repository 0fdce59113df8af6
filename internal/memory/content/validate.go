package content

// validate.go: the rules every field of a memory keeps, for a request
// (Source, Importance, SmallFields, Timestamp, Path) and for a document
// that arrives another way (CheckStoredMemory, CheckStoredSummary).

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// CheckStoredMemory applies the rules the tools apply when they write a
// memory to a document that arrives another way (a restored backup): the
// text (valid UTF-8, not empty, at most maxText bytes; a memory with a
// path's may be empty, and its path must be plain: Path), tags, scope name,
// source, importance, the short fields and the timestamp. It returns the
// first rule broken, worded for a person.
func CheckStoredMemory(m *mongostore.Memory, maxText int, now time.Time) error {
	if m.ID.IsZero() {
		return fmt.Errorf("it has no ObjectID _id")
	}
	switch {
	case m.Source == SourceFile:
		// Its text may be empty; its path must be plain (Path).
		if err := Path(m.Path); err != nil {
			return fmt.Errorf("its path %q: %v", Snippet(m.Path, 60), err)
		}
		switch {
		case !utf8.ValidString(m.Text):
			return fmt.Errorf("its text is not valid UTF-8")
		case len(m.Text) > maxText:
			return fmt.Errorf("its text is %d bytes; the limit is %d", len(m.Text), maxText)
		}
	case m.Path != "":
		return fmt.Errorf("it has a path but its source is %q; only source %q has one", m.Source, SourceFile)
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
	if _, err := Importance(&imp); err != nil {
		return fmt.Errorf("its importance is %v, not a number from 0 to 1", m.Importance)
	}
	if _, _, _, err := SmallFields(m.Speaker, m.ConversationID, m.Category); err != nil {
		return fmt.Errorf("its speaker, conversation_id or category: %w", err)
	}
	if _, err := Timestamp(m.Timestamp, now); err != nil {
		return fmt.Errorf("its timestamp %s is not between 1900 and a year from now", m.Timestamp.UTC().Format(time.RFC3339))
	}
	return checkStoredLinks(m)
}

// checkStoredLinks: superseded_by and contradicts name memories by id.
func checkStoredLinks(m *mongostore.Memory) error {
	if m.SupersededBy != "" {
		if _, err := bson.ObjectIDFromHex(m.SupersededBy); err != nil {
			return fmt.Errorf("its superseded_by %q is not a memory id", Snippet(m.SupersededBy, 40))
		}
	}
	if len(m.Contradicts) > memindex.MaxContradicts {
		return fmt.Errorf("it names %d contradicting memories; the limit is %d", len(m.Contradicts), memindex.MaxContradicts)
	}
	for _, c := range m.Contradicts {
		if _, err := bson.ObjectIDFromHex(c); err != nil {
			return fmt.Errorf("its contradicts names %q, not a memory id", Snippet(c, 40))
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

// checkStoredTags is Tags' rules for tags already normalized.
func checkStoredTags(tags []string) error {
	if len(tags) > MaxTags {
		return fmt.Errorf("it has %d tags; the limit is %d", len(tags), MaxTags)
	}
	for _, t := range tags {
		if _, err := Tags([]string{t}); err != nil {
			return fmt.Errorf("a tag: %w", err)
		}
		if !utf8.ValidString(t) {
			return fmt.Errorf("tag %q is not UTF-8", Snippet(t, 20))
		}
	}
	return nil
}

// Sources a memory can have.
const (
	SourceConversation = "conversation"
	SourceNote         = "note"
	SourceUserProfile  = "user_profile"
	SourceSummary      = "summary"
	SourceLesson       = "lesson"
	// SourceFile marks a memory with a path; only the engine's WritePaths
	// writes one.
	SourceFile = "file"
	// SourceProposedLesson marks a lesson the model proposed, kept apart
	// until the user confirms it.
	SourceProposedLesson = "proposed_lesson"
)

// Sources lists the valid values of a memory's source.
var Sources = []string{SourceConversation, SourceNote, SourceUserProfile, SourceSummary, SourceLesson, SourceFile, SourceProposedLesson}

// Limits on the small text fields of a memory.
const (
	MaxSpeakerLen  = 64
	MaxConvIDLen   = 128
	MaxCategoryLen = 64
	// MaxPathBytes bounds a memory's path (Path).
	MaxPathBytes = 256
)

// Source is a request's source: lower case, note when empty, one of Sources.
func Source(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return SourceNote, nil
	}
	if !slices.Contains(Sources, s) {
		return "", InputErrorf("source %q is not one of: %s", s, strings.Join(Sources, ", "))
	}
	return s, nil
}

// Importance is a request's importance: 0.5 when not given, else 0 to 1.
func Importance(p *float64) (float64, error) {
	if p == nil {
		return 0.5, nil
	}
	if *p < 0 || *p > 1 || *p != *p {
		return 0, InputErrorf("importance must be a number from 0 (trivial) to 1 (vital), not %v", *p)
	}
	return *p, nil
}

// SmallFields normalises a request's speaker, conversation id and
// category and checks that each is one short line.
func SmallFields(speaker, conv, category string) (string, string, string, error) {
	speaker, conv, category = Normalize(speaker), Normalize(conv), Normalize(category)
	if len(speaker) > MaxSpeakerLen || strings.ContainsRune(speaker, '\n') {
		return "", "", "", InputErrorf("speaker must be a short name like \"user\" or \"assistant\" (at most %d bytes, one line)", MaxSpeakerLen)
	}
	if len(conv) > MaxConvIDLen || strings.ContainsRune(conv, '\n') {
		return "", "", "", InputErrorf("conversation_id must be one line of at most %d bytes", MaxConvIDLen)
	}
	if len(category) > MaxCategoryLen || strings.ContainsRune(category, '\n') {
		return "", "", "", InputErrorf("category must be one line of at most %d bytes", MaxCategoryLen)
	}
	return speaker, conv, category, nil
}

var earliest = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)

// Timestamp checks when something happened (1900 to a year from now) and
// returns it in UTC to the millisecond.
func Timestamp(t, now time.Time) (time.Time, error) {
	if t.Before(earliest) || t.After(now.AddDate(1, 0, 0)) {
		return time.Time{}, InputErrorf("timestamp %s is out of range; give when it happened, between 1900 and a year from now", t.Format(time.RFC3339))
	}
	return t.UTC().Truncate(time.Millisecond), nil
}

// Path is the engine's rule for a path: plain, absolute and canonical
// (names separated by single slashes, none of them . or .., no trailing
// slash, no backslash, control or direction-changing characters), at most
// MaxPathBytes. Which paths exist is the caller's business (memfiles).
func Path(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("it is empty")
	case len(p) > MaxPathBytes:
		return fmt.Errorf("it is %d bytes; the limit is %d", len(p), MaxPathBytes)
	case !utf8.ValidString(p):
		return fmt.Errorf("it is not valid UTF-8")
	case !strings.HasPrefix(p, "/") || p == "/":
		return fmt.Errorf("it does not name a file from the root (/dir/name)")
	case strings.ContainsRune(p, '\\'):
		return fmt.Errorf("it contains a backslash")
	}
	for _, r := range p {
		if unicode.IsControl(r) || IsBidiControl(r) || r == utf8.RuneError {
			return fmt.Errorf("it contains a control or invisible formatting character (%U)", r)
		}
	}
	for _, n := range strings.Split(p[1:], "/") {
		if n == "" || n == "." || n == ".." {
			return fmt.Errorf("it has an empty, . or .. name")
		}
	}
	return nil
}
