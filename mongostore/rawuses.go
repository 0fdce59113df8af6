package mongostore

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Use is what RecordUses adds to one document: Count to use_count, and At
// as last_accessed.
type Use struct {
	ID    bson.ObjectID
	Count int64
	At    time.Time
}

// RecordUses adds each use's Count to its document's use_count and sets its
// last_accessed to At. On the embedded engine it writes them all in one
// SQLite transaction (one sync) straight into FerretDB's storage text
// (sjson.go), where FerretDB would rewrite each document in a transaction
// of its own (about 0.3 ms of CPU and a sync per memory). It returns the
// uses it did not apply (another engine, a collection not in SQLite, a
// document whose use_count is not a 64-bit integer or whose last_accessed
// is not a date, or no document with that _id): the caller applies those
// through the driver (Update), which reports a missing one. All or none of
// the batch is written; on an error nothing is, and err says why.
//
// The caller serializes this with its own updates of the same documents:
// FerretDB applies an update by reading the document and writing it back,
// and a use written in between would be undone.
func (c Collection[T]) RecordUses(ctx context.Context, uses []Use) (rest []Use, err error) {
	if c.raw == nil || len(uses) == 0 {
		return uses, nil
	}
	t, err := c.raw.table(ctx, c.Name())
	if err != nil {
		return uses, nil
	}
	db, err := c.raw.openWriter()
	if err != nil {
		return uses, nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("cannot record uses in %s: %w", c.Name(), err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	// A document without last_accessed gets it in its schema too: the field
	// name appended to "$k" and its value appended to the document, as
	// FerretDB itself keeps the values in the schema's order.
	q := fmt.Sprintf(`UPDATE %q SET _ferretdb_sjson = json_set(
  CASE WHEN json_type(_ferretdb_sjson, '$."$s".p.last_accessed') IS NULL
    THEN json_set(json_insert(_ferretdb_sjson, '$."$s"."$k"[#]', 'last_accessed'), '$."$s".p.last_accessed', json('{"t":"date"}'))
    ELSE _ferretdb_sjson END,
  '$.use_count', json_extract(_ferretdb_sjson, '$.use_count') + ?2,
  '$.last_accessed', ?3)
WHERE _ferretdb_sjson->'$._id' = ?1
  AND json_extract(_ferretdb_sjson, '$."$s".p.use_count.t') = 'long'
  AND json_type(_ferretdb_sjson, '$.use_count') = 'integer'
  AND coalesce(json_extract(_ferretdb_sjson, '$."$s".p.last_accessed.t'), 'date') = 'date'`, t)
	st, err := tx.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("cannot record uses in %s: %w", c.Name(), err)
	}
	defer st.Close()
	// In _id order: consecutive updates then meet the same pages of the
	// _id index (and of the table and the other indexes, which follow
	// insertion order, as ObjectIDs do), where a map's order jumps across
	// the whole file and the small page cache (cacheSizePragma) spills
	// pages into the WAL mid-transaction. The same rows are written.
	for _, u := range sortedUses(uses) {
		var res sql.Result
		res, err = st.ExecContext(ctx, `"`+u.ID.Hex()+`"`, u.Count, u.At.UnixMilli())
		if err != nil {
			return nil, fmt.Errorf("cannot record uses in %s: %w", c.Name(), err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			rest = append(rest, u)
		}
	}
	if err = tx.Commit(); err != nil {
		return nil, fmt.Errorf("cannot record uses in %s: %w", c.Name(), err)
	}
	return rest, nil
}

// sortedUses returns a copy of uses in ascending _id order.
func sortedUses(uses []Use) []Use {
	s := slices.Clone(uses)
	slices.SortFunc(s, func(a, b Use) int { return bytes.Compare(a.ID[:], b.ID[:]) })
	return s
}

// openWriter opens (once) a pool of one connection that writes the
// embedded database file (RecordUses). Transactions take the write lock at
// BEGIN, so one never waits for FerretDB's writer halfway; every commit is
// synced, as FerretDB's are.
func (f *sqliteFiles) openWriter() (*sql.DB, error) {
	f.wonce.Do(func() { f.wdb, f.werr = f.pool("_pragma=synchronous(full)&_txlock=immediate", 1) })
	return f.wdb, f.werr
}
