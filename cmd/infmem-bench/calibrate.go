package main

import (
	"fmt"
	"math"
)

// sample is one ranked result: its evidence features and whether it was
// one of the question's evidence turns.
type sample struct {
	x        []float64
	relevant bool
}

// fitLogistic fits P(relevant) = sigmoid(w·x + b) by Newton's method with a
// small ridge, returning [b, w...].
func fitLogistic(data []sample) []float64 {
	if len(data) == 0 {
		return nil
	}
	d := len(data[0].x) + 1
	w := make([]float64, d)
	feat := func(s sample, j int) float64 {
		if j == 0 {
			return 1
		}
		return s.x[j-1]
	}
	for iter := 0; iter < 50; iter++ {
		grad := make([]float64, d)
		hess := make([][]float64, d)
		for i := range hess {
			hess[i] = make([]float64, d)
			hess[i][i] = 1e-3
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
				grad[j] += (p - y) * feat(s, j)
				for k := 0; k < d; k++ {
					hess[j][k] += p * (1 - p) * feat(s, j) * feat(s, k)
				}
			}
		}
		step := solve(hess, grad)
		maxStep := 0.0
		for j := range w {
			w[j] -= step[j]
			maxStep = max(maxStep, math.Abs(step[j]))
		}
		if maxStep < 1e-7 {
			break
		}
	}
	return w
}

// solve solves a·x = b by Gaussian elimination with partial pivoting.
func solve(a [][]float64, b []float64) []float64 {
	n := len(b)
	m := make([][]float64, n)
	for i := range a {
		m[i] = append(append([]float64{}, a[i]...), b[i])
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k <= n; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := m[i][n]
		for k := i + 1; k < n; k++ {
			s -= m[i][k] * x[k]
		}
		x[i] = s / m[i][i]
	}
	return x
}

// reliability prints predicted confidence against observed precision in
// ten bins: a calibrated model's rows lie near the diagonal.
func reliability(data []sample, w []float64) {
	type bin struct {
		n, rel int
		sum    float64
	}
	var bins [10]bin
	for _, s := range data {
		z := w[0]
		for j, x := range s.x {
			z += w[j+1] * x
		}
		p := 1 / (1 + math.Exp(-z))
		b := min(int(p*10), 9)
		bins[b].n++
		bins[b].sum += p
		if s.relevant {
			bins[b].rel++
		}
	}
	fmt.Printf("  %-10s %6s %10s %10s\n", "predicted", "n", "mean conf", "relevant")
	for i, b := range bins {
		if b.n == 0 {
			continue
		}
		fmt.Printf("  %.1f–%.1f   %6d %9.2f %9.1f%%\n", float64(i)/10, float64(i+1)/10, b.n, b.sum/float64(b.n), 100*float64(b.rel)/float64(b.n))
	}
}

// brier is the mean squared error of the predicted probabilities.
func brier(data []sample, w []float64) float64 {
	sum := 0.0
	for _, s := range data {
		z := w[0]
		for j, x := range s.x {
			z += w[j+1] * x
		}
		p := 1 / (1 + math.Exp(-z))
		y := 0.0
		if s.relevant {
			y = 1
		}
		sum += (p - y) * (p - y)
	}
	return sum / float64(len(data))
}
