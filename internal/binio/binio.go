// Package binio owns the binary encoding every file infmem writes for
// itself is made of: the memory index snapshot, the change journal, and the
// keyword and vector index sections inside the snapshot. It has a Writer and
// a Reader for little-endian fixed-width integers, varints, length-prefixed
// strings and length-prefixed sections, each with a sticky error: the first
// failure stops everything after it, so a caller checks once, at the end.
//
// The Reader never trusts a count it reads: Count refuses a count larger
// than the bytes left in the input (nothing encoded is smaller than a byte),
// so a damaged or crafted file cannot make a reader allocate more than the
// file itself could describe.
package binio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Format is what opens an encoding: its magic bytes, then its version as
// an unsigned varint.
type Format struct {
	Magic   string
	Version uint64
}

// ErrFormat means the input does not open with the expected magic bytes.
var ErrFormat = errors.New("binio: not the expected format")

// VersionError means the input is of the expected format but of another
// version.
type VersionError struct{ Got, Want uint64 }

func (e *VersionError) Error() string { return fmt.Sprintf("version %d, want %d", e.Got, e.Want) }

// Writer encodes into a buffer that it hands to its output whenever a chunk
// has gathered, and at Flush. The zero Writer has no output: it keeps
// everything in memory, and Bytes returns the encoding.
type Writer struct {
	out   io.Writer
	buf   []byte
	chunk int
	n     int64 // bytes handed to out
	err   error
}

// NewWriter encodes to out, writing to it in chunks of about chunk bytes.
func NewWriter(out io.Writer, chunk int) *Writer {
	return &Writer{out: out, chunk: chunk, buf: make([]byte, 0, chunk+binary.MaxVarintLen64)}
}

// Err is the first error met, if any.
func (w *Writer) Err() error { return w.err }

// Len is how many bytes have been encoded so far.
func (w *Writer) Len() int64 { return w.n + int64(len(w.buf)) }

// Bytes is what has been encoded and not yet written out: the whole
// encoding for a Writer without output.
func (w *Writer) Bytes() []byte { return w.buf }

// Flush writes out what is buffered.
func (w *Writer) Flush() error {
	if w.err == nil && w.out != nil && len(w.buf) > 0 {
		var m int
		m, w.err = w.out.Write(w.buf)
		w.n += int64(m)
		w.buf = w.buf[:0]
	}
	return w.err
}

func (w *Writer) spill() {
	if w.out != nil && len(w.buf) >= w.chunk {
		w.Flush()
	}
}

// Write appends p; it makes a Writer an io.Writer.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.out != nil && len(w.buf)+len(p) > w.chunk {
		if w.Flush() != nil {
			return 0, w.err
		}
		if len(p) >= w.chunk {
			// Too large to be worth copying.
			m, err := w.out.Write(p)
			w.n += int64(m)
			w.err = err
			return m, err
		}
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// Header writes f's magic and version.
func (w *Writer) Header(f Format) {
	w.Write([]byte(f.Magic))
	w.Uvarint(f.Version)
}

// Byte appends one byte.
func (w *Writer) Byte(c byte) {
	w.buf = append(w.buf, c)
	w.spill()
}

// Uvarint appends v as an unsigned varint.
func (w *Writer) Uvarint(v uint64) {
	w.buf = binary.AppendUvarint(w.buf, v)
	w.spill()
}

// Varint appends v as a signed (zigzag) varint.
func (w *Writer) Varint(v int64) {
	w.buf = binary.AppendVarint(w.buf, v)
	w.spill()
}

// Uint32 appends v, little-endian.
func (w *Writer) Uint32(v uint32) {
	w.buf = binary.LittleEndian.AppendUint32(w.buf, v)
	w.spill()
}

// Uint64 appends v, little-endian.
func (w *Writer) Uint64(v uint64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, v)
	w.spill()
}

// Float32 appends v's bits, little-endian.
func (w *Writer) Float32(v float32) { w.Uint32(math.Float32bits(v)) }

// Float64 appends v's bits, little-endian.
func (w *Writer) Float64(v float64) { w.Uint64(math.Float64bits(v)) }

// String appends s, prefixed by its length as an unsigned varint.
func (w *Writer) String(s string) {
	w.Uvarint(uint64(len(s)))
	w.buf = append(w.buf, s...)
	w.spill()
}

// Section appends a block that fn writes, prefixed by its length as an
// unsigned varint. fn runs twice, once to measure the block and once to
// write it, which costs less than holding a large block in memory; it must
// write the same both times.
func (w *Writer) Section(fn func(io.Writer) error) {
	if w.err != nil {
		return
	}
	var n counter
	if w.err = fn(&n); w.err != nil {
		return
	}
	w.Uvarint(uint64(n))
	start := w.Len()
	if err := fn(w); w.err == nil {
		w.err = err
	}
	if w.err == nil && w.Len()-start != int64(n) {
		w.err = fmt.Errorf("binio: a section wrote %d bytes, then %d", n, w.Len()-start)
	}
}

type counter int64

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

