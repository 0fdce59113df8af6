package mongostore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"go.mongodb.org/mongo-driver/v2/bson"
	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	sqlite3 "modernc.org/sqlite/lib"
)

// Prepared reads by _id (get's statement, kept compiled).
//
// modernc.org/sqlite compiles a statement's SQL again at every query
// (stmt.query calls sqlite3_prepare_v2 and finalizes on rows.Close, a
// database/sql Stmt included): about 0.1 ms of a read's 0.6–0.9 ms at 100k
// memories, on every retrieval (its results' documents) and every store
// (relate's candidates). preparedReads keeps one connection of the read
// pool checked out for good and, on it, get's statement compiled once per
// table and number of _ids, each run again after sqlite3_reset: the same
// SQL text as the pool's query, so the same plan and the same rows. It
// also reads the rows' text in place (the driver copies each column into
// a new slice).
//
// It reaches SQLite through the driver's own connection (its sqlite3
// handle and its libc TLS, fields of modernc's unexported conn type read by
// reflection: go.mod pins the version; TestPreparedReadsReachDriver fails
// if the layout changes, and the reads fall back to the pool if the fields
// are not found). One read at a time uses it; a read that finds it busy
// goes through the pool as before.

// maxPreparedIDs is the most _ids a prepared read takes (a statement per
// count up to it; a retrieval reads its results, a store relate's ~8
// candidates); larger reads go through the pool.
const maxPreparedIDs = 64

// maxPreparedStmts bounds the statements kept (each holds its compiled
// program, a few KB): past it they are all finalized and compiled again as
// needed.
const maxPreparedStmts = 32

type preparedKey struct {
	table string
	n     int
}

type preparedReads struct {
	mu     sync.Mutex
	once   bool // a connection was tried for
	conn   *sql.Conn
	db     uintptr // sqlite3*
	tls    *libc.TLS
	stmts  map[preparedKey]uintptr
	closed bool
	// reads counts the reads served here (tests).
	reads int
}

// errNoPrepared means the prepared path is not available (another
// driver layout, no connection, busy): the caller reads through the pool.
var errNoPrepared = errors.New("no prepared read")

// driverHandle returns the sqlite3 handle and TLS of a modernc.org/sqlite
// driver connection, or ok false if dc is not one of the layout known.
func driverHandle(dc any) (db uintptr, tls *libc.TLS, ok bool) {
	v := reflect.ValueOf(dc)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return 0, nil, false
	}
	e := v.Elem()
	t := e.Type()
	if t.Kind() != reflect.Struct || t.PkgPath() != "modernc.org/sqlite" || t.Name() != "conn" {
		return 0, nil, false
	}
	fdb, ftls := e.FieldByName("db"), e.FieldByName("tls")
	if !fdb.IsValid() || fdb.Kind() != reflect.Uintptr || !ftls.IsValid() || ftls.Type() != reflect.TypeFor[*libc.TLS]() {
		return 0, nil, false
	}
	db = uintptr(fdb.Uint())
	tls = (*libc.TLS)(ftls.UnsafePointer())
	if db == 0 || tls == nil {
		return 0, nil, false
	}
	return db, tls, true
}

// acquire locks p for one read, checking a connection out of db the first
// time; errNoPrepared if it is in use or cannot be had.
func (p *preparedReads) acquire(db *sql.DB) error {
	if !p.mu.TryLock() {
		return errNoPrepared
	}
	if p.closed {
		p.mu.Unlock()
		return errNoPrepared
	}
	if !p.once {
		p.once = true
		conn, err := db.Conn(context.Background())
		if err == nil {
			var ok bool
			_ = conn.Raw(func(dc any) error {
				p.db, p.tls, ok = driverHandle(dc)
				return nil
			})
			if ok {
				p.conn = conn
				p.stmts = make(map[preparedKey]uintptr)
			} else {
				conn.Close()
			}
		}
	}
	if p.conn == nil {
		p.mu.Unlock()
		return errNoPrepared
	}
	return nil
}

// stmt returns the statement of key, compiling q for it if needed.
func (p *preparedReads) stmt(key preparedKey, q []byte) (uintptr, error) {
	if s, ok := p.stmts[key]; ok {
		return s, nil
	}
	if len(p.stmts) >= maxPreparedStmts {
		p.finalizeAll()
	}
	s, err := prepareStmt(p.tls, p.db, q)
	if err != nil {
		return 0, err
	}
	p.stmts[key] = s
	return s, nil
}

// prepareStmt compiles q on the sqlite3 handle db; errNoPrepared if it
// does not compile (no such table, dropped since; no catalog; anything
// else: the pool's query reads it and says which).
func prepareStmt(tls *libc.TLS, db uintptr, q []byte) (uintptr, error) {
	z := libc.Xmalloc(tls, libcSize(len(q)+1))
	if z == 0 {
		return 0, errNoPrepared
	}
	defer libc.Xfree(tls, z)
	copy(unsafe.Slice((*byte)(cmem(z)), len(q)), q)
	*(*byte)(cmem(z + uintptr(len(q)))) = 0
	pp := libc.Xmalloc(tls, libcSize(int(unsafe.Sizeof(uintptr(0)))))
	if pp == 0 {
		return 0, errNoPrepared
	}
	defer libc.Xfree(tls, pp)
	*(*uintptr)(cmem(pp)) = 0
	if rc := sqlite3.Xsqlite3_prepare_v2(tls, db, z, -1, pp, 0); rc != sqlite3.SQLITE_OK {
		if s := *(*uintptr)(cmem(pp)); s != 0 {
			sqlite3.Xsqlite3_finalize(tls, s)
		}
		return 0, errNoPrepared
	}
	s := *(*uintptr)(cmem(pp))
	if s == 0 {
		return 0, errNoPrepared
	}
	return s, nil
}

