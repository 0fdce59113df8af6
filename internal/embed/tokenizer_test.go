package embed

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"
)

// jsTokenizer is a line-by-line Go transcription of the JavaScript tokenizer
// in @energetic-ai/embeddings 0.2.0 (trie, commonPrefixSearch, the
// nodes[end][start] lattice and the backtracking by String.length). The
// production Tokenizer is organised differently for speed; the fuzz test
// holds it to this transcription on arbitrary input.
type jsTokenizer struct {
	root  *jsNode
	vocab []vocabPiece
}

type jsNode struct {
	children map[rune]*jsNode
	end      bool
	word     jsWord
}

type jsWord struct {
	key   []rune
	score float64
	index int
}

func newJSTokenizer(vocab []vocabPiece) *jsTokenizer {
	t := &jsTokenizer{root: &jsNode{children: map[rune]*jsNode{}}, vocab: vocab}
	for i := reservedPieces; i < len(vocab); i++ {
		node := t.root
		symbols := []rune(vocab[i].piece)
		for j, s := range symbols {
			if node.children[s] == nil {
				child := &jsNode{children: map[rune]*jsNode{}}
				child.word.key = append(slices.Clone(node.word.key), s)
				node.children[s] = child
			}
			node = node.children[s]
			if j == len(symbols)-1 {
				node.end = true
				node.word.score = vocab[i].score
				node.word.index = i
			}
		}
	}
	return t
}

func (t *jsTokenizer) commonPrefixSearch(ss []rune) []jsWord {
	var out []jsWord
	node := t.root.children[ss[0]]
	for i := 0; i < len(ss) && node != nil; i++ {
		if node.end {
			out = append(out, node.word)
		}
		if i+1 < len(ss) {
			node = node.children[ss[i+1]]
		} else {
			node = nil
		}
	}
	if len(out) == 0 {
		out = append(out, jsWord{key: []rune{ss[0]}})
	}
	return out
}

func (t *jsTokenizer) encode(input string) []int {
	input = preprocess(input)
	symbols := []rune(input)
	n := len(symbols)
	nodes := make([]map[int][]jsWord, n+1)
	words := make([]int, n+1)
	best := make([]float64, n+1)
	for i := range nodes {
		nodes[i] = map[int][]jsWord{}
	}
	for i := range n {
		for _, piece := range t.commonPrefixSearch(symbols[i:]) {
			end := i + len(piece.key)
			nodes[end][i] = append(nodes[end][i], piece)
		}
	}
	for end := 0; end <= n; end++ {
		starts := make([]int, 0, len(nodes[end]))
		for s := range nodes[end] {
			starts = append(starts, s)
		}
		sort.Ints(starts) // JavaScript enumerates integer keys in ascending order
		for _, s := range starts {
			for _, w := range nodes[end][s] {
				score := w.score + best[end-len(w.key)]
				if best[end] == 0 || score >= best[end] {
					best[end] = score
					words[end] = w.index
				}
			}
		}
	}
	var results []int
	for iter := len(words) - 1; iter > 0; iter -= len(utf16.Encode([]rune(t.vocab[words[iter]].piece))) {
		results = append(results, words[iter])
	}
	var merged []int
	prevUnk := false
	for _, id := range results {
		if !(prevUnk && id == 0) {
			merged = append(merged, id)
		}
		prevUnk = id == 0
	}
	slices.Reverse(merged)
	return merged
}

func FuzzTokenizerMatchesJSTranscription(f *testing.F) {
	bl, err := parseBlob(useLiteBlob)
	if err != nil {
		f.Fatal(err)
	}
	tok, js := newTokenizer(bl.vocab), newJSTokenizer(bl.vocab)
	for _, c := range loadReference(f) {
		f.Add(c.Text)
	}
	for _, s := range []string{"”5”5", ":30:00:-)", "ab\u0301c", "\u00a0x\u3000y", "ﬃ", "a  b", "▁▁", "\x00\x01", "\U0001F600x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// JavaScript strings cannot hold invalid UTF-8; Tokenize repairs it
		// the same way before tokenizing.
		s = strings.ToValidUTF8(s, "\uFFFD")
		got, want := tok.Tokenize(s), js.encode(s)
		if !slices.Equal(got, want) {
			t.Fatalf("Tokenize(%q)\n got %v\nwant %v", s, got, want)
		}
	})
}
