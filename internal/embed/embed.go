// Package embed owns sentence embeddings for infmem: the Embedder interface,
// the default USE-lite model (Universal Sentence Encoder lite, 512-d, run in
// pure Go from weights embedded in the binary, or, built with the tag
// infmem_external_model, read from a checked file beside it: see
// weights.go), a weight-free feature-hashing embedder for tiny machines,
// and the wrappers that load a model in the background (Lazy) and memoise
// vectors (Cached). Nothing here touches the network at run time, nor the
// disk except to read that weight file.
//
// # Kernels
//
// USE-lite's matrix products run on the best kernel the CPU offers
// (Kernel names it; `infmem doctor` shows it). On x86-64 CPUs with AMX
// (Intel Sapphire Rapids and later) under Linux, the weight products run
// on the tile unit in bf16 (amx_amd64.s, bf16.go): weights and
// activations rounded to bf16, products summed in float32, two to three
// times faster per text; the vectors keep a cosine of at least 0.9998
// (mean 0.99997) to the float32 ones on the recall sets' texts, and recall
// does not move (BENCHMARKS.md, issue 24). On CPUs with AVX512-BF16 but
// not AMX (AMD Zen 4 and later, Intel Cooper Lake), the same bf16 products
// run in the vector unit with VDPBF16PS (vdp_amd64.s), about twice the
// fp16 kernel's speed, with the same closeness to float32. Elsewhere the
// products are float32: AVX-512 or AVX2 with fp16 weights, AVX2 with
// float32 weights, or portable Go, all giving the same vectors bit for bit
// except the portable kernel (cosine 0.9999993). INFMEM_EMBED_AMX=off keeps
// a bf16 machine on float32. Every path gives a text the same vector alone
// and in any batch. The vectors are stored under the one model id
// (use-lite-512-v1) whatever the kernel: nothing compares vectors bit for
// bit across processes.
package embed

import (
	"context"
	"fmt"
	"strings"
)

// Embedder turns text into unit-length vectors. Safe for concurrent use.
type Embedder interface {
	// ModelID names the model and its version, e.g. "use-lite-512-v1"; it
	// is stored with every vector so vectors of different models are never
	// compared.
	ModelID() string
	// Dim is the vector length.
	Dim() int
	// Embed returns the vector for text. Text with nothing to embed (the
	// empty string) yields the zero vector.
	Embed(ctx context.Context, text string) ([]float32, error)
	// EmbedBatch returns one vector per text, in order.
	EmbedBatch(ctx context.Context, texts []string) ([][]float32, error)
}

// Model names accepted by New.
const (
	ModelUSELite = "use-lite"
	ModelHash    = "hash"
	ModelNone    = "none"
)

// HashDim is the vector length of the hash embedder New builds, equal to
// USE-lite's so either can fill the same index.
const HashDim = 512

// New builds the embedder named by model: "use-lite" (also the default for
// ""), "hash", or "none". For "none" it returns (nil, nil): embeddings are
// disabled and callers must fall back to keyword search. It loads USE-lite
// synchronously; wrap the call in NewLazy to keep start-up fast.
// Describe returns the model id and dimension an embedder from New(model)
// will have, without loading it; ok is false for "none".
func Describe(model string) (modelID string, dim int, ok bool, err error) {
	switch strings.ToLower(strings.TrimSpace(model)) {
	case "", ModelUSELite:
		return USELiteModelID, 512, true, nil
	case ModelHash:
		return NewHash(HashDim).ModelID(), HashDim, true, nil
	case ModelNone:
		return "", 0, false, nil
	}
	_, err = New(model)
	return "", 0, false, err
}

// Load starts loading the embedder for model in the background and returns
// it at once (nil for "none"): the first embedding waits for the load, which
// never blocks a caller that does not embed.
func Load(model string) (e Embedder, modelID string, dim int, err error) {
	modelID, dim, ok, err := Describe(model)
	if err != nil || !ok {
		return nil, "", 0, err
	}
	return NewLazy(func() (Embedder, error) { return New(model) }), modelID, dim, nil
}

func New(model string) (Embedder, error) {
	switch strings.ToLower(strings.TrimSpace(model)) {
	case "", ModelUSELite:
		m, err := NewUSELite()
		if err != nil {
			return nil, err
		}
		return m, nil
	case ModelHash:
		return NewHash(HashDim), nil
	case ModelNone:
		return nil, nil
	}
	return nil, fmt.Errorf("unknown embedding model %q: valid values are %q, %q and %q", model, ModelUSELite, ModelHash, ModelNone)
}
