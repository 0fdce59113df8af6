package textindex

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// maxTokenBytes caps a token's length. Longer runs (base64 blobs, hashes) are
// cut at a rune boundary: they stay searchable by the same prefix while one
// pasted blob cannot bloat the term dictionary.
const maxTokenBytes = 64

// analyzer turns text into index terms. It is a value type with no state, so
// one Index and its queries always agree on the terms.
type analyzer struct {
	stopWords bool
	stemming  bool
}

// defaultAnalyzer is what Tokens uses: stop words removed and stemming on.
var defaultAnalyzer = analyzer{stopWords: true, stemming: true}

// Tokens returns the index terms of text with the default analysis: NFKC
// normalisation and case folding, diacritics removed from Latin, Greek and
// Cyrillic letters, splitting on anything that is not a letter, digit or
// combining mark, possessive "'s" removed, stop words removed and the Porter2
// stem of every English word.
//
// Details: an apostrophe between letters stays inside the token ("don't",
// "o'neill"); a dot between digits too ("3.5", "1.2.3"); other punctuation,
// including '#', '@', '-' and '_', splits ("#ProjectAlpha" -> "projectalpha",
// "e-mail" -> "e", "mail"). Numbers are tokens of their own, also when written
// against letters ("10am" -> "10", "am"; "covid19" -> "covid", "19"), so that
// spelling variants match. Han, Hiragana and Katakana characters become one
// token each, since those scripts do not separate words with spaces.
func Tokens(text string) []string {
	return defaultAnalyzer.tokens(text)
}

// Words returns the words of text as Tokens does but without stemming:
// folded, stop words removed. Names compare better unstemmed ("Muhammad" and
// "Muhhamed" are two letters apart; their stems are three).
func Words(text string) []string {
	return analyzer{stopWords: true}.tokens(text)
}

func (a analyzer) tokens(text string) []string {
	tl := getTokenList()
	defer putTokenList(tl)
	a.appendTokens(tl, text)
	out := make([]string, tl.len())
	for i := range out {
		out[i] = string(tl.at(i))
	}
	return out
}

// tokenList holds the terms of one text back to back in a single buffer, so
// analysing a document allocates nothing once the list has warmed up.
type tokenList struct {
	buf  []byte
	ends []int
}

func (t *tokenList) reset()   { t.buf, t.ends = t.buf[:0], t.ends[:0] }
func (t *tokenList) len() int { return len(t.ends) }

func (t *tokenList) at(i int) []byte {
	start := 0
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.buf[start:t.ends[i]]
}

var tokenListPool = sync.Pool{New: func() any { return new(tokenList) }}

func getTokenList() *tokenList { return tokenListPool.Get().(*tokenList) }

func putTokenList(t *tokenList) {
	if cap(t.buf) > 1<<20 {
		return // do not keep one huge document's buffer alive
	}
	t.reset()
	tokenListPool.Put(t)
}

// normalize applies NFKC and Unicode case folding. ASCII text needs neither
// (the tokenizer lower-cases it byte by byte), which is the common case and
// saves two passes and allocations.
func normalize(text string) string {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return cases.Fold().String(norm.NFKC.String(text))
		}
	}
	return text
}

func isApostrophe(r rune) bool {
	return r == '\'' || r == '\u2019' || r == '\u02bc' || r == '\u2018'
}

