package timephrase

import (
	"reflect"
	"strings"
	"testing"
)

// TestEveryRuleMatchesItsExamples keeps the rule table honest: every rule
// has examples, and each example is matched whole by that rule.
func TestEveryRuleMatchesItsExamples(t *testing.T) {
	examples := map[string][]string{
		"relative day":           {"today", "the day before yesterday", "day after tomorrow"},
		"part of today":          {"this morning", "in the evening", "tonight", "last night"},
		"calendar unit":          {"last week", "this past month", "next year"},
		"past unit":              {"the past week", "past month", "the last year", "last hour"},
		"past count":             {"the past 3 days", "last two weeks", "within the last 24 hours", "within 3 days", "the last few days"},
		"ago":                    {"3 days ago", "an hour ago", "a couple of weeks back", "a few months ago"},
		"from now":               {"in 3 days", "in a week", "two months from now"},
		"weekend":                {"weekend", "last weekend", "this past weekend"},
		"weekday":                {"monday", "on tue"},
		"relative weekday":       {"last friday", "this past sunday"},
		"weekday in week":        {"monday of last week", "tuesday next week", "last week monday"},
		"month":                  {"march", "in may", "during sept"},
		"relative month":         {"last march", "next dec"},
		"month and year":         {"march 2023", "mar of 2023"},
		"numeric month":          {"2023-03", "2023/3", "03/2023"},
		"month of relative year": {"march of last year", "june this year"},
		"year":                   {"2023", "the year 1850"},
		"month day":              {"may 5", "may 5th 2023", "may the twenty first"},
		"day month":              {"5 may", "the 5th of may 2023", "twenty-first of june"},
		"month day range":        {"march 1-15", "march 1 to 15 2023"},
		"slash date":             {"5/5", "5/5/2023", "25/12/23"},
		"iso date":               {"2023-03-05", "2023/3/5"},
		"iso datetime":           {"2023-03-05t10", "2023-03-05t10:00:00.5+02:00", "2023-03-05t10:00z"},
		"day of month":           {"the 5th", "on the 31st"},
		"clock":                  {"5pm", "at 5:30 pm", "17:30", "around noon"},
		"now":                    {"now", "right now"},
		"the other day":          {"the other day"},
	}
	c := &ctx{now: laNow(t)}
	for _, r := range simpleRules {
		ex := examples[r.name]
		if len(ex) == 0 {
			t.Errorf("rule %q has no examples", r.name)
		}
		for _, e := range ex {
			toks := tokenize(e)
			ch := newChart(c, toks)
			m, ok := r.find(c, toks, ch.text, ch.offs, 0)
			if !ok || m.end != len(toks) {
				t.Errorf("rule %q does not match all of %q", r.name, e)
			}
		}
		delete(examples, r.name)
	}
	for name := range examples {
		t.Errorf("examples for unknown rule %q", name)
	}
}

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"What did we discuss LAST WEEK?", []string{"what", "did", "we", "discuss", "last", "week"}},
		{"May 5, 2023.", []string{"may", "5", "2023"}},
		{"last week's notes", []string{"last", "week", "notes"}},
		{"5 p.m. on Jan. 5", []string{"5", "pm", "on", "jan", "5"}},
		{"March 1–March 15", []string{"march", "1", "-", "march", "15"}},
		{"2023-03-05T10:00:00.5Z", []string{"2023-03-05t10:00:00.5z"}},
		{"Goal for next year: run; at 10:30: bring", []string{"goal", "for", "next", "year", "run", "at", "10:30", "bring"}},
		{" \t\n", nil},
	} {
		if got := tokenize(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLongPhrase checks that a time reference far into a long sentence is
// still found whole, past the window each rule matches in.
func TestLongPhrase(t *testing.T) {
	now := laNow(t)
	phrase := strings.Repeat("please tell me ", 10) + "what we said on the twenty first of june 2023"
	runTable(t, New(), now, []row{{phrase, "2023-06-21T00:00:00-07:00", "2023-06-22T00:00:00-07:00"}})
}

func TestNearestCentury(t *testing.T) {
	for _, tc := range []struct{ yy, now, want int }{
		{23, 2025, 2023}, {99, 2025, 1999}, {74, 2025, 2074}, {76, 2025, 1976}, {5, 2099, 2105},
	} {
		if got := nearestCentury(tc.yy, tc.now); got != tc.want {
			t.Errorf("nearestCentury(%d, %d) = %d, want %d", tc.yy, tc.now, got, tc.want)
		}
	}
}
