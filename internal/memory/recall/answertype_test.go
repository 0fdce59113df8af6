package recall

import (
	"slices"
	"strings"
	"testing"

	"github.com/infmem/infmem/internal/facts"
)

// TestAskedKinds: the kind of value a question asks for plainly, and none
// for a question that asks for no value ("when did …" may be answered by
// when the note was written).
func TestAskedKinds(t *testing.T) {
	for _, c := range []struct {
		q      string
		kind   facts.Kind // one of the kinds, "" for none
		digits bool
	}{
		{"how much is the electricity bill?", facts.Amount, true},
		{"How many people are coming for Christmas", facts.Number, false},
		{"when is the parent-teacher meeting?", facts.Date, false},
		{"When does our home insurance renew?", facts.Date, false},
		{"when's the recycling collected", facts.Date, false},
		{"what time is stand-up", facts.Time, false},
		{"who is our accountant?", facts.Name, false},
		{"who's my doctor", facts.Name, false},
		{"what's the account number for the savings account?", facts.Number, true},
		{"what is my PPS number", facts.Number, true},
		{"what's the code for the key box at my father's?", facts.Number, true},
		{"when did I last see the dentist", "", false},
		{"when was the boiler serviced", "", false},
		{"who teaches Aoife this year?", "", false},
		{"what's the password for my work email?", "", false},
		{"what's our grocery budget?", "", false},
		{"what is it", "", false}, // too short to read
		{"where do I work", "", false},
	} {
		kinds, digits := askedKinds(c.q)
		if c.kind == "" {
			if kinds != nil {
				t.Errorf("%q: asks %v, want nothing", c.q, kinds)
			}
			continue
		}
		if !slices.Contains(kinds, c.kind) || digits != c.digits {
			t.Errorf("%q: asks %v (digits %v), want %s (digits %v)", c.q, kinds, digits, c.kind, c.digits)
		}
	}
}

// TestAnswerAbsent: a typed question is flagged only when no note that
// clears the bar gives a value of its kind; a number in words is no
// amount, a day of the month said alone is a date, a firm after "to" is
// who.
func TestAnswerAbsent(t *testing.T) {
	for _, c := range []struct {
		q     string
		texts []string
		want  bool
	}{
		{"how much does the vet charge for the annual jabs?", []string{"Pepper's vet is Dr Kelly at Marino Vets; her annual jabs are due in May."}, true},
		{"how much does the vet charge for the annual jabs?", []string{"Pepper's vet is Dr Kelly.", "The annual jabs cost 60 euro."}, false},
		{"how much is the electricity bill?", []string{"Switched electricity to Flogas in September; the bill comes every two months."}, true},
		{"how much is the electricity bill?", []string{"The electricity bill was 84 euros."}, false},
		{"how many people are coming for Christmas", []string{"We're hosting Christmas: eight people in total."}, false},
		{"who is our accountant?", []string{"Putting 400 euro a month into a credit union savings account."}, true},
		{"who is our energy supplier", []string{"Switched energy supplier to Octopus on a fixed tariff until next December."}, false},
		{"who is my doctor", []string{"Our GP is Dr Okonkwo at the Clontarf medical centre."}, false},
		{"when is the migration plan due?", []string{"Marta wants the migration plan by the 15th."}, false},
		{"when is the parent-teacher meeting at St Brigid's?", []string{"Aoife is in fifth class at St Brigid's; her teacher is Mr Doyle."}, true},
		{"what's the account number for the savings account?", []string{"Putting 400 euro a month into a credit union savings account."}, true},
		{"what's the asset number of my work computer?", []string{"Work laptop is a Dell Latitude; the asset tag is DL-88213."}, false},
		{"what's the code for the key box?", []string{"The key safe at Dad's house opens with 4729."}, false},
		{"what's the password for my work email?", []string{"Home wifi is called Seaview-Net."}, false}, // asks no kind
		{"how much is the electricity bill?", nil, false},                                               // nothing clears the bar
	} {
		if got := AnswerAbsent(c.q, c.texts, true); got != c.want {
			t.Errorf("AnswerAbsent(%q, %q) = %v, want %v", c.q, c.texts, got, c.want)
		}
	}
}

// TestAnswerAbsentLower: the same notes written without capitals get the
// capitalised notes' verdicts (issue 23 item 5), names read by a title or
// by being no dictionary word, months by a day's number or a dating word;
// without the lower reading the lower-case notes lose them.
func TestAnswerAbsentLower(t *testing.T) {
	for _, c := range []struct {
		q      string
		text   string
		want   bool
		unread bool // the verdict without the lower reading differs
	}{
		{"who is Biscuit's vet", "Biscuit's vet is Dr. Alvarez at Greenway Animal Clinic; annual jabs are due in April.", false, true},
		{"who is my boss", "My manager at Northwind is Clara Jensen; our one-to-ones are on Thursdays.", false, true},
		{"who is the dog's vet?", "Pepper's vet is Dr Kelly at Marino Vets; her annual jabs are due in May.", false, true},
		{"who is my son's teacher?", "Leo is in Primary 3 at Hillhead Primary; his teacher this year is Mrs Abernethy.", false, true},
		{"who is Léa's best friend?", "Léa's best friend is Chloé.", false, true},
		{"who is our accountant?", "Putting 400 euro a month into a credit union savings account.", true, false},
		{"who is my dentist?", "The dentist said my teeth are fine and the next check-up is in six months.", true, false},
		{"when is mum's birthday?", "Mum's birthday is on 14 March; she likes orchids and dark chocolate.", false, true},
		{"when does the kitchen work start", "The builder said the kitchen renovation can start on May 4 and should take six weeks.", false, true},
		{"when is my sister's baby due?", "Kate is expecting her first baby in May; she and Jonno are having a boy.", false, true},
		{"when is the bin collection?", "We may move the bins to the side of the house.", true, false},
		{"when is the parent-teacher meeting at St Brigid's?", "Aoife is in fifth class at St Brigid's; her teacher is Mr Doyle.", true, false},
	} {
		if got := AnswerAbsent(c.q, []string{c.text}, true); got != c.want {
			t.Errorf("capitalised: AnswerAbsent(%q, %q) = %v, want %v", c.q, c.text, got, c.want)
		}
		low := strings.ToLower(c.text)
		if got := AnswerAbsent(c.q, []string{low}, true); got != c.want {
			t.Errorf("lower case: AnswerAbsent(%q, %q) = %v, want %v", c.q, low, got, c.want)
		}
		if got := AnswerAbsent(c.q, []string{low}, false); got != (c.want != c.unread) {
			t.Errorf("lower case, lower reading off: AnswerAbsent(%q, %q) = %v, want %v", c.q, low, got, c.want != c.unread)
		}
	}
}
