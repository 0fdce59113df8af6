package recall

import (
	"slices"
	"testing"

	"github.com/infmem/infmem/mongostore"
)

// TestQueryWords: a question's content words, without how it is asked.
func TestQueryWords(t *testing.T) {
	for q, want := range map[string][]string{
		"who cuts my hair":                    {"cuts", "hair"},
		"what race am I training for?":        {"race", "training"},
		"where do I work now?":                {"work"},
		"what's Sinead's address in Toronto?": {"sinead", "address", "toronto"},
		"how is it":                           nil,
	} {
		if got := queryWords(q); !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", q, got, want)
		}
	}
}

// TestWordsMet: every content word must be held, as itself, its lemma, a
// synonym or a word of its stem.
func TestWordsMet(t *testing.T) {
	for _, c := range []struct {
		q     string
		texts []string
		want  bool
	}{
		{"who cuts my hair", []string{"Hairdresser is Jo; she cut my hair short in May."}, true},
		{"who cuts my hair", []string{"Hairdresser is Jo at the salon."}, false}, // "cuts" unmet
		{"where do I work now?", []string{"I work at the library on Tuesdays."}, true},
		{"what's my blood group", []string{"Blood type O negative."}, false}, // group unmet
		{"how is it", []string{"It is fine."}, false},                        // no content word
		{"who cuts my hair", nil, false},
	} {
		if got := WordsMet(c.q, c.texts); got != c.want {
			t.Errorf("%q over %q: %v, want %v", c.q, c.texts, got, c.want)
		}
	}
}

// TestWordsMetKinds: each reading WordsMetKinds adds, on only with its
// bit, and the compound rule of the value reading.
func TestWordsMetKinds(t *testing.T) {
	for _, c := range []struct {
		q     string
		texts []string
		kinds int
		want  bool
	}{
		// A kind or an instance of the question's word (WordNet).
		{"which herb do I grow", []string{"I grow coriander on the balcony."}, KindHypernym, true},
		{"which herb do I grow", []string{"I grow coriander on the balcony."}, KindValue | KindWhoName, false},
		{"which herb do I grow", []string{"I grow tomatoes and coriander."}, 0, false},
		{"what breed of dog do we have", []string{"We have a beagle; the breed is stubborn."}, KindHypernym, true},
		{"which herb do I grow", []string{"I grow roses on the balcony."}, KindHypernym, false}, // a rose is no herb
		// A value of the kind a word asks for.
		{"how much do I charge for tutoring?", []string{"Tutoring Ollie online, 35 pounds an hour."}, KindValue, true},
		{"how much do I charge for tutoring?", []string{"Tutoring Ollie online, 35 pounds an hour."}, KindHypernym, false},
		{"how much do I charge for tutoring?", []string{"Tutoring Ollie online on Thursdays."}, KindValue, false}, // no amount
		{"what number is our allotment plot?", []string{"Our allotment is plot 37 at Meanwood."}, KindValue, true},
		{"what's the price of the sofa", []string{"The sofa was €450 in the sale."}, KindValue, true},
		// The question's other word as the first noun of a compound: the
		// note is about the dog walker, not the dog.
		{"how much did the dog cost us?", []string{"The dog walker comes at noon; 12 pounds a walk."}, KindValue, false},
		{"how much did the dog cost us?", []string{"We paid 300 pounds for the dog in May."}, KindValue, true},
		// In a who-question, the one word left met by a name.
		{"who is our electricity supplier?", []string{"Switched electricity to Flogas in September."}, KindWhoName, true},
		{"who is our electricity supplier?", []string{"Switched electricity to Flogas in September."}, KindHypernym | KindValue, false},
		{"who is our electricity supplier?", []string{"Switched electricity to a cheaper tariff."}, KindWhoName, false}, // no name
		{"who is our lawyer?", []string{"Niamh Byrne is handling the will."}, KindWhoName, false},                       // no other word met
		{"what is our electricity supplier?", []string{"Switched electricity to Flogas."}, KindWhoName, false},          // not who
	} {
		if got := WordsMetKinds(c.q, c.texts, c.kinds, nil); got != c.want {
			t.Errorf("%q over %q, kinds %d: %v, want %v", c.q, c.texts, c.kinds, got, c.want)
		}
	}
}