func isIdeograph(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

// runeAt decodes the rune at s[i], treating ASCII without a table look-up.
func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// appendTokens analyses text and appends its terms to tl.
func (a analyzer) appendTokens(tl *tokenList, text string) {
	s := normalize(text)
	start := len(tl.buf) // start of the token being built
	digits := false      // the token being built is a number
	foldMarks := false   // the last letter was Latin, Greek or Cyrillic
	for i := 0; i < len(s); {
		r, size := runeAt(s, i)
		i += size
		building := len(tl.buf) > start
		switch {
		case isWordRune(r):
			if r >= utf8.RuneSelf && isIdeograph(r) {
				a.finish(tl, start)
				tl.buf = utf8.AppendRune(tl.buf, r)
				a.finish(tl, len(tl.buf)-utf8.RuneLen(r))
				start = len(tl.buf)
				continue
			}
			d := r >= '0' && r <= '9' || r >= utf8.RuneSelf && unicode.IsNumber(r)
			if building && d != digits {
				// Letters and digits written together split, so "10am"
				// matches "10 am" and "covid19" matches "covid-19"; a plural
				// "s" after a number ("1990s") is dropped.
				a.finish(tl, start)
				start = len(tl.buf)
				if (r == 's' || r == 'S') && !followedByWord(s, i) {
					continue
				}
			}
			digits = d
			if len(tl.buf)-start > maxTokenBytes+utf8.UTFMax {
				continue // cut to maxTokenBytes anyway; do not buffer the rest
			}
			switch {
			case r < utf8.RuneSelf:
				if r >= 'A' && r <= 'Z' {
					r += 'a' - 'A'
				}
				tl.buf = append(tl.buf, byte(r))
				foldMarks = true
			case unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic):
				tl.buf = appendWithoutDiacritics(tl.buf, r)
				foldMarks = true
			default:
				tl.buf = utf8.AppendRune(tl.buf, r)
				foldMarks = false
			}
		case building && r >= utf8.RuneSelf && unicode.IsMark(r):
			// A combining mark belongs to the letter before it. On Latin,
			// Greek and Cyrillic letters it is a diacritic and dropped (case
			// folding "İ" yields "i" plus a combining dot); in other scripts
			// marks are vowel signs and part of the spelling.
			if !foldMarks && len(tl.buf)-start <= maxTokenBytes+utf8.UTFMax {
				tl.buf = utf8.AppendRune(tl.buf, r)
			}
		case building && isApostrophe(r):
			next, nsize := runeAt(s, i)
			switch {
			case (next == 's' || next == 'S') && !followedByWord(s, i+nsize):
				// Possessive or contraction "'s": "John's" -> "john".
				i += nsize
			case !digits && next >= 0 && isWordRune(next) && !isIdeograph(next):
				// Inside a word: "don't", "o'neill".
				tl.buf = append(tl.buf, '\'')
				continue
			}
			a.finish(tl, start)
			start = len(tl.buf)
		case building && digits && r == '.' && i < len(s) && isASCIIDigit(s[i]):
			tl.buf = append(tl.buf, '.') // "3.5", "1.2.3"
		default:
			a.finish(tl, start)
			start = len(tl.buf)
		}
	}
	a.finish(tl, start)
}

// followedByWord reports whether a letter or digit starts at s[i].
func followedByWord(s string, i int) bool {
	r, _ := runeAt(s, i)
	return r >= 0 && isWordRune(r)
}

// finish turns tl.buf[start:] into a term (or drops it): length cap, stop
// words, stemming.
func (a analyzer) finish(tl *tokenList, start int) {
	tok := tl.buf[start:]
	if len(tok) == 0 {
		return
	}
	if len(tok) > maxTokenBytes {
		cut := maxTokenBytes
		for cut > 0 && !utf8.RuneStart(tok[cut]) {
			cut--
		}
		tok = tok[:cut]
	}
	if a.stopWords {
		if _, ok := stopWords[string(tok)]; ok {
			tl.buf = tl.buf[:start]
			return
		}
	}
	if a.stemming && stemmable(tok) {
		tok = stemBytes(tok[:len(tok):len(tok)])
	}
	if len(tok) == 0 {
		tl.buf = tl.buf[:start]
		return
	}
	tl.buf = tl.buf[:start+len(tok)]
	tl.ends = append(tl.ends, len(tl.buf))
}

// appendWithoutDiacritics appends the canonical decomposition of r without
// its nonspacing marks, so "é" indexes as "e" and a user who types "cafe"
// finds "café". It applies to Latin, Greek and Cyrillic letters only.
func appendWithoutDiacritics(dst []byte, r rune) []byte {
	if int(r) < len(baseLetters()) {
		if b := baseLetters()[r]; b != 0 {
			return utf8.AppendRune(dst, b)
		}
	}
	var in, out [utf8.UTFMax * 4]byte
	d := norm.NFD.Append(out[:0], utf8.AppendRune(in[:0], r)...)
	for len(d) > 0 {
		c, size := utf8.DecodeRune(d)
		d = d[size:]
		if !unicode.Is(unicode.Mn, c) {
			dst = utf8.AppendRune(dst, c)
		}
	}
	return dst
}

// baseLetters maps the runes of the Latin, Greek and Cyrillic blocks below
// U+0500 whose decomposition is one base letter plus marks to that letter (0:
// no such mapping). Decomposing through the norm tables costs about a
// microsecond per rune; accented text would index several times slower.
var baseLetters = sync.OnceValue(func() []rune {
	t := make([]rune, 0x500)
	for r := rune(0x80); r < 0x500; r++ {
		d := []rune(norm.NFD.String(string(r)))
		if len(d) < 2 || unicode.Is(unicode.Mn, d[0]) {
			continue
		}
		marks := true
		for _, m := range d[1:] {
			marks = marks && unicode.Is(unicode.Mn, m)
		}
		if marks {
			t[r] = d[0]
		}
	}
	return t
})
