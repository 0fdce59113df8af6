package testenv

import (
	"strings"
	"testing"
	"time"
)

// TestLimitScales: a test's context lasts a minute, five under the race
// detector (the heaviest tests of the embedded engine took over a minute
// under it on two busy cores), times INFMEM_TEST_TIME_SCALE; a bad scale is
// an error, not ignored; the context ends before go test's -timeout.
func TestLimitScales(t *testing.T) {
	want := time.Minute
	if raceEnabled {
		want = 5 * time.Minute
	}
	if got, err := Limit(); err != nil || got != want {
		t.Fatalf("limit: %v %v, want %v", got, err, want)
	}
	start := time.Now()
	end, ok := Context(t).Deadline()
	wantEnd := start.Add(want)
	if capped, has := t.Deadline(); has && capped.Add(-deadlineMargin).Before(wantEnd) {
		wantEnd = capped.Add(-deadlineMargin)
	}
	if d := end.Sub(wantEnd); !ok || d < 0 || d > 5*time.Second {
		t.Fatalf("context ends at %v, want %v", end, wantEnd)
	}

	t.Setenv(EnvTimeScale, "2.5")
	if got, err := Limit(); err != nil || got != want*5/2 {
		t.Fatalf("limit at scale 2.5: %v %v, want %v", got, err, want*5/2)
	}
	for _, bad := range []string{"0", "-1", "fast", "NaN", "+Inf"} {
		t.Setenv(EnvTimeScale, bad)
		if got, err := Limit(); err == nil || !strings.Contains(err.Error(), EnvTimeScale) {
			t.Errorf("scale %q: %v %v, want an error naming %s", bad, got, err, EnvTimeScale)
		}
	}
}
