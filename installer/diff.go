package installer

import (
	"fmt"
	"strings"
)

// unifiedDiff returns a unified diff (3 lines of context) turning a into b,
// or "" when they are equal. It is for showing a plan to a human, so it
// favours simplicity over speed: an LCS table, fine for config-sized files.
func unifiedDiff(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	la, lb := diffLines(a), diffLines(b)
	if len(la)*len(lb) > 4_000_000 {
		return fmt.Sprintf("--- %s\n+++ %s\n(too large to diff: %d lines become %d lines)\n", nameA, nameB, len(la), len(lb))
	}
	// lcs[i][j] is the length of the longest common subsequence of la[i:] and lb[j:].
	lcs := make([][]int, len(la)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(lb)+1)
	}
	for i := len(la) - 1; i >= 0; i-- {
		for j := len(lb) - 1; j >= 0; j-- {
			if la[i] == lb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		line string
		ai   int // lines of a before this op
		bi   int // lines of b before this op
	}
	var ops []op
	i, j := 0, 0
	for i < len(la) || j < len(lb) {
		switch {
		case i < len(la) && j < len(lb) && la[i] == lb[j]:
			ops = append(ops, op{' ', la[i], i, j})
			i, j = i+1, j+1
		case i < len(la) && (j == len(lb) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', la[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', lb[j], i, j})
			j++
		}
	}
	const context = 3
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		// A hunk runs from context lines before this change to context
		// lines after the last change that is at most 2*context away.
		start := max(0, k-context)
		end := k
		for n := k; n < len(ops); n++ {
			if ops[n].kind != ' ' {
				end = n
			} else if n-end > 2*context {
				break
			}
		}
		stop := min(len(ops), end+context+1)
		var aLen, bLen int
		for _, o := range ops[start:stop] {
			if o.kind != '+' {
				aLen++
			}
			if o.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(ops[start].ai, aLen), hunkRange(ops[start].bi, bLen))
		for _, o := range ops[start:stop] {
			out.WriteByte(o.kind)
			out.WriteString(o.line)
			out.WriteByte('\n')
		}
		k = stop
	}
	return out.String()
}

func hunkRange(before, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", before)
	}
	return fmt.Sprintf("%d,%d", before+1, n)
}

// diffLines splits s into lines without terminators; a final line without a
// newline is marked the way diff(1) does.
func diffLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n\\ No newline at end of file"
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}
