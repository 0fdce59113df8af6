package embed

import (
	"github.com/infmem/infmem/internal/f16"

	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sync"
)

// The weight blob (model/use-lite.bin, written by ./gen) is one little-endian
// file:
//
//	header, 32 bytes:
//	  [0:8]   magic "USELITE1"
//	  [8:12]  uint32 format version (1)
//	  [12:16] uint32 tensor count T
//	  [16:20] uint32 vocabulary size V
//	  [20:24] uint32 CRC-32C (Castagnoli) of bytes [32:total)
//	  [24:32] uint64 total length in bytes
//	tensor table, T entries:
//	  uint16 name length, name (ASCII, e.g. "l1.ffn2.kernel")
//	  uint8  dtype: 1 float32, 2 IEEE fp16, 3 int32
//	  uint8  rank R, then R × uint32 dimensions (row-major, last varies fastest)
//	  uint64 offset of the data from the start of the blob (64-byte aligned)
//	  uint64 data length in bytes
//	vocabulary, V entries in id order:
//	  float64 score (the vocab.json log-probability; null there is stored as 0)
//	  uint16 piece length, piece (UTF-8)
//	tensor data at the offsets above, zero padding between.
//
// Matrices are stored [in, out] as TensorFlow keeps them, so y = x·W.
const (
	blobMagic      = "USELITE1"
	blobVersion    = 1
	blobHeaderSize = 32

	dtypeF32 = 1
	dtypeF16 = 2
	dtypeI32 = 3
)

// errCorruptBlob marks every structural problem in the weight blob.
var errCorruptBlob = errors.New("corrupt USE-lite weight blob")

type blobTensor struct {
	dtype byte
	shape []int
	data  []byte
}

type vocabPiece struct {
	piece string
	score float64
}

type blob struct {
	tensors map[string]blobTensor
	vocab   []vocabPiece
}

// parseBlob checks and indexes a blob without copying tensor data, so the
// fp16 embedding table can stay in the read-only go:embed data.
func parseBlob(b []byte) (*blob, error) {
	if len(b) < blobHeaderSize || string(b[:8]) != blobMagic {
		return nil, fmt.Errorf("%w: bad magic (is it a Git LFS pointer or truncated?)", errCorruptBlob)
	}
	le := binary.LittleEndian
	if v := le.Uint32(b[8:]); v != blobVersion {
		return nil, fmt.Errorf("%w: format version %d, want %d", errCorruptBlob, v, blobVersion)
	}
	if total := le.Uint64(b[24:]); total != uint64(len(b)) {
		return nil, fmt.Errorf("%w: header says %d bytes, have %d", errCorruptBlob, total, len(b))
	}
	if crc := crc32.Checksum(b[blobHeaderSize:], crc32.MakeTable(crc32.Castagnoli)); crc != le.Uint32(b[20:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", errCorruptBlob)
	}
	r := &reader{b: b, off: blobHeaderSize}
	nt, nv := int(le.Uint32(b[12:])), int(le.Uint32(b[16:]))
	out := &blob{tensors: make(map[string]blobTensor, nt), vocab: make([]vocabPiece, 0, nv)}
	for range nt {
		name := string(r.bytes(int(r.u16())))
		t := blobTensor{dtype: r.u8()}
		rank := int(r.u8())
		n := 1
		for range rank {
			d := int(r.u32())
			t.shape = append(t.shape, d)
			n *= d
		}
		off, size := r.u64(), r.u64()
		if r.err != nil {
			return nil, r.err
		}
		elem := map[byte]int{dtypeF32: 4, dtypeF16: 2, dtypeI32: 4}[t.dtype]
		if elem == 0 || size != uint64(n*elem) || off > uint64(len(b)) || size > uint64(len(b))-off {
			return nil, fmt.Errorf("%w: tensor %q has a bad dtype, shape or extent", errCorruptBlob, name)
		}
		t.data = b[off : off+size]
		out.tensors[name] = t
	}
	for range nv {
		score := math.Float64frombits(r.u64())
		piece := string(r.bytes(int(r.u16())))
		out.vocab = append(out.vocab, vocabPiece{piece: piece, score: score})
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

// reader walks the table and vocabulary; the first overrun sticks in err.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n > len(r.b)-r.off {
		r.err = fmt.Errorf("%w: table runs past the end", errCorruptBlob)
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) u8() byte {
	if s := r.bytes(1); s != nil {
		return s[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if s := r.bytes(2); s != nil {
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if s := r.bytes(4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if s := r.bytes(8); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

// tensor returns the named tensor after checking its dtype and shape, so a
// blob from a different generator fails at load rather than mid-inference.
func (bl *blob) tensor(name string, dtype byte, shape ...int) (blobTensor, error) {
	t, ok := bl.tensors[name]
	if !ok {
		return t, fmt.Errorf("%w: no tensor %q", errCorruptBlob, name)
	}
	if t.dtype != dtype || len(t.shape) != len(shape) {
		return t, fmt.Errorf("%w: tensor %q has dtype %d shape %v, want dtype %d shape %v", errCorruptBlob, name, t.dtype, t.shape, dtype, shape)
	}
	for i := range shape {
		if t.shape[i] != shape[i] {
			return t, fmt.Errorf("%w: tensor %q has shape %v, want %v", errCorruptBlob, name, t.shape, shape)
		}
	}
	return t, nil
}

// floats decodes a float32 or fp16 tensor to float32.
func (t blobTensor) floats() []float32 {
	switch t.dtype {
	case dtypeF32:
		out := make([]float32, len(t.data)/4)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.data[4*i:]))
		}
		return out
	case dtypeF16:
		out := make([]float32, len(t.data)/2)
		decodeF16(out, t.data)
		return out
	}
	return nil
}

// f16Table maps every half-precision bit pattern to its float32 value; a
// 256 KiB table decodes the 7 M weights faster than bit manipulation.
// It is built on first use so that programs using only the hash embedder
// never pay for it.
var f16Table = sync.OnceValue(func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for h := range t {
		t[h] = f16.ToFloat32(uint16(h))
	}
	return &t
})

func decodeF16(dst []float32, src []byte) {
	tab := f16Table()
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = tab[binary.LittleEndian.Uint16(src[2*i:])]
	}
}