// iterateInPlace is iterate's query on a connection of the pool, run
// through the driver's own sqlite3 handle (driverHandle), each row's text
// read where SQLite holds it: the driver copies every row into a new
// slice, 321 MB of the ~1.2 GB allocated to load 100k memories and their
// vectors (BENCHMARKS.md, mem15). errNoPrepared, before any document was
// handed over, if the handle cannot be reached or the statement does not
// compile: the caller reads through the pool.
func (f *sqliteFiles) iterateInPlace(ctx context.Context, db *sql.DB, collection string, q []byte, fn func(bson.Raw) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errNoPrepared
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		h, tls, ok := driverHandle(dc)
		if !ok {
			return errNoPrepared
		}
		s, err := prepareStmt(tls, h, q)
		if err != nil {
			return err
		}
		defer sqlite3.Xsqlite3_finalize(tls, s)
		var dec sjsonDecoder
		var doc []byte
		for n := 0; ; n++ {
			if n%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			rc := sqlite3.Xsqlite3_step(tls, s)
			if rc == sqlite3.SQLITE_DONE {
				f.scansInPlace.Add(1)
				return nil
			}
			if rc != sqlite3.SQLITE_ROW {
				err := fmt.Errorf("%s: %s", collection, libc.GoString(sqlite3.Xsqlite3_errstr(tls, rc)))
				if n == 0 {
					return errNoPrepared
				}
				return err
			}
			if doc, err = dec.appendDoc(doc[:0], columnBytes(tls, s, 0)); err != nil {
				return fmt.Errorf("%s: %w", collection, err)
			}
			if err := fn(doc); err != nil {
				return err
			}
		}
	})
}

func (p *preparedReads) drop(key preparedKey) {
	if s, ok := p.stmts[key]; ok {
		sqlite3.Xsqlite3_finalize(p.tls, s)
		delete(p.stmts, key)
	}
}

func (p *preparedReads) finalizeAll() {
	for k, s := range p.stmts {
		sqlite3.Xsqlite3_finalize(p.tls, s)
		delete(p.stmts, k)
	}
}

// close finalizes the statements and returns the connection to its pool
// (before the pool closes).
func (p *preparedReads) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.conn == nil {
		return
	}
	p.finalizeAll()
	p.conn.Close()
	p.conn = nil
}

// getPrepared is getFrom on the prepared statement for t and len(ids) (q
// is its SQL, args its parameters as getFrom binds them): errNoPrepared if
// the prepared path cannot take it (the caller reads through the pool).
// p is held (acquire) by the caller.
func (p *preparedReads) get(key preparedKey, q []byte, args []string, collection string, dec *sjsonDecoder, fn func(bson.Raw) error) error {
	s, err := p.stmt(key, q)
	if err != nil {
		return err
	}
	dropped := false
	defer func() {
		if !dropped {
			sqlite3.Xsqlite3_reset(p.tls, s)
			sqlite3.Xsqlite3_clear_bindings(p.tls, s)
		}
	}()
	// The parameters' text in one C buffer, bound in place (SQLite
	// copies nothing: the buffer outlives the statement's run).
	size := 0
	for _, a := range args {
		size += len(a)
	}
	buf := libc.Xmalloc(p.tls, libcSize(max(size, 1)))
	if buf == 0 {
		return errNoPrepared
	}
	defer libc.Xfree(p.tls, buf)
	mem := unsafe.Slice((*byte)(cmem(buf)), max(size, 1))
	off := 0
	for i, a := range args {
		copy(mem[off:], a)
		if rc := sqlite3.Xsqlite3_bind_text(p.tls, s, int32(i+1), buf+uintptr(off), int32(len(a)), 0); rc != sqlite3.SQLITE_OK {
			p.drop(key)
			dropped = true
			return errNoPrepared
		}
		off += len(a)
	}
	var doc []byte
	first := true
	for {
		rc := sqlite3.Xsqlite3_step(p.tls, s)
		if rc == sqlite3.SQLITE_DONE {
			break
		}
		if rc != sqlite3.SQLITE_ROW {
			// The table dropped or changed under the statement, or the
			// database busy past the timeout: compile again next time, and
			// let the pool's query (which reports the error) have this one
			// if no document has been handed over yet.
			p.drop(key)
			dropped = true
			if first {
				return errNoPrepared
			}
			return fmt.Errorf("%s: %s", collection, libc.GoString(sqlite3.Xsqlite3_errstr(p.tls, rc)))
		}
		if first {
			named := columnBytes(p.tls, s, 0)
			if string(named) != key.table {
				return errStaleTable
			}
			first = false
		}
		if sqlite3.Xsqlite3_column_type(p.tls, s, 1) == sqlite3.SQLITE_NULL {
			continue // the catalog's row alone: no document matched
		}
		text := columnBytes(p.tls, s, 1)
		if doc, err = handByID(dec, doc, text, collection, fn); err != nil {
			return err
		}
	}
	if first {
		// No catalog row: no such collection (any more).
		return errStaleTable
	}
	p.reads++
	return nil
}

// columnBytes is column i of the current row as SQLite holds it (valid
// until the next step or reset).
func columnBytes(tls *libc.TLS, s uintptr, i int32) []byte {
	p := sqlite3.Xsqlite3_column_blob(tls, s, i)
	n := sqlite3.Xsqlite3_column_bytes(tls, s, i)
	if p == 0 || n <= 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(cmem(p)), int(n))
}

func libcSize(n int) types.Size_t { return types.Size_t(n) }

// cmem is C memory at p (libc's heap, outside Go's).
func cmem(p uintptr) unsafe.Pointer { return unsafe.Add(nil, p) }