// TestWordsMetPerson: a word naming one of the profile's people by
// relation is met by their name, only with KindPerson.
func TestWordsMetPerson(t *testing.T) {
	contacts := []mongostore.Contact{{Name: "Tom", Relation: "brother"}, {Name: "Sinead Walsh", Relation: "sister"}}
	for _, c := range []struct {
		q     string
		texts []string
		kinds int
		want  bool
	}{
		{"what race did my brother sign up for?", []string{"Tom signed up for the Leeds half marathon."}, KindHypernym | KindPerson, true},
		{"what race did my brother sign up for?", []string{"Tom signed up for the Leeds half marathon."}, KindHypernym, false},
		{"what race did my brother sign up for?", []string{"Tom signed up for the Leeds half marathon."}, KindPerson, false}, // race unmet
		{"what race did my sister sign up for?", []string{"Tom signed up for the Leeds half marathon."}, KindHypernym | KindPerson, false},
		{"what's the time difference with my sister?", []string{"Sinead moved to Toronto and is 5 hours behind us."}, KindValue | KindPerson, true},
	} {
		if got := WordsMetKinds(c.q, c.texts, c.kinds, contacts); got != c.want {
			t.Errorf("%q over %q, kinds %d: %v, want %v", c.q, c.texts, c.kinds, got, c.want)
		}
	}
}

// TestWordsMetSaid: the readings of KindsSaid, each only with its bit.
func TestWordsMetSaid(t *testing.T) {
	contacts := []mongostore.Contact{{Name: "Ruth", Relation: "wife"}, {Name: "Owen", Relation: "son"}}
	for _, c := range []struct {
		q     string
		texts []string
		kinds int
		want  bool
	}{
		// Function and present-state words are not asked about.
		{"how much does the cleaner charge per visit?", []string{"The cleaner is 40 euro a visit."}, KindValue | KindFunction, true},
		{"how much does the cleaner charge per visit?", []string{"The cleaner is 40 euro a visit."}, KindValue, false},
		{"what size are Owen's new boots?", []string{"Owen's boots are a size 3."}, KindFunction, true},
		{"what size are Owen's new boots?", []string{"Owen's boots are a size 3."}, 0, false},
		// What someone does for work, met by an occupation.
		{"what does my wife do for a living?", []string{"Ruth is a physiotherapist at the Mater."}, KindPerson | KindOccupation, true},
		{"what does my wife do for a living?", []string{"Ruth is a physiotherapist at the Mater."}, KindPerson, false},
		{"what does my wife do for a living?", []string{"Ruth is a keen swimmer in the sea."}, KindPerson | KindOccupation, true}, // a person noun read as her trade
		{"what does my wife do for a living?", []string{"Ruth is a friend of the Byrnes."}, KindPerson | KindOccupation, false},   // a relation
		{"what does my wife do for a living?", []string{"Ruth is a bit tired these days."}, KindPerson | KindOccupation, false},   // no person noun
		{"what does my wife do for a living?", []string{"Ruth grew up in Cork."}, KindPerson | KindOccupation, false},             // nothing said of her
		{"where does my wife work?", []string{"Ruth is a physiotherapist."}, KindPerson | KindOccupation, false},                  // not asked
		// A who-question's word left, met by a name next to a met word.
		{"who services our boiler?", []string{"The plumber for the boiler is Dermot, every October."}, KindWhoNear, true},
		{"who services our boiler?", []string{"The plumber for the boiler is Dermot, every October."}, KindWhoName, true},
		{"who services our boiler?", []string{"The plumber for the boiler is Dermot, every October."}, 0, false},
		{"who is our family dentist?", []string{"Ruth works at a family law firm beside the Mater hospital."}, KindWhoNear, false}, // the name far from "family"
		{"who services our boiler?", []string{"Dermot said the boiler is fine."}, KindWhoNear, false},                              // the name at a sentence's start
		{"who is our family dentist?", []string{"Ruth works for the family on Mondays."}, KindWhoNear, false},                      // a weekday is no name
		{"who is our family dentist?", []string{"Ruth works for the family on Mondays."}, KindWhoName, true},
		// The question's verbs in other words, its thing named as a head.
		{"which fruit do I dislike?", []string{"I can't bear kiwis, too sour."}, KindHypernym | KindVerb, true},
		{"which fruit do I dislike?", []string{"I can't bear kiwis, too sour."}, KindHypernym, false},
		{"how do I drink my tea?", []string{"I have my tea with milk and no sugar."}, KindVerb, true},
		{"how do I drink my tea?", []string{"Owen wants a new tea pot for his birthday."}, KindVerb, false}, // tea the first noun of a compound
		{"how do I drink my tea?", []string{"I have my tea with milk and no sugar."}, 0, false},
		{"how much do I earn?", []string{"I earn well at the Mater."}, KindVerb, true},
		{"how much does Ruth earn?", []string{"Ruth is a physiotherapist."}, KindVerb | KindOccupation, false},   // a value asked, absent
		{"how much do I earn at the hospital?", []string{"I work at the hospital as a nurse."}, KindVerb, false}, // a value asked, absent
		{"which hotel are we staying at?", []string{"Hotel booked in Galway for the weekend."}, KindVerb, true},
		{"which hotel are we staying at?", []string{"Booked Galway for the weekend."}, KindVerb, false}, // the noun unmet
		{"where do I swim?", []string{"Swimming at the Forty Foot every morning."}, KindVerb, true},     // the only word, met by its stem
		{"where do I cycle?", []string{"Owen takes the bus to school."}, KindVerb, false},               // the only word, unmet: no noun met
	} {
		if got := WordsMetKinds(c.q, c.texts, c.kinds, contacts); got != c.want {
			t.Errorf("%q over %q, kinds %d: %v, want %v", c.q, c.texts, c.kinds, got, c.want)
		}
	}
}

