package facts

import (
	"slices"
	"testing"
)

// withRules runs f with ValueForms, SubsetRule and OtherSubjectRule set as
// given, restoring them after.
func withRules(t *testing.T, forms, subset, other bool, f func()) {
	t.Helper()
	a, b, c := ValueForms, SubsetRule, OtherSubjectRule
	ValueForms, SubsetRule, OtherSubjectRule = forms, subset, other
	defer func() { ValueForms, SubsetRule, OtherSubjectRule = a, b, c }()
	f()
}

// Times and amounts in the forms the plain reading misses (ValueForms).
func TestValueForms(t *testing.T) {
	cases := []struct {
		text string
		kind Kind
		want string
	}{
		{"The Alexander Bar gig starts at 8.30pm now.", Time, "8:30"},
		{"My gig starts at 20h00 on Thursdays.", Time, "8:00"},
		{"Guitar now Wednesdays 4.30.", Time, "4:30"},
		{"Dinner pushed to half seven.", Time, "7:30"},
		{"Training starts at quarter to six now.", Time, "5:45"},
		{"Freelance day rate up to 5k.", Amount, "5000"},
		{"Ava's school fees are R3.5k a month.", Amount, "3500"},
		{"Rent's going up to R19 200.", Amount, "19200"},
		{"Council tax is a hundred and seventy quid a month now.", Amount, "170"},
		{"Lift club is four hundred and fifty rand a month.", Amount, "450"},
	}
	for _, c := range cases {
		withRules(t, true, false, false, func() {
			if got := Extract(c.text).Of(c.kind); !slices.Contains(got, c.want) {
				t.Errorf("%q: %s %v, want %s", c.text, c.kind, got, c.want)
			}
		})
		withRules(t, false, false, false, func() {
			if got := Extract(c.text).Of(c.kind); slices.Contains(got, c.want) {
				t.Errorf("%q read as %s %s without ValueForms: the case tests nothing", c.text, c.kind, c.want)
			}
		})
	}
}

// An update that says nothing but the older's thing and a new value
// (SubsetRule), and the look-alikes it must not link.
func TestSubsetRule(t *testing.T) {
	updates := [][2]string{
		{"I've been going to the Virgin Active gym in Claremont on a contract that costs R650 a month.", "Gym up to R720."},
		{"Our car insurance with Discovery costs R1,650 a month.", "Discovery is charging R1,820 a month for the car insurance from July."},
		{"Sipho has swimming lessons at the Sea Point pool on Wednesdays.", "Swimming at the Sea Point pool is on Mondays for Sipho from next term."},
		{"My phone contract is with Vodacom.", "I'm on MTN now for my phone."},
		{"Refuse collection on our street is on Thursday mornings, so the bins go out on Wednesday night.", "Bins now Fridays."},
		{"Ava has guitar lessons with a teacher called Zane at his flat in Rondebosch every Tuesday at 4pm.", "Guitar now Wednesdays 4.30."},
		{"Dinner with the Mokoenas is booked for 7pm on Saturday.", "Dinner with the Mokoenas pushed to half seven."},
		{"Our nanny Grace looks after Sipho on Monday, Wednesday and Friday afternoons.", "Grace only Tuesdays and Thursdays from March."},
	}
	lookalikes := [][2]string{
		{"Paid the water bill of 48 pounds in October.", "Paid the water bill of 52 pounds in November."},
		{"Watered the tomatoes on Monday.", "Watered the tomatoes again on Thursday."},
		{"Dentist appointment for Leo on March 3 at 9:30.", "Dentist appointment for Nora on March 3 at 10:00."},
		{"Our team offsite is on May 14.", "The marketing team's offsite is on May 21."},
		{"The printer ink subscription is £4.49 a month.", "The Guardian subscription went up to £12 a month."},
		{"Our neighbour Ruth feeds the cats when we are away.", "We have two cats, Pepper and Miso."},
		{"Alex's mother lives in York.", "We moved last weekend; my new address is 52 Harbour Road, Bristol."},
		{"My mum lives in Inverness and comes out to visit every December.", "Mum flies from Inverness to Cape Town on 2 December."},
		{"Monthly grocery budget is 450 pounds; we went over by 60 in October.", "Home insurance renews on 30 November with Aviva; last year it cost 312 pounds."},
		{"Hochzeitstag 6. Juni; Anna's Geburtstag 19. September", "Papa's 75. Geburtstag am 2. April in Kiel; er wünscht sich ein Fernglas"},
		{"Nadia and I split the studio's profits 60/40: she looks after the clients, I do the design work.", "Switched from Adobe Illustrator to Affinity Designer in the spring to cut subscription costs."},
		{"The March phone bill was £30.", "The April phone bill was £34."},
		{"I walked 5 km on Monday.", "I swam 40 lengths on Tuesday."},
		{"My left hearing aid battery lasts 5 days.", "My right hearing aid battery lasts 7 days."},
	}
	withRules(t, true, true, false, func() {
		for _, p := range updates {
			if r := Relate(p[0], p[1]); r.Kind != Updates || !r.Subset {
				t.Errorf("%q → %q: %+v, want an update by SubsetRule", p[0], p[1], r)
			}
		}
		for _, p := range lookalikes {
			if r := Relate(p[0], p[1]); r.Subset {
				t.Errorf("look-alike %q → %q: linked by SubsetRule (%v)", p[0], p[1], r.DiffersIn)
			}
		}
	})
	withRules(t, true, false, false, func() {
		for _, p := range updates {
			if r := Relate(p[0], p[1]); r.Kind == Updates {
				t.Errorf("%q → %q: an update without SubsetRule: the case tests nothing", p[0], p[1])
			}
		}
	})
}

