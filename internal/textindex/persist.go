package textindex

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// AnalyzerVersion changes whenever tokenisation or stemming changes; an
// index written by another version cannot answer this version's queries.
const AnalyzerVersion = 1

const persistMagic = "TXIX"

// ErrIncompatible means persisted data was written with other options or
// another analyzer version and must be rebuilt from the documents' text.
var ErrIncompatible = errors.New("textindex: persisted index is incompatible")

// WriteTo writes the index: its options, its term dictionary and every
// document's terms. Posting lists are derived and not written.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	cw := &countWriter{w: bufio.NewWriterSize(w, 1<<16)}
	var buf []byte
	buf = append(buf, persistMagic...)
	buf = binary.AppendUvarint(buf, AnalyzerVersion)
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(ix.opts.K1))
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(ix.opts.B))
	buf = append(buf, boolByte(ix.opts.StopWords), boolByte(ix.opts.Stemming))
	buf = binary.AppendUvarint(buf, uint64(len(ix.terms)))
	for _, t := range ix.terms {
		buf = binary.AppendUvarint(buf, uint64(len(t.name)))
		buf = append(buf, t.name...)
		if len(buf) > 1<<15 {
			cw.Write(buf)
			buf = buf[:0]
		}
	}
	buf = binary.AppendUvarint(buf, uint64(ix.nDocs))
	prev := uint64(0)
	for id := range ix.docLen {
		if !ix.isLive(DocID(id)) {
			continue
		}
		buf = binary.AppendUvarint(buf, uint64(id)-prev)
		prev = uint64(id)
		fwd := ix.fwd[id]
		buf = binary.AppendUvarint(buf, uint64(len(fwd)))
		last := uint32(0)
		for _, t := range fwd {
			buf = binary.AppendUvarint(buf, uint64(t-last))
			last = t
		}
		if len(buf) > 1<<15 {
			cw.Write(buf)
			buf = buf[:0]
		}
	}
	cw.Write(buf)
	if cw.err == nil {
		cw.err = cw.w.(*bufio.Writer).Flush()
	}
	return cw.n, cw.err
}

// Read reads an index written by WriteTo. It returns ErrIncompatible when
// the data was written with other options than opts or by another analyzer
// version.
func Read(r io.Reader, opts Options) (*Index, error) {
	return ReadBounded(r, opts, MaxDocID+1)
}

// ReadBounded is Read for an index whose document ids are all below
// docs (a caller that knows how many slots it has): a damaged id beyond it
// is refused before any memory is sized for it.
func ReadBounded(r io.Reader, opts Options, docs DocID) (*Index, error) {
	limit := uint64(min(docs, MaxDocID+1))
	br := bufio.NewReaderSize(r, 1<<16)
	magic := make([]byte, len(persistMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != persistMagic {
		return nil, fmt.Errorf("textindex: not a persisted index")
	}
	rd := &reader{r: br}
	if v := rd.uvarint(); v != AnalyzerVersion {
		return nil, fmt.Errorf("%w: analyzer version %d, want %d", ErrIncompatible, v, AnalyzerVersion)
	}
	got := Options{K1: math.Float64frombits(rd.u64()), B: math.Float64frombits(rd.u64()), StopWords: rd.byte() == 1, Stemming: rd.byte() == 1}
	if rd.err == nil && got != opts {
		return nil, fmt.Errorf("%w: options %+v, want %+v", ErrIncompatible, got, opts)
	}
	ix := New(opts)
	nTerms := rd.count(1 << 28)
	// Grow as terms are read instead of trusting the count: a damaged
	// count must not allocate gigabytes or loop 2^28 times.
	ix.terms = make([]termInfo, 0, min(nTerms, 1<<16))
	for i := 0; i < nTerms && rd.err == nil; i++ {
		ix.terms = append(ix.terms, termInfo{})
		name := rd.bytes(1 << 12)
		if name == "" {
			ix.freeTerms = append(ix.freeTerms, uint32(i))
			continue
		}
		ix.terms[i].name = name
		ix.dict[name] = uint32(i)
	}
	nDocs := rd.count(int(limit))
	id := uint64(0)
	for d := 0; d < nDocs && rd.err == nil; d++ {
		id += rd.uvarint()
		if id >= limit {
			rd.err = errors.New("document id out of range")
			break
		}
		n := rd.count(1 << 20)
		fwd := make([]uint32, 0, min(n, 1<<10))
		last := uint64(0)
		for i := 0; i < n && rd.err == nil; i++ {
			last += rd.uvarint()
			if last >= uint64(len(ix.terms)) || ix.terms[last].name == "" {
				rd.err = errors.New("term id out of range")
				break
			}
			fwd = append(fwd, uint32(last))
		}
		if rd.err != nil || !slices.IsSorted(fwd) {
			if rd.err == nil {
				rd.err = errors.New("unsorted document terms")
			}
			break
		}
		doc := DocID(id)
		if ix.isLive(doc) {
			rd.err = errors.New("document written twice")
			break
		}
		for i := 0; i < len(fwd); {
			j := i + 1
			for j < len(fwd) && fwd[j] == fwd[i] {
				j++
			}
			t := &ix.terms[fwd[i]]
			t.postings = append(t.postings, uint32(doc)|uint32(min(j-i, maxTF))<<docBits)
			ix.nPostings++
			i = j
		}
		ix.growDocs(doc)
		ix.docLen[doc] = uint32(len(fwd))
		ix.fwd[doc] = fwd
		ix.live[doc>>6] |= 1 << (doc & 63)
		ix.nDocs++
		ix.totalLen += uint64(len(fwd))
	}
	if rd.err != nil {
		return nil, fmt.Errorf("textindex: damaged persisted index: %w", rd.err)
	}
	// Terms that lost their last document before the index was written.
	for i := range ix.terms {
		if ix.terms[i].name != "" && len(ix.terms[i].postings) == 0 {
			delete(ix.dict, ix.terms[i].name)
			ix.terms[i] = termInfo{}
			ix.freeTerms = append(ix.freeTerms, uint32(i))
		}
	}
	return ix, nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
}

// reader decodes with a sticky error.
type reader struct {
	r   *bufio.Reader
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(r.r)
	r.err = err
	return v
}

func (r *reader) count(limit int) int {
	v := r.uvarint()
	if v > uint64(limit) {
		if r.err == nil {
			r.err = fmt.Errorf("count %d over limit %d", v, limit)
		}
		return 0
	}
	return int(v)
}

func (r *reader) u64() uint64 {
	if r.err != nil {
		return 0
	}
	var b [8]byte
	_, r.err = io.ReadFull(r.r, b[:])
	return binary.LittleEndian.Uint64(b[:])
}

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	b, err := r.r.ReadByte()
	r.err = err
	return b
}

func (r *reader) bytes(limit int) string {
	n := r.count(limit)
	if r.err != nil || n == 0 {
		return ""
	}
	b := make([]byte, n)
	_, r.err = io.ReadFull(r.r, b)
	return string(b)
}
