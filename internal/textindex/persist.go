package textindex

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/infmem/infmem/internal/binio"
)

// AnalyzerVersion changes whenever tokenisation or stemming changes; an
// index written by another version cannot answer this version's queries.
const AnalyzerVersion = 1

// format opens a persisted index: its magic and the analyzer version.
var format = binio.Format{Magic: "TXIX", Version: AnalyzerVersion}

// ErrIncompatible means persisted data was written with other options or
// another analyzer version and must be rebuilt from the documents' text.
var ErrIncompatible = errors.New("textindex: persisted index is incompatible")

// WriteTo writes the index: its options, its term dictionary and every
// document's terms. Posting lists are derived and not written.
func (ix *Index) WriteTo(out io.Writer) (int64, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	w := binio.NewWriter(out, 1<<16)
	w.Header(format)
	w.Float64(ix.opts.K1)
	w.Float64(ix.opts.B)
	w.Byte(boolByte(ix.opts.StopWords))
	w.Byte(boolByte(ix.opts.Stemming))
	w.Uvarint(uint64(len(ix.terms)))
	for _, t := range ix.terms {
		w.String(t.name)
	}
	w.Uvarint(uint64(ix.nDocs))
	prev := uint64(0)
	for id := range ix.docLen {
		if !ix.isLive(DocID(id)) {
			continue
		}
		w.Uvarint(uint64(id) - prev)
		prev = uint64(id)
		fwd := ix.fwd[id]
		w.Uvarint(uint64(len(fwd)))
		last := uint32(0)
		for _, t := range fwd {
			w.Uvarint(uint64(t - last))
			last = t
		}
	}
	err := w.Flush()
	return w.Len(), err
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
	rd := binio.NewReader(r, -1, 1<<16)
	var version *binio.VersionError
	if err := rd.Header(format); errors.As(err, &version) {
		return nil, fmt.Errorf("%w: analyzer %v", ErrIncompatible, version)
	} else if err != nil {
		return nil, fmt.Errorf("textindex: not a persisted index")
	}
	got := Options{K1: rd.Float64(), B: rd.Float64(), StopWords: rd.Byte() == 1, Stemming: rd.Byte() == 1}
	if rd.Err() == nil && got != opts {
		return nil, fmt.Errorf("%w: options %+v, want %+v", ErrIncompatible, got, opts)
	}
	ix := New(opts)
	nTerms := rd.Count(1 << 28)
	// Grow as terms are read instead of trusting the count: a damaged
	// count must not allocate gigabytes or loop 2^28 times.
	ix.terms = make([]termInfo, 0, min(nTerms, 1<<16))
	for i := 0; i < nTerms && rd.Err() == nil; i++ {
		ix.terms = append(ix.terms, termInfo{})
		name := rd.String(1 << 12)
		if name == "" {
			ix.freeTerms = append(ix.freeTerms, uint32(i))
			continue
		}
		ix.terms[i].name = name
		ix.dict[name] = uint32(i)
	}
	nDocs := rd.Count(int(limit))
	id := uint64(0)
	for d := 0; d < nDocs && rd.Err() == nil; d++ {
		id += rd.Uvarint()
		if id >= limit {
			rd.Fail(errors.New("document id out of range"))
			break
		}
		n := rd.Count(1 << 20)
		fwd := make([]uint32, 0, min(n, 1<<10))
		last := uint64(0)
		for i := 0; i < n && rd.Err() == nil; i++ {
			last += rd.Uvarint()
			if last >= uint64(len(ix.terms)) || ix.terms[last].name == "" {
				rd.Fail(errors.New("term id out of range"))
				break
			}
			fwd = append(fwd, uint32(last))
		}
		if rd.Err() == nil && !slices.IsSorted(fwd) {
			rd.Fail(errors.New("unsorted document terms"))
		}
		if rd.Err() != nil {
			break
		}
		doc := DocID(id)
		if ix.isLive(doc) {
			rd.Fail(errors.New("document written twice"))
			break
		}
		for i := 0; i < len(fwd); {
			j := i + 1
			for j < len(fwd) && fwd[j] == fwd[i] {
				j++
			}
			t := &ix.terms[fwd[i]]
			t.postings = append(t.postings, uint32(doc)|uint32(min(j-i, maxTF))<<docBits)
			t.maxTF = max(t.maxTF, uint8(min(j-i, maxTF)))
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
	if rd.Err() != nil {
		return nil, fmt.Errorf("textindex: damaged persisted index: %w", rd.Err())
	}
	// The postings were grown by appending, up to twice their length, and
	// every list was its own allocation: all of them move into one arena,
	// each cut to its length (the load's garbage goes back to the system
	// once the engine is loaded).
	ix.packLocked()
	// Terms that lost their last document before the index was written.
	for i := range ix.terms {
		if ix.terms[i].name != "" && len(ix.terms[i].postings) == 0 {
			delete(ix.dict, ix.terms[i].name)
			ix.terms[i] = termInfo{}
			ix.freeTerms = append(ix.freeTerms, uint32(i))
		}
		if ix.terms[i].name != "" {
			ix.shapeAddLocked(uint32(i), ix.terms[i].name)
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