// A link by a word of change where the two share one word that says
// another thing on each side (OtherSubjectRule); true updates of that
// shape stay.
func TestOtherSubjectRule(t *testing.T) {
	cut := [][2]string{
		{"School starts at 7:45am at Rustenburg Junior.", "The school's aftercare closes at 5:30pm now."},
		{"Paid the water bill of 48 pounds in October.", "Our gas bill went up to £97 in November."},
		{"We moved last weekend; my new address is 52 Harbour Road, Bristol.", "Our new go-to takeaway is Baan Suan, the Thai place on Mill Road."},
		{"Alex's mother lives in York.", "Alex is now reading Piranesi."},
		{"Book club meets at the Red Lion on the first Monday.", "The running club now meets at the leisure centre on Tuesdays."},
	}
	kept := [][2]string{
		{"Hannah lives in Manchester.", "Hannah relocated to Edinburgh in the spring."},
		{"Our landlord is Mr. Fenwick.", "The flat was sold; our new landlord is Ms. Adeyemi."},
		{"Our rent is $1,850 a month.", "The landlord raised our rent to $1,975 a month starting in March."},
		{"Daycare costs $1,250 per month.", "Daycare fees rose to $1,320 per month in January."},
		{"The kids go to bed at 7:30 pm.", "The kids' bedtime is 8 pm now that they've started school."},
		{"My boss at the studio is Riaan.", "I report to Thembi since the studio reorganised."},
	}
	for _, p := range cut {
		withRules(t, false, false, false, func() {
			if r := Relate(p[0], p[1]); r.Kind != Updates {
				t.Errorf("%q → %q: no link without the rule: the case tests nothing", p[0], p[1])
			}
		})
		withRules(t, false, false, true, func() {
			if r := Relate(p[0], p[1]); r.Kind == Updates {
				t.Errorf("%q → %q: still linked (%v)", p[0], p[1], r.DiffersIn)
			}
		})
	}
	withRules(t, false, false, true, func() {
		for _, p := range kept {
			if r := Relate(p[0], p[1]); r.Kind != Updates {
				t.Errorf("%q → %q: the update is lost", p[0], p[1])
			}
		}
	})
}
