package recall

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/infmem/infmem/internal/textindex"
	"github.com/infmem/infmem/mongostore"
)

// The profile's people: "my sister", "my manager", "mom" in a query stand
// for the names the profile's contacts give them ("Lena", relation
// "sister"), so a search also looks for memories naming them.

// relationWords groups the words people use for one relation; a query
// word of a group matches a contact whose relation has a word of it.
var relationWords = [][]string{
	{"mother", "mom", "mum", "mommy", "mummy", "mama", "mam", "ma"},
	{"father", "dad", "daddy", "papa", "pa"},
	{"sister", "sis"},
	{"brother", "bro"},
	{"wife", "spouse", "partner"},
	{"husband", "spouse", "partner"},
	{"partner", "spouse", "wife", "husband", "girlfriend", "boyfriend", "fiance", "fiancee"},
	{"girlfriend", "gf", "partner"},
	{"boyfriend", "bf", "partner"},
	{"manager", "boss", "supervisor", "lead"},
	{"son", "kid", "child", "boy"},
	{"daughter", "kid", "child", "girl"},
	{"grandmother", "grandma", "granny", "gran", "nan", "nana"},
	{"grandfather", "grandpa", "grandad", "granddad", "gramps"},
	{"aunt", "auntie", "aunty"},
	{"colleague", "coworker", "co-worker"},
	{"neighbour", "neighbor"},
	{"roommate", "flatmate", "housemate"},
	{"friend", "bff", "mate"},
	{"doctor", "gp", "physician"},
}

// kinWords are relation words that name a person without "my" ("mom
// said…", "how is dad?").
var kinWords = regexp.MustCompile(`(?i)\b(?:mom|mum|mommy|mummy|mama|dad|daddy|papa|grandma|grandpa|granny|grandad|nana)\b`)

// relationQualifiers may stand between "my" and a relation ("my best
// friend", "my older sister").
var relationQualifiers = []string{"best", "older", "younger", "big", "little", "new", "old"}

// possessed finds "my X" / "our X" (and "my best X"): the X a query may
// name a contact by.
var possessed = regexp.MustCompile(`(?i)\b(?:my|our)\s+(?:(?:` + strings.Join(relationQualifiers, "|") + `)\s+)?([\p{L}-]+)`)

// relationTerms returns the words that may name a contact's relation in
// a query, each mapped to the query's word it comes from ("mom" gives
// mother, mom, mum… all from "mom"); nil when there is none.
func relationTerms(q string) map[string]string {
	var words []string
	for _, m := range possessed.FindAllStringSubmatch(q, -1) {
		words = append(words, strings.ToLower(m[1]))
	}
	for _, m := range kinWords.FindAllString(q, -1) {
		words = append(words, strings.ToLower(m))
	}
	if len(words) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, w := range words {
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if w == "" {
			continue
		}
		out[w] = w
		if s := strings.TrimSuffix(w, "s"); s != w && len(s) > 2 {
			out[s] = w // "my kids", "my parents"
		}
		for _, y := range sameRelation(w) {
			if _, ok := out[y]; !ok {
				out[y] = w
			}
		}
	}
	return out
}

// sameRelation lists the words of every relationWords group holding w
// (w too when it is in one), each once, in the groups' order.
func sameRelation(w string) []string {
	var out []string
	for _, g := range relationWords {
		if slices.Contains(g, w) {
			for _, y := range g {
				if !slices.Contains(out, y) {
					out = append(out, y)
				}
			}
		}
	}
	return out
}

// relationParts splits a contact's relation ("best friend", "sister /
// flatmate") into its lower-case words.
func relationParts(relation string) []string {
	return strings.FieldsFunc(strings.ToLower(relation), func(r rune) bool { return r == ' ' || r == ',' || r == '/' || r == ';' })
}

// personRef is a word of a query that names people of the profile by
// their relation: "sister" for Lena.
type personRef struct {
	word  string
	names []string
	// relation is the words of the contacts' relations ("business",
	// "partner").
	relation []string
}

