package main

import (
	"fmt"
	"math"
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
// gold; an abstention question's results are all irrelevant.
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
	barList := []float64{0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5}
	fmt.Printf("%-10s %7s %7s |", "set", "ECE", "was")
	for _, b := range barList {
		fmt.Printf(" %11.2f", b)
	}
	fmt.Println("   (answerable / abstaining told nothing_relevant, by the best result's fitted confidence)")
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
			top := 0.0
			for j := range min(len(a.evidence), eceDepth) {
				if a.evidence[j] == nil {
					continue
				}
				p := prob(w, a.evidence[j].Features(useKW, useVec))
				if j == 0 {
					top = p
				}
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
