package memory

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/textindex"
	"github.com/infmem/infmem/internal/vecindex"
)

// The index snapshot lets a restart skip reading every memory and embedding
// from the database (about 50 s at 100k memories on the embedded engine):
// the engine writes its in-memory index to a file, then records the file's
// random token in Metadata. Every store Open clears that record, so a
// snapshot is used only when nothing but this engine can have changed the
// database since it was taken; the engine's own changes since then are
// named in the change journal (journal.go), or, past its limit, the engine
// clears the record before writing.
//
// Layout: magic, version, token, model id, dimension; the interned strings;
// the items; the keyword index and the vector index, each as a
// length-prefixed section; a CRC-32C of everything before it.
const (
	snapMagic   = "INFMEMSN"
	snapVersion = 3
)

// SnapshotFile is the snapshot's file name in the data root's mongo_data/.
const SnapshotFile = "infmem-index.snap"

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// snapshotState tracks whether the database's snapshot record matches a
// file this engine wrote.
type snapshotState struct {
	// valid: the record names a snapshot file that, with the ids in jr,
	// describes the database. With valid set and jr nil, the first write
	// must drop the record.
	valid     bool
	jr        *journal
	lastWrite time.Time // last change to the database
	lastSnap  time.Time
}

// markDirty runs before the engine changes the memories named by ids in
// the database: it journals them so the snapshot stays usable, or, when
// it cannot (no ids given, journal full or failing), clears the snapshot
// record. Callers hold writeMu, or snapMu for writes outside it.
func (e *Engine) markDirty(ctx context.Context, ids ...bson.ObjectID) {
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	e.snap.lastWrite = time.Now()
	if !e.snap.valid {
		return
	}
	if e.snap.jr != nil && len(ids) > 0 {
		ok, err := e.snap.jr.add(ids)
		if err == nil && ok {
			return
		}
		if err != nil {
			e.log.Warn("cannot journal a change; the index snapshot is dropped", "err", err)
		}
	}
	e.dropSnapshotLocked(ctx)
}

// dropSnapshotLocked stops the recorded snapshot from vouching for the
// database. Callers hold snapMu.
func (e *Engine) dropSnapshotLocked(ctx context.Context) {
	if e.snap.jr != nil {
		e.snap.jr.close()
		e.snap.jr = nil
	}
	e.snap.valid = false
	if err := e.store.InvalidateSnapshot(ctx); err != nil {
		// The write still goes ahead, so make sure no start can use the
		// snapshot file the record still names.
		e.log.Error("cannot invalidate the index snapshot record; removing the snapshot file", "err", err)
		if rerr := os.Remove(e.opts.SnapshotPath); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			e.log.Error("cannot remove the index snapshot file", "err", rerr)
		}
	}
}

