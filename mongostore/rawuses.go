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
	arg := make([]byte, 0, 48*len(merged)+2)
	arg = append(arg, '[')
	for i, u := range merged {
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
	rows, err := tx.QueryContext(ctx, q, string(arg))
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
