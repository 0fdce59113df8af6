package memindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/infmem/infmem/internal/binio"
	"github.com/infmem/infmem/internal/textindex"
	"github.com/infmem/infmem/internal/vecindex"
)

// The snapshot file holds a whole index, so that a start can skip reading
// every memory and embedding from the database. When a file may be trusted
// is the memory engine's rule (see internal/memory's snapshot.go); this is
// only its encoding.
//
// Layout (binio): magic, version, token, model id, dimension; the interned
// strings (scopes, tags, conversations, sources, speakers); the items, one
// a slot (a free slot is a single 0 byte); the keyword index and the
// vector index (none without embeddings), each as a length-prefixed
// section; the links (links.go), a section present only when some memory
// has one, and the kinds of links, one present only when some link was
// found by meaning; the glosses (a section present only when the index
// glosses, Header.Gloss: then the two links' sections are always
// written, empty when there are none, so that it is the fifth); a
// little-endian CRC-32C of everything before it. A snapshot without
// glosses is written byte for byte as before them.
var snapFormat = binio.Format{Magic: "INFMEMSN", Version: 3}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Header says what a snapshot was made for: a file made for another token,
// embedding model or dimension is refused.
type Header struct {
	Token string
	Model string
	Dim   int
	// Gloss is the signature of the index's glosses (GlossSignature), ""
	// when it glosses nothing: a file of another is refused, and one made
	// before glosses (or without) is refused by an index that glosses.
	Gloss string
}

// interners lists the string tables in the order the snapshot keeps them.
func (ix *Index) interners() []*interner {
	return []*interner{&ix.scopes, &ix.tags, &ix.convs, &ix.sources, &ix.speakers}
}

// WriteFile writes the index to a snapshot file at path (through a
// temporary file renamed over it). Writers wait meanwhile.
func (ix *Index) WriteFile(path string, h Header) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".infmem-index-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	crc := crc32.New(crcTable)
	w := binio.NewWriter(io.MultiWriter(f, crc), 1<<20)
	ix.mu.RLock()
	ix.encodeLocked(w, h)
	ix.mu.RUnlock()
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32())); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func (ix *Index) encodeLocked(w *binio.Writer, h Header) {
	w.Header(snapFormat)
	w.String(h.Token)
	w.String(h.Model)
	w.Uvarint(uint64(h.Dim))
	for _, in := range ix.interners() {
		w.Uvarint(uint64(len(in.names)))
		for _, n := range in.names {
			w.String(n)
		}
	}
	w.Uvarint(uint64(len(ix.items)))
	for slot := range ix.items {
		it := &ix.items[slot]
		if !it.used {
			w.Byte(0)
			continue
		}
		hdr := byte(it.flags)<<2 | 1
		if it.hasVec {
			hdr |= 2
		}
		w.Byte(hdr)
		w.Byte(byte(it.kind))
		w.Write(it.id[:])
		w.Uvarint(uint64(it.source))
		w.Uvarint(uint64(it.scope))
		w.Uvarint(uint64(it.conv))
		w.Uvarint(uint64(len(it.tags)))
		for _, t := range it.tags {
			w.Uvarint(uint64(t))
		}
		w.Varint(it.ts)
		w.Varint(it.created)
		w.Float32(it.importance)
		w.Varint(it.useCount)
		w.Write(it.key[:])
		w.Varint(it.forgottenAt)
		w.Uvarint(uint64(it.speaker))
		w.Varint(it.refFrom)
		w.Varint(it.refTo)
	}
	// The index is read-locked, so a section's two runs write the same.
	w.Section(func(out io.Writer) error { _, err := ix.text.WriteTo(out); return err })
	if ix.vecs != nil {
		w.Section(func(out io.Writer) error { _, err := ix.vecs.WriteTo(out); return err })
	}
	// The links (superseded, contradicted) follow when there are any: a
	// snapshot without them reads as before, and a reader that predates
	// them skips them.
	if len(ix.links) > 0 || h.Gloss != "" {
		w.Section(ix.writeLinks)
		if len(ix.meaningSlotsLocked()) > 0 || h.Gloss != "" {
			w.Section(ix.writeLinkKinds)
		}
	}
	if h.Gloss != "" {
		w.Section(func(out io.Writer) error { return ix.writeGlosses(out, h.Gloss) })
	}
}

// writeGlosses encodes the glosses' signature and the slots that have
// glosses with them, in slot order.
func (ix *Index) writeGlosses(out io.Writer, sig string) error {
	w := binio.NewWriter(out, 1<<16)
	w.String(sig)
	slots := make([]uint32, 0, len(ix.glosses))
	for s := range ix.glosses {
		slots = append(slots, s)
	}
	slices.Sort(slots)
	w.Uvarint(uint64(len(slots)))
	for _, s := range slots {
		w.Uvarint(uint64(s))
		w.String(ix.glosses[s])
	}
	return w.Flush()
}

// readGlosses decodes what writeGlosses wrote, refusing another
// signature than want; every slot must hold a memory.
func (ix *Index) readGlosses(in io.Reader, want string) error {
	r := binio.NewReader(in, -1, 1<<16)
	if got := r.String(1 << 12); r.Err() == nil && got != want {
		return fmt.Errorf("snapshot glossed as %q, now %q", got, want)
	}
	n := r.Count(1 << 26)
	for i := 0; i < n && r.Err() == nil; i++ {
		slot := r.Uvarint()
		g := r.String(1 << 20)
		if r.Err() == nil && (slot >= uint64(len(ix.items)) || !ix.items[slot].used || g == "") {
			r.Fail(errors.New("glosses of a slot that holds no memory"))
		}
		if r.Err() == nil {
			ix.glosses[uint32(slot)] = g
		}
	}
	return r.Err()
}

