package recall

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkCurrentFirst: what CurrentFirst costs a retrieve of ten
// conversation turns for a question about a value as it stands now (a
// pair the store did not link, the earlier below a turn stating none).
func BenchmarkCurrentFirst(b *testing.B) {
	day := func(n int) time.Time { return time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC).AddDate(0, 0, n) }
	texts := []string{
		"I sent my will to the probate court online last week and I'd like to know what happens next in the process here in Montserrat.",
		"I'm a bit anxious about probate, so could you explain how the process got shortened to 5-7 months and what that changes for my estate plan?",
		"I'm a bit anxious about the probate process taking 6-9 months in Montserrat, so I want my documents ready early to keep it smooth.",
		"My attorney walked me through the probate timeline, which usually takes 6-9 months in Montserrat, and I want to prepare for it.",
		"Montserrat needs the probate court to approve changes of guardianship, my attorney confirmed, so what should I do next?",
		"What is the best way to get the notarized affidavits for guardianship ready so the probate court approves them sooner?",
		"The new e-filing system for probate court papers launched in October.",
		"My estate attorney is retiring in March, so I need to find a new one to keep my estate plan in order.",
		"I updated my will digitally with an online tool because it makes later edits easy.",
		"Should I keep paper copies of my will along with the digital one?",
	}
	at := []int{300, 2, 1, 0, 100, 101, 190, 191, 3, 4}
	res := make([]Said, len(texts))
	for i, t := range texts {
		res[i] = Said{Text: t, At: day(at[i]), ID: fmt.Sprintf("%024x", i)}
	}
	const q = "How long does the probate process usually take in Montserrat?"
	if from, to := CurrentFirst(q, res); from != 1 || to != 0 {
		b.Fatalf("CurrentFirst = %d, %d; want 1, 0", from, to)
	}
	b.ReportAllocs()
	for b.Loop() {
		CurrentFirst(q, res)
	}
}
