package main

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/infmem/infmem/cmd/infmem-bench/internal/messy"
)

// The loaders read the shared datasets as their READMEs say; skipped where
// the datasets are not present.
func TestRecallSetsLoad(t *testing.T) {
	if _, err := os.Stat(datasetsDir); err != nil {
		t.Skip("no datasets at", datasetsDir)
	}
	want := map[string][2]int{ // messages, answerable questions at least
		"locomo": {2700, 700}, "messy": {2700, 700}, "beam": {5700, 300}, "realmem": {14000, 1300}, "everyday": {100, 90}, "everyday2": {60, 60}, "everyday3": {60, 60}, "everyday4": {40, 40}, "everyday5": {60, 60}, "everyday6": {60, 60}, "everyday7": {60, 60}, "everyday8": {60, 60}, "everyday9": {60, 60}, "everyday10": {60, 60}, "everyday11": {60, 60}, "everyday12": {60, 60}, "everyday13": {60, 60}, "everyday14": {60, 60}, "everyday15": {60, 60}, "everyday16": {60, 60}, "everyday-terse": {50, 60},
	}
	for name, w := range want {
		s, err := loadSet(name)
		if err != nil {
			t.Fatal(err)
		}
		ans, abst := 0, 0
		for _, q := range s.Questions {
			if q.Abstain {
				abst++
			} else {
				ans++
			}
		}
		t.Logf("%s: %d messages, %d answerable, %d abstention", name, len(s.Messages), ans, abst)
		if len(s.Messages) < w[0] || ans < w[1] {
			t.Errorf("%s: %d messages, %d answerable questions; want at least %v", name, len(s.Messages), ans, w)
		}
	}
}

// The messy set is the same every time for a seed, and differs for another.
func TestMessySetReproducible(t *testing.T) {
	if _, err := os.Stat(datasetsDir); err != nil {
		t.Skip("no datasets at", datasetsDir)
	}
	a, err := loadSet("messy")
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadSet("messy")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Messages, b.Messages) || !reflect.DeepEqual(a.Questions, b.Questions) {
		t.Fatal("two loads of the messy set differ")
	}
	defer func(s uint64) { messy.Seed = s }(messy.Seed)
	messy.Seed++
	c, err := loadSet("messy")
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Messages, c.Messages) {
		t.Fatal("another seed gives the same messy set")
	}
	for i := 0; i < 400; i += 37 {
		t.Logf("%s", a.Messages[i].Content)
	}
	for i := 0; i < 400; i += 37 {
		t.Logf("Q %s", a.Questions[i].Text)
	}
}

