package summarize

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/facts"
)

// TestOllamaLiveKeepsDetails checks a real model the way the extractive
// summarizer is checked: it runs only where an Ollama endpoint answers
// (INFMEM_OLLAMA_URL, default http://127.0.0.1:11434) and a model is named
// (INFMEM_OLLAMA_MODEL); elsewhere it is skipped (the development machine
// has no Ollama). Each fixture, with its turns stored as "Name: text" as
// clients store them, is summarized by the model; a summary it writes must
// not repeat a speaker label and must state every detail (number, amount,
// date, time, name: internal/facts) of the fixture's fact sentences it
// keeps, or fall back to the extractive summary. The share of fact
// sentences whose details the model's summary states is logged: the
// measure infmem-bench aged --summarizer ollama reports on whole sets.
func TestOllamaLiveKeepsDetails(t *testing.T) {
	model := os.Getenv("INFMEM_OLLAMA_MODEL")
	url := os.Getenv("INFMEM_OLLAMA_URL")
	if url == "" {
		url = DefaultOllamaURL
	}
	o := NewOllama(url, model, NewExtractive(nil, ExtractiveOptions{}), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	err := o.Ping(ctx)
	cancel()
	if model == "" || err != nil {
		t.Skipf("no Ollama model to check (INFMEM_OLLAMA_MODEL %q, %s: %v)", model, url, err)
	}
	var kept, total int
	for _, f := range fixtures(t) {
		msgs := slices.Clone(f.msgs)
		for i := range msgs {
			msgs[i].Text = msgs[i].Speaker + ": " + msgs[i].Text
		}
		s, err := o.Summarize(context.Background(), msgs)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		t.Logf("%s (%s):\n%s", f.name, s.Method, s.Text)
		for _, m := range msgs {
			if sp := m.Speaker + ": " + m.Speaker + ":"; strings.Contains(s.Text, sp) {
				t.Errorf("%s: the summary repeats the label %q", f.name, sp)
			}
		}
		if !strings.HasPrefix(s.Method, "ollama:") {
			continue
		}
		in := facts.Extract(s.Text)
		for _, sents := range FactSentences(msgs) {
			for _, x := range sents {
				total++
				d := facts.Extract(x)
				all := true
				for _, k := range []facts.Kind{facts.Number, facts.Amount, facts.Date, facts.Time, facts.Name} {
					for _, v := range d.Of(k) {
						all = all && slices.Contains(in.Of(k), v)
					}
				}
				if all {
					kept++
				}
			}
		}
	}
	if total > 0 {
		t.Logf("the model's summaries state every detail of %d of %d fact sentences (%.0f %%)", kept, total, 100*float64(kept)/float64(total))
	}
}