// Reader decodes from a buffered input that holds at most a known number
// of bytes. After the first error every method returns zero values.
type Reader struct {
	r    *bufio.Reader
	off  int64 // bytes consumed
	size int64 // bytes the input holds at most; negative: unknown
	err  error
}

// NewReader decodes from src through a buffer of bufSize bytes. size is
// how many bytes src holds at most; negative means unknown, in which case
// the N of an *io.LimitedReader (what Section hands out) is used, and
// counts are bounded only by the limits their callers give.
func NewReader(src io.Reader, size int64, bufSize int) *Reader {
	if lr, ok := src.(*io.LimitedReader); ok && size < 0 {
		size = lr.N
	}
	return &Reader{r: bufio.NewReaderSize(src, bufSize), size: size}
}

// Err is the first error met, if any.
func (r *Reader) Err() error { return r.err }

// Fail records err unless an error is already recorded: a caller's own
// check of what it read stops the reader like a read error.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Remaining is how many bytes the input can still hold, or math.MaxInt64
// when its size is unknown.
func (r *Reader) Remaining() int64 {
	if r.size < 0 {
		return math.MaxInt64
	}
	return max(r.size-r.off, 0)
}

// Header reads what Writer.Header wrote and checks it against f: the
// error, also recorded, is ErrFormat when the magic bytes differ or cannot
// be read, a *VersionError when the version differs.
func (r *Reader) Header(f Format) error {
	magic := make([]byte, len(f.Magic))
	if r.Full(magic); r.err != nil || string(magic) != f.Magic {
		r.err = ErrFormat
		return r.err
	}
	if v := r.Uvarint(); r.err == nil && v != f.Version {
		r.err = &VersionError{Got: v, Want: f.Version}
	}
	return r.err
}

// Full fills p.
func (r *Reader) Full(p []byte) {
	if r.err != nil {
		clear(p)
		return
	}
	n, err := io.ReadFull(r.r, p)
	r.off += int64(n)
	r.err = err
}

// Bytes reads n bytes into a new slice; n must be within what the input
// can still hold.
func (r *Reader) Bytes(n int) []byte {
	if r.err == nil && int64(n) > r.Remaining() {
		r.err = io.ErrUnexpectedEOF
	}
	if r.err != nil {
		return nil
	}
	b := make([]byte, n)
	r.Full(b)
	return b
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if r.err != nil {
		return 0
	}
	c, err := r.r.ReadByte()
	if err != nil {
		r.err = err
		return 0
	}
	r.off++
	return c
}

var errOverflow = errors.New("binio: varint overflows a 64-bit integer")

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	var x uint64
	var s uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		c, err := r.r.ReadByte()
		if err != nil {
			if i > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			r.err = err
			return 0
		}
		r.off++
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break
			}
			return x | uint64(c)<<s
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
	r.err = errOverflow
	return 0
}

// Varint reads a signed (zigzag) varint.
func (r *Reader) Varint() int64 {
	ux := r.Uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

// Uint32 reads a little-endian uint32.
func (r *Reader) Uint32() uint32 {
	var b [4]byte
	r.Full(b[:])
	return binary.LittleEndian.Uint32(b[:])
}

// Uint64 reads a little-endian uint64.
func (r *Reader) Uint64() uint64 {
	var b [8]byte
	r.Full(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// Float32 reads a little-endian float32.
func (r *Reader) Float32() float32 { return math.Float32frombits(r.Uint32()) }

// Float64 reads a little-endian float64.
func (r *Reader) Float64() float64 { return math.Float64frombits(r.Uint64()) }

// Count reads an unsigned varint that counts what follows: it must be at
// most limit and at most the bytes the input can still hold (every element
// takes at least one).
func (r *Reader) Count(limit int) int {
	limit64 := min(int64(limit), r.Remaining())
	v := r.Uvarint()
	if v > uint64(limit64) {
		r.Fail(fmt.Errorf("count %d over limit %d", v, limit64))
		return 0
	}
	return int(v)
}

// String reads a string of at most limit bytes written by Writer.String.
func (r *Reader) String(limit int) string {
	n := r.Count(limit)
	if r.err != nil || n == 0 {
		return ""
	}
	return string(r.Bytes(n))
}

// Section hands fn exactly the bytes of one block written by
// Writer.Section; what fn leaves unread is skipped.
func (r *Reader) Section(fn func(io.Reader) error) {
	n := r.Uvarint()
	if r.err == nil && n > uint64(r.Remaining()) {
		r.err = io.ErrUnexpectedEOF
	}
	if r.err != nil {
		return
	}
	lr := &io.LimitedReader{R: r.r, N: int64(n)}
	if r.err = fn(lr); r.err == nil {
		_, r.err = io.Copy(io.Discard, lr)
	}
	r.off += int64(n) - lr.N
}

// Drain consumes the rest of the input (so that a checksum computed as it
// is read covers all of it).
func (r *Reader) Drain() error {
	if r.err == nil {
		var n int64
		n, r.err = io.Copy(io.Discard, r.r)
		r.off += n
	}
	return r.err
}
