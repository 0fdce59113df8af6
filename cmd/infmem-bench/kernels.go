package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/infmem/infmem/internal/embed"
)

// runKernels compares USE-lite's vectors from this machine's kernel with
// the float32 ones (embed.AMXEnv=off) over the recall sets' texts: on a
// CPU with AMX or AVX512-BF16, how far the bf16 products move each vector.
func runKernels(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("kernels", flag.ContinueOnError)
	sets := fs.String("sets", "locomo,messy,beam,realmem,everyday", "comma-separated recall sets")
	maxMessages := fs.Int("messages", 4000, "at most this many messages of each set (the first ones)")
	maxQuestions := fs.Int("questions", 1500, "at most this many questions of each set (the first ones)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	fast, err := embed.NewUSELite()
	if err != nil {
		return err
	}
	kernel := embed.Kernel()
	old, had := os.LookupEnv(embed.AMXEnv)
	os.Setenv(embed.AMXEnv, "off")
	f32, err := embed.NewUSELite()
	ref := embed.Kernel()
	if had {
		os.Setenv(embed.AMXEnv, old)
	} else {
		os.Unsetenv(embed.AMXEnv)
	}
	if err != nil {
		return err
	}
	fmt.Printf("kernel %s against %s\n", kernel, ref)
	loaded, err := loadSets(*sets, 0)
	if err != nil {
		return err
	}
	allMin, allSum, allN := 2.0, 0.0, 0
	for _, s := range loaded {
		var texts []string
		for _, m := range s.Messages[:min(len(s.Messages), *maxMessages)] {
			texts = append(texts, m.Content)
		}
		nm := len(texts)
		for _, q := range s.Questions[:min(len(s.Questions), *maxQuestions)] {
			texts = append(texts, q.Text)
		}
		a, err := fast.EmbedBatch(ctx, texts)
		if err != nil {
			return err
		}
		b, err := f32.EmbedBatch(ctx, texts)
		if err != nil {
			return err
		}
		lo, sum, n, below := 2.0, 0.0, 0, 0
		for i := range a {
			var d, na, nb float64
			for j := range a[i] {
				d += float64(a[i][j]) * float64(b[i][j])
				na += float64(a[i][j]) * float64(a[i][j])
				nb += float64(b[i][j]) * float64(b[i][j])
			}
			if na == 0 || nb == 0 {
				continue // a text with nothing to embed
			}
			c := d / math.Sqrt(na*nb)
			lo, sum, n = min(lo, c), sum+c, n+1
			if c < 0.9999 {
				below++
			}
		}
		fmt.Printf("%-9s %5d messages + %4d questions: cosine min %.6f, mean %.7f; %d below 0.9999\n",
			s.Name, nm, len(texts)-nm, lo, sum/float64(max(n, 1)), below)
		allMin, allSum, allN = min(allMin, lo), allSum+sum, allN+n
	}
	fmt.Printf("all       %d texts: cosine min %.6f, mean %.7f\n", allN, allMin, allSum/float64(max(allN, 1)))
	return nil
}
