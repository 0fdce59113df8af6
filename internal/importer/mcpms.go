package importer

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	// The pure-Go SQLite driver (registered as "sqlite"), already linked
	// for the embedded database engine.
	_ "modernc.org/sqlite"
)

// mcp-memory-service (doobidoo/mcp-memory-service) with its sqlite_vec
// backend keeps memories in an SQLite file (sqlite_vec.db):
//
//	CREATE TABLE memories (id INTEGER PRIMARY KEY AUTOINCREMENT,
//	    content_hash TEXT UNIQUE NOT NULL, content TEXT NOT NULL, tags TEXT,
//	    memory_type TEXT, metadata TEXT, created_at REAL, updated_at REAL,
//	    created_at_iso TEXT, updated_at_iso TEXT, deleted_at REAL DEFAULT NULL)
//
// tags is comma-separated (older files hold a JSON list); created_at is
// Unix seconds. Since v10 (migration 011) a row replaced by an update keeps
// the hash of its successor in superseded_by, and the service no longer
// returns it. Its embeddings live in a sqlite-vec virtual table, which is
// never read. Each live row (deleted_at and superseded_by unset) becomes a
// memory with its tags, its type as the category and its creation time;
// deleted and superseded rows are skipped.

func readMCPMS(ctx context.Context, path string) (*Input, error) {
	base := filepath.Base(path)
	// Read-only, so a running mcp-memory-service is not disturbed.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&_pragma=busy_timeout(5000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s: %w", path, err)
	}
	defer db.Close()
	// Every query runs under ctx (the import job's): SQLite stops one when
	// it ends. And memories must be a table: a view runs whatever query
	// its author wrote (an endless recursive one keeps a core busy).
	var kind, ddl string
	switch err := db.QueryRowContext(ctx, "SELECT type, coalesce(sql, '') FROM sqlite_master WHERE name = 'memories' COLLATE NOCASE").Scan(&kind, &ddl); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	case kind != "table" || strings.HasPrefix(strings.ToUpper(strings.Join(strings.Fields(ddl), " ")), "CREATE VIRTUAL"):
		if kind == "table" {
			kind = "virtual table"
		}
		return nil, &InputError{Where: base, Msg: fmt.Sprintf("memories is a %s, not a table; mcp-memory-service keeps its memories in a plain table, so this file is not its database (or was altered)", kind)}
	}
	// Nor may a column be computed on reading (a generated column can
	// make every row a gigabyte).
	var generated int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_xinfo('memories') WHERE hidden IN (2, 3)").Scan(&generated); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if generated > 0 {
		return nil, &InputError{Where: base, Msg: "the memories table has generated columns, which mcp-memory-service's has not: this file is not its database (or was altered)"}
	}
	cols, err := tableColumns(ctx, db, "memories")
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if len(cols) == 0 {
		return nil, &InputError{Where: base, Msg: "the database has no memories table; is it mcp-memory-service's sqlite_vec.db?"}
	}
	if !cols["content"] {
		return nil, &InputError{Where: base, Msg: "the memories table has no content column; is it mcp-memory-service's sqlite_vec.db?"}
	}
	pick := func(name, fallback string) string {
		if cols[name] {
			return name
		}
		return fallback
	}
	// A row's content over maxItemBytes is not read, only measured.
	q := fmt.Sprintf("SELECT rowid, %s, CASE WHEN length(CAST(content AS BLOB)) <= %d THEN content END, length(CAST(content AS BLOB)), %s, %s, %s, %s, %s, %s FROM memories ORDER BY rowid",
		pick("content_hash", "NULL"), maxItemBytes, pick("tags", "NULL"), pick("memory_type", "NULL"),
		pick("created_at", "NULL"), pick("created_at_iso", "NULL"), pick("deleted_at", "NULL"), pick("superseded_by", "NULL"))
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("cannot read the memories of %s: %w", path, err)
	}
	defer rows.Close()
	in := &Input{}
	var probs Problems
	probs.Path = path
	n := 0
	for rows.Next() {
		var (
			rowid                int64
			hash, tags, typ, iso sql.NullString
			content, superseded  sql.NullString
			created, deleted     sql.NullFloat64
			size                 sql.NullInt64
		)
		if err := rows.Scan(&rowid, &hash, &content, &size, &tags, &typ, &created, &iso, &deleted, &superseded); err != nil {
			probs.add(inputErr(fmt.Sprintf("%s: memories row %d", base, rowid), "unreadable: %v", err))
			continue
		}
		n++
		where := fmt.Sprintf("%s: memories row %d", base, rowid)
		if size.Int64 > maxItemBytes {
			probs.add(inputErr(where, "its content is %s; the limit is %s", byteSize(size.Int64), byteSize(maxItemBytes)))
			continue
		}
		if deleted.Valid || strings.TrimSpace(superseded.String) != "" || clean(content.String) == "" {
			in.Skipped++
			continue
		}
		ts, err := mcpmsTime(created, iso)
		if err != nil {
			probs.add(inputErr(where, "%v", err))
			continue
		}
		key := hash.String
		if key == "" {
			key = clean(content.String)
		}
		in.Items = append(in.Items, Item{
			Where: where, Key: "mcpms\x00" + key, Text: content.String, Tags: mcpmsTags(tags.String),
			Source: sourceNote, Timestamp: ts, Category: shorten(oneLine(typ.String), maxCategoryLen),
		})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the memories of %s: %w", path, err)
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	in.Units = plural(n, "row")
	return in, nil
}

// tableColumns lists a table's columns (none when it does not exist).
func tableColumns(ctx context.Context, db *sql.DB, table string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		cols[strings.ToLower(name)] = true
	}
	return cols, rows.Err()
}

// mcpmsTags reads the tags column: "a,b,c", or a JSON list.
func mcpmsTags(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	var list []string
	if strings.HasPrefix(s, "[") && json.Unmarshal([]byte(s), &list) == nil {
		return list
	}
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// mcpmsTime is a row's creation time: created_at (Unix seconds), else
// created_at_iso, else zero (now).
func mcpmsTime(created sql.NullFloat64, iso sql.NullString) (time.Time, error) {
	if created.Valid && created.Float64 > 0 {
		f := created.Float64
		if math.IsInf(f, 0) || math.IsNaN(f) || f > 1e11 {
			return time.Time{}, fmt.Errorf("created_at %v is not a time in Unix seconds", f)
		}
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
	}
	if s := strings.TrimSpace(iso.String); s != "" {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC(), nil
		}
		// Without a zone the service means UTC.
		for _, l := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
			if t, err := time.Parse(l, strings.TrimSuffix(s, "Z")); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf("created_at_iso %q is not a time", s)
	}
	return time.Time{}, nil
}
