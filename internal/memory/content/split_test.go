package content

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitText(t *testing.T) {
	for _, c := range []struct {
		text string
		max  int
	}{
		{strings.Repeat("word ", 100), 50},
		{strings.Repeat("Sentence one is here. ", 30), 64},
		{strings.Repeat("x", 300), 64},
		{strings.Repeat("é", 300), 65},
		{"para one\n\npara two\n\n" + strings.Repeat("line\n", 40), 30},
	} {
		parts := Split(c.text, c.max)
		joined := strings.Join(parts, "")
		for _, p := range parts {
			if len(p) > c.max || p == "" || !strings.Contains(c.text, strings.TrimSpace(p)) && !strings.ContainsRune(p, '\n') {
				t.Fatalf("part %q (max %d)", p, c.max)
			}
		}
		if strings.Join(strings.Fields(joined), "") != strings.Join(strings.Fields(c.text), "") {
			t.Fatalf("text lost: %q", parts)
		}
	}
}

// A summary split to the memory size limit (maintenance): each part
// within the limit, valid UTF-8, nothing lost; limit <= 0 or over the
// length: the text whole.
func TestSplitSummary(t *testing.T) {
	text := "Conversation of 3 May 2024 between A and B\nA: " + strings.Repeat("fünf Äpfel ", 30) + "\nB: " + strings.Repeat("ø", 100) + "\nA: ok"
	for _, limit := range []int{0, 5, 17, 64, 200, len(text) - 1, len(text)} {
		parts := Split(text, limit)
		if limit <= 0 || limit >= len(text) {
			if len(parts) != 1 || parts[0] != text {
				t.Errorf("limit %d: %q", limit, parts)
			}
			continue
		}
		for _, p := range parts {
			if len(p) > limit || !utf8.ValidString(p) || p == "" {
				t.Errorf("limit %d: part %q", limit, p)
			}
		}
		if got, want := strings.Join(strings.Fields(strings.Join(parts, "")), ""), strings.Join(strings.Fields(text), ""); got != want {
			t.Errorf("limit %d: parts lose text:\n%q\n%q", limit, got, want)
		}
	}
}
