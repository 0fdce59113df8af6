package recall

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/infmem/infmem/internal/facts"
)

type simRes struct {
	Gold bool
	Conf float64
	Ev   struct{ Cosine, Coverage, Score float64 }
	Text string
}
type simQ struct {
	Set, ID, Kind, Text string
	Nothing             bool
	Results             []simRes
}

func TestZZSim(t *testing.T) {
	f := os.Getenv("SIMDUMP")
	if f == "" {
		t.Skip()
	}
	fh, _ := os.Open(f)
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<24), 1<<24)
	for sc.Scan() {
		var q simQ
		json.Unmarshal(sc.Bytes(), &q)
		if len(q.Results) < 2 {
			continue
		}
		kinds, digits := askedKinds(q.Text)
		if os.Getenv("SIMWHERE") != "" && kinds == nil {
			kinds = whereKinds(q.Text)
		}
		if kinds == nil {
			continue
		}
		g := func(s string) []string {
			var o []string
			for _, k := range kinds {
				if gives(s, k, digits) {
					o = append(o, string(k))
				}
			}
			return o
		}
		lead := g(q.Results[0].Text)
		var tags []string
		for i, r := range q.Results[:min(5, len(q.Results))] {
			m := " "
			if r.Gold {
				m = "*"
			}
			tags = append(tags, fmt.Sprintf("   %d%s %v sc=%.2f cov=%.2f cos=%.2f conf=%.2f %.80s", i, m, g(r.Text), r.Ev.Score, r.Ev.Coverage, r.Ev.Cosine, r.Conf, r.Text))
		}
		// interesting: leader gives none of the kinds
		if len(lead) == 0 {
			fmt.Printf("== %s %s %s %v %v :: %s\n", q.Set, q.ID, q.Kind, kinds, q.Nothing, q.Text)
			for _, s := range tags {
				fmt.Println(s)
			}
		}
		_ = slices.Contains[[]string]
		_ = facts.Date
	}
}

func whereKinds(q string) []facts.Kind {
	toks := thingWord.FindAllString(strings.ToLower(q), -1)
	if len(toks) < 3 {
		return nil
	}
	if toks[0] == "where" || toks[0] == "where's" {
		return []facts.Kind{facts.Place}
	}
	for _, w := range toks {
		if w == "address" {
			return []facts.Kind{facts.Place}
		}
	}
	return nil
}
