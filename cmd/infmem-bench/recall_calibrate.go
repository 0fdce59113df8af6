package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/infmem/infmem/internal/memory"
)

// wsample is a calibration sample with a weight.
type wsample struct {
	x        []float64
	relevant bool
	w        float64
}

// fitWeighted fits P(relevant) = sigmoid(b + w·x) by Newton's method with a
// small ridge, each sample counting its weight; returns [b, w...].
func fitWeighted(data []wsample) []float64 {
	if len(data) == 0 {
		return nil
	}
	d := len(data[0].x) + 1
	w := make([]float64, d)
	feat := func(s wsample, j int) float64 {
		if j == 0 {
			return 1
		}
		return s.x[j-1]
	}
	for iter := 0; iter < 100; iter++ {
		grad := make([]float64, d)
		hess := make([][]float64, d)
		for i := range hess {
			hess[i] = make([]float64, d)
			hess[i][i] = 1e-4
		}
		for _, s := range data {
			z := 0.0
			for j := 0; j < d; j++ {
				z += w[j] * feat(s, j)
			}
			p := 1 / (1 + math.Exp(-z))
			y := 0.0
			if s.relevant {
				y = 1
			}
			for j := 0; j < d; j++ {
				grad[j] += s.w * (p - y) * feat(s, j)
				for k := 0; k < d; k++ {
					hess[j][k] += s.w * p * (1 - p) * feat(s, j) * feat(s, k)
				}
			}
		}
		step := solve(hess, grad)
		maxStep := 0.0
		for j := range w {
			w[j] -= step[j]
			maxStep = max(maxStep, math.Abs(step[j]))
		}
		if maxStep < 1e-8 {
			break
		}
	}
	return w
}

// calibrationDepth is how many results of each answer the fit learns from.
const calibrationDepth = 10

// printCalibration fits the confidence of one asker (a ranking mode) on
// every set at once, each set weighing the same, and reports per set the
// expected calibration error of the fit and what relevance bars would say.
// Samples: each of the first results of every answer, relevant when it is
// gold; an abstention question's results are all irrelevant. The engine
// uses the fit for turns of conversations; a note's confidence is its
// bar model (calibrationsFor), and "was" reports the engine's own
// confidences. The relevance bar's model is fitted on turns alone.
func printCalibration(runs []*setRun, asker string) {
	useKW, useVec := asker != memory.ModeVector, asker != memory.ModeKeyword
	perSet := make([][]wsample, len(runs))
	var all []wsample
	for si, run := range runs {
		for qi := range run.set.Questions {
			q := &run.set.Questions[qi]
			a := run.answers[asker][qi]
			for j := range min(len(a.evidence), calibrationDepth) {
				if a.evidence[j] == nil {
					continue
				}
				rel := false
				for _, id := range a.msgs[j] {
					rel = rel || q.relevant(id, run.sessionOf)
				}
				perSet[si] = append(perSet[si], wsample{x: a.evidence[j].Features(useKW, useVec), relevant: rel})
			}
		}
		for i := range perSet[si] {
			perSet[si][i].w = 1 / float64(len(perSet[si]))
		}
		all = append(all, perSet[si]...)
	}
	w := fitWeighted(all)
	if w == nil {
		fmt.Println("calibration: no samples")
		return
	}
	parts := make([]string, len(w)-1)
	for i, x := range w[1:] {
		parts[i] = fmt.Sprintf("%.3f", x)
	}
	fmt.Printf("\ncalibration of %s fitted on every set (each weighing the same): Bias: %.3f, Weights: []float64{%s}\n", asker, w[0], strings.Join(parts, ", "))
	// The bar's model: P(the question has an answer stored) from the best
	// result's evidence, with whether the question names its speaker.
	var ans []wsample
	for _, run := range runs {
		var list []wsample
		for qi := range run.set.Questions {
			q := &run.set.Questions[qi]
			a := run.answers[asker][qi]
			if !a.asked || len(a.evidence) == 0 || a.evidence[0] == nil || a.evidence[0].Alone {
				// Notes keep their own bar model (the engine's
				// noteBar*); this fits the turns'.
				continue
			}
			list = append(list, wsample{x: a.evidence[0].AnswerFeatures(useKW, useVec), relevant: !q.Abstain})
		}
		for i := range list {
			list[i].w = 1 / float64(len(list))
		}
		ans = append(ans, list...)
	}
	wa := fitWeighted(ans)
	aparts := make([]string, len(wa)-1)
	for i, x := range wa[1:] {
		aparts[i] = fmt.Sprintf("%.3f", x)
	}
	fmt.Printf("relevance bar model of %s (P(answer stored) from the best result; features + speaker named): Bias: %.3f, Weights: []float64{%s}\n", asker, wa[0], strings.Join(aparts, ", "))
	barList := []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8}
	fmt.Printf("%-10s %7s %7s |", "set", "ECE", "was")
	for _, b := range barList {
		fmt.Printf(" %11.2f", b)
	}
	fmt.Println("   (answerable / abstaining told nothing_relevant, by the bar model's first pooled value)")
	for _, run := range runs {
		var sc setScore
		var was setScore
		type counts struct{ ans, ansNR, abst, abstNR int }
		bars := make([]counts, len(barList))
		for qi := range run.set.Questions {
			q := &run.set.Questions[qi]
			a := run.answers[asker][qi]
			if !a.asked {
				continue
			}
			var pa []float64
			for j := range a.evidence {
				if a.evidence[j] != nil {
					pa = append(pa, prob(wa, a.evidence[j].AnswerFeatures(useKW, useVec)))
				}
			}
			top := firstPooled(pa)
			for j := range min(len(a.evidence), eceDepth) {
				if a.evidence[j] == nil {
					continue
				}
				p := prob(w, a.evidence[j].Features(useKW, useVec))
				rel := false
				for _, id := range a.msgs[j] {
					rel = rel || q.relevant(id, run.sessionOf)
				}
				b := min(int(p*10), 9)
				sc.binN[b]++
				sc.binC[b] += p
				bw := min(int(a.conf[j]*10), 9)
				was.binN[bw]++
				was.binC[bw] += a.conf[j]
				if rel {
					sc.binRel[b]++
					was.binRel[bw]++
				}
			}
			for i, bar := range barList {
				if q.Abstain {
					bars[i].abst++
					if top < bar {
						bars[i].abstNR++
					}
				} else {
					bars[i].ans++
					if top < bar {
						bars[i].ansNR++
					}
				}
			}
		}
		e, _ := sc.ece()
		ew, _ := was.ece()
		fmt.Printf("%-10s %7.3f %7.3f |", run.set.Name, e, ew)
		for _, c := range bars {
			fmt.Printf(" %5.1f/%5.1f", share100(c.ansNR, c.ans), share100(c.abstNR, c.abst))
		}
		fmt.Println()
	}
}

