package recall

import (
	"testing"

	"github.com/infmem/infmem/mongostore"
)

// TestOtherOwner: a value of someone's thing given only for someone else
// ("Dad's new mobile number", "Our wedding anniversary") says the answer
// is likely not stored; not when a result holds the owner's thing (by
// name, relation, a name the results give right after the word, or "our"
// for the user's partner), nor when the other owner's result does not
// clear the bar or gives no value of the kind, nor for a question
// without a possessive owner.
func TestOtherOwner(t *testing.T) {
	contacts := []mongostore.Contact{{Name: "Grace", Relation: "wife"}, {Name: "Tom", Relation: "father"}, {Name: "Sam", Relation: "friend"}}
	yes := []bool{true, true, true}
	for _, c := range []struct {
		q      string
		texts  []string
		clears []bool
		want   bool
	}{
		{"what is Grace's mobile number?", []string{"Dad's new mobile number is 07700 900418 - he finally gave up the old Nokia."}, yes, true},
		{"what's my father's mobile number?", []string{"Dad's new mobile number is 07700 900418 - he finally gave up the old Nokia."}, yes, false},
		{"what is Tom's mobile number?", []string{"Dad's new mobile number is 07700 900418 - he finally gave up the old Nokia."}, yes, false},
		{"what is Grace's mobile number?", []string{"Dad's new mobile number is 07700 900418.", "Grace's mobile number is 07700 900111."}, yes, false},
		{"what is Grace's mobile number?", []string{"Dad's new mobile number is 07700 900418."}, []bool{false}, false},
		{"what is Grace's mobile number?", []string{"Dad's new mobile number is on the fridge."}, yes, false},
		{"what is Grace's new car?", []string{"Dad's new car is a Skoda bought for 9000 pounds."}, yes, false}, // not a number or code
		{"when is Sam's wedding?", []string{"Our wedding anniversary is 18 September - ten years this year."}, yes, true},
		{"when is Grace's wedding anniversary?", []string{"Our wedding anniversary is 18 September - ten years this year."}, yes, false}, // "our" is the wife's too
		{"when is Sam's wedding?", []string{"Our wedding anniversary is 18 September.", "Sam is getting married in June, the wedding is in Whitby."}, yes, false},
		{"when is the wedding?", []string{"Our wedding anniversary is 18 September."}, yes, false}, // no owner asked
		{"who is the dog's vet?", []string{"Pepper's vet is Dr Kelly at Marino Vets.", "Our dog Pepper is a three-year-old collie."}, yes, false},
		{"who is the dog's vet?", []string{"Pepper's vet is Dr Kelly at Marino Vets."}, yes, true},
		{"when is my sister's flight landing?", []string{"Tom's flight lands on 3 May at 10:40."}, yes, true},
	} {
		if got := OtherOwner(c.q, c.texts, c.clears, contacts); got != c.want {
			t.Errorf("OtherOwner(%q, %q, %v) = %v, want %v", c.q, c.texts, c.clears, got, c.want)
		}
	}
}