func TestPyLiteral(t *testing.T) {
	for in, want := range map[string][]string{
		`[86, 114]`: {"86", "114"},
		`"{'original_info': [86], 'updated_info': [114, [115]]}"`: {"86", "114", "115"},
		`"[1, 2]"`:           {"1", "2"},
		`["ab12", "cd"]`:     {"ab12", "cd"},
		`"['ab12']"`:         {"ab12"},
		`null`:               nil,
		`"chat_id: 58"`:      {"58"},
		`{"a": [3], "b": 4}`: {"3", "4"},
	} {
		v, err := pyLiteral([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := flattenIDs(v); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

// The built-in everyday sets load whole without the shared datasets: every
// memory kept, every answerable question's answers among the memories,
// every never-stored question asked, each set under its own name.
func TestEverydaySetsLoad(t *testing.T) {
	want := map[string][3]int{"everyday": {115, 103, 25}, "everyday2": {62, 65, 25}, "everyday3": {60, 63, 25}, "everyday4": {44, 42, 20}, "everyday5": {66, 63, 25}, "everyday6": {68, 66, 25}, "everyday7": {62, 65, 25}, "everyday8": {62, 71, 25}, "everyday9": {64, 76, 25}, "everyday10": {64, 79, 25}, "everyday11": {66, 77, 25}, "everyday12": {61, 73, 25}, "everyday13": {61, 75, 25}, "everyday14": {60, 71, 25}, "everyday15": {62, 74, 25}, "everyday16": {61, 75, 25}, "everyday-terse": {52, 63, 25}, "everyday-mixed": {45, 55, 15}, "everyday-mixed2": {45, 56, 15}, "everyday-shorthand": {15, 17, 5}, "everyday-related": {58, 64, 24}, "everyday-absent": {64, 55, 40}} // memories, answerable, never stored
	for name, w := range want {
		s, err := loadSet(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name != name || s.TopK != 5 {
			t.Errorf("%s: loaded as %q with top_k %d", name, s.Name, s.TopK)
		}
		ids := map[string]bool{}
		for _, m := range s.Messages {
			ids[m.ID] = true
		}
		ans, never := 0, 0
		for _, q := range s.Questions {
			if q.Abstain {
				never++
				continue
			}
			ans++
			for g := range q.Gold {
				if !ids[g] {
					t.Errorf("%s: %q names %q, no memory of the set", name, q.Text, g)
				}
			}
		}
		if got := [3]int{len(s.Messages), ans, never}; got != w {
			t.Errorf("%s: %v memories, answerable, never stored; want %v", name, got, w)
		}
	}
	if _, err := loadSet("everyday2=/nonexistent/everyday2.json"); err == nil {
		t.Error("a missing everyday2 file loaded")
	}
}

// The held-out update sets from the fifth on parse strictly in the fields of
// updates.json: 40 pairs with unique ids and every field given, at least
// 12 look-alikes with both facts, background notes dated in the past.
func TestHeldoutUpdateSetsParse(t *testing.T) {
	for _, f := range []string{"testdata/updates-heldout5.json", "testdata/updates-heldout6.json", "testdata/updates-heldout7.json", "testdata/updates-heldout8.json", "testdata/updates-heldout9.json", "testdata/updates-heldout10.json", "testdata/updates-heldout11.json"} {
		t.Run(f, func(t *testing.T) { checkHeldoutUpdateSet(t, f) })
	}
}

func checkHeldoutUpdateSet(t *testing.T, file string) {
	set := readUpdateFile(t, file)
	if len(set.Pairs) != 40 || len(set.Lookalikes) < 12 || len(set.Background) == 0 {
		t.Errorf("%d pairs, %d look-alikes, %d background notes; want 40, at least 12, some", len(set.Pairs), len(set.Lookalikes), len(set.Background))
	}
}

// readUpdateFile decodes an update file strictly in the fields of
// updates.json and reports every pair, look-alike or background note with
// a field missing.
func readUpdateFile(t *testing.T, file string) updatePairs {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		About string `json:"about"`
		updatePairs
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&set); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, p := range set.Pairs {
		if p.ID == "" || p.Kind == "" || p.Old == "" || p.New == "" || p.Q == "" || p.Old == p.New || ids[p.ID] {
			t.Errorf("pair %q: a field missing, old equal to new, or id repeated", p.ID)
		}
		ids[p.ID] = true
	}
	for _, l := range set.Lookalikes {
		if l.First == "" || l.Second == "" || l.First == l.Second {
			t.Errorf("look-alike %q / %q: a fact missing or both the same", l.First, l.Second)
		}
	}
	for _, b := range set.Background {
		if b.Text == "" || b.DaysAgo <= 0 {
			t.Errorf("background %q: empty or not in the past", b.Text)
		}
	}
	return set.updatePairs
}

// The dev set of the meaning gate's look-alikes (updates10) parses strictly
// in the fields of updates.json: at least 15 true updates said in other
// words, 30 look-alikes, some background notes.
func TestGatelooksUpdateSetParses(t *testing.T) {
	set := readUpdateFile(t, "testdata/updates-gatelooks.json")
	if len(set.Pairs) < 15 || len(set.Lookalikes) < 30 || len(set.Background) == 0 {
		t.Errorf("%d pairs, %d look-alikes, %d background notes; want at least 15, 30, some", len(set.Pairs), len(set.Lookalikes), len(set.Background))
	}
}

// The dev set of the plainest updates (updates11): the same frame said
// again with one value changed, parsed strictly in the fields of
// updates.json: at least 30 pairs, 12 look-alikes, some background notes.
func TestFramesUpdateSetParses(t *testing.T) {
	set := readUpdateFile(t, "testdata/updates-frames.json")
	if len(set.Pairs) < 30 || len(set.Lookalikes) < 12 || len(set.Background) == 0 {
		t.Errorf("%d pairs, %d look-alikes, %d background notes; want at least 30, 12, some", len(set.Pairs), len(set.Lookalikes), len(set.Background))
	}
}

// The dev set of the updates still read as unrelated after FrameRule
// (updates12): a frame reordered, a short subject, a role said another way,
// a time or amount in another form; parsed strictly in the fields of
// updates.json: at least 36 pairs, 14 look-alikes, some background notes.
func TestHardUpdateSetParses(t *testing.T) {
	set := readUpdateFile(t, "testdata/updates-hard.json")
	if len(set.Pairs) < 36 || len(set.Lookalikes) < 14 || len(set.Background) == 0 {
		t.Errorf("%d pairs, %d look-alikes, %d background notes; want at least 36, 14, some", len(set.Pairs), len(set.Lookalikes), len(set.Background))
	}
}
