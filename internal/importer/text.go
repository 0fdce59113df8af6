package importer

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/infmem/infmem/internal/memory"
)

// clean makes text canonical the way the memory engine stores it (valid
// UTF-8, NFC, \n line ends, tabs as spaces, other control and
// bidirectional-override characters removed, outer space trimmed), so the
// sizes measured here are the sizes the engine checks.
func clean(s string) string { return memory.NormalizeContent(s) }

// oneLine is s cleaned onto one line, for names and tags.
func oneLine(s string) string {
	return strings.Join(strings.Fields(clean(s)), " ")
}

// foldText is the form in which two texts count as the same memory (the
// engine's duplicate rule: case and spacing aside).
func foldText(s string) string { return memory.FoldContent(s) }

// shorten cuts s to at most n bytes at a character boundary.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimSpace(s[:n])
}

// snippet is the first n characters of s, for messages.
func snippet(s string, n int) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// partMark is appended to each part of a split item; partReserve is the
// room kept for it.
const partReserve = 32

// isSQLite reports whether data starts like an SQLite 3 database.
func isSQLite(head []byte) bool {
	return bytes.HasPrefix(head, []byte("SQLite format 3\x00"))
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// tagOf turns a name from the input (an entity, a project) into a tag
// within the engine's limits.
func tagOf(s string) string {
	return shorten(strings.TrimLeft(oneLine(s), "#"), maxTagLen)
}
