package vecindex

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"unsafe"
)

// encodingVersion changes whenever quantisation changes; persisted codes of
// another version must be rebuilt from the vectors.
const encodingVersion = 1

const persistMagic = "VXIX"

// ErrIncompatible means persisted data was written for another dimension or
// quantisation and must be rebuilt from the vectors.
var ErrIncompatible = errors.New("vecindex: persisted index is incompatible")

// WriteTo writes the index's blocks as they are in memory: codes,
// refinement bits, scales and live bitmaps. Reading them back needs no
// re-quantisation.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	bw := bufio.NewWriterSize(w, 1<<16)
	var n int64
	put := func(b []byte) {
		m, _ := bw.Write(b)
		n += int64(m)
	}
	var hdr []byte
	hdr = append(hdr, persistMagic...)
	hdr = binary.AppendUvarint(hdr, encodingVersion)
	hdr = binary.AppendUvarint(hdr, uint64(ix.dim))
	live := 0
	for _, b := range ix.blocks {
		if b != nil {
			live++
		}
	}
	hdr = binary.AppendUvarint(hdr, uint64(live))
	put(hdr)
	for bi, b := range ix.blocks {
		if b == nil {
			continue
		}
		var h []byte
		h = binary.AppendUvarint(h, uint64(bi))
		h = binary.LittleEndian.AppendUint32(h, math.Float32bits(b.delta))
		put(h)
		put(u64Bytes(b.live[:]))
		put(f32Bytes(b.scales[:]))
		put(f32Bytes(b.fine[:]))
		put(i8Bytes(b.codes))
		put(u64Bytes(b.signs))
	}
	if err := bw.Flush(); err != nil {
		return n, err
	}
	return n, nil
}

// Read reads an index written by WriteTo for vectors of length dim.
func Read(r io.Reader, dim int) (*Index, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic := make([]byte, len(persistMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != persistMagic {
		return nil, errors.New("vecindex: not a persisted index")
	}
	v, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, fmt.Errorf("vecindex: damaged persisted index: %w", err)
	}
	if v != encodingVersion {
		return nil, fmt.Errorf("%w: encoding version %d, want %d", ErrIncompatible, v, encodingVersion)
	}
	d, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, fmt.Errorf("vecindex: damaged persisted index: %w", err)
	}
	if int(d) != dim {
		return nil, fmt.Errorf("%w: dimension %d, want %d", ErrIncompatible, d, dim)
	}
	ix := New(dim)
	count, err := binary.ReadUvarint(br)
	if err != nil || count > (MaxID>>blockShift)+1 {
		return nil, fmt.Errorf("vecindex: damaged persisted index: block count")
	}
	for i := uint64(0); i < count; i++ {
		bi, err := binary.ReadUvarint(br)
		if err != nil || bi > MaxID>>blockShift {
			return nil, fmt.Errorf("vecindex: damaged persisted index: block number")
		}
		for int(bi) >= len(ix.blocks) {
			ix.blocks = append(ix.blocks, nil)
		}
		if ix.blocks[bi] != nil {
			return nil, fmt.Errorf("vecindex: damaged persisted index: block %d twice", bi)
		}
		b := ix.newBlock()
		var db [4]byte
		if _, err := io.ReadFull(br, db[:]); err != nil {
			return nil, fmt.Errorf("vecindex: damaged persisted index: %w", err)
		}
		b.delta = math.Float32frombits(binary.LittleEndian.Uint32(db[:]))
		for _, part := range [][]byte{u64Bytes(b.live[:]), f32Bytes(b.scales[:]), f32Bytes(b.fine[:]), i8Bytes(b.codes), u64Bytes(b.signs)} {
			if _, err := io.ReadFull(br, part); err != nil {
				return nil, fmt.Errorf("vecindex: damaged persisted index: %w", err)
			}
		}
		for _, w := range b.live {
			b.n += bits.OnesCount64(w)
		}
		if b.n == 0 {
			return nil, fmt.Errorf("vecindex: damaged persisted index: empty block %d", bi)
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
