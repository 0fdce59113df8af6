package recall

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/infmem/infmem/internal/lexicon"
	"github.com/infmem/infmem/internal/textindex"
	"github.com/infmem/infmem/mongostore"
)

// A note about someone else. "What would Alex like as a present?" asks
// about Alex; the note "Present idea for Hannah: …" shares the question's
// word but is about another of the user's people, and "Alex's birthday is
// 9 August; they keep hinting about a new road bike" is the answer. When a
// query names some of the profile's contacts (by name, or by relation:
// contactsFor), a note that names others of them and none of those asked
// gives up Options.OtherPersonWeight of its score. A note naming no one
// ("Our GP is Dr Okonkwo") and a turn of a conversation are left as they
// are.

// nameTitles are words before a name that are not the name.
var nameTitles = []string{"mr", "mrs", "ms", "miss", "dr", "prof", "sir"}

// peopleOf returns the keyword queries of the contacts' words (the words
// of each name, and for a relation of relationVariants its words: "Dad"
// for the father) and which of the contacts query s asks about (bit i for
// contacts[i]): those it names by a word of their name, and those refs
// name by relation. nil, 0 when it asks about none, or about every one.
func peopleOf(text Analyzer, s string, contacts []mongostore.Contact, refs []personRef) ([]textindex.Query, uint64) {
	if len(contacts) < 2 {
		return nil, 0
	}
	contacts = contacts[:min(len(contacts), 64)]
	said := saidWords(s)
	var asked uint64
	groups := make([]textindex.Query, len(contacts))
	for i, c := range contacts {
		var words []string
		for _, w := range textindex.Words(c.Name) {
			if len(w) < 3 || slices.Contains(nameTitles, w) {
				continue
			}
			words = append(words, w)
			if capital, ok := said[w]; ok && (capital || lexicon.Lemma(w) == "") {
				// A name that is also a word ("Rose", "Bill") names the
				// contact when written with a capital.
				asked |= 1 << i
			}
		}
		for _, r := range refs {
			if slices.Contains(r.names, c.Name) {
				asked |= 1 << i
			}
		}
		for _, p := range relationParts(c.Relation) {
			if vs, ok := relationVariants[p]; ok {
				words = append(append(words, p), vs...)
			}
		}
		groups[i] = text.Analyze(strings.Join(words, " "))
	}
	if asked == 0 || asked == 1<<len(contacts)-1 {
		return nil, 0
	}
	return groups, asked
}

// saidWords is the lowercase words of s, each true when it is written
// with a capital somewhere in s.
func saidWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		r, _ := utf8.DecodeRuneInString(f)
		for _, w := range textindex.Words(f) {
			out[w] = out[w] || unicode.IsUpper(r)
		}
	}
	return out
}

// aboutSomeoneElse reports whether a memory naming the people in bits
// named (Candidate.Holds, the people's bits) names some of the user's people but none of
// those the query asks about.
func aboutSomeoneElse(named, asked uint64) bool {
	return asked != 0 && named != 0 && named&asked == 0
}
