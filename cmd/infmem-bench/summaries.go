package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/summarize"
)

// runSummaries measures the extractive summaries of every session of the
// recall sets without storing anything (issue 25 item 3): each session
// (a set's conversation) is summarized as the nightly pass would, and of
// its fact sentences (dated, numbered, named or decided:
// summarize.FactSentences) the share the summary keeps, the share of gold
// messages all of whose fact sentences it keeps, the summaries' length
// beside their sessions', and how many are longer than
// memory.max_content_bytes (stored in parts). --fact-chars gives the old
// bound (3,600: 3 × the default 1,200) for a before/after.
func runSummaries(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("summaries", flag.ContinueOnError)
	setList := fs.String("sets", "locomo,beam,realmem", "comma-separated sets (name or name=path)")
	fs.StringVar(&datasetsDir, "datasets", datasetsDir, "folder of the shared datasets")
	model := fs.String("embedding", "use-lite", "embedding model of the summarizer's centrality: use-lite, hash or none (with no fact bound every fact sentence is kept whatever the model)")
	factChars := fs.Int("fact-chars", 0, "ExtractiveOptions.FactChars (0: no bound, the default; 3600: the bound before)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	emb, err := embed.New(*model)
	if err != nil {
		return err
	}
	sum := summarize.NewExtractive(emb, summarize.ExtractiveOptions{FactChars: *factChars})
	limit := config.Defaults().Memory.MaxContentBytes
	fmt.Printf("extractive summaries of every session (embedding %s, FactChars %d)\n", *model, *factChars)
	sets, err := loadSets(*setList, 0)
	if err != nil {
		return err
	}
	for _, s := range sets {
		gold := map[string]bool{}
		for _, q := range s.Questions {
			for g := range q.Gold {
				gold[g] = true
			}
		}
		byConv := map[string][]int{}
		var convs []string
		for i, m := range s.Messages {
			if m.Conv == "" {
				continue
			}
			if _, ok := byConv[m.Conv]; !ok {
				convs = append(convs, m.Conv)
			}
			byConv[m.Conv] = append(byConv[m.Conv], i)
		}
		start := time.Now()
		var facts, factsKept, goldN, goldKept, chars, sessChars, over, doubled int
		var sizes []int
		for _, conv := range convs {
			if err := ctx.Err(); err != nil {
				return err
			}
			idx := byConv[conv]
			msgs := make([]summarize.Message, len(idx))
			for k, i := range idx {
				m := s.Messages[i]
				msgs[k] = summarize.Message{Text: m.Content, Speaker: m.Speaker, Timestamp: m.TS}
				sessChars += utf8.RuneCountInString(m.Content)
			}
			out, err := sum.Summarize(ctx, msgs)
			if err != nil {
				return fmt.Errorf("%s: %w", conv, err)
			}
			chars += utf8.RuneCountInString(out.Text)
			sizes = append(sizes, len(out.Text))
			if len(out.Text) > limit {
				over++
			}
			if hasDoubledLabel(out.Text) {
				doubled++
			}
			folded := strings.Join(strings.Fields(out.Text), " ")
			for k, ss := range summarize.FactSentences(msgs) {
				all := true
				for _, x := range ss {
					facts++
					if strings.Contains(folded, strings.Join(strings.Fields(x), " ")) {
						factsKept++
					} else {
						all = false
					}
				}
				if gold[s.Messages[idx[k]].ID] {
					goldN++
					if all {
						goldKept++
					}
				}
			}
		}
		slices.Sort(sizes)
		q := func(p float64) int {
			if len(sizes) == 0 {
				return 0
			}
			return sizes[int(p*float64(len(sizes)-1))]
		}
		fmt.Printf("%-8s %d sessions in %v: summaries %.0f %% of their sessions' length (bytes p50 %d, p99 %d, max %d; %d over max_content_bytes %d, stored in parts); fact sentences kept %d of %d (%.1f %%); gold messages with every fact sentence kept %d of %d (%.1f %%); doubled speaker labels %d\n",
			s.Name, len(convs), time.Since(start).Round(time.Second), 100*float64(chars)/float64(max(sessChars, 1)), q(.5), q(.99), q(1), over, limit,
			factsKept, facts, share100(factsKept, facts), goldKept, goldN, share100(goldKept, goldN), doubled)
	}
	return nil
}
