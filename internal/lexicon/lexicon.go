// Package lexicon answers which other words say what a word says: the
// synonyms of its most used senses in WordNet 3.0 (Princeton University;
// licence: LICENSE-WordNet.txt), for the keyword stage of ranking to find
// "invoice" when asked about a "bill". The table (wordnet.gz, written by
// ./gen from Debian's wordnet-base) holds the single-word nouns, verbs and
// adjectives and, for each, the other single words of its first two
// senses that people use (SemCor's tag counts), plus WordNet's exception
// lists for lemmatising ("children" is "child"), and for each single-word
// noun the single words of the hypernyms of its first three senses, up to
// three levels above, but none of the five levels nearest WordNet's root
// (entity, object, whole, organism…): "beagle" is a "hound" and a "dog",
// "coriander" a "herb", "marathon" a "race". It is read on first use and
// held as one string (about 3.7 MB) with an index of its lines.
package lexicon

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
)

//go:generate go run ./gen -wordnet /usr/share/wordnet -o wordnet.gz -levels 3 -min-depth 5 -hyp-senses 3

//go:embed wordnet.gz
var packed []byte

// table is the unpacked table: the text and the starts of its lines,
// synonyms then exceptions, each sorted by key.
type table struct {
	text          string
	syn, exc, hyp []uint32
}

var (
	once sync.Once
	tab  table
)

func load() {
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	if err != nil {
		panic("lexicon: the embedded table is not gzip: " + err.Error())
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		panic("lexicon: the embedded table does not unpack: " + err.Error())
	}
	tab.text = string(b)
	lines := &tab.syn
	for at := 0; at < len(tab.text); {
		end := strings.IndexByte(tab.text[at:], '\n')
		if end < 0 {
			end = len(tab.text) - at
		}
		switch tab.text[at : at+end] {
		case "%exc":
			lines = &tab.exc
		case "%hyp":
			lines = &tab.hyp
		default:
			*lines = append(*lines, uint32(at))
		}
		at += end + 1
	}
}

// lookup returns the words of key's line in lines, nil when it has none.
func lookup(lines []uint32, key string) []string {
	text := tab.text
	keyAt := func(i int) string {
		s := text[lines[i]:]
		return s[:strings.IndexByte(s, '\t')]
	}
	i := sort.Search(len(lines), func(i int) bool { return keyAt(i) >= key })
	if i == len(lines) || keyAt(i) != key {
		return nil
	}
	s := text[lines[i]+uint32(len(key))+1:]
	return strings.Fields(s[:strings.IndexByte(s, '\n')])
}

// suffixes are WordNet's detachment rules (morphy) for nouns, verbs and
// adjectives: an ending and what replaces it.
var suffixes = [][2]string{
	{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"},
	{"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""},
	{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"},
}

// Lemma returns the base form of a lowercase word that the table holds
// synonyms for: the word itself, else its base by WordNet's exception
// lists ("went": "go"), else by its suffix rules ("bills": "bill",
// "invoiced": "invoice"); "" when none is in the table.
func Lemma(word string) string {
	once.Do(load)
	return lemmaIn(tab.syn, word)
}

// lemmaIn is Lemma over the keys of lines.
func lemmaIn(lines []uint32, word string) string {
	if lookup(lines, word) != nil {
		return word
	}
	for _, b := range lookup(tab.exc, word) {
		if lookup(lines, b) != nil {
			return b
		}
	}
	for _, r := range suffixes {
		if base, ok := strings.CutSuffix(word, r[0]); ok && base != "" {
			if b := base + r[1]; lookup(lines, b) != nil {
				return b
			}
		}
	}
	return ""
}

// Synonyms returns the synonyms of a lowercase word's most used senses,
// most used sense first, lemmatised first (Lemma); nil when WordNet gives
// none. The words are lowercase single words of ASCII letters.
func Synonyms(word string) []string {
	l := Lemma(word)
	if l == "" {
		return nil
	}
	return lookup(tab.syn, l)
}

// Hypernyms returns what a lowercase noun is a kind or an instance of:
// the single words of its senses' hypernyms (see the package comment),
// nearest first, lemmatised first (as Lemma, over the nouns that have
// hypernyms): "beagles" gives "hound" and "dog"; nil when WordNet gives
// none.
func Hypernyms(word string) []string {
	once.Do(load)
	l := lemmaIn(tab.hyp, word)
	if l == "" {
		return nil
	}
	return lookup(tab.hyp, l)
}

var (
	wordsOnce sync.Once
	// allWords are the starts in tab.text of every word of the table,
	// sorted by word, unique: offsets, not strings, so the collector has
	// nothing to scan in them (as the table's line starts).
	allWords []uint32
)

// isWordEnd reports whether c ends a word of the table's text.
func isWordEnd(c byte) bool { return c == '\t' || c == ' ' || c == '\n' }

// wordAt is the word of tab.text starting at at.
func wordAt(at uint32) string {
	s := tab.text[at:]
	for i := 0; i < len(s); i++ {
		if isWordEnd(s[i]) {
			return s[:i]
		}
	}
	return s
}

// Known reports whether a lowercase word, or its base form by WordNet's
// exception lists and suffix rules, is any word of the table: a key or a
// synonym or hypernym of one. Names WordNet holds ("kelly", "paris") are
// known too; a word no English dictionary holds ("giffgaff") is not.
func Known(word string) bool {
	once.Do(load)
	wordsOnce.Do(func() {
		text := tab.text
		for at := 0; at < len(text); {
			end := at
			for end < len(text) && !isWordEnd(text[end]) {
				end++
			}
			if end > at && text[at] != '%' {
				allWords = append(allWords, uint32(at))
			}
			at = end + 1
		}
		sort.Slice(allWords, func(i, j int) bool { return wordAt(allWords[i]) < wordAt(allWords[j]) })
		allWords = slices.CompactFunc(allWords, func(a, b uint32) bool { return wordAt(a) == wordAt(b) })
	})
	has := func(w string) bool {
		i := sort.Search(len(allWords), func(i int) bool { return wordAt(allWords[i]) >= w })
		return i < len(allWords) && wordAt(allWords[i]) == w
	}
	if has(word) {
		return true
	}
	for _, b := range lookup(tab.exc, word) {
		if has(b) {
			return true
		}
	}
	for _, r := range suffixes {
		if base, ok := strings.CutSuffix(word, r[0]); ok && base != "" && has(base+r[1]) {
			return true
		}
	}
	return false
}