// firstPooled is the first value of list after pooling adjacent
// violators into a non-increasing sequence (what the engine's first
// result gets).
func firstPooled(list []float64) float64 {
	if len(list) == 0 {
		return 0
	}
	type block struct {
		sum float64
		n   int
	}
	var blocks []block
	for _, v := range list {
		blocks = append(blocks, block{v, 1})
		for len(blocks) > 1 {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if a.sum/float64(a.n) >= b.sum/float64(b.n) {
				break
			}
			blocks = append(blocks[:len(blocks)-2], block{a.sum + b.sum, a.n + b.n})
		}
	}
	return blocks[0].sum / float64(blocks[0].n)
}

// dumpAnswers writes, per question of every run, its answer by asker:
// each result's evidence, confidence and whether it is gold (JSON lines).
func dumpAnswers(runs []*setRun, askers []string, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	type result struct {
		Gold bool
		Conf float64
		Ev   *memory.Evidence
		// Text is the stored message's content (the first, for a memory
		// standing for several), to study what the results say.
		Text    string `json:",omitempty"`
		Speaker string `json:",omitempty"`
		// Msgs are the set's messages the result stands for (its own and
		// its context turns'), Texts their contents.
		Msgs, Texts []string
	}
	type line struct {
		// Asker is the ranking mode or grid point (grid#N, N as in the
		// cross-validation's list; "bm25" plain BM25) that answered.
		Asker               string `json:",omitempty"`
		Set, ID, Kind, Text string
		Abstain, Nothing    bool
		// NothingBy: the step that made Nothing (engine only).
		NothingBy string `json:",omitempty"`
		// Gold are the gold messages' ids and contents; Sessions the
		// gold sessions (a message of one counts).
		Gold, GoldTexts []string
		Sessions        []string `json:",omitempty"`
		Results         []result
	}
	for _, run := range runs {
		byID := make(map[string]*benchMessage, len(run.set.Messages))
		content := map[string]string{}
		for i := range run.set.Messages {
			byID[run.set.Messages[i].ID] = &run.set.Messages[i]
			content[run.set.Messages[i].ID] = run.set.Messages[i].Content
		}
		for _, asker := range askers {
			for qi := range run.set.Questions {
				q := &run.set.Questions[qi]
				var a answer
				if asker == "bm25" {
					if qi < len(run.bm25) {
						a = run.bm25[qi]
					}
				} else if as := run.answers[asker]; qi < len(as) {
					a = as[qi]
				}
				if !a.asked {
					continue
				}
				l := line{Set: run.set.Name, ID: q.ID, Kind: q.Kind, Text: q.Text, Abstain: q.Abstain, Nothing: a.nothing, NothingBy: a.nothingBy}
				if len(askers) > 1 {
					l.Asker = asker
				}
				for _, id := range slices.Sorted(maps.Keys(q.Gold)) {
					l.Gold, l.GoldTexts = append(l.Gold, id), append(l.GoldTexts, content[id])
				}
				l.Sessions = slices.Sorted(maps.Keys(q.GoldSessions))
				for j := range a.msgs {
					rel := false
					for _, id := range a.msgs[j] {
						rel = rel || q.relevant(id, run.sessionOf)
					}
					r := result{Gold: rel, Msgs: a.msgs[j]}
					for _, id := range a.msgs[j] {
						r.Texts = append(r.Texts, content[id])
					}
					if len(a.msgs[j]) > 0 {
						if m := byID[a.msgs[j][0]]; m != nil {
							r.Text, r.Speaker = m.Content, m.Speaker
						}
					}
					if j < len(a.conf) {
						r.Conf = a.conf[j]
					}
					if j < len(a.evidence) {
						r.Ev = a.evidence[j]
					}
					l.Results = append(l.Results, r)
				}
				if err := enc.Encode(l); err != nil {
					f.Close()
					return err
				}
			}
		}
	}
	return f.Close()
}
