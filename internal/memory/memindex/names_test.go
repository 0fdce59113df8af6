package memindex

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/textindex"
)

func TestNameWordsMatch(t *testing.T) {
	for _, c := range []struct {
		q, n string
		want bool
	}{
		{"muhammad", "muhhamed", true},
		{"muhammad", "muhammed", true},
		{"caroline", "carolline", true},
		{"melanie", "melenie", true},
		{"fahim", "fahim", true},
		{"jon", "john", false}, // short names must be spelt the same
		{"jane", "jon", false},
		{"maria", "mario", true},
		{"caroline", "melanie", false},
		{"gina", "gym", false},
		{"painting", "pointing", true},
		{"tim", "time", false},
	} {
		if got := nameWordsMatch(c.q, c.n); got != c.want {
			t.Errorf("nameWordsMatch(%q, %q) = %v, want %v", c.q, c.n, got, c.want)
		}
	}
}

func TestNameMatch(t *testing.T) {
	grade := map[int]string{nameOther: "other", nameClose: "close", nameSame: "same"}
	for _, c := range []struct {
		q, n string
		role bool
		want int
	}{
		{"tim", "tim", false, nameSame},
		{"jon", "jonn", false, nameSame},      // doubled letters count once
		{"joohn", "john", false, nameSame},    // either side
		{"joana", "joannna", false, nameSame}, // runs of any length
		{"nates", "nate", false, nameSame},    // a possessive without its apostrophe
		{"joons", "jonn", false, nameSame},
		{"melanies", "melenie", false, nameClose},
		{"tims", "tem", false, nameClose},
		{"tim", "tem", false, nameClose},    // one vowel for another
		{"jhon", "john", false, nameClose},  // neighbours swapped
		{"maia", "maria", false, nameClose}, // four letters for five
		{"janna", "joannna", false, nameClose},
		{"muhammad", "muhhamed", false, nameClose},
		{"jon", "john", false, nameOther}, // "Jon" and "John" are two names
		{"jean", "gina", false, nameOther},
		{"tim", "time", false, nameOther},
		{"team", "tem", false, nameOther},
		{"kim", "tim", false, nameOther}, // the first letter agrees
		{"tmi", "tim", false, nameClose},
		{"ohjn", "john", false, nameOther},
		{"jan", "jon", false, nameClose},   // a common word: wordNamesLocked decides
		{"users", "user", true, nameOther}, // roles match as before
		{"assistants", "assistant", true, nameClose},
		{"uuser", "user", true, nameOther},
	} {
		if got := nameMatch(c.q, c.n, c.role); got != c.want {
			t.Errorf("nameMatch(%q, %q, %v) = %s, want %s", c.q, c.n, c.role, grade[got], grade[c.want])
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"abc", "abc", 2, 0},
		{"abc", "acb", 2, 1},
		{"muhammad", "muhhamed", 3, 3},
		{"muhammad", "muhhamed", 2, 3},
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 1, 2},
		{"", "ab", 3, 2},
	} {
		if got := editDistance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}

// TestNamesAbsent: a query naming a speaker the index knows is about
// memories that person said or that name them; role speakers ("user"),
// names that are stopwords and words that name nobody do not count.
func TestNamesAbsent(t *testing.T) {
	ix := New(0, time.UTC)
	at := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	put := func(scope, speaker, text string) bson.ObjectID {
		id := bson.NewObjectID()
		at = at.Add(time.Minute)
		ix.Put(Doc{ID: id, Kind: KindMemory, Text: text, Source: SourceConversation, Scope: scope, Conv: scope, Speaker: speaker, TS: at, Created: at})
		return id
	}
	books := put("a", "Melanie", "I've been reading lots of fantasy books lately.")
	paint := put("a", "Caroline", "I painted a sunset by the lake last week.")
	aboutTim := put("a", "Caroline", "My cousin Tim lent me his favourite novel.")
	said := put("b", "Tim", "I just finished another Harry Potter book.")
	put("c", "user", "The user guide says to restart the router.")
	put("c", "May", "See you at the market.")
	words := textindex.Words
	for _, c := range []struct {
		query string
		ids   []bson.ObjectID
		want  bool
	}{
		{"What books has Tim read?", []bson.ObjectID{books, paint}, true},
		{"what books has timm read", []bson.ObjectID{books, paint}, true}, // doubled letters count once
		{"What books has Tim read?", []bson.ObjectID{books, aboutTim}, false},
		{"What books has Tim read?", []bson.ObjectID{said}, false},
		{"What did Carolline paint?", []bson.ObjectID{books, paint}, false},
		{"What did Carolline paint?", []bson.ObjectID{books, said}, true},
		{"What did Caroline and Tim talk about?", []bson.ObjectID{said}, false},
		{"What books have I read?", []bson.ObjectID{books, paint}, false},
		{"What does the user guide say?", []bson.ObjectID{books, paint}, false},
		{"What did I buy in May?", []bson.ObjectID{books, paint}, false},
		{"What books has Tim read?", nil, false},
		{"What did Maria paint?", []bson.ObjectID{books, paint}, false},
	} {
		if got := ix.NamesAbsent(words(c.query), c.ids); got != c.want {
			t.Errorf("NamesAbsent(%q, %d results) = %v, want %v", c.query, len(c.ids), got, c.want)
		}
	}
}

