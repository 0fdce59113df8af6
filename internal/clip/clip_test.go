package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	if got := Text("short"); got != "short" {
		t.Fatal(got)
	}
	for _, fill := range []string{"a", "Ｗ", "é", "😀"} {
		s := `scope "` + strings.Repeat(fill, 400_000) + `" is not one; hint: use Work`
		got := Text(s)
		if len(got) > Max || !utf8.ValidString(got) || !strings.HasPrefix(got, `scope "`) || !strings.HasSuffix(got, "hint: use Work") || !strings.Contains(got, "bytes cut]") {
			t.Fatalf("%q: %d bytes, valid %v: %.80q … %.80q", fill, len(got), utf8.ValidString(got), got, got[len(got)-80:])
		}
	}
}
