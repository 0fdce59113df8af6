package diskfree

import "testing"

func TestStat(t *testing.T) {
	s, err := Stat(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if s.Total == 0 || s.Free > s.Total {
		t.Fatalf("implausible: %+v", s)
	}
	if _, err := Stat("/does/not/exist/anywhere"); err == nil {
		t.Fatal("no error for a missing directory")
	}
}
