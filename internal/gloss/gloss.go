// Package gloss reads the everyday words of another language in notes
// written in English (issue 23: "paid the alquiler", "Hausarzt Termin
// Dienstag", "la CAF a écrit"): for each such word it gives the English
// words that say what it says ("rent", "family doctor gp", "family
// benefits"), from a small hand-written lexicon (words.txt) of the most
// common everyday words of Spanish, German, French, Italian and
// Portuguese — home, money, admin, health, work, family, school, shops,
// transport, weekdays and months; and the full words of everyday English
// shorthand and acronyms ("appt", "mtg", "bday", "GP", "ISA": shorthand.txt)
// asked in full words. A foreign word that is also an English word
// (lexicon.Known: "gift", "rat", "art", "once", "pain") is never glossed.
// Plural endings are read ("llaves", "Kinder", "bambini") and German
// compounds split into words the lexicon holds ("Nebenkostenabrechnung":
// "Nebenkosten" + "Abrechnung"; "Stromabschlag": "Strom" + "Abschlag").
package gloss

import (
	_ "embed"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"sync"

	"github.com/infmem/infmem/internal/lexicon"
	"github.com/infmem/infmem/internal/textindex"
)

//go:embed words.txt
var words string

//go:embed shorthand.txt
var shorthand string

var (
	table      = sync.OnceValue(func() map[string][]string { return parse(words, true) })
	shortTable = sync.OnceValue(func() map[string][]string { return parse(shorthand, false) })
)

// readVersion counts the changes to how words are read (plurals,
// compounds, the English-word filter) that change what Of gives for the
// same lexicon: raise it with any such change, so that an index snapshot
// glossed the old way is not trusted (Signature).
const readVersion = 1

// Signature names the glosses Of gives (with short, shorthand's too):
// the lexicons' checksum and readVersion. An index whose notes were
// glossed under another signature must be glossed again (the memory
// engine refuses its snapshot and reads the database).
func Signature(short bool) string {
	c := crc32.ChecksumIEEE([]byte(words))
	s := fmt.Sprintf("gloss%d-%08x", readVersion, c)
	if short {
		s += fmt.Sprintf("+short-%08x", crc32.ChecksumIEEE([]byte(shorthand)))
	}
	return s
}

// parse reads a lexicon: "english words = [lang] words; [lang] words…"
// a line (with tags, each part after "=" starts with its language's
// code), "#" a comment; a word the analyser splits (a hyphen, an
// apostrophe) is left out.
func parse(text string, tags bool) map[string][]string {
	t := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		en, foreign, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		gl := textindex.Words(en)
		for _, part := range strings.Split(foreign, ";") {
			f := strings.Fields(part)
			if tags && len(f) > 0 { // the language's code
				f = f[1:]
			}
			for _, w := range f {
				if strings.ContainsAny(w, "-'") {
					continue // the analyser splits these: never one word
				}
				for _, k := range textindex.Words(w) {
					for _, g := range gl {
						if !slices.Contains(t[k], g) {
							t[k] = append(t[k], g)
						}
					}
				}
			}
		}
	}
	return t
}

// plural endings and what replaces them: Spanish and Portuguese (-s, -es,
// -ões), German (-e, -en, -n, -er, -nen), French (-s, -x), Italian (-i for
// -o and -e, -e for -a).
var plurals = [][2]string{
	{"s", ""}, {"es", ""}, {"en", ""}, {"n", ""}, {"e", ""}, {"er", ""}, {"nen", ""}, {"x", ""},
	{"i", "o"}, {"i", "e"}, {"e", "a"}, {"oes", "ao"}, {"aes", "ao"},
}

// minWord is the shortest word glossed: shorter ones are mostly function
// words or abbreviations of another sense.
const minWord = 3

// minPlural is the shortest word read as a plural ("mai" is not "mae"s),
// minCompound the shortest read as a compound.
const minPlural, minCompound = 5, 7

// Of returns the English glosses of word, a word as textindex.Words gives
// it (lower case, accents folded): with short, the full words of English
// shorthand (shorthand.txt: "appt", "mgr", "GP", "ISA"); else those of a word of
// another language that is not an English word; nil when it has none.
func Of(word string, short bool) []string {
	if g := shortTable()[word]; short && g != nil {
		return g
	}
	if len(word) < minWord {
		return nil
	}
	t := table()
	if g := find(t, word); g != nil {
		if lexicon.Known(word) {
			return nil
		}
		return g
	}
	if len(word) < minCompound || lexicon.Known(word) {
		return nil
	}
	return of(t, word, 2)
}

// find looks word up in t as it is or without a plural ending.
func find(t map[string][]string, word string) []string {
	if g := t[word]; g != nil {
		return g
	}
	if len(word) < minPlural {
		return nil
	}
	for _, p := range plurals {
		if base, ok := strings.CutSuffix(word, p[0]); ok && len(base)+len(p[1]) >= minWord {
			if g := t[base+p[1]]; g != nil {
				return g
			}
		}
	}
	return nil
}

// of looks word up in t: as it is, without a plural ending, or as a
// compound of depth at most depth.
func of(t map[string][]string, word string, depth int) []string {
	if g := find(t, word); g != nil {
		return g
	}
	if depth == 0 || len(word) < minCompound {
		return nil
	}
	// A compound: a modifier (3 letters or more, maybe with a linking
	// "s", "n", "en", "e", or missing its last "e") and a head (4 or
	// more) the lexicon holds; the longest modifier first
	// ("Hausrat|versicherung", not "Haus|ratversicherung").
	for i := len(word) - 4; i >= 3; i-- {
		head := of(t, word[i:], depth-1)
		if head == nil {
			continue
		}
		mod := word[:i]
		var m []string
		for _, c := range []string{mod, strings.TrimSuffix(mod, "s"), strings.TrimSuffix(mod, "n"), strings.TrimSuffix(mod, "en"), strings.TrimSuffix(mod, "e"), mod + "e"} {
			if len(c) >= 3 {
				if m = of(t, c, depth-1); m != nil {
					break
				}
			}
		}
		if m != nil {
			out := slices.Clone(head)
			for _, g := range m {
				if !slices.Contains(out, g) {
					out = append(out, g)
				}
			}
			return out
		}
	}
	return nil
}

// Text returns the glosses of text's words (Of), each once, space
// separated: what a note's keyword terms gain. "" when none.
func Text(text string, short bool) string {
	var out []string
	seen := map[string]bool{}
	for _, w := range textindex.Words(text) {
		if seen[w] {
			continue
		}
		seen[w] = true
		for _, g := range Of(w, short) {
			if !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return strings.Join(out, " ")
}
