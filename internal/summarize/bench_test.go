package summarize

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// longConversation is the three fixtures repeated n times, every sentence
// of each copy made distinct so repeats are not dropped: 55 messages and
// about 100 sentences per copy.
func longConversation(b *testing.B, n int) []Message {
	var msgs []Message
	for i := range n {
		for _, f := range fixtures(b) {
			for _, m := range f.msgs {
				// A word, not a digit, so the tag adds no fact.
				tag := " take " + strings.Repeat("x", i+1)
				body := strings.TrimRight(m.Text, ".?!")
				m.Text = strings.NewReplacer(". ", tag+". ", "? ", tag+"? ", "! ", tag+"! ").Replace(body) + tag + m.Text[len(body):]
				msgs = append(msgs, m)
			}
		}
	}
	return msgs
}

func BenchmarkExtractive(b *testing.B) {
	for _, e := range embedders(b) {
		for _, copies := range []int{1, 10} {
			msgs := longConversation(b, copies)
			b.Run(fmt.Sprintf("%s/%dmsgs", e.name, len(msgs)), func(b *testing.B) {
				x := NewExtractive(e.e, ExtractiveOptions{})
				for b.Loop() {
					if _, err := x.Summarize(context.Background(), msgs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
