package summarize

import (
	"slices"
	"testing"
)

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"blank lines", "\n  \n", nil},
		{"one", "Hello there", []string{"Hello there"}},
		{"three terminators", "We leave at noon. Are you coming? Great!", []string{"We leave at noon.", "Are you coming?", "Great!"}},
		{"newlines", "first line\nsecond line", []string{"first line", "second line"}},
		{"crlf", "first line\r\nsecond line", []string{"first line", "second line"}},
		{"decimal", "It costs 3.50 euros. Cheap.", []string{"It costs 3.50 euros.", "Cheap."}},
		{"time with dot", "Meet at 10.30 tomorrow. Bring coffee.", []string{"Meet at 10.30 tomorrow.", "Bring coffee."}},
		{"title", "Dr. Smith said no. Mrs. Jones agreed.", []string{"Dr. Smith said no.", "Mrs. Jones agreed."}},
		{"e.g.", "Bring snacks, e.g. chips and nuts. Also water.", []string{"Bring snacks, e.g. chips and nuts.", "Also water."}},
		{"i.e.", "The cheap one, i.e. the red tent. Done.", []string{"The cheap one, i.e. the red tent.", "Done."}},
		{"url", "See https://example.com/trip.html for details. Thanks.", []string{"See https://example.com/trip.html for details.", "Thanks."}},
		{"url at end", "Docs are at https://example.com/a.b. Read them.", []string{"Docs are at https://example.com/a.b.", "Read them."}},
		{"email", "Write to bob@example.com. He answers fast.", []string{"Write to bob@example.com.", "He answers fast."}},
		{"p.m. mid sentence", "The call is at 3 p.m. on Friday.", []string{"The call is at 3 p.m. on Friday."}},
		{"p.m. at end", "The call is at 3 p.m. Bring notes.", []string{"The call is at 3 p.m.", "Bring notes."}},
		{"etc. at end", "Pack socks, shirts etc. Then sleep.", []string{"Pack socks, shirts etc.", "Then sleep."}},
		{"etc. mid", "Pack socks, shirts etc. and then sleep.", []string{"Pack socks, shirts etc. and then sleep."}},
		{"initial", "J. R. Smith wrote it. Read it.", []string{"J. R. Smith wrote it.", "Read it."}},
		{"no. with number", "Room No. 5 is ours. Nice.", []string{"Room No. 5 is ours.", "Nice."}},
		{"no. as answer", "No. I can't make it.", []string{"No.", "I can't make it."}},
		{"month abbreviation", "Due Jan. 15 at the latest. OK.", []string{"Due Jan. 15 at the latest.", "OK."}},
		{"list markers", "1. Buy tickets\n2. Book hotel", []string{"1. Buy tickets", "2. Book hotel"}},
		{"bullets", "- tent\n* stove\n• maps", []string{"tent", "stove", "maps"}},
		{"quote closer", `He said "stop." Then he left.`, []string{`He said "stop."`, "Then he left."}},
		{"paren closer", "We agreed (finally.) Next topic.", []string{"We agreed (finally.)", "Next topic."}},
		{"interrobang", "Really?! Yes.", []string{"Really?!", "Yes."}},
		{"ellipsis trailing", "Well... maybe later.", []string{"Well... maybe later."}},
		{"ellipsis new sentence", "I thought so... But no.", []string{"I thought so...", "But no."}},
		{"unicode ellipsis", "Hmm… Fine.", []string{"Hmm…", "Fine."}},
		{"version", "Upgrade to v1.2.3 today. It fixes the bug.", []string{"Upgrade to v1.2.3 today.", "It fixes the bug."}},
		{"emoji only dropped", "👍\nsee you", []string{"see you"}},
		{"dots only dropped", "...", nil},
		{"U.S. at end", "She moved to the U.S. Last year.", []string{"She moved to the U.S.", "Last year."}},
		{"U.S. mid", "The U.S. office closes early.", []string{"The U.S. office closes early."}},
		{"lowercase chat", "ok. i'll book it. thanks", []string{"ok.", "i'll book it.", "thanks"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitSentences(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("splitSentences(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}
