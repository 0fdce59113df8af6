// Package clip owns bounding the error texts infmem sends or logs: an
// error that quotes what it was given (a scope name, a path, an unknown
// argument) must not grow with it (a 1 MB scope name gave a 1 MB error,
// issue 22). Text keeps a message's start and end, where what went wrong
// and how to fix it are said, and cuts the middle.
package clip

import (
	"fmt"
	"unicode/utf8"
)

// Max is the longest text Text returns, in bytes, cut mark included.
const Max = 1024

// Text returns s whole when it fits in Max bytes; else its first and
// last bytes (whole characters) around a mark saying how much was cut.
func Text(s string) string {
	if len(s) <= Max {
		return s
	}
	const head, tail = 640, 320
	h := s[:head]
	// Drop a character cut in two at the end.
	for i := len(h) - 1; i >= 0 && i >= len(h)-utf8.UTFMax; i-- {
		if utf8.RuneStart(h[i]) {
			if !utf8.FullRuneInString(h[i:]) {
				h = h[:i]
			}
			break
		}
	}
	t := s[len(s)-tail:]
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	return fmt.Sprintf("%s …[%d bytes cut]… %s", h, len(s)-len(h)-len(t), t)
}
