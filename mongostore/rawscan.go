package mongostore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The embedded engine's whole-collection reads (Iterate: loading the
// in-memory index) and document counts go straight to FerretDB's SQLite
// file instead of through FerretDB: a read-only query per collection, the
// documents converted from FerretDB's storage text to BSON here
// (sjson.go). At 100k memories FerretDB takes about 24 s to hand over a
// collection and, having no count, as long to count one; SQLite itself
// counts from the _id index (ensureIDIndexes) in milliseconds.
//
// What this relies on, all of FerretDB v1.24 with SQLite (go.mod pins it;
// TestRawScanMatchesDriver checks every document type infmem stores
// against the driver's reading): one file per database, DATABASE.sqlite
// in the data directory; the catalog table _ferretdb_collections (name,
// table_name); each collection a table whose _ferretdb_sjson column holds
// a document. Anything else (no file, no catalog, no table) falls back to
// the driver; a document that does not convert is an error, as it would
// be for FerretDB.

// sqliteFiles opens (once) a connection pool of its own on an embedded
// database file.
type sqliteFiles struct {
	file string
	once sync.Once
	db   *sql.DB
	err  error
	// wdb writes (rawuses.go).
	wonce sync.Once
	wdb   *sql.DB
	werr  error
	// tables remembers the table each collection was last read from
	// (get): a guess that the read checks against the catalog in the same
	// statement, never trusted alone.
	tables sync.Map // collection name -> table name
	// decoders keeps get's sjson decoders, and so the schemas they parsed,
	// from one read to the next (a read of a few documents otherwise
	// parses most of their schemas again).
	decoders chan *sjsonDecoder
	// prep runs get's reads on statements compiled once (rawprepared.go);
	// noPrepared turns it off (tests compare the two paths).
	prep       preparedReads
	noPrepared bool
	// scansInPlace counts the iterates read in place (tests).
	scansInPlace atomic.Int64
}

func newSQLiteFiles(dataDir, database string) *sqliteFiles {
	return &sqliteFiles{file: filepath.Join(dataDir, database+".sqlite"), decoders: make(chan *sjsonDecoder, 4)}
}

func (f *sqliteFiles) open() (*sql.DB, error) {
	f.once.Do(func() { f.db, f.err = f.pool("_pragma=query_only(true)", 4) })
	return f.db, f.err
}

// pool opens a pool of at most conns connections to the embedded
// database file with these extra DSN parameters; every connection waits
// up to 10 s for another writer's lock.
func (f *sqliteFiles) pool(params string, conns int) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+f.fileURI()+"?_pragma=busy_timeout(10000)&"+cacheSizePragma+"&"+params)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(1)
	return db, nil
}

// cacheSizePragma bounds each SQLite connection's page cache (SQLite's
// default is 2,000 KiB). FerretDB keeps every connection its pool ever
// opened (up to 100), and each one's cache, filled by reads of a large
// database, stays resident in the server: at 100k memories they held a
// good part of the ~20-27 MB of the daemon's memory outside the Go heap
// (issue 24). Pages evicted are read again from the OS's file cache.
const cacheSizePragma = "_pragma=cache_size(-512)"

// ferretSQLiteURL is the embedded FerretDB's SQLite URL for the database
// files in dataDir; FerretDB adds these parameters to every connection it
// opens. synchronous(full): a write is acknowledged only once it is in the
// WAL on disk, so no acknowledged write is lost to a crash.
func ferretSQLiteURL(dataDir string) string {
	return "file:" + filepath.ToSlash(dataDir) + "/?_pragma=synchronous(full)&" + cacheSizePragma
}

func (f *sqliteFiles) fileURI() string { return filepath.ToSlash(f.file) }