// ReadFile reads the snapshot file at path, which must have been made for
// h; loc is the time zone of the index read.
func ReadFile(path string, h Header, loc *time.Location) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err == nil && fi.Size() < 4 {
		err = errors.New("snapshot file too short")
	}
	if err != nil {
		return nil, err
	}
	crc := crc32.New(crcTable)
	// Counts read from the file are capped by what is left of it, so a
	// damaged or crafted file cannot make the reader allocate more than it
	// could hold.
	body := fi.Size() - 4
	r := binio.NewReader(io.TeeReader(io.LimitReader(f, body), crc), body, 1<<20)
	ix, err := decode(r, h, loc)
	if err != nil {
		return nil, err
	}
	// Read what is left of the body, so the checksum covers all of it, then
	// compare.
	if err := r.Drain(); err != nil {
		return nil, err
	}
	var want [4]byte
	if _, err := io.ReadFull(f, want[:]); err != nil {
		return nil, err
	}
	if crc.Sum32() != binary.LittleEndian.Uint32(want[:]) {
		return nil, errors.New("snapshot checksum mismatch")
	}
	ix.orderThreadsLocked()
	ix.recountLocked()
	return ix, nil
}

func decode(r *binio.Reader, h Header, loc *time.Location) (*Index, error) {
	if r.Header(snapFormat) != nil {
		return nil, errors.New("not an index snapshot of this version")
	}
	if got := r.String(1 << 24); got != h.Token {
		return nil, errors.New("snapshot is not the one the database names")
	}
	if got := r.String(1 << 24); got != h.Model {
		return nil, fmt.Errorf("snapshot made with embedding model %q, now %q", got, h.Model)
	}
	if got := int(r.Uvarint()); got != h.Dim {
		return nil, fmt.Errorf("snapshot of %d-d vectors, now %d", got, h.Dim)
	}
	ix := New(0, loc)
	for _, in := range ix.interners() {
		n := r.Count(1 << 26)
		names := make([]string, 0, n)
		for i := 0; i < n; i++ {
			names = append(names, r.String(1<<24))
		}
		if r.Err() == nil && (n == 0 || names[0] != "") {
			r.Fail(errors.New("damaged string table"))
		}
		*in = interner{ids: make(map[string]uint32, n), names: names}
		for i, s := range names {
			in.ids[s] = uint32(i)
		}
	}
	// ref reads an interned string's id and checks it is in range.
	ref := func(in *interner) uint32 {
		v := r.Uvarint()
		if v >= uint64(len(in.names)) {
			r.Fail(errors.New("string reference out of range"))
		}
		return uint32(v)
	}
	n := r.Count(1 << 26)
	ix.items = make([]item, n)
	for slot := 0; slot < n && r.Err() == nil; slot++ {
		hdr := r.Byte()
		if r.Err() != nil || hdr == 0 {
			ix.free = append(ix.free, uint32(slot))
			continue
		}
		it := &ix.items[slot]
		it.used, it.hasVec, it.flags = true, hdr&2 != 0, Flag(hdr>>2)
		it.kind = Kind(r.Byte())
		r.Full(it.id[:])
		it.source, it.scope, it.conv = ref(&ix.sources), ref(&ix.scopes), ref(&ix.convs)
		it.tags = make([]uint32, r.Count(1<<10))
		for i := range it.tags {
			it.tags[i] = ref(&ix.tags)
		}
		it.ts, it.created = r.Varint(), r.Varint()
		it.importance = r.Float32()
		it.useCount = r.Varint()
		r.Full(it.key[:])
		it.forgottenAt = r.Varint()
		it.speaker = ref(&ix.speakers)
		it.refFrom, it.refTo = r.Varint(), r.Varint()
		ix.byID[it.id] = uint32(slot)
		if it.live() {
			ix.dedup[dedupKey{it.scope, it.key}] = uint32(slot)
		}
		if it.hasVec {
			ix.vecCount++
		}
	}
	if r.Err() != nil {
		return nil, fmt.Errorf("damaged snapshot: %w", r.Err())
	}
	r.Section(func(in io.Reader) error {
		// Document ids are slots: none is beyond the items read above.
		t, err := textindex.ReadBounded(in, textindex.DefaultOptions(), textindex.DocID(len(ix.items)))
		ix.text = t
		if err == nil {
			for slot := range ix.items {
				if ix.items[slot].used && ix.items[slot].kind == KindSummary {
					t.SetAside(uint32(slot), true)
				}
			}
		}
		return err
	})
	if h.Dim > 0 {
		r.Section(func(in io.Reader) error {
			v, err := vecindex.Read(in, h.Dim)
			ix.vecs = v
			return err
		})
	}
	if r.Err() == nil && r.Remaining() > 0 {
		r.Section(ix.readLinks)
	}
	if r.Err() == nil && r.Remaining() > 0 {
		r.Section(ix.readLinkKinds)
	}
	glossed := r.Err() == nil && r.Remaining() > 0
	if glossed {
		r.Section(func(in io.Reader) error { return ix.readGlosses(in, h.Gloss) })
	}
	if r.Err() != nil {
		return nil, fmt.Errorf("damaged snapshot: %w", r.Err())
	}
	if !glossed && h.Gloss != "" {
		// Made before glosses, or without: its notes' keyword terms lack
		// them.
		return nil, fmt.Errorf("snapshot not glossed, now %q", h.Gloss)
	}
	return ix, nil
}