// Snapshot writes the index to the snapshot file, starts an empty change
// journal and records both, unless the recorded snapshot is current and
// nothing is journaled. It blocks writes meanwhile.
func (e *Engine) Snapshot(ctx context.Context) error {
	if e.opts.SnapshotPath == "" || !e.Ready() {
		return nil
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	if e.snap.valid && e.snap.jr != nil && e.snap.jr.count() == 0 {
		return nil
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	token := hex.EncodeToString(b)
	start := time.Now()
	if e.snap.jr != nil {
		// Until the new token is recorded the old record still holds; no
		// write can happen meanwhile, and any failure below leaves valid
		// set with no journal, so the next write drops the record.
		e.snap.jr.close()
		e.snap.jr = nil
	}
	if err := writeSnapshotFile(e.opts.SnapshotPath, token, e.modelID, e.dim, e.index()); err != nil {
		return fmt.Errorf("cannot write the index snapshot: %w", err)
	}
	jr, err := createJournal(journalPath(e.opts.SnapshotPath), token, e.opts.JournalLimit)
	if err != nil {
		return fmt.Errorf("cannot start the index change journal: %w", err)
	}
	if err := e.store.RecordSnapshot(ctx, token); err != nil {
		jr.close()
		return fmt.Errorf("cannot record the index snapshot: %w", err)
	}
	e.snap.valid, e.snap.jr, e.snap.lastSnap = true, jr, time.Now()
	e.log.Info("index snapshot written", "path", e.opts.SnapshotPath, "duration", time.Since(start).Round(time.Millisecond))
	return nil
}

// runSnapshotter snapshots the index once writes have paused for a
// minute, at most every ten minutes, and sooner when the change journal
// fills, so a restart rarely costs a full reload.
func (e *Engine) runSnapshotter(ctx context.Context) {
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if e.snapshotDue(time.Now()) {
			if err := e.Snapshot(ctx); err != nil {
				e.log.Warn("index snapshot failed", "err", err)
			}
		}
	}
}

func (e *Engine) snapshotDue(now time.Time) bool {
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	journaled := 0
	if e.snap.jr != nil {
		journaled = e.snap.jr.count()
	}
	if e.snap.valid && journaled == 0 {
		return false
	}
	if now.Sub(e.snap.lastWrite) > time.Minute && now.Sub(e.snap.lastSnap) > 10*time.Minute {
		return true
	}
	// A journal half full is replaced even while writes go on.
	return e.snap.valid && journaled >= e.opts.JournalLimit/2 && now.Sub(e.snap.lastSnap) > time.Minute
}

// loadSnapshot fills the index from the snapshot file the database names
// as current and re-reads the memories its change journal names; false
// means a full load is needed. On success the snapshot is recorded again
// and the journal stays open for this engine's writes.
func (e *Engine) loadSnapshot(ctx context.Context) bool {
	token := e.store.SnapshotToken()
	if e.opts.SnapshotPath == "" || token == "" {
		return false
	}
	start := time.Now()
	ix, err := readSnapshotFile(e.opts.SnapshotPath, token, e.modelID, e.dim, e.opts.Location)
	if err != nil {
		e.log.Info("index snapshot not used; loading from the database", "reason", err)
		return false
	}
	jpath := journalPath(e.opts.SnapshotPath)
	ids, size, err := readJournal(jpath, token)
	if err != nil {
		e.log.Info("index snapshot not used; loading from the database", "reason", err)
		return false
	}
	e.ixp.Store(ix)
	for id := range ids {
		if err := e.refresh(ctx, id); err != nil {
			e.log.Warn("cannot apply the index change journal; loading from the database", "err", err)
			e.ixp.Store(newIndex(e.dim, e.opts.Location))
			return false
		}
	}
	e.fromSnapshot.Store(true)
	e.loaded.Store(int64(len(ix.byID)))
	e.log.Info("index loaded from snapshot", "memories", len(ix.byID), "journaled_changes", len(ids), "duration", time.Since(start).Round(time.Millisecond))

	// Nothing but this engine writes from now on: keep journaling into the
	// same journal and name the snapshot as current again.
	jr, err := openJournal(jpath, size, ids, e.opts.JournalLimit)
	if err != nil {
		e.log.Warn("cannot reopen the index change journal; the next write drops the snapshot", "err", err)
	}
	if err := e.store.RecordSnapshot(ctx, token); err != nil {
		if jr != nil {
			jr.close()
		}
		return true
	}
	e.snapMu.Lock()
	e.snap.valid, e.snap.jr, e.snap.lastSnap = true, jr, time.Now()
	e.snapMu.Unlock()
	return true
}

// refresh makes the index's entry for id match the database.
func (e *Engine) refresh(ctx context.Context, id bson.ObjectID) error {
	var d doc
	m, err := e.store.Memories.Get(ctx, id)
	switch {
	case err == nil:
		d = docFromMemory(m)
	case errIsNotFound(err):
		s, err := e.store.Summaries.Get(ctx, id)
		if errIsNotFound(err) {
			e.index().remove(id)
			// A hard delete that crashed between its two writes.
			if _, err := e.store.Index.Delete(ctx, id); err != nil && !errIsNotFound(err) {
				return err
			}
			return nil
		}
		if err != nil {
			return err
		}
		d = docFromSummary(s)
	default:
		return err
	}
	e.index().put(d)
	if e.index().vecs == nil {
		return nil
	}
	entry, err := e.store.Index.Get(ctx, id)
	if errIsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if v := e.decodeEntry(entry); v != nil {
		e.index().setVec(id, v)
	}
	return nil
}

func writeSnapshotFile(path, token, model string, dim int, ix *index) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".infmem-index-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	crc := crc32.New(crcTable)
	bw := bufio.NewWriterSize(io.MultiWriter(f, crc), 1<<20)
	w := &snapWriter{w: bw}

	ix.mu.RLock()
	w.raw([]byte(snapMagic))
	w.uvarint(snapVersion)
	w.str(token)
	w.str(model)
	w.uvarint(uint64(dim))
	for _, in := range []*interner{&ix.scopes, &ix.tags, &ix.convs, &ix.sources, &ix.speakers} {
		w.uvarint(uint64(len(in.names)))
		for _, n := range in.names {
			w.str(n)
		}
	}
	w.uvarint(uint64(len(ix.items)))
	for slot := range ix.items {
		it := &ix.items[slot]
		if !it.used {
			w.raw([]byte{0})
			continue
		}
		flags := it.flags << 2
		flags |= 1
		if it.hasVec {
			flags |= 2
		}
		w.raw([]byte{flags, byte(it.kind)})
		w.raw(it.id[:])
		w.uvarint(uint64(it.source))
		w.uvarint(uint64(it.scope))
		w.uvarint(uint64(it.conv))
		w.uvarint(uint64(len(it.tags)))
		for _, t := range it.tags {
			w.uvarint(uint64(t))
		}
		w.varint(it.ts)
		w.varint(it.created)
		w.u32(math.Float32bits(it.importance))
		w.varint(it.useCount)
		w.raw(it.key[:])
		w.varint(it.forgottenAt)
		w.uvarint(uint64(it.speaker))
		w.varint(it.refFrom)
		w.varint(it.refTo)
	}
	w.section(func(out io.Writer) error { _, err := ix.text.WriteTo(out); return err })
	if ix.vecs != nil {
		w.section(func(out io.Writer) error { _, err := ix.vecs.WriteTo(out); return err })
	}
	ix.mu.RUnlock()
	if w.err == nil {
		w.err = bw.Flush()
	}
	if w.err != nil {
		f.Close()
		return w.err
	}
	if err := binary.Write(f, binary.LittleEndian, crc.Sum32()); err != nil {
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

func readSnapshotFile(path, token, model string, dim int, loc *time.Location) (*index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < 4 {
		return nil, errors.New("snapshot file too short")
	}
	crc := crc32.New(crcTable)
	body := io.TeeReader(io.LimitReader(f, fi.Size()-4), crc)
	// Counts read from the file are capped by its size, so a damaged or
	// crafted file cannot make the reader allocate more than it could hold.
	r := &snapReader{r: bufio.NewReaderSize(body, 1<<20), max: fi.Size()}
	if string(r.raw(len(snapMagic))) != snapMagic || r.uvarint() != snapVersion {
		return nil, errors.New("not an index snapshot of this version")
	}
	if got := r.str(); got != token {
		return nil, errors.New("snapshot is not the one the database names")
	}
	if got := r.str(); got != model {
		return nil, fmt.Errorf("snapshot made with embedding model %q, now %q", got, model)
	}
	if got := int(r.uvarint()); got != dim {
		return nil, fmt.Errorf("snapshot of %d-d vectors, now %d", got, dim)
	}
	ix := newIndex(0, loc)
	for _, in := range []*interner{&ix.scopes, &ix.tags, &ix.convs, &ix.sources, &ix.speakers} {
		n := r.count(1 << 26)
		names := make([]string, 0, n)
		for i := 0; i < n; i++ {
			names = append(names, r.str())
		}
		if r.err == nil && (n == 0 || names[0] != "") {
			r.err = errors.New("damaged string table")
		}
		*in = interner{ids: make(map[string]uint32, n), names: names}
		for i, s := range names {
			in.ids[s] = uint32(i)
		}
	}
	n := r.count(1 << 26)
	ix.items = make([]item, n)
	for slot := 0; slot < n && r.err == nil; slot++ {
		hdr := r.raw(1)
		if r.err != nil || hdr[0] == 0 {
			ix.free = append(ix.free, uint32(slot))
			continue
		}
		it := &ix.items[slot]
		it.used, it.hasVec, it.flags = true, hdr[0]&2 != 0, hdr[0]>>2
		it.kind = kind(r.raw(1)[0])
		copy(it.id[:], r.raw(12))
		it.source, it.scope, it.conv = r.ref(&ix.sources), r.ref(&ix.scopes), r.ref(&ix.convs)
		nt := r.count(1 << 10)
		it.tags = make([]uint32, nt)
		for i := range it.tags {
			it.tags[i] = r.ref(&ix.tags)
		}
		it.ts, it.created = r.varint(), r.varint()
		it.importance = math.Float32frombits(r.u32())
		it.useCount = r.varint()
		copy(it.key[:], r.raw(16))
		it.forgottenAt = r.varint()
		it.speaker = r.ref(&ix.speakers)
		it.refFrom, it.refTo = r.varint(), r.varint()
		ix.byID[it.id] = uint32(slot)
		if it.live() {
			ix.dedup[dedupKey{it.scope, it.key}] = uint32(slot)
		}
		if it.hasVec {
			ix.vecCount++
		}
	}
	if r.err != nil {
		return nil, fmt.Errorf("damaged snapshot: %w", r.err)
	}
	r.section(func(in io.Reader) error {
		// Document ids are slots: none is beyond the items read above.
		t, err := textindex.ReadBounded(in, textindex.DefaultOptions(), textindex.DocID(len(ix.items)))
		ix.text = t
		return err
	})
	if dim > 0 {
		r.section(func(in io.Reader) error {
			v, err := vecindex.Read(in, dim)
			ix.vecs = v
			return err
		})
	}
	if r.err != nil {
		return nil, fmt.Errorf("damaged snapshot: %w", r.err)
	}
	// Drain what the buffered reader has not consumed, so the checksum
	// covers the whole body, then compare.
	if _, err := io.Copy(io.Discard, r.r); err != nil {
		return nil, err
	}
	var want uint32
	if err := binary.Read(f, binary.LittleEndian, &want); err != nil {
		return nil, err
	}
	if crc.Sum32() != want {
		return nil, errors.New("snapshot checksum mismatch")
	}
	// Thread order is derived.
	for slot := range ix.items {
		it := &ix.items[slot]
		if !it.used {
			continue
		}
		if it.conv != 0 {
			ix.convOrder[it.conv] = append(ix.convOrder[it.conv], uint32(slot))
		} else if k, ok := ix.sessionLocked(it); ok {
			ix.sessions[k] = append(ix.sessions[k], uint32(slot))
		}
	}
	for _, list := range ix.convOrder {
		sort.Slice(list, func(i, j int) bool { return ix.before(list[i], list[j]) })
	}
	for _, list := range ix.sessions {
		sort.Slice(list, func(i, j int) bool { return ix.before(list[i], list[j]) })
	}
	return ix, nil
}

// snapWriter encodes with a sticky error.
type snapWriter struct {
	w   io.Writer
	buf []byte
	err error
}

func (w *snapWriter) raw(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
}
func (w *snapWriter) uvarint(v uint64) { w.raw(binary.AppendUvarint(w.buf[:0], v)) }
func (w *snapWriter) varint(v int64)   { w.raw(binary.AppendVarint(w.buf[:0], v)) }
func (w *snapWriter) u32(v uint32)     { w.raw(binary.LittleEndian.AppendUint32(w.buf[:0], v)) }
func (w *snapWriter) str(s string)     { w.uvarint(uint64(len(s))); w.raw([]byte(s)) }

// section writes a length-prefixed block produced by fn, which runs twice:
// once to measure the block, once to write it (cheaper than holding a
// 100 MB block in memory; the index is read-locked, so both runs agree).
func (w *snapWriter) section(fn func(io.Writer) error) {
	if w.err != nil {
		return
	}
	var n byteCounter
	if w.err = fn(&n); w.err != nil {
		return
	}
	w.uvarint(uint64(n))
	if w.err == nil {
		w.err = fn(w.w)
	}
}

type byteCounter int64

func (c *byteCounter) Write(p []byte) (int, error) { *c += byteCounter(len(p)); return len(p), nil }

// snapReader decodes with a sticky error.
type snapReader struct {
	r   *bufio.Reader
	err error
	// max bounds every count: nothing in the file is smaller than a byte.
	max int64
}

func (r *snapReader) raw(n int) []byte {
	b := make([]byte, n)
	if r.err == nil {
		_, r.err = io.ReadFull(r.r, b)
	}
	return b
}

func (r *snapReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(r.r)
	r.err = err
	return v
}

func (r *snapReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, err := binary.ReadVarint(r.r)
	r.err = err
	return v
}

func (r *snapReader) u32() uint32 { return binary.LittleEndian.Uint32(r.raw(4)) }

func (r *snapReader) count(limit int) int {
	if r.max > 0 && int64(limit) > r.max {
		limit = int(r.max)
	}
	v := r.uvarint()
	if v > uint64(limit) {
		if r.err == nil {
			r.err = fmt.Errorf("count %d over limit %d", v, limit)
		}
		return 0
	}
	return int(v)
}

func (r *snapReader) str() string { return string(r.raw(r.count(1 << 24))) }

// ref reads an interned-string id and checks it is in range.
func (r *snapReader) ref(in *interner) uint32 {
	v := r.uvarint()
	if v >= uint64(len(in.names)) && r.err == nil {
		r.err = errors.New("string reference out of range")
	}
	return uint32(v)
}

// section hands fn exactly the bytes of one length-prefixed block.
func (r *snapReader) section(fn func(io.Reader) error) {
	n := r.uvarint()
	if r.err != nil {
		return
	}
	lr := io.LimitReader(r.r, int64(n))
	if r.err = fn(lr); r.err == nil {
		// Whatever fn left unread belongs to this section.
		_, r.err = io.Copy(io.Discard, lr)
	}
}
