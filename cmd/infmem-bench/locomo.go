package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// The LoCoMo development split's format (see its README).
type locomoSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []locomoQA                 `json:"qa"`
}

type locomoQA struct {
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
}

type locomoTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
}

var diaIDRe = regexp.MustCompile(`^D\d+:\d+$`)

// runLocomo follows the dataset README's turn-level protocol through the
// memory engine the MCP tools use: every turn stored as "Speaker: text"
// with its session's date, one scope per conversation; every question of
// categories 1–4 retrieved within its scope; Recall@k averaged.
func runLocomo(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("locomo", flag.ContinueOnError)
	dir := fs.String("data-dir", "", "data root to load into (default: a temporary one)")
	modes := fs.String("modes", "keyword,vector,hybrid", "comma-separated ranking modes to report: keyword, vector, hybrid")
	fs.StringVar(&benchModel, "embedding", benchModel, "embedding model: use-lite, hash or none")
	calibrate := fs.Bool("calibrate", false, "fit each mode's confidence model (evidence turns against the best matches in another conversation) and print it")
	crossValidate := fs.Bool("cross-validate", false, "leave one conversation out: choose the sweep grid's best weights on the other conversations, report recall on the one left out")
	sweep := fs.Bool("sweep", false, "report hybrid Recall@k over a grid of ranking weights (see -vector-weights, -neighbor-shares)")
	fs.StringVar(&sweepVW, "vector-weights", "0.5,1,1.5,2", "vector weights to sweep")
	fs.StringVar(&sweepNS, "neighbor-shares", "0.2,0.3,0.4,0.5", "neighbour shares to sweep")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: infmem-bench locomo [flags] FILE")
	}
	raw, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	var samples []locomoSample
	if err := json.Unmarshal(raw, &samples); err != nil {
		return fmt.Errorf("cannot read %s: %w", fs.Arg(0), err)
	}
	if *dir == "" {
		tmp, err := os.MkdirTemp("", "infmem-locomo")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		*dir = filepath.Join(tmp, "root")
	}
	root, err := dataroot.Prepare(*dir)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: root, Logger: log})
	if err != nil {
		return err
	}
	defer store.Close(context.WithoutCancel(ctx))
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		return err
	}
	eng, err := newBenchEngine(ctx, store, reg, log)
	if err != nil {
		return err
	}
	defer eng.Close(context.WithoutCancel(ctx))

	start := time.Now()
	owners := map[string][]string{} // memory id -> dia ids it stands for
	turns := 0
	for _, s := range samples {
		for n := 1; ; n++ {
			key := fmt.Sprintf("session_%d", n)
			body, ok := s.Conversation[key]
			if !ok {
				break
			}
			var when string
			json.Unmarshal(s.Conversation[key+"_date_time"], &when)
			ts, err := time.Parse("3:04 pm on 2 January, 2006", when)
			if err != nil {
				return fmt.Errorf("%s %s: date %q: %w", s.SampleID, key, when, err)
			}
			var list []locomoTurn
			if err := json.Unmarshal(body, &list); err != nil {
				return err
			}
			for _, t := range list {
				res, err := eng.Store(ctx, memory.StoreRequest{
					Content: t.Speaker + ": " + t.Text, Scope: s.SampleID, Timestamp: ts, Source: "conversation",
					ConversationID: s.SampleID + "/" + key, Speaker: t.Speaker,
				})
				if err != nil {
					return fmt.Errorf("store %s: %w", t.DiaID, err)
				}
				owners[res.ID] = append(owners[res.ID], t.DiaID)
				turns++
			}
		}
	}
	fmt.Printf("stored %d turns of %d conversations in %v\n", turns, len(samples), time.Since(start).Round(time.Millisecond))

	if *crossValidate {
		return locomoCrossValidate(ctx, eng, samples, owners)
	}
	if *sweep {
		return locomoSweep(ctx, eng, samples, owners)
	}
	for _, mode := range strings.Split(*modes, ",") {
		mode = strings.TrimSpace(mode)
		if err := locomoRecall(ctx, eng, samples, owners, mode); err != nil {
			return err
		}
		if *calibrate {
			if err := locomoCalibrate(ctx, eng, samples, owners, mode); err != nil {
				return err
			}
		}
	}
	return nil
}

var sweepVW, sweepNS string

