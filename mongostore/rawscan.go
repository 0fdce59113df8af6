package mongostore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

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
}

func newSQLiteFiles(dataDir, database string) *sqliteFiles {
	return &sqliteFiles{file: filepath.Join(dataDir, database+".sqlite")}
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
	rows, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT `+sjsonColumn+` FROM %q`, t))
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
func (f *sqliteFiles) get(ctx context.Context, collection string, ids []bson.ObjectID, fn func(bson.Raw) error) error {
	if len(ids) == 0 {
		return nil
	}
	t, err := f.table(ctx, collection)
	if err != nil {
		return err
	}
	db, _ := f.open()
	// The _id as FerretDB's index expression gives it: its JSON text.
	args := make([]any, len(ids))
	q := make([]byte, 0, 64+3*len(ids))
	q = fmt.Appendf(q, `SELECT `+sjsonColumn+` FROM %q WHERE _ferretdb_sjson->'$._id' IN (`, t)
	for i, id := range ids {
		if i > 0 {
			q = append(q, ',')
		}
		q = append(q, '?')
		args[i] = `"` + id.Hex() + `"`
	}
	q = append(q, ')')
	rows, err := db.QueryContext(ctx, string(q), args...)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
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
		// A string _id of the same 24 characters matches the same text:
		// only ObjectIDs were asked for.
		if v, err := bson.Raw(doc).LookupErr("_id"); err != nil || v.Type != bson.TypeObjectID {
			continue
		}
		if err := fn(doc); err != nil {
			return err
		}
	}
	return rows.Err()
}
