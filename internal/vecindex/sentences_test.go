package vecindex

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// sentenceGen writes memory-like sentences ("We decided to move the billing
// service to Postgres before the Q3 launch") from templates and word lists,
// so that topics recur with different wording, as a user's memories do.
type sentenceGen struct {
	rng *rand.Rand
}

var (
	sgPeople   = strings.Fields("I we Alice Bob my_manager the_team my_sister Priya the_client Marco our_designer")
	sgVerbs    = strings.Fields("decided prefer want need discussed postponed finished started reviewed approved rejected moved scheduled fixed broke")
	sgThings   = strings.Fields("database_migration billing_service dark_mode login_page budget_review birthday_party kubernetes_cluster backup_job postgres_upgrade api_gateway design_doc onboarding_flow quarterly_report flight_to_Lisbon dentist_appointment gym_membership vegetarian_recipes python_script react_frontend coffee_order")
	sgWhen     = strings.Fields("yesterday last_week on_Friday next_month before_the_launch after_lunch in_June every_morning tomorrow at_the_offsite")
	sgAdj      = strings.Fields("urgent slow expensive broken new old flaky secure simple noisy")
	sgReasons  = strings.Fields("because_it_was_too_slow since_the_budget_is_tight so_we_can_ship_faster because_the_tests_kept_failing to_save_money for_better_security")
	sgPatterns = []string{
		"%p %v the %a %t %w",
		"%p %v to move the %t %w %r",
		"Remember that %p %v the %t",
		"%p said the %t is %a %r",
		"Note: %t %w, %p %v it",
		"%p really %v %t and %t",
		"Reminder about the %t %w",
		"What did %p say about the %t %w?",
		"%p %v ticket %n for the %t",
		"The %t costs %n dollars a month, %p %v it %w",
	}
)

func (g *sentenceGen) pick(words []string) string {
	return strings.ReplaceAll(words[g.rng.IntN(len(words))], "_", " ")
}

func (g *sentenceGen) next() string {
	p := sgPatterns[g.rng.IntN(len(sgPatterns))]
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' || i+1 == len(p) {
			b.WriteByte(p[i])
			continue
		}
		i++
		switch p[i] {
		case 'p':
			b.WriteString(g.pick(sgPeople))
		case 'v':
			b.WriteString(g.pick(sgVerbs))
		case 't':
			b.WriteString(g.pick(sgThings))
		case 'w':
			b.WriteString(g.pick(sgWhen))
		case 'a':
			b.WriteString(g.pick(sgAdj))
		case 'r':
			b.WriteString(g.pick(sgReasons))
		case 'n':
			fmt.Fprint(&b, 10+g.rng.IntN(9990))
		default:
			panic(fmt.Sprintf("bad pattern %q", p))
		}
	}
	return b.String()
}
