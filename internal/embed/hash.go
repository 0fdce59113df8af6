package embed

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Hash is a weight-free embedder: it hashes lower-cased words, adjacent word
// pairs and character n-grams of each word into signed buckets and
// L2-normalises the counts. Texts sharing words or word fragments get a high
// cosine, which is enough for keyword-ish recall on machines where the
// neural model is too heavy. It is deterministic across runs and platforms.
type Hash struct {
	dim int
}

// Feature weights: whole words dominate; n-grams let "backup" match
// "backups" and survive typos; word pairs reward matching phrases.
const (
	hashWordWeight   = 1.0
	hashPairWeight   = 0.5
	hashNgramWeight  = 0.25
	hashNgramMinRune = 3
	hashNgramMaxRune = 5
)

// NewHash returns a hash embedder producing dim-long vectors; dim < 1 is
// treated as 1.
func NewHash(dim int) *Hash {
	return &Hash{dim: max(dim, 1)}
}

// ModelID implements Embedder; the id includes the dimension because
// vectors of different lengths are different models.
func (h *Hash) ModelID() string { return fmt.Sprintf("hash-%d-v1", h.dim) }

// Dim implements Embedder.
func (h *Hash) Dim() int { return h.dim }

// Embed implements Embedder.
func (h *Hash) Embed(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return h.embed(text), nil
}

// EmbedBatch implements Embedder, checking ctx between texts.
func (h *Hash) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = h.embed(t)
	}
	return out, nil
}

func (h *Hash) embed(text string) []float32 {
	acc := make([]float64, h.dim)
	words := hashWords(text)
	for i, w := range words {
		h.add(acc, "w:"+w, hashWordWeight)
		if i > 0 {
			h.add(acc, "p:"+words[i-1]+" "+w, hashPairWeight)
		}
		// Boundary markers make prefixes and suffixes distinct features.
		r := []rune("<" + w + ">")
		for n := hashNgramMinRune; n <= hashNgramMaxRune; n++ {
			for s := 0; s+n <= len(r); s++ {
				h.add(acc, "g:"+string(r[s:s+n]), hashNgramWeight)
			}
		}
	}
	var ss float64
	for _, v := range acc {
		ss += v * v
	}
	out := make([]float32, h.dim)
	if ss == 0 {
		return out
	}
	inv := 1 / math.Sqrt(ss)
	for i, v := range acc {
		out[i] = float32(v * inv)
	}
	return out
}

// add hashes a feature to a bucket and a sign; the sign keeps unrelated
// features that collide from adding up to a false similarity.
func (h *Hash) add(acc []float64, feature string, weight float64) {
	f := fnv.New64a()
	f.Write([]byte(feature))
	sum := f.Sum64()
	idx := (sum >> 1) % uint64(h.dim)
	if sum&1 == 1 {
		weight = -weight
	}
	acc[idx] += weight
}

// hashWords splits NFKC-folded, lower-cased text into runs of letters and
// digits.
func hashWords(text string) []string {
	s := strings.ToLower(norm.NFKC.String(strings.ToValidUTF8(text, "\uFFFD")))
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	})
}
