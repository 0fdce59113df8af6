package memindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/binio"
)

// The change journal names the memories the engine changed since its index
// snapshot was taken; the engine's snapshot.go says when and why, and
// guards an open Journal with its own lock. Each id is journaled
// once per snapshot, so repeated edits and retrievals of the same memory
// cost nothing more.
//
// A journal is created empty (header only) with each snapshot. Records are
// appended with one write each, then synced, before the database write they
// announce; so a crash can leave at most the last record torn, and a torn
// record's write never reached the database.
//
// Layout: magic, version byte, token length byte, token, CRC-32C of the
// header; then records of a little-endian uint32 count n, n 12-byte ids,
// and a CRC-32C of the count and ids.
const (
	journalMagic   = "INFMEMJR"
	journalVersion = 1
)

// JournalPath is the journal that goes with the snapshot at snapPath.
func JournalPath(snapPath string) string { return snapPath + ".journal" }

// Journal is an open change journal. Not safe for concurrent use: the
// engine guards it with snapMu.
type Journal struct {
	f     *os.File
	ids   map[bson.ObjectID]struct{}
	limit int
}

// JournalHeader is the start of a journal for token.
func JournalHeader(token string) []byte {
	var w binio.Writer
	w.Write([]byte(journalMagic))
	w.Byte(journalVersion)
	w.Byte(byte(len(token)))
	w.Write([]byte(token))
	w.Uint32(crc32.Checksum(w.Bytes(), crcTable))
	return w.Bytes()
}

// CreateJournal replaces the journal at path with an empty one for token.
func CreateJournal(path, token string, limit int) (*Journal, error) {
	if len(token) == 0 || len(token) > 255 {
		return nil, errors.New("bad snapshot token")
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".infmem-journal-*.tmp")
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	_, err = f.Write(JournalHeader(token))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	syncDir(filepath.Dir(path))
	return OpenJournal(path, -1, nil, limit)
}

// OpenJournal opens the journal at path for appending, first cutting it to
// size bytes (dropping a torn last record) unless size is negative.
func OpenJournal(path string, size int64, ids map[bson.ObjectID]struct{}, limit int) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	if size >= 0 {
		if err := f.Truncate(size); err != nil {
			f.Close()
			return nil, err
		}
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, err
	}
	if ids == nil {
		ids = map[bson.ObjectID]struct{}{}
	}
	return &Journal{f: f, ids: ids, limit: limit}, nil
}

// Add journals the ids not yet journaled and syncs. It reports false,
// writing nothing, when that would take the journal past its limit.
func (j *Journal) Add(ids []bson.ObjectID) (bool, error) {
	var fresh []bson.ObjectID
	for _, id := range ids {
		if _, ok := j.ids[id]; ok || slices.Contains(fresh, id) {
			continue
		}
		fresh = append(fresh, id)
	}
	if len(fresh) == 0 {
		return true, nil
	}
	if len(j.ids)+len(fresh) > j.limit {
		return false, nil
	}
	var w binio.Writer
	w.Uint32(uint32(len(fresh)))
	for _, id := range fresh {
		w.Write(id[:])
	}
	w.Uint32(crc32.Checksum(w.Bytes(), crcTable))
	if _, err := j.f.Write(w.Bytes()); err != nil {
		return false, err
	}
	if err := j.f.Sync(); err != nil {
		return false, err
	}
	for _, id := range fresh {
		j.ids[id] = struct{}{}
	}
	return true, nil
}

// Count is how many ids are journaled.
func (j *Journal) Count() int { return len(j.ids) }

// Close closes the journal's file.
func (j *Journal) Close() error { return j.f.Close() }

// ReadJournal returns the ids journaled for token and the length of the
// journal's intact part. A torn last record is left out; a journal of
// another token, or damaged anywhere else, is an error.
func ReadJournal(path, token string) (map[bson.ObjectID]struct{}, int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	want := JournalHeader(token)
	if !bytes.HasPrefix(data, want) {
		return nil, 0, errors.New("the change journal is not the snapshot's")
	}
	ids := map[bson.ObjectID]struct{}{}
	off := len(want)
	for off < len(data) {
		rest := data[off:]
		if len(rest) < 4 {
			return ids, int64(off), tornTail(rest)
		}
		n := int(binary.LittleEndian.Uint32(rest))
		if n == 0 || n > 1<<20 {
			return ids, int64(off), tornTail(rest)
		}
		size := 4 + 12*n + 4
		if len(rest) < size {
			// The write of the last record was cut short.
			return ids, int64(off), nil
		}
		if crc32.Checksum(rest[:size-4], crcTable) != binary.LittleEndian.Uint32(rest[size-4:size]) {
			if len(rest) == size && isZero(rest[size-4:size]) {
				// Cut short and padded with zeros by the file system: the
				// last record's write never completed, nor its database write.
				return ids, int64(off), nil
			}
			return nil, 0, fmt.Errorf("the change journal is damaged at byte %d", off)
		}
		for i := 0; i < n; i++ {
			var id bson.ObjectID
			copy(id[:], rest[4+12*i:])
			ids[id] = struct{}{}
		}
		off += size
	}
	return ids, int64(off), nil
}

// tornTail accepts a malformed record at the end of the journal only if
// nothing but zeros follows it (a crash mid-append on a file system that
// extends files before writing them).
func tornTail(rest []byte) error {
	if len(rest) < 4 || isZero(rest) {
		return nil
	}
	return errors.New("the change journal is damaged")
}

func isZero(b []byte) bool { return !slices.ContainsFunc(b, func(c byte) bool { return c != 0 }) }

// syncDir makes a rename in dir durable where the platform allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
