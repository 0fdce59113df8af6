package facts

import "testing"

// BenchmarkParse: facts.Parse of texts of a memory's usual length (what
// a store's update check parses for each candidate not cached).
func BenchmarkParse(b *testing.B) {
	texts := []string{
		"I sent my will to the probate court online last week and I'd like to know what happens next in the process here in Montserrat.",
		"I'm a bit anxious about probate, so could you explain how the process got shortened to 5-7 months and what that changes for my estate plan?",
		"My attorney walked me through the probate timeline, which usually takes 6-9 months in Montserrat, and I want to prepare for it.",
		"Caroline: I moved the team offsite from Lisbon to Porto, and the budget is now $4,500 instead of $3,000; Priya owns the plan.",
		"The new e-filing system for probate court papers launched on 2026-10-01.",
		"My estate attorney is retiring in March, so I need to find a new one to keep my estate plan in order.",
		"Melanie: We went camping at the lake on 12/6/2024 with the kids and it rained all weekend, but we still had a great time.",
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range texts {
			Parse(t)
		}
	}
}
