package importer

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/infmem/infmem/mongostore"
)

// The ledger records every item imported, by a key of 16 bytes: the
// first half of sha256(format, scope, item key, part). It lives in the
// Metadata collection as a head record and chunks of keys packed as
// binary, each found by its _id (the only lookup the embedded engine
// indexes):
//
//	{_id: "import_ledger", type: "import_ledger", chunks: 3, keys: 40000, updated_at: …}
//	{_id: "import_ledger:0", type: "import_ledger_chunk", keys: <binary, 16 bytes a key>}
//
// One record per item would make Metadata, which scope listings read
// whole, grow by one document per imported memory; chunks of ledgerChunk
// keys (256 KiB) keep it at a few documents for a million memories. The
// whole ledger is read at the start of an import (16 MiB of keys at a
// million). A key is recorded after its memory is stored, and the ledger
// is written every two seconds and at the end, so an import cut short
// records only what it stored; the memory engine's duplicate rule (the
// same text in a scope is stored once) covers what was stored in the last
// seconds before a crash: importing again reports those as already
// present instead of adding them twice.

const (
	ledgerID         = "import_ledger"
	ledgerChunkType  = "import_ledger_chunk"
	ledgerChunk      = 16384
	ledgerKeyLen     = 16
	ledgerChunkBytes = ledgerChunk * ledgerKeyLen
)

type ledgerKey [ledgerKeyLen]byte

type ledgerHead struct {
	ID        string    `bson:"_id"`
	Type      string    `bson:"type"`
	Chunks    int       `bson:"chunks"`
	Keys      int       `bson:"keys"`
	UpdatedAt time.Time `bson:"updated_at"`
}

type ledgerChunkDoc struct {
	ID   string `bson:"_id"`
	Type string `bson:"type"`
	Keys []byte `bson:"keys"`
}

// ledger is the loaded ledger: every key, and the last chunk, which new
// keys go into.
type ledger struct {
	store *mongostore.Store
	keys  map[ledgerKey]struct{}
	// chunks is how many chunk records exist; last holds the keys of the
	// last one (it may be full), dirty whether it changed since written.
	chunks int
	last   []byte
	dirty  bool
}

func itemKey(format Format, scopeFold, key string, part int) ledgerKey {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d", format, scopeFold, key, part)
	var k ledgerKey
	copy(k[:], h.Sum(nil))
	return k
}

func chunkID(i int) string { return fmt.Sprintf("%s:%d", ledgerID, i) }

// loadLedger reads the ledger of store.
func loadLedger(ctx context.Context, store *mongostore.Store) (*ledger, error) {
	l := &ledger{store: store, keys: map[ledgerKey]struct{}{}}
	var head ledgerHead
	err := store.GetMeta(ctx, ledgerID, &head)
	if errors.Is(err, mongostore.ErrNotFound) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the import ledger: %w", err)
	}
	for i := 0; i < head.Chunks; i++ {
		var c ledgerChunkDoc
		if err := store.GetMeta(ctx, chunkID(i), &c); err != nil {
			return nil, fmt.Errorf("cannot read the import ledger: %w", err)
		}
		if len(c.Keys)%ledgerKeyLen != 0 {
			return nil, fmt.Errorf("the import ledger's record %s is damaged (%d bytes)", c.ID, len(c.Keys))
		}
		for off := 0; off < len(c.Keys); off += ledgerKeyLen {
			l.keys[ledgerKey(c.Keys[off:off+ledgerKeyLen])] = struct{}{}
		}
		if i == head.Chunks-1 {
			l.last = c.Keys
		}
	}
	l.chunks = head.Chunks
	return l, nil
}

func (l *ledger) has(k ledgerKey) bool {
	_, ok := l.keys[k]
	return ok
}

// add records k; it is written by the next flush, or now when it fills
// the last chunk.
func (l *ledger) add(ctx context.Context, k ledgerKey) error {
	if l.has(k) {
		return nil
	}
	if l.chunks == 0 || len(l.last) >= ledgerChunkBytes {
		if err := l.flush(ctx); err != nil {
			return err
		}
		l.chunks++
		l.last = make([]byte, 0, ledgerChunkBytes)
	}
	l.keys[k] = struct{}{}
	l.last = append(l.last, k[:]...)
	l.dirty = true
	if len(l.last) >= ledgerChunkBytes {
		return l.flush(ctx)
	}
	return nil
}

// flush writes the last chunk, then the head that counts it.
func (l *ledger) flush(ctx context.Context) error {
	if !l.dirty {
		return nil
	}
	i := l.chunks - 1
	if err := l.store.PutMeta(ctx, chunkID(i), ledgerChunkDoc{ID: chunkID(i), Type: ledgerChunkType, Keys: l.last}); err != nil {
		return fmt.Errorf("cannot record what was imported: %w", err)
	}
	head := ledgerHead{ID: ledgerID, Type: ledgerID, Chunks: l.chunks, Keys: len(l.keys), UpdatedAt: time.Now().UTC()}
	if err := l.store.PutMeta(ctx, ledgerID, head); err != nil {
		return fmt.Errorf("cannot record what was imported: %w", err)
	}
	l.dirty = false
	return nil
}
