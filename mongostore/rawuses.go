package mongostore

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
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
	return c.recordUses(ctx, uses, false)
}

// FoldUses is RecordUses for uses taken from the use log (LoggedUses, or
// what LogUses logged): in the same transaction it deletes the log's rows
// of every memory in uses, whether its document took them or not (the
// caller applies rest through the driver, as RecordUses' caller does).
func (c Collection[T]) FoldUses(ctx context.Context, uses []Use) (rest []Use, err error) {
	return c.recordUses(ctx, uses, true)
}

func (c Collection[T]) recordUses(ctx context.Context, uses []Use, fold bool) (rest []Use, err error) {
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
	// One statement for the whole batch (modernc's driver prepares a
	// statement again at every Exec, and a statement of its own per use
	// cost as much as its update): the uses go in as a JSON array of
	// ["_id hex", count, last_accessed ms], joined to the documents by
	// the _id index, and the statement returns the _ids it updated. A
	// document without last_accessed gets it in its schema too: the field
	// name appended to "$k" and its value appended to the document, as
	// FerretDB itself keeps the values in the schema's order.
	q := fmt.Sprintf(`UPDATE %[1]q SET _ferretdb_sjson = json_set(
  CASE WHEN json_type(_ferretdb_sjson, '$."$s".p.last_accessed') IS NULL
    THEN json_set(json_insert(_ferretdb_sjson, '$."$s"."$k"[#]', 'last_accessed'), '$."$s".p.last_accessed', json('{"t":"date"}'))
    ELSE _ferretdb_sjson END,
  '$.use_count', json_extract(_ferretdb_sjson, '$.use_count') + u.n,
  '$.last_accessed', u.at)
FROM (SELECT value->'$[0]' AS id, value->>'$[1]' AS n, value->>'$[2]' AS at FROM json_each(?1)) AS u
WHERE %[1]q._ferretdb_sjson->'$._id' = u.id
  AND json_extract(_ferretdb_sjson, '$."$s".p.use_count.t') = 'long'
  AND json_type(_ferretdb_sjson, '$.use_count') = 'integer'
  AND coalesce(json_extract(_ferretdb_sjson, '$."$s".p.last_accessed.t'), 'date') = 'date'
RETURNING _ferretdb_sjson->>'$._id'`, t)
	merged := mergeUses(sortedUses(uses))
	arg := usesJSON(merged)
	if fold {
		if err = createUsesLog(ctx, tx); err != nil {
			return nil, fmt.Errorf("cannot record uses in %s: %w", c.Name(), err)
		}
		if _, err = tx.ExecContext(ctx, `DELETE FROM `+usesLogTable+
			` WHERE tbl = ?1 AND id IN (SELECT value->>'$[0]' FROM json_each(?2))`, t, arg); err != nil {
			return nil, fmt.Errorf("cannot record uses in %s: %w", c.Name(), err)
		}
	}
	rows, err := tx.QueryContext(ctx, q, arg)
	if err != nil {
		return nil, fmt.Errorf("cannot record uses in %s: %w", c.Name(), err)
	}
	updated := make(map[string]bool, len(merged))
	for rows.Next() {
		var id string
		if err = rows.Scan(&id); err != nil {
			_ = rows.Close()
			return nil, fmt.Errorf("cannot record uses in %s: %w", c.Name(), err)
		}
		updated[id] = true
	}
	if err = rows.Close(); err != nil {
		return nil, fmt.Errorf("cannot record uses in %s: %w", c.Name(), err)
	}
	if err = rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot record uses in %s: %w", c.Name(), err)
	}
	for _, u := range uses {
		if !updated[u.ID.Hex()] {
			rest = append(rest, u)
		}
	}
	if err = tx.Commit(); err != nil {
		return nil, fmt.Errorf("cannot record uses in %s: %w", c.Name(), err)
	}
	return rest, nil
}

// mergeUses folds the uses of one _id (adjacent in sorted, in the
// caller's order) into one, as applying them one after another would:
// their counts summed, the last one's time. The result may share sorted's
// array.
func mergeUses(sorted []Use) []Use {
	out := sorted[:0]
	for _, u := range sorted {
		if n := len(out); n > 0 && out[n-1].ID == u.ID {
			out[n-1].Count += u.Count
			out[n-1].At = u.At
			continue
		}
		out = append(out, u)
	}
	return out
}

// sortedUses returns a copy of uses in ascending _id order (uses of one
// _id in the order given).
func sortedUses(uses []Use) []Use {
	s := slices.Clone(uses)
	slices.SortStableFunc(s, func(a, b Use) int { return bytes.Compare(a.ID[:], b.ID[:]) })
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

// The use log (embedded engine only). Writing a use into its document
// rewrites the document's row and every index entry of the collection
// (FerretDB keeps a document as one JSON text and each index is an
// expression over it): 3-6 pages of WAL a memory in the batches a burst of
// retrievals makes. LogUses instead adds the uses to a small table of its
// own in the same database file, usesLogTable (one short row a memory,
// keyed by the collection's table and the _id, no other index), in one
// transaction; FoldUses later moves a memory's logged uses into its
// document (RecordUses' statement) and deletes its rows, both in one
// transaction, so a use is in exactly one of the two places at any time,
// whatever crashes. LoggedUses reads what is logged (at a start). The rows
// are keyed by FerretDB's table, not the collection's name: a restore
// swaps a collection's table, and uses logged for the documents it
// replaced must not reach the restored ones (those rows are dropped).
// FerretDB does not see the table (its catalog lists its collections only).

// usesLogTable is the use log's table.
const usesLogTable = "_infmem_use_log"

func createUsesLog(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+usesLogTable+` (
  tbl TEXT NOT NULL, id TEXT NOT NULL, n INTEGER NOT NULL, at INTEGER NOT NULL,
  PRIMARY KEY (tbl, id)) WITHOUT ROWID`)
	return err
}

