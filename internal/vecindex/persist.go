package vecindex

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
	"unsafe"

	"github.com/infmem/infmem/internal/binio"
)

// format opens a persisted index: its magic and the encoding version,
// which changes whenever quantisation changes (persisted codes of another
// version must be rebuilt from the vectors).
var format = binio.Format{Magic: "VXIX", Version: 1}

// ErrIncompatible means persisted data was written for another dimension or
// quantisation and must be rebuilt from the vectors.
var ErrIncompatible = errors.New("vecindex: persisted index is incompatible")

// WriteTo writes the index's blocks as they are in memory: codes,
// refinement bits, scales and live bitmaps. Reading them back needs no
// re-quantisation.
func (ix *Index) WriteTo(out io.Writer) (int64, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	w := binio.NewWriter(out, 1<<16)
	w.Header(format)
	w.Uvarint(uint64(ix.dim))
	live := 0
	for _, b := range ix.blocks {
		if b != nil {
			live++
		}
	}
	w.Uvarint(uint64(live))
	for bi, b := range ix.blocks {
		if b == nil {
			continue
		}
		w.Uvarint(uint64(bi))
		w.Float32(b.delta)
		for _, part := range b.parts() {
			w.Write(part)
		}
	}
	err := w.Flush()
	return w.Len(), err
}

// parts are the block's arrays as bytes, in the order they are persisted.
func (b *block) parts() [][]byte {
	return [][]byte{u64Bytes(b.live[:]), f32Bytes(b.scales[:]), f32Bytes(b.fine[:]), i8Bytes(b.codes), u64Bytes(b.signs)}
}

// Read reads an index written by WriteTo for vectors of length dim.
func Read(r io.Reader, dim int) (*Index, error) {
	rd := binio.NewReader(r, -1, 1<<16)
	var version *binio.VersionError
	if err := rd.Header(format); errors.As(err, &version) {
		return nil, fmt.Errorf("%w: encoding %v", ErrIncompatible, version)
	} else if errors.Is(err, binio.ErrFormat) {
		return nil, errors.New("vecindex: not a persisted index")
	}
	damaged := func(err error) error { return fmt.Errorf("vecindex: damaged persisted index: %w", err) }
	if d := rd.Uvarint(); rd.Err() != nil {
		return nil, damaged(rd.Err())
	} else if int(d) != dim {
		return nil, fmt.Errorf("%w: dimension %d, want %d", ErrIncompatible, d, dim)
	}
	ix := New(dim)
	// A block takes its number, its delta and its arrays: no more blocks
	// than the input could hold are allocated.
	blockBytes := 1 + 4 + 8*blockWords + 2*4*blockSize + blockSize*(dim+8*ix.signWords)
	count := rd.Uvarint()
	if rd.Err() != nil || count > (MaxID>>blockShift)+1 || count > uint64(rd.Remaining()/int64(blockBytes)) {
		return nil, damaged(errors.New("block count"))
	}
	slab := ix.blocksSlab(int(count))
	defer slab.Done()
	for i := uint64(0); i < count; i++ {
		bi := rd.Uvarint()
		if rd.Err() != nil || bi > MaxID>>blockShift {
			return nil, damaged(errors.New("block number"))
		}
		for int(bi) >= len(ix.blocks) {
			ix.blocks = append(ix.blocks, nil)
		}
		if ix.blocks[bi] != nil {
			return nil, damaged(fmt.Errorf("block %d twice", bi))
		}
		b := ix.newBlock(slab)
		b.delta = rd.Float32()
		for _, part := range b.parts() {
			rd.Full(part)
		}
		if rd.Err() != nil {
			return nil, damaged(rd.Err())
		}
		for w, word := range b.live {
			b.n += bits.OnesCount64(word)
			for ; word != 0; word &= word - 1 {
				ix.setCoarseLocked(b, w*64+bits.TrailingZeros64(word))
			}
		}
		if b.n == 0 {
			return nil, damaged(fmt.Errorf("empty block %d", bi))
		}
		ix.blocks[bi] = b
		ix.n += b.n
	}
	return ix, nil
}

// The byte views below rely on little-endian memory, which every platform
// infmem builds for has; the persisted format is little-endian.

func u64Bytes(s []uint64) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*8)
}

func f32Bytes(s []float32) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*4)
}

func i8Bytes(s []int8) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s))
}
