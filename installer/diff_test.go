package installer

import (
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	if d := unifiedDiff("a", "b", "same\n", "same\n"); d != "" {
		t.Errorf("equal inputs gave %q", d)
	}
	var a, b []string
	for i := 1; i <= 20; i++ {
		a = append(a, "line")
		b = append(b, "line")
	}
	a[1], b[1] = "old 2", "new 2"
	a[17], b[17] = "old 18", "new 18"
	got := unifiedDiff("a", "b", strings.Join(a, "\n")+"\n", strings.Join(b, "\n")+"\n")
	want := `--- a
+++ b
@@ -1,5 +1,5 @@
 line
-old 2
+new 2
 line
 line
 line
@@ -15,6 +15,6 @@
 line
 line
 line
-old 18
+new 18
 line
 line
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	got = unifiedDiff("a", "b", "", "x")
	if want := "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+x\n\\ No newline at end of file\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