// A note that starts with a label ("Lesson: …", "Idea: …") is read as said
// by that label (speakerPrefix), but a question using the word ("when is
// Leo's swimming lesson?") is not about a person the results leave out;
// a note that starts with a person's name still is.
func TestNamesAbsentLabels(t *testing.T) {
	ix := New(0, time.UTC)
	at := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	put := func(text string) bson.ObjectID {
		id := bson.NewObjectID()
		at = at.Add(time.Minute)
		ix.Put(Doc{ID: id, Kind: KindMemory, Text: text, TS: at, Created: at})
		return id
	}
	put("Lesson: when the user asks for feedback on a design, be blunt and list the problems first.")
	put("Idea: a dinosaur cake for the party.")
	put("Plan: repaint the hall in spring.")
	put("Tim: see you at the gym on Friday.")
	football := put("Leo has football practice every Tuesday at 5:30.")
	birthday := put("Leo turns 8 on 22 February and wants a dinosaur party.")
	words := textindex.Words
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"when is Leo's swimming lesson?", false},
		{"any ideas for Leo's birthday?", false},
		{"what is the plan for Tuesday?", false},
		{"what did Tim say about football?", true},
	} {
		if got := ix.NamesAbsent(words(c.query), []bson.ObjectID{football, birthday}); got != c.want {
			t.Errorf("NamesAbsent(%q) = %v, want %v", c.query, got, c.want)
		}
	}
}

// TestNamesAbsentSpelling: a query names a speaker however chat spells
// the name ("tim" for "Tem", "jon" for "Jonn", "melanies" for "Melenie"),
// but not with a word the memories use as a word ("note" beside "Nate"),
// nor with a word as close to two people's names.
func TestNamesAbsentSpelling(t *testing.T) {
	ix := New(0, time.UTC)
	at := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	put := func(scope, speaker, text string) bson.ObjectID {
		id := bson.NewObjectID()
		at = at.Add(time.Minute)
		ix.Put(Doc{ID: id, Kind: KindMemory, Text: text, Source: SourceConversation, Scope: scope, Conv: scope, Speaker: speaker, TS: at, Created: at})
		return id
	}
	paint := put("a", "Caroline", "i painted a sunset by the lake last week")
	kids := put("a", "Melenie", "the kids love the beach, we went camping")
	put("b", "Tem", "just finished another harry potter book")
	put("b", "Jonn", "lost my job at the bank today")
	for _, text := range []string{"new recipe tonight", "the game was great", "my sister visits soon"} {
		put("c", "Nate", text)
	}
	put("d", "user", "Note to self: the boiler needs a service in May")
	put("e", "Dan", "see you at the gym")
	put("e", "Don", "running late")
	words := textindex.Words
	for _, c := range []struct {
		query string
		ids   []bson.ObjectID
		want  bool
	}{
		{"what books has tim read", []bson.ObjectID{paint, kids}, true},
		{"whats tims favourite book", []bson.ObjectID{paint, kids}, true},
		{"when did jon lose his job", []bson.ObjectID{paint, kids}, true},
		{"when did joohn lose his job", []bson.ObjectID{paint, kids}, false}, // nobody is John
		{"what do melanies kids like", []bson.ObjectID{paint, kids}, false},
		{"what do melanies kids like", []bson.ObjectID{paint}, true},
		{"what does naate cook", []bson.ObjectID{paint, kids}, true},
		{"where is my note about the boiler", []bson.ObjectID{paint, kids}, false}, // "note" is a word here
		{"what did den say", []bson.ObjectID{paint, kids}, false},                  // Dan or Don
		{"what did dan say", []bson.ObjectID{paint, kids}, true},
	} {
		if got := ix.NamesAbsent(words(c.query), c.ids); got != c.want {
			t.Errorf("NamesAbsent(%q, %d results) = %v, want %v", c.query, len(c.ids), got, c.want)
		}
	}
}