// contactsFor returns the query's words that name contacts by relation,
// with their names; a contact the query names itself is left out. A word
// names the contacts it fits best: those whose relation it says in the
// query's own word and whole ("my partner": Alex, "partner"), else in
// another word for it ("my mum": Ruth, "mother"), else those whose
// relation says more than the query does ("my friend": Hannah, "best
// friend"; not Nadia, "business partner", beside Alex).
func contactsFor(q string, contacts []mongostore.Contact) []personRef {
	if len(contacts) == 0 {
		return nil
	}
	rel := relationTerms(q)
	if rel == nil {
		return nil
	}
	lower := strings.ToLower(q)
	said := map[string]bool{}
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
		said[w] = true
	}
	type match struct {
		word, name string
		relation   []string
		fit        int // 2: the whole relation in the query's word, 1: in another word for it, 0: part of it
	}
	var found []match
	for _, c := range contacts {
		if c.Name == "" || strings.Contains(lower, strings.ToLower(c.Name)) {
			continue
		}
		words := relationParts(c.Relation)
		for i, w := range words {
			word, ok := rel[w]
			if !ok {
				continue
			}
			m := match{word: word, name: c.Name, relation: words, fit: 1}
			if w == word {
				m.fit = 2
			}
			for j, o := range words {
				if j != i && !said[o] {
					m.fit = 0
				}
			}
			found = append(found, m)
			break
		}
	}
	var refs []personRef
	for _, m := range found {
		if slices.ContainsFunc(found, func(o match) bool { return o.word == m.word && o.fit > m.fit }) {
			continue
		}
		i := slices.IndexFunc(refs, func(r personRef) bool { return r.word == m.word })
		if i < 0 {
			refs = append(refs, personRef{word: m.word})
			i = len(refs) - 1
		}
		refs[i].names = append(refs[i].names, m.name)
		for _, w := range m.relation {
			if !slices.Contains(refs[i].relation, w) {
				refs[i].relation = append(refs[i].relation, w)
			}
		}
	}
	return refs
}

// withNames is the query text with the names of the people it names by
// relation, for its embedding: "what did I say about my sister? (Lena)".
func withNames(q string, refs []personRef) string {
	var names []string
	for _, r := range refs {
		names = append(names, r.names...)
	}
	if len(names) == 0 {
		return q
	}
	return q + " (" + strings.Join(names, ", ") + ")"
}

// knownAnalyzer reads text as the keyword index does and tells which
// terms no memory holds (*memindex.Index).
type knownAnalyzer interface {
	Analyzer
	Unknown(q textindex.Query) float64
}

// relationVariants lists, for a word a person is called by ("mum"), the
// other words people write for the same relation: "my mother" is the
// note's "Mum", "my boss" the note's "manager". A group's words all name
// one relation; a word listed in several groups (spouse) takes each. Only
// words that seldom mean anything else: not "ma", "pa", "nan", "pop".
var relationVariants = func() map[string][]string {
	groups := [][]string{
		{"mother", "mom", "mum", "mommy", "mummy", "mama", "mamma", "momma", "mam"},
		{"father", "dad", "daddy", "papa", "dada"},
		{"grandmother", "grandma", "granny", "gran", "grandmom", "grandmum", "nana"},
		{"grandfather", "grandpa", "grandad", "granddad", "gramps", "grandpop"},
		{"sister", "sis"},
		{"brother", "bro"},
		{"aunt", "auntie", "aunty"},
		{"wife", "spouse"},
		{"husband", "spouse", "hubby"},
		{"boss", "manager"},
		{"colleague", "coworker"},
		{"neighbour", "neighbor"},
		{"roommate", "flatmate", "housemate"},
		{"kids", "children"},
		{"kid", "child"},
	}
	m := map[string][]string{}
	for _, g := range groups {
		for _, w := range g {
			for _, y := range g {
				if y != w && !slices.Contains(m[w], y) {
					m[w] = append(m[w], y)
				}
			}
		}
	}
	return m
}()

// addRelationVariants adds to each keyword term of the query said by a
// word that names one of the user's people by relation ("my mother", "our
// boss", "mum": relationTerms) the other words for that relation
// (relationVariants) as alternatives of it: "my mother" finds "Mum's
// birthday", and the note covers the query's word as fully as one saying
// "mother". Someone else's ("Melanie's kids") is left as it is: a
// question about another person's family asks in its own words, and a
// capitalised word within the sentence (a name) is not a relation.
func (q *query) addRelationVariants(text knownAnalyzer, s string) {
	rel := relationTerms(s)
	if rel == nil {
		return
	}
	names := namesIn(s)
	own := q.terms.Terms()
	for w, from := range rel {
		if w != from || names[w] {
			continue // a word relationTerms adds, not the query's own
		}
		vs := relationVariants[w]
		if vs == nil && len(w) > 3 {
			vs = relationVariants[strings.TrimSuffix(w, "s")] // "my sisters"
		}
		if vs == nil {
			continue
		}
		t := text.Analyze(w).Terms()
		if len(t) != 1 || !slices.Contains(own, t[0]) {
			continue
		}
		// Only variants some memory holds: an alternative no memory holds
		// would raise what the word weighs at best (its rarest variant's
		// weight) and so lower every match's coverage.
		alts := text.Analyze(strings.Join(vs, " ")).Without(func(v string) bool {
			return text.Unknown(text.Analyze(v)) > 0
		})
		if !alts.Empty() {
			q.terms = q.terms.WithAlternatives(t[0], alts)
		}
	}
}