// useLogTx begins a transaction on the writer with the use log made, for
// this collection's table t. No transaction and no error where there is
// no log (another engine, a collection not in SQLite).
func (c Collection[T]) useLogTx(ctx context.Context) (t string, tx *sql.Tx, err error) {
	if c.raw == nil {
		return "", nil, nil
	}
	if t, err = c.raw.table(ctx, c.Name()); err != nil {
		return "", nil, nil
	}
	db, err := c.raw.openWriter()
	if err != nil {
		return "", nil, nil
	}
	if tx, err = db.BeginTx(ctx, nil); err != nil {
		return "", nil, err
	}
	if err = createUsesLog(ctx, tx); err != nil {
		_ = tx.Rollback()
		return "", nil, err
	}
	return t, tx, nil
}

// wrapUseLog says which use-log step on which collection failed; nil stays nil.
func wrapUseLog(what, name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %s: %w", what, name, err)
}

// usesJSON is uses as RecordUses' statement takes them: a JSON array of
// ["_id hex", count, at ms].
func usesJSON(uses []Use) string {
	arg := make([]byte, 0, 48*len(uses)+2)
	arg = append(arg, '[')
	for i, u := range uses {
		if i > 0 {
			arg = append(arg, ',')
		}
		arg = append(arg, `["`...)
		arg = append(arg, u.ID.Hex()...)
		arg = append(arg, `",`...)
		arg = strconv.AppendInt(arg, u.Count, 10)
		arg = append(arg, ',')
		arg = strconv.AppendInt(arg, u.At.UnixMilli(), 10)
		arg = append(arg, ']')
	}
	arg = append(arg, ']')
	return string(arg)
}

// LogUses adds uses to the use log: a memory's count to what is logged for
// it, its time as the last. It reports false (and writes nothing) where
// there is no log: another engine, or a collection not in SQLite; the
// caller then writes the uses into the documents (RecordUses, Update).
// All or none of the batch is logged; on an error nothing is.
func (c Collection[T]) LogUses(ctx context.Context, uses []Use) (bool, error) {
	if len(uses) == 0 {
		return false, nil
	}
	t, tx, err := c.useLogTx(ctx)
	if tx == nil || err != nil {
		return false, wrapUseLog("cannot log uses in", c.Name(), err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	merged := mergeUses(sortedUses(uses))
	_, err = tx.ExecContext(ctx, `INSERT INTO `+usesLogTable+` (tbl, id, n, at)
SELECT ?1, value->>'$[0]', value->>'$[1]', value->>'$[2]' FROM json_each(?2) WHERE true
ON CONFLICT (tbl, id) DO UPDATE SET n = n + excluded.n, at = excluded.at`, t, usesJSON(merged))
	if err != nil {
		return false, fmt.Errorf("cannot log uses in %s: %w", c.Name(), err)
	}
	if err = tx.Commit(); err != nil {
		return false, fmt.Errorf("cannot log uses in %s: %w", c.Name(), err)
	}
	return true, nil
}

// LoggedUses returns the uses logged for this collection's documents and
// not yet folded into them, and drops the rows of tables no collection has
// any longer (a restore swapped them out). Nothing where there is no log.
func (c Collection[T]) LoggedUses(ctx context.Context) (out []Use, err error) {
	t, tx, err := c.useLogTx(ctx)
	if tx == nil || err != nil {
		return nil, wrapUseLog("cannot read the use log of", c.Name(), err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if _, err = tx.ExecContext(ctx, `DELETE FROM `+usesLogTable+
		` WHERE tbl NOT IN (SELECT table_name FROM _ferretdb_collections)`); err != nil {
		return nil, fmt.Errorf("cannot read the use log of %s: %w", c.Name(), err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, n, at FROM `+usesLogTable+` WHERE tbl = ? ORDER BY id`, t)
	if err != nil {
		return nil, fmt.Errorf("cannot read the use log of %s: %w", c.Name(), err)
	}
	for rows.Next() {
		var id string
		var n, at int64
		if err = rows.Scan(&id, &n, &at); err != nil {
			_ = rows.Close()
			return nil, fmt.Errorf("cannot read the use log of %s: %w", c.Name(), err)
		}
		oid, perr := bson.ObjectIDFromHex(id)
		if perr != nil || n <= 0 {
			continue
		}
		out = append(out, Use{ID: oid, Count: n, At: time.UnixMilli(at).UTC()})
	}
	if err = rows.Close(); err != nil {
		return nil, fmt.Errorf("cannot read the use log of %s: %w", c.Name(), err)
	}
	if err = rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the use log of %s: %w", c.Name(), err)
	}
	if err = tx.Commit(); err != nil {
		return nil, fmt.Errorf("cannot read the use log of %s: %w", c.Name(), err)
	}
	return out, nil
}