// The readings of a person's terse notes (KindsTerse): each answers only
// with its bit, and not where the note leaves the asked thing or value
// unsaid.
func TestWordsMetTerse(t *testing.T) {
	contacts := []mongostore.Contact{{Name: "Nia", Relation: "best friend"}, {Name: "Tomos", Relation: "husband"}, {Name: "Elin", Relation: "sister"}}
	base := KindHypernym | KindValue | KindPerson | KindsSaid
	for _, c := range []struct {
		q     string
		texts []string
		kinds int
		want  bool
	}{
		// A note's shorthand for a question word, or for two.
		{"when is my husband's birthday?", []string{"tomos bday 3 aug"}, base | KindAbbrev, true},
		{"when is my husband's birthday?", []string{"tomos bday 3 aug"}, base, false},
		{"when is my husband's birthday?", []string{"tomos bd 3 aug"}, base | KindAbbrev, false},       // two letters: no shorthand read
		{"when is my husband's birthday?", []string{"tomos bay trip 3 aug"}, base | KindAbbrev, false}, // a dictionary word
		{"when is my husband's birthday?", []string{"tomos bdays 3 aug"}, base | KindAbbrev, false},    // the last letter not the word's
		{"when is the dentist appointment?", []string{"dentist appt tues 4pm"}, base | KindAbbrev, true},
		{"how much is the water direct debit?", []string{"water dd £31"}, base | KindAbbrev, true},
		{"how much is the water direct debit?", []string{"water in £31"}, base | KindAbbrev, false}, // "in" is no shorthand
		{"how much is the water direct debit?", []string{"water dd £31"}, base, false},
		// An inverted question's verb left unmet where the note gives the value asked.
		{"where does my best friend work?", []string{"nia's a pharmacist at boots now"}, base | KindVerbAsked | KindRelationWords, true},
		{"where does my best friend work?", []string{"nia's a pharmacist at boots now"}, base | KindRelationWords, false},
		{"where does my best friend work?", []string{"nia's a pharmacist at boots now"}, base | KindVerbAsked, false},            // "best" unmet
		{"where does my sister work?", []string{"elin due in june, a boy"}, base | KindVerbAsked | KindRelationWords, false},     // no place: her own name is none
		{"where does my sister work?", []string{"Elin is due in June, a boy."}, base | KindVerbAsked | KindRelationWords, false}, // capitals: no place either
		{"where does my sister work?", []string{"Elin started at Aviva in Newport."}, base | KindVerbAsked | KindRelationWords, true},
		{"how often does the window cleaner come?", []string{"window cleaner (pete) every 6 wks, £12"}, base | KindVerbAsked, true},
		{"how often does the window cleaner come?", []string{"window cleaner (pete) paid £12 cash"}, base | KindVerbAsked, false}, // no frequency
		{"how often should I water the ferns?", []string{"water the plants twice a week"}, base | KindVerbAsked, false},           // "ferns" a noun, not the verb
		{"how often does the gardener come?", []string{"window cleaner every 6 wks"}, base | KindVerbAsked, false},                // the thing unmet
		// An occupation said "as a …".
		{"what does my husband do for work?", []string{"tomos on days as a paramedic"}, base | KindOccupationAs, true},
		{"what does my husband do for work?", []string{"tomos on days as a paramedic"}, base, false},
		{"what does my husband do for work?", []string{"tomos on days as a rule"}, base | KindOccupationAs, false}, // no person noun
	} {
		if got := WordsMetKinds(c.q, c.texts, c.kinds, contacts); got != c.want {
			w, u := unmetWords(c.q, c.texts, c.kinds, contacts)
			t.Errorf("WordsMetKinds(%q, %q, %d) = %v, want %v (words %q, unmet %q)", c.q, c.texts, c.kinds, got, c.want, w, u)
		}
	}
}
