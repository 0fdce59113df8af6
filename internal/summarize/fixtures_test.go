package summarize

import (
	"testing"
	"time"
)

// fixture is a realistic conversation with what a summary of it must keep
// (facts: hand-picked dates, numbers, names and decisions, as substrings)
// and must drop (acks: whole acknowledgement sentences).
type fixture struct {
	name  string
	msgs  []Message
	facts []string
	acks  []string
}

// conv builds messages from speaker/text pairs, a minute apart from start,
// or from the time given by a "@2006-01-02 15:04" entry.
func conv(t testing.TB, start string, lines ...string) []Message {
	t.Helper()
	at, err := time.Parse("2006-01-02 15:04", start)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []Message
	for i := 0; i < len(lines); i += 2 {
		if lines[i] == "@" {
			if at, err = time.Parse("2006-01-02 15:04", lines[i+1]); err != nil {
				t.Fatal(err)
			}
			continue
		}
		msgs = append(msgs, Message{Speaker: lines[i], Text: lines[i+1], Timestamp: at})
		at = at.Add(time.Minute)
	}
	return msgs
}

func fixtures(t testing.TB) []fixture {
	return []fixture{
		{
			name: "trip",
			msgs: conv(t, "2023-05-08 19:02",
				"Alice", "Hey! Are we still doing the Portugal trip this summer?",
				"Bob", "Yes, definitely. I was thinking Lisbon for a few days and then the coast.",
				"Alice", "Love that idea. honestly i could use a break after all this work.",
				"Bob", "Same here lol",
				"Alice", "What dates work for you? I can take time off from June 14 to June 24.",
				"Bob", "June 14 works. My sister's wedding is on June 25 so I need to be back by the 24th.",
				"Alice", "ok",
				"Bob", "Flights from Boston are around $420 return if we book this week.",
				"Alice", "That's not bad at all. Should we book the TAP flight that leaves at 9.40pm?",
				"Bob", "Yes.",
				"Alice", "Great, I'll book both tickets tonight and send you the confirmation.",
				"Bob", "Thanks!",
				"Bob", "For the stay I found an apartment in Alfama, 95 euros a night.",
				"Alice", "It looks cosy in the photos. the reviews are mostly about the view.",
				"Alice", "Let's take it for the first five nights.",
				"Bob", "Sounds good.",
				"@", "2023-05-09 08:15",
				"Bob", "Morning! Quick question, do you still want to rent a car for the coast?",
				"Alice", "Hmm, I'm not sure. It might be easier by train.",
				"Bob", "The train to Lagos takes about 4 hours, a car is faster but parking is a pain.",
				"Alice", "Then train. We decided: train to Lagos, no car.",
				"Bob", "Agreed.",
				"Bob", "Also, my passport expires in August, so I must renew it before we go.",
				"Alice", "Good catch, get it done soon!",
				"Bob", "will do",
			),
			facts: []string{
				"Portugal trip this summer",
				"Lisbon",
				"June 14 to June 24",
				"wedding is on June 25",
				"$420",
				"TAP flight that leaves at 9.40pm?\nBob: Yes.",
				"I'll book both tickets tonight",
				"Alfama, 95 euros a night",
				"first five nights",
				"Lagos takes about 4 hours",
				"We decided: train to Lagos, no car.",
				"passport expires in August",
			},
			acks: []string{"Same here lol", "ok", "Thanks!", "Sounds good.", "Agreed.", "will do"},
		},
		{
			name: "meeting",
			msgs: conv(t, "2024-02-12 10:00",
				"Priya", "Morning all. Let's go through the Atlas release status.",
				"Tom", "Backend is mostly done. The payments API still has two open bugs.",
				"Lena", "Design is signed off. I sent the final mockups to Priya on Friday.",
				"Priya", "Thanks Lena.",
				"Tom", "How solid is the March 1 launch date?",
				"Priya", "Marketing has already announced it, so March 1 is fixed.",
				"Tom", "Then I need help. The refund flow is the riskiest part.",
				"Lena", "I can pair with you on Wednesday afternoon.",
				"Tom", "That would be great.",
				"Priya", "Decision: we ship without the export feature and add it in 1.1.",
				"Tom", "Makes sense. it was never really finished anyway.",
				"Lena", "Who owns the release notes?",
				"Priya", "Tom will draft them by Feb 23 and I'll review.",
				"Tom", "ok",
				"Lena", "One more thing: the staging server costs $1,200 a month and nobody uses it.",
				"Priya", "Let's shut it down after the launch.",
				"Tom", "agreed",
				"Priya", "I think we are in good shape overall.",
				"Lena", "the team has been working really hard on this.",
				"Priya", "Next sync is Monday at 10:00. Thanks everyone!",
			),
			facts: []string{
				"Atlas release",
				"two open bugs",
				"mockups to Priya on Friday",
				"March 1 is fixed",
				"Wednesday afternoon",
				"ship without the export feature and add it in 1.1",
				"Tom will draft them by Feb 23",
				"$1,200 a month",
				"shut it down after the launch",
				"Monday at 10:00",
			},
			acks: []string{"Thanks Lena.", "That would be great.", "ok", "agreed", "Thanks everyone!", "Makes sense."},
		},
		{
			name: "party",
			msgs: conv(t, "2022-11-03 21:30",
				"user", "My daughter Emma is allergic to peanuts and we're hosting her 7th birthday party.",
				"assistant", "Happy early birthday to Emma! For a peanut-free party, the safest approach is to control every food item yourself. "+
					"Check labels for \"may contain\" warnings, since cross-contamination is the most common problem. "+
					"Ask guests not to bring homemade treats, and keep her epinephrine auto-injector within reach during the party. "+
					"It is also worth telling the other parents in the invitation so they understand why.",
				"user", "The party is on Saturday November 12 at 2pm, about 15 kids.",
				"assistant", "With 15 children, plan for roughly two slices of cake each and some extra snacks. "+
					"A simple timeline helps: arrival and free play, one or two games, cake, then presents. "+
					"Keep the whole thing to about two hours, as younger children get tired.",
				"user", "Good idea. We ordered a cake from Sweet Bee Bakery, they confirmed it's made in a nut-free kitchen.",
				"assistant", "That's ideal. Keep the bakery's confirmation in writing in case you need to check ingredients later.",
				"user", "thanks!",
				"user", "Also her best friend Noah can't have dairy.",
				"assistant", "Then pick a dairy-free ice cream or sorbet so Noah can join in. Many sorbets are both nut-free and dairy-free, but read the label.",
				"user", "perfect, I'll get mango sorbet.",
				"assistant", "Sounds good. Have a wonderful party!",
			),
			facts: []string{
				"Emma is allergic to peanuts",
				"7th birthday party",
				"Saturday November 12 at 2pm, about 15 kids",
				"Sweet Bee Bakery, they confirmed it's made in a nut-free kitchen",
				"Noah can't have dairy",
				"I'll get mango sorbet",
			},
			acks: []string{"thanks!", "Sounds good.", "Good idea."},
		},
	}
}
