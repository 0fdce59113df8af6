// Package lookalike owns what makes two names look alike (issue 22): the
// characters that show nothing or change how the text around them shows,
// the characters that stand in for a slash, and the folded form in which
// look-alike names compare equal. Scope names, tags and the memory tool's
// paths are checked with it; text is stored in Unicode NFC.
package lookalike

import (
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Invisible reports whether r shows nothing, or changes how the text
// around it shows: control characters, format characters (zero-width
// spaces and joiners, direction overrides such as U+202E, the byte order
// mark, soft hyphens), private-use characters, line and paragraph
// separators, every space but U+0020 (no-break, thin, ideographic…), and
// the blank fillers that render as nothing (Hangul fillers, the braille
// blank, the Mongolian vowel separator, the combining grapheme joiner).
func Invisible(r rune) bool {
	switch {
	case r == ' ':
		return false
	case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Zl, unicode.Zp, unicode.Zs):
		return true
	}
	switch r {
	case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x180E, 0x034F:
		return true
	}
	return false
}

// FirstInvisible returns the first invisible character of s (Invisible).
func FirstInvisible(s string) (rune, bool) {
	for _, r := range s {
		if Invisible(r) {
			return r, true
		}
	}
	return 0, false
}

// SlashLike reports whether r looks like a slash or a backslash without
// being one: U+2215 DIVISION SLASH, U+2044 FRACTION SLASH and the like,
// which no Unicode normalization maps to '/'.
func SlashLike(r rune) bool {
	switch r {
	case 0x2215, 0x2044, 0x29F8, 0x2216, 0x29F5, 0x29F9, 0xFE68, 0x0337, 0x0338:
		return true
	}
	return false
}

// NFKC is s with compatibility characters mapped to their plain forms.
func NFKC(s string) string { return norm.NFKC.String(s) }

// NFC is s in Unicode Normalization Form C, the form infmem stores.
func NFC(s string) string { return norm.NFC.String(s) }

// Fold is the form in which two names are the same name: compatibility
// forms mapped to their plain letters (NFKC: fullwidth ＡＬＬ is ALL, ‥ is
// two dots), then letter case folded.
func Fold(s string) string { return cases.Fold().String(norm.NFKC.String(s)) }

// Compatible reports whether s (in NFC) holds only characters that are
// their own plain form: NFKC leaves it as it is. Fullwidth letters and
// dots, ligatures, the two-dot leader and the like are not.
func Compatible(s string) bool { return norm.NFKC.String(s) == s }