func (f *sqliteFiles) close() error {
	f.prep.close()
	var err error
	if f.wdb != nil {
		err = f.wdb.Close()
	}
	if f.db != nil {
		if cerr := f.db.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// errNoRawTable means the collection cannot be read from SQLite here: the
// caller asks FerretDB.
var errNoRawTable = errors.New("no SQLite table for this collection")

// table is the SQLite table that holds collection now (not cached: a
// restore swaps tables under the same name).
func (f *sqliteFiles) table(ctx context.Context, collection string) (string, error) {
	db, err := f.open()
	if err != nil {
		return "", errNoRawTable
	}
	var t string
	err = db.QueryRowContext(ctx, `SELECT table_name FROM _ferretdb_collections WHERE name = ?`, collection).Scan(&t)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		// No catalog yet, or no such collection: FerretDB answers (an
		// empty collection).
		return "", errNoRawTable
	}
	return t, nil
}

// sjsonColumn reads a document's text as a blob: the driver hands a blob
// over as one []byte that sql.RawBytes keeps, where text would be copied
// three times (into a []byte, a string, then RawBytes), two of them new
// allocations of the document's size.
const sjsonColumn = `CAST(_ferretdb_sjson AS BLOB)`

// iterate calls fn with each document of collection as BSON (the slice is
// reused).
func (f *sqliteFiles) iterate(ctx context.Context, collection string, fn func(bson.Raw) error) error {
	t, err := f.table(ctx, collection)
	if err != nil {
		return err
	}
	db, _ := f.open()
	q := fmt.Sprintf(`SELECT `+sjsonColumn+` FROM %q`, t)
	if !f.noPrepared {
		if err := f.iterateInPlace(ctx, db, collection, []byte(q), fn); !errors.Is(err, errNoPrepared) {
			return err
		}
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return errNoRawTable
	}
	defer rows.Close()
	var dec sjsonDecoder
	var text sql.RawBytes
	var doc []byte
	for rows.Next() {
		if err := rows.Scan(&text); err != nil {
			return err
		}
		if doc, err = dec.appendDoc(doc[:0], text); err != nil {
			return fmt.Errorf("%s: %w", collection, err)
		}
		if err := fn(doc); err != nil {
			return err
		}
	}
	return rows.Err()
}

// count counts collection's documents (SQLite counts from the smallest
// index, the _id one).
func (f *sqliteFiles) count(ctx context.Context, collection string) (int64, error) {
	t, err := f.table(ctx, collection)
	if err != nil {
		return 0, err
	}
	db, _ := f.open()
	var n int64
	if err := db.QueryRowContext(ctx, fmt.Sprintf(`SELECT count(*) FROM %q`, t)).Scan(&n); err != nil {
		return 0, errNoRawTable
	}
	return n, nil
}

// get reads the documents of collection with these ObjectID _ids, by the
// _id index (ensureIDIndexes), calling fn with each found one as BSON (the
// slice is reused) in no particular order.
//
// One statement does it: the catalog's row of collection joined to the
// documents of the table last read for it (tables). Every row carries the
// table the catalog names now, so a table swapped, renamed or dropped
// since (a restore, a drop) is seen before any document is used: the
// table is then looked up again and read once more. The lookup and the
// read in one statement also read one snapshot of the database.
func (f *sqliteFiles) get(ctx context.Context, collection string, ids []bson.ObjectID, fn func(bson.Raw) error) error {
	if len(ids) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(ids) <= boundedRead {
		// A read of a few documents by index ends in well under a
		// millisecond: not worth the two goroutines database/sql and the
		// driver start per statement to watch a cancellable context.
		ctx = context.WithoutCancel(ctx)
	}
	if v, ok := f.tables.Load(collection); ok {
		err := f.getFrom(ctx, collection, v.(string), ids, fn)
		if !errors.Is(err, errStaleTable) {
			return err
		}
		f.tables.Delete(collection)
	}
	t, err := f.table(ctx, collection)
	if err != nil {
		return err
	}
	err = f.getFrom(ctx, collection, t, ids, fn)
	if errors.Is(err, errStaleTable) {
		// Changed again between the lookup and the read: FerretDB answers.
		return errNoRawTable
	}
	if err == nil {
		f.tables.Store(collection, t)
	}
	return err
}

// boundedRead is the most _ids get reads without watching ctx during the
// statement (it checks ctx before).
const boundedRead = 256

// errStaleTable means the catalog does not name the table get read from
// (any more), or that table cannot be read.
var errStaleTable = errors.New("the collection's SQLite table changed")

// getFrom is get reading table t, which the catalog must name for
// collection in the same statement (errStaleTable if not).
func (f *sqliteFiles) getFrom(ctx context.Context, collection, t string, ids []bson.ObjectID, fn func(bson.Raw) error) error {
	db, err := f.open()
	if err != nil {
		return errNoRawTable
	}
	// The _id as FerretDB's index expression gives it: its JSON text.
	sargs := make([]string, len(ids)+1)
	q := make([]byte, 0, 160+3*len(ids))
	q = fmt.Appendf(q, `SELECT c.table_name, CAST(t._ferretdb_sjson AS BLOB) FROM _ferretdb_collections AS c LEFT JOIN %q AS t ON t._ferretdb_sjson->'$._id' IN (`, t)
	for i, id := range ids {
		if i > 0 {
			q = append(q, ',')
		}
		q = append(q, '?')
		sargs[i] = `"` + id.Hex() + `"`
	}
	q = append(q, `) WHERE c.name = ?`...)
	sargs[len(ids)] = collection
	var dec *sjsonDecoder
	select {
	case dec = <-f.decoders:
	default:
		dec = new(sjsonDecoder)
	}
	defer func() {
		select {
		case f.decoders <- dec:
		default:
		}
	}()
	if len(ids) <= maxPreparedIDs && !f.noPrepared && f.prep.acquire(db) == nil {
		err := f.prep.get(preparedKey{t, len(ids)}, q, sargs, collection, dec, fn)
		f.prep.mu.Unlock()
		if !errors.Is(err, errNoPrepared) {
			return err
		}
	}
	args := make([]any, len(sargs))
	for i, a := range sargs {
		args[i] = a
	}
	rows, err := db.QueryContext(ctx, string(q), args...)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// No such table (dropped since), or no catalog.
		return errStaleTable
	}
	defer rows.Close()
	var named, text sql.RawBytes
	var doc []byte
	first := true
	for rows.Next() {
		if err := rows.Scan(&named, &text); err != nil {
			return err
		}
		if first {
			if string(named) != t {
				return errStaleTable
			}
			first = false
		}
		if text == nil {
			continue // the catalog's row alone: no document matched
		}
		if doc, err = handByID(dec, doc, text, collection, fn); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if first {
		// No catalog row: no such collection (any more).
		return errStaleTable
	}
	return nil
}

// handByID decodes one row's document text into doc's storage and hands it
// to fn if its _id is an ObjectID: a string _id of the same 24 characters
// matches the same text, and only ObjectIDs were asked for. It returns the
// buffer for the next row.
func handByID(dec *sjsonDecoder, doc, text []byte, collection string, fn func(bson.Raw) error) ([]byte, error) {
	doc, err := dec.appendDoc(doc[:0], text)
	if err != nil {
		return doc, fmt.Errorf("%s: %w", collection, err)
	}
	if v, err := bson.Raw(doc).LookupErr("_id"); err != nil || v.Type != bson.TypeObjectID {
		return doc, nil
	}
	return doc, fn(doc)
}

// ScanDocuments calls fn with every document of the named collection as
// BSON, in the order a find without a filter returns them, and reports
// whether it read them from SQLite (the embedded engine) rather than
// through the driver. doc is reused after fn returns. A backup writes
// its archive from this (backup/dumparchive.go): on the embedded engine it
// takes none of FerretDB's conversions, the driver's copies or
// mongodump's buffers.
func (s *Store) ScanDocuments(ctx context.Context, collection string, fn func(doc bson.Raw) error) (fromSQLite bool, err error) {
	if s.raw != nil {
		err := s.raw.iterate(ctx, collection, fn)
		if !errors.Is(err, errNoRawTable) {
			return true, err
		}
	}
	cur, err := s.db.Collection(collection).Find(ctx, bson.D{})
	if err != nil {
		return false, fmt.Errorf("cannot read %s: %w", collection, err)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		if err := fn(cur.Current); err != nil {
			return false, err
		}
	}
	if err := cur.Err(); err != nil {
		return false, fmt.Errorf("cannot read %s: %w", collection, err)
	}
	return false, nil
}
