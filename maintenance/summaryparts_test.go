package maintenance

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
)

// diary is a session whose summary keeps many facts: longer than the
// 256-byte memories of the tests below, it is stored in parts.
var diary = []string{
	"The blue kayak is stored in the garage of the Oak Street house.",
	"Martin borrowed the ladder on Saturday and will return it in May.",
	"The water heater was serviced by Hanna from Nordlicht Plumbing.",
	"Our wifi password changed to the name of the first cat plus 1987.",
	"The piano tuner comes every second Thursday at 4 pm.",
	"Aunt Greta's birthday dinner is booked at Trattoria Sole for 8 people.",
	"The spare car key hangs behind the calendar in the pantry.",
	"Jonas switched his football practice to Wednesday evenings.",
	"The roof insurance policy number is RX-4471 with Alpine Mutual.",
	"We agreed to paint the hallway olive green next spring.",
}

// putConversation stores lines as conversation conv of scope, days ago.
func (f *fixture) putConversation(conv, scope string, days int, lines ...string) []string {
	f.t.Helper()
	var ids []string
	for i, l := range lines {
		speaker := "user"
		if i%2 == 1 {
			speaker = "assistant"
		}
		label := fmt.Sprintf("%s#%d", conv, len(f.ids))
		f.put(label, memory.StoreRequest{Content: l, Scope: scope, ConversationID: conv, Speaker: speaker, Source: "conversation",
			Timestamp: daysAgo(days).Add(time.Duration(i) * time.Minute)})
		ids = append(ids, f.ids[label])
	}
	return ids
}

// summaryDocs reads the live summaries of conv from the database.
func (f *fixture) summaryDocs(conv string) []*mongostore.Summary {
	f.t.Helper()
	parts, err := f.eng.ConversationSummaries(f.ctx(), conv)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []*mongostore.Summary
	for _, p := range parts {
		id, _ := parseHex(p.ID)
		s, err := f.store.Summaries.Get(f.ctx(), id)
		if err != nil {
			f.t.Fatal(err)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *mongostore.Summary) int { return a.Part - b.Part })
	return out
}

// checkWhole fails unless sums are the n parts, 1 to n, of one summary
// of the messages refs, which keeps every fact of facts.
func checkWhole(t *testing.T, sums []*mongostore.Summary, refs []string, facts ...string) {
	t.Helper()
	if len(sums) < 2 {
		t.Fatalf("%d summaries; want one summary in parts", len(sums))
	}
	var text strings.Builder
	for i, s := range sums {
		if s.Whole == "" || s.Whole != sums[0].Whole || s.Part != i+1 || s.Parts != len(sums) {
			t.Fatalf("summary %d of %d: whole %q part %d of %d; want part %d of %d of %q", i+1, len(sums), s.Whole, s.Part, s.Parts, i+1, len(sums), sums[0].Whole)
		}
		got := make([]string, len(s.MessageRefs))
		for j, r := range s.MessageRefs {
			got[j] = r.Hex()
		}
		if !slices.Equal(got, refs) {
			t.Fatalf("part %d condenses %v; want %v", s.Part, got, refs)
		}
		text.WriteString(s.SummaryText + "\n")
	}
	for _, fact := range facts {
		if !strings.Contains(text.String(), fact) {
			t.Fatalf("the summary lost %q:\n%s", fact, text.String())
		}
	}
}

// A crash between the parts of a summary leaves some parts stored: the
// next pass must not take the conversation as summarized (archiving its
// messages behind part of a summary) but store the summary whole and drop
// the unfinished parts. The real crash: TestFaultCrashBetweenSummaryParts.
func TestSummaryInPartsIsWholeOrNothing(t *testing.T) {
	f := newFixture(t)
	f.env.Config.Memory.MaxContentBytes = 256
	ids := f.putConversation("diary", "Diary", 300, diary...)
	msgs, err := f.eng.ConversationMessages(f.ctx(), "diary")
	if err != nil || len(msgs) != len(diary) {
		t.Fatalf("messages: %d %v", len(msgs), err)
	}
	// What a crash after the first of three parts leaves.
	cut, err := f.eng.AddSummary(f.ctx(), memory.SummaryInput{ConversationID: "diary", Scope: "Diary", Method: "extractive",
		Text: "The blue kayak is stored in the garage of the Oak Street house.", Refs: ids,
		From: msgs[0].Timestamp, To: msgs[len(msgs)-1].Timestamp, Whole: bson.NewObjectID().Hex(), Part: 1, Parts: 3})
	if err != nil {
		t.Fatal(err)
	}

	rep, err := f.env.Summarize(f.ctx(), false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts["unfinished_summary_parts_dropped"] != 1 || rep.Counts["messages_archived"] != 8+len(diary) {
		t.Fatalf("report: %+v", rep.Counts)
	}
	sums := f.summaryDocs("diary")
	for _, s := range sums {
		if s.ID.Hex() == cut {
			t.Fatalf("the unfinished part %s is still there beside the whole summary", cut)
		}
	}
	checkWhole(t, sums, ids, "RX-4471", "Trattoria Sole", "olive green", "Nordlicht Plumbing")
	for _, id := range ids {
		if m, err := f.eng.Get(f.ctx(), id); err != nil || !m.Archived {
			t.Fatalf("message %s not archived behind the whole summary: %+v %v", id, m, err)
		}
	}

	// A second pass has nothing left to do.
	again, err := f.env.Summarize(f.ctx(), false)
	if err != nil || again.Counts["conversations_summarized"] != 0 || again.Counts["messages_archived"] != 0 {
		t.Fatalf("second pass: %+v %v", again.Counts, err)
	}
	if n := len(f.summaryDocs("diary")); n != len(sums) {
		t.Fatalf("%d summaries after the second pass; want %d", n, len(sums))
	}
}

// A message that joins a conversation after its summary is summarized
// before it is archived: the summary does not cover it.
func TestLateMessageIsSummarizedBeforeArchiving(t *testing.T) {
	f := newFixture(t)
	if _, err := f.env.Summarize(f.ctx(), false); err != nil {
		t.Fatal(err)
	}
	before := f.summaryDocs("trip-2023")
	if len(before) != 1 {
		t.Fatalf("%d summaries of trip-2023", len(before))
	}
	f.put("late", memory.StoreRequest{Content: "We also rented a yellow Vespa from Lisboa Moto for the whole week.", Scope: "Travel",
		ConversationID: "trip-2023", Speaker: "user", Source: "conversation", Timestamp: daysAgo(600).Add(time.Hour)})
	rep, err := f.env.Summarize(f.ctx(), false)
	if err != nil || rep.Counts["conversations_summarized"] != 1 || rep.Counts["messages_archived"] != 1 {
		t.Fatalf("report: %+v %v", rep.Counts, err)
	}
	after := f.summaryDocs("trip-2023")
	if len(after) != 2 {
		t.Fatalf("%d summaries of trip-2023 after the late message; want 2", len(after))
	}
	var late *mongostore.Summary
	for _, s := range after {
		if s.ID != before[0].ID {
			late = s
		}
	}
	if late == nil || len(late.MessageRefs) != 1 || late.MessageRefs[0].Hex() != f.ids["late"] || !strings.Contains(late.SummaryText, "Vespa") {
		t.Fatalf("the late message's summary: %+v", late)
	}
	if !f.get("late").Archived {
		t.Fatal("the late message was not archived after its summary")
	}
}
