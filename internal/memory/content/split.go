package content

import (
	"strings"
	"unicode/utf8"
)

// Split cuts text into parts of at most max bytes (max <= 0: one part),
// at paragraph breaks where it can, then at line breaks, sentence ends and
// spaces, and only as a last resort inside a word, never inside a
// character. Nothing is dropped or repeated but the space at a cut, so a
// header is said once, in the first part. The importer splits long items
// with it, maintenance a summary longer than a memory may be.
func Split(text string, max int) []string {
	if max <= 0 || len(text) <= max {
		return []string{text}
	}
	var parts []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			parts = append(parts, s)
		}
		cur.Reset()
	}
	for _, piece := range pieces(text, max) {
		sep := piece.sep
		if cur.Len() > 0 && cur.Len()+len(sep)+len(piece.text) > max {
			flush()
		}
		if cur.Len() > 0 {
			cur.WriteString(sep)
		}
		cur.WriteString(piece.text)
	}
	flush()
	return parts
}

type piece struct{ text, sep string }

// pieces breaks text into pieces no longer than max, each with the
// separator that joins it to the previous one.
func pieces(text string, max int) []piece {
	var out []piece
	for i, para := range strings.Split(text, "\n\n") {
		sep := "\n\n"
		if i == 0 {
			sep = ""
		}
		out = appendPieces(out, para, sep, max, 0)
	}
	return out
}

// The separators tried, coarsest first, once a paragraph is too long.
var finer = []string{"\n", ". ", " "}

func appendPieces(out []piece, s, sep string, max, level int) []piece {
	if len(s) <= max {
		return append(out, piece{s, sep})
	}
	if level == len(finer) {
		for len(s) > max {
			n := max
			for n > 0 && !utf8.RuneStart(s[n]) {
				n--
			}
			if n == 0 { // max is smaller than this character
				_, n = utf8.DecodeRuneInString(s)
			}
			out = append(out, piece{s[:n], sep})
			s, sep = s[n:], ""
		}
		if s != "" {
			out = append(out, piece{s, sep})
		}
		return out
	}
	by := finer[level]
	subs := strings.Split(s, by)
	for j, sub := range subs {
		if j < len(subs)-1 && by == ". " {
			sub += "."
		}
		ssep := by
		if by == ". " {
			ssep = " "
		}
		if j == 0 {
			ssep = sep
		}
		out = appendPieces(out, sub, ssep, max, level+1)
	}
	return out
}
