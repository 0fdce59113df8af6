package embed

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// reservedPieces is how many vocabulary entries at the start are special
// symbols (id 0 is the unknown piece) and never matched against text.
const reservedPieces = 6

// Tokenizer is the USE-lite SentencePiece-style unigram tokenizer. It
// reproduces the JavaScript tokenizer of @energetic-ai/embeddings bit for
// bit, including its quirks, because the network was only ever validated
// against those ids. It is immutable and safe for concurrent use.
type Tokenizer struct {
	pieces map[string]pieceInfo
	// utf16Len is each id's piece length in UTF-16 code units: the
	// JavaScript backtracking steps back by String.length, not by runes.
	utf16Len []int
	maxRunes int
}

type pieceInfo struct {
	id    int
	score float64
}

func newTokenizer(vocab []vocabPiece) *Tokenizer {
	t := &Tokenizer{
		pieces:   make(map[string]pieceInfo, len(vocab)),
		utf16Len: make([]int, len(vocab)),
	}
	for id, v := range vocab {
		t.utf16Len[id] = len(utf16.Encode([]rune(v.piece)))
		if id < reservedPieces || v.piece == "" {
			continue
		}
		// A piece listed twice keeps its last id and score, as the
		// JavaScript trie overwrites the node on the second insert.
		t.pieces[v.piece] = pieceInfo{id: id, score: v.score}
		t.maxRunes = max(t.maxRunes, utf8.RuneCountInString(v.piece))
	}
	return t
}

// Tokenize returns the vocabulary ids for text, untruncated (the model reads
// at most the first 128). The empty string yields no ids.
func (t *Tokenizer) Tokenize(text string) []int {
	s := preprocess(text)
	if s == "" {
		return nil
	}
	// offs[i] is the byte offset of rune i, so candidate pieces are
	// substrings and map lookups do not allocate.
	offs := make([]int, 0, len(s)+1)
	for i := range s {
		offs = append(offs, i)
	}
	n := len(offs)
	offs = append(offs, len(s))

	// matched[i] records whether any piece starts at rune i; where none
	// does, the JavaScript adds a one-rune unknown edge (id 0, score 0).
	matched := make([]bool, n)
	for i := range n {
		for l := 1; l <= t.maxRunes && i+l <= n; l++ {
			if _, ok := t.pieces[s[offs[i]:offs[i+l]]]; ok {
				matched[i] = true
				break
			}
		}
	}

	// Viterbi over end positions. The JavaScript visits the edges ending at
	// e in ascending start order and keeps a candidate when
	// best[e] == 0 || score >= best[e], so 0 means "unset" and ties go to the
	// later start; both details change ids on real text.
	best := make([]float64, n+1)
	words := make([]int, n+1)
	for e := 1; e <= n; e++ {
		for st := max(0, e-t.maxRunes); st < e; st++ {
			var id int
			var score float64
			if p, ok := t.pieces[s[offs[st]:offs[e]]]; ok {
				id, score = p.id, p.score
			} else if st == e-1 && !matched[st] {
				id, score = 0, 0
			} else {
				continue
			}
			sc := score + best[st]
			if best[e] == 0 || sc >= best[e] {
				best[e] = sc
				words[e] = id
			}
		}
	}

	var ids []int
	for i := n; i > 0; i -= t.utf16Len[words[i]] {
		ids = append(ids, words[i])
	}
	// Collapse runs of unknown ids, then restore left-to-right order.
	out := ids[:0]
	prevUnk := false
	for _, id := range ids {
		if !(prevUnk && id == 0) {
			out = append(out, id)
		}
		prevUnk = id == 0
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// preprocess applies NFKC and marks word starts with U+2581 as SentencePiece
// does. Only U+0020 becomes a marker (NFKC has already folded no-break
// spaces to it); tabs and newlines stay and tokenize as unknown.
func preprocess(text string) string {
	s := norm.NFKC.String(strings.ToValidUTF8(text, "\uFFFD"))
	if s == "" {
		return ""
	}
	return "\u2581" + strings.ReplaceAll(s, " ", "\u2581")
}
