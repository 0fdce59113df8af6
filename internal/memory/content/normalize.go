// Package content holds what the memory engine's requests and stored
// texts may be, for the engine and the packages over it: canonical text
// (Normalize), its folded form and content key (duplicates), tags, short
// snippets for notes, InputError, the refusal a tool returns to the
// model with what to send instead, and the rules every field of a memory
// keeps (validate.go: source, importance, the short fields, timestamp,
// path; CheckStoredMemory and CheckStoredSummary for a document that
// arrives another way, e.g. a restored backup), and Split, which cuts a
// text too long for one memory into parts.
package content

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/infmem/infmem/internal/lookalike"
	"github.com/infmem/infmem/internal/memory/memindex"
)

// Normalize makes stored text canonical: valid UTF-8, NFC, line
// endings as \n, tabs as spaces, other control characters and bidirectional
// overrides (which can disguise text) removed, outer whitespace trimmed.
func Normalize(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteRune(r)
		case r == '\t' || r == '\r':
			b.WriteByte(' ')
		case unicode.IsControl(r), IsBidiControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(norm.NFC.String(b.String()))
}

func IsBidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C
}

// Fold is the form in which two normalized texts are the same
// memory (the duplicate rule): case and spacing do not make them differ.
func Fold(normalized string) string {
	return strings.Join(strings.Fields(strings.ToLower(normalized)), " ")
}

// Key is the identity of a memory's text for exact-duplicate
// detection: the hash of its folded form.
func Key(normalized string) [16]byte {
	if k, ok := asciiKey(normalized); ok {
		return k
	}
	sum := sha256.Sum256([]byte(Fold(normalized)))
	var k [16]byte
	copy(k[:], sum[:16])
	return k
}

// asciiKey is Key of an ASCII text in one pass, without Fold's three
// strings (loading 100k memories computes every key; ok false: not ASCII).
// For ASCII, strings.ToLower changes A-Z only and strings.Fields splits at
// the six ASCII spaces.
func asciiKey(s string) (k [16]byte, ok bool) {
	var buf [512]byte
	b := buf[:0]
	if len(s) > len(buf) {
		b = make([]byte, 0, len(s))
	}
	gap := false // a space between words is due before the next one
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			return k, false
		case c == ' ' || c >= '\t' && c <= '\r':
			gap = len(b) > 0
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		if gap {
			b = append(b, ' ')
			gap = false
		}
		b = append(b, c)
	}
	sum := sha256.Sum256(b)
	copy(k[:], sum[:16])
	return k, true
}

// KeyHex is a content key as text.
func KeyHex(k [16]byte) string { return hex.EncodeToString(k[:]) }

// MaxTags and MaxTagLen bound a memory's tags.
const (
	MaxTags   = 32
	MaxTagLen = 64
)

// Tags trims tags, drops a leading '#', rejects empty or odd ones,
// and removes duplicates that differ only in case (the first spelling wins).
func Tags(tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	seen := map[string]bool{}
	for _, t := range tags {
		// An invisible or formatting character (a zero-width space, U+202E)
		// makes a tag look like another: refused, not silently removed.
		if r, ok := lookalike.FirstInvisible(strings.TrimSpace(t)); ok {
			return nil, InputErrorf("tag %q contains an invisible or formatting character (%U); use visible letters, digits, spaces and punctuation", Snippet(t, 20), r)
		}
		t = strings.TrimSpace(Normalize(t))
		t = strings.TrimSpace(strings.TrimLeft(t, "#"))
		if t == "" {
			return nil, InputErrorf("tags must not be empty; send tags like [\"project_alpha\", \"meeting\"]")
		}
		if len(t) > MaxTagLen {
			return nil, InputErrorf("tag %q is %d bytes; the limit is %d", Snippet(t, 20), len(t), MaxTagLen)
		}
		if strings.ContainsRune(t, '\n') {
			return nil, InputErrorf("tag %q contains a line break; tags are single words or short phrases", t)
		}
		f := memindex.FoldTag(t)
		if seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return nil, InputErrorf("%d tags given; the limit is %d", len(out), MaxTags)
	}
	return out, nil
}

// Snippet shortens text for notes and reports.
func Snippet(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// InputError is a request the engine refuses; its message says what to send
// instead. Tools return it to the model as an isError result.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

// InputErrorf makes an InputError: the engine and the packages over it
// (memfiles, profile) refuse requests the same way.
func InputErrorf(format string, args ...any) error {
	return &InputError{msg: fmt.Sprintf(format, args...)}
}

// IsInputError reports whether err is a refused request.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
