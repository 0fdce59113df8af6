package mongostore

import (
	"database/sql"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// TestSQLiteConnectionsBoundTheirPageCache: every SQLite connection the
// server opens (FerretDB's, kept up to 100, and the raw read and use-count
// pools) caches at most 512 KiB of pages, not SQLite's default 2,000 KiB
// each, which stayed resident in the daemon (issue 24, RSS at 100k).
func TestSQLiteConnectionsBoundTheirPageCache(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	ctx := ctxT(t)
	if err := s.Memories.Insert(ctx, newMemory("a memory so the database file exists", "s")); err != nil {
		t.Fatal(err)
	}
	cacheSize := func(name string, db *sql.DB) {
		t.Helper()
		var n int
		if err := db.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&n); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n != -512 {
			t.Errorf("%s: cache_size %d, want -512 (KiB)", name, n)
		}
	}
	rd, err := s.raw.open()
	if err != nil {
		t.Fatal(err)
	}
	cacheSize("raw read pool", rd)
	wr, err := s.raw.openWriter()
	if err != nil {
		t.Fatal(err)
	}
	cacheSize("use writer", wr)

	// FerretDB opens each database file with the URL's parameters, as here.
	u, err := url.Parse(ferretSQLiteURL(filepath.Dir(s.raw.file)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(u.RawQuery, "synchronous") {
		t.Fatalf("FerretDB URL %q lost synchronous(full)", u)
	}
	fdb, err := sql.Open("sqlite", "file:"+filepath.ToSlash(s.raw.file)+"?"+u.RawQuery+"&_pragma=query_only(true)")
	if err != nil {
		t.Fatal(err)
	}
	defer fdb.Close()
	cacheSize("FerretDB's parameters", fdb)
}
