package importer

import (
	"database/sql"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateFixtures = flag.Bool("update-fixtures", false, "rewrite testdata/mcp-memory-service/sqlite_vec.db from its .sql")

// mcpmsFixture builds mcp-memory-service's database from the hand-written
// schema and rows in testdata (a binary fixture would hide what it holds),
// adding the service's sqlite-vec table the way the service declares it.
func mcpmsFixture(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sqlite_vec.db")
	if *updateFixtures {
		path = filepath.Join("testdata", "mcp-memory-service", "sqlite_vec.db")
		os.Remove(path)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "mcp-memory-service", "sqlite_vec.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatal(err)
	}
	// The vec0 module is not linked here; the table is declared by hand,
	// as a database the service wrote would declare it.
	for _, q := range []string{
		"PRAGMA writable_schema=ON",
		`INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES ('table', 'memory_embeddings', 'memory_embeddings', 0,
			'CREATE VIRTUAL TABLE memory_embeddings USING vec0(content_embedding FLOAT[384] distance_metric=cosine)')`,
		"PRAGMA writable_schema=OFF",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return path
}

// The fixture has the service's embeddings table, which cannot be read
// here: reading the memories must not need it.
func TestMCPMSFixtureShape(t *testing.T) {
	path := mcpmsFixture(t)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'memory_embeddings'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("vec0 table: %d %v", n, err)
	}
	if _, err := db.Exec("SELECT * FROM memory_embeddings"); err == nil {
		t.Fatal("the vec0 table should not be readable without its module")
	}
}