func floats(list string) []float64 {
	var out []float64
	for _, f := range strings.Split(list, ",") {
		if v, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// locomoSweep reports hybrid recall over a grid of ranking weights.
func locomoSweep(ctx context.Context, eng *memory.Engine, samples []locomoSample, owners map[string][]string) error {
	base := eng.RankOptions()
	for _, vw := range floats(sweepVW) {
		for _, ns := range floats(sweepNS) {
			o := base
			o.VectorWeight, o.NeighborShare = vw, ns
			eng.SetRankOptions(o)
			fmt.Printf("\n== vector weight %.2f, neighbour share %.2f", vw, ns)
			if err := locomoRecall(ctx, eng, samples, owners, "hybrid"); err != nil {
				return err
			}
		}
	}
	eng.SetRankOptions(base)
	return nil
}

// locomoCrossValidate answers how much the ranking weights owe to being
// tuned on the split they are measured on: for each conversation, the grid
// point with the best R@5 + R@10 on the other conversations is chosen and
// measured on it; the held-out figures are averaged over all questions.
func locomoCrossValidate(ctx context.Context, eng *memory.Engine, samples []locomoSample, owners map[string][]string) error {
	type cell struct {
		vw, ns float64
		n      []int        // questions per conversation
		sum    [][3]float64 // recall sums per conversation
	}
	base := eng.RankOptions()
	defer eng.SetRankOptions(base)
	var grid []*cell
	for _, vw := range floats(sweepVW) {
		for _, ns := range floats(sweepNS) {
			c := &cell{vw: vw, ns: ns, n: make([]int, len(samples)), sum: make([][3]float64, len(samples))}
			o := base
			o.VectorWeight, o.NeighborShare = vw, ns
			eng.SetRankOptions(o)
			for si, smp := range samples {
				for _, q := range smp.QA {
					rec, ok, err := questionRecall(ctx, eng, smp.SampleID, q, owners, "hybrid")
					if err != nil {
						return err
					}
					if ok {
						c.n[si]++
						for i := range rec {
							c.sum[si][i] += rec[i]
						}
					}
				}
			}
			grid = append(grid, c)
		}
	}
	var heldN int
	var held [3]float64
	fmt.Printf("\nleave-one-conversation-out over %d weight pairs\n", len(grid))
	for out := range samples {
		var best *cell
		bestScore := -1.0
		for _, c := range grid {
			n, score := 0, 0.0
			for si := range samples {
				if si != out {
					n += c.n[si]
					score += c.sum[si][1] + c.sum[si][2]
				}
			}
			if score /= float64(max(n, 1)); score > bestScore {
				best, bestScore = c, score
			}
		}
		heldN += best.n[out]
		for i := range held {
			held[i] += best.sum[out][i]
		}
		n := float64(max(best.n[out], 1))
		fmt.Printf("  %-8s chose vector weight %.2f, neighbour share %.2f: held out R@1 %.1f%%, R@5 %.1f%%, R@10 %.1f%% (%d questions)\n",
			samples[out].SampleID, best.vw, best.ns, 100*best.sum[out][0]/n, 100*best.sum[out][1]/n, 100*best.sum[out][2]/n, best.n[out])
	}
	n := float64(max(heldN, 1))
	fmt.Printf("  held out, all %d questions: R@1 %.1f%%, R@5 %.1f%%, R@10 %.1f%%\n", heldN, 100*held[0]/n, 100*held[1]/n, 100*held[2]/n)
	return nil
}

// locomoCalibrate fits P(relevant | evidence) for one mode. Positives are
// the evidence turns a question retrieves in its own conversation (top 50);
// negatives are the three best matches for the same question in another
// conversation: on-topic against the most plausible off-topic memories,
// which is the line the relevance bar has to draw.
func locomoCalibrate(ctx context.Context, eng *memory.Engine, samples []locomoSample, owners map[string][]string, mode string) error {
	var data []sample
	var firsts []struct{ own, other *memory.Evidence }
	for si, s := range samples {
		other := samples[(si+1)%len(samples)].SampleID
		for _, qa := range s.QA {
			if qa.Category == 5 {
				continue
			}
			evidence := evidenceSet(qa.Evidence)
			if len(evidence) == 0 {
				continue
			}
			res, err := eng.Search(ctx, memory.SearchRequest{Query: qa.Question, Scope: s.SampleID, ExactScope: true, Limit: 50, Mode: mode, KeepWeak: true})
			if err != nil {
				return err
			}
			var first struct{ own, other *memory.Evidence }
			for i, r := range res.Results {
				if i == 0 {
					first.own = r.Evidence
				}
				for _, d := range owners[r.ID] {
					if evidence[d] && r.Evidence != nil {
						data = append(data, sample{x: features(mode, r.Evidence), relevant: true})
						break
					}
				}
			}
			neg, err := eng.Search(ctx, memory.SearchRequest{Query: qa.Question, Scope: other, ExactScope: true, Limit: 3, Mode: mode, KeepWeak: true})
			if err != nil {
				return err
			}
			for i, r := range neg.Results {
				if i == 0 {
					first.other = r.Evidence
				}
				if r.Evidence != nil {
					data = append(data, sample{x: features(mode, r.Evidence), relevant: false})
				}
			}
			firsts = append(firsts, first)
		}
	}
	w := fitLogistic(data)
	fmt.Printf("\nconfidence fit for %s on %d results: bias %.3f, weights %.3f (features %s); Brier %.4f\n",
		mode, len(data), w[0], w[1:], featureNames[mode], brier(data, w))
	reliability(data, w)
	// What a bar does with this fit: questions still answered in their own
	// conversation, and questions asked of the wrong one that get nothing.
	for _, bar := range []float64{0.3, 0.4, 0.5, 0.6} {
		kept, rejected := 0, 0
		for _, f := range firsts {
			if f.own != nil && prob(w, features(mode, f.own)) >= bar {
				kept++
			}
			if f.other == nil || prob(w, features(mode, f.other)) < bar {
				rejected++
			}
		}
		fmt.Printf("  bar %.1f: top result kept for %.1f%% of questions in their conversation, nothing returned for %.1f%% asked of another\n",
			bar, 100*float64(kept)/float64(len(firsts)), 100*float64(rejected)/float64(len(firsts)))
	}
	return nil
}

func prob(w, x []float64) float64 {
	z := w[0]
	for j, v := range x {
		z += w[j+1] * v
	}
	return 1 / (1 + math.Exp(-z))
}

func evidenceSet(ids []string) map[string]bool {
	evidence := map[string]bool{}
	for _, e := range ids {
		for _, part := range strings.Split(e, ";") {
			if part = strings.TrimSpace(part); diaIDRe.MatchString(part) {
				evidence[part] = true
			}
		}
	}
	return evidence
}

// featureNames lists, per mode, the evidence features the confidence
// model of that mode uses, in memory.confidence's order.
var featureNames = map[string]string{
	"hybrid":  "cosine, coverage, neighbour cosine, neighbour coverage",
	"vector":  "cosine, neighbour cosine",
	"keyword": "coverage, neighbour coverage",
}

func features(mode string, ev *memory.Evidence) []float64 {
	switch mode {
	case "vector":
		return []float64{ev.Cosine, ev.NeighborCosine}
	case "keyword":
		return []float64{ev.Coverage, ev.NeighborCoverage}
	}
	return []float64{ev.Cosine, ev.Coverage, ev.NeighborCosine, ev.NeighborCoverage}
}

// locomoKs are the k of the reported Recall@k.
var locomoKs = [3]int{1, 5, 10}

// questionRecall retrieves the top 10 for one question within its
// conversation's scope and returns Recall@1, @5 and @10; ok is false for
// questions the protocol skips (adversarial, or no usable evidence).
func questionRecall(ctx context.Context, eng *memory.Engine, scope string, q locomoQA, owners map[string][]string, mode string) (rec [3]float64, ok bool, err error) {
	if q.Category == 5 {
		return rec, false, nil
	}
	evidence := evidenceSet(q.Evidence)
	if len(evidence) == 0 {
		return rec, false, nil
	}
	res, err := eng.Search(ctx, memory.SearchRequest{
		Query: q.Question, Scope: scope, ExactScope: true, Limit: 10, Mode: mode, KeepWeak: true,
	})
	if err != nil {
		return rec, false, fmt.Errorf("%s %q: %w", mode, q.Question, err)
	}
	for i, k := range locomoKs {
		hit := map[string]bool{}
		for j, r := range res.Results {
			if j >= k {
				break
			}
			for _, d := range owners[r.ID] {
				if evidence[d] {
					hit[d] = true
				}
			}
		}
		rec[i] = float64(len(hit)) / float64(len(evidence))
	}
	return rec, true, nil
}

func locomoRecall(ctx context.Context, eng *memory.Engine, samples []locomoSample, owners map[string][]string, mode string) error {
	type acc struct {
		n   int
		sum [3]float64
	}
	byCat := map[int]*acc{}
	total := &acc{}
	start := time.Now()
	for _, s := range samples {
		for _, q := range s.QA {
			rec, ok, err := questionRecall(ctx, eng, s.SampleID, q, owners, mode)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			a := byCat[q.Category]
			if a == nil {
				a = &acc{}
				byCat[q.Category] = a
			}
			for i := range rec {
				a.sum[i] += rec[i]
				total.sum[i] += rec[i]
			}
			a.n++
			total.n++
		}
	}
	names := map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
	fmt.Printf("\nmode %s: %d questions, %v per question\n", mode, total.n, (time.Since(start) / time.Duration(max(total.n, 1))).Round(time.Microsecond))
	fmt.Printf("  %-12s %5s %7s %7s %7s\n", "category", "n", "R@1", "R@5", "R@10")
	cats := make([]int, 0, len(byCat))
	for c := range byCat {
		cats = append(cats, c)
	}
	sort.Ints(cats)
	row := func(name string, a *acc) {
		fmt.Printf("  %-12s %5d %6.1f%% %6.1f%% %6.1f%%\n", name, a.n, 100*a.sum[0]/float64(a.n), 100*a.sum[1]/float64(a.n), 100*a.sum[2]/float64(a.n))
	}
	for _, c := range cats {
		row(strconv.Itoa(c)+" "+names[c], byCat[c])
	}
	row("overall", total)
	return nil
}
