package mongostore

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/sockdir"
)

// Child-process roles for tests that need a second real process.
const (
	helperRoleEnv = "INFMEM_STORE_TEST_ROLE"
	helperRootEnv = "INFMEM_STORE_TEST_ROOT"
)

func runHelper(role string) int {
	ctx := context.Background()
	root := dataroot.Root{Dir: os.Getenv(helperRootEnv)}
	s, err := Open(ctx, Options{Mode: ModeEmbedded, Root: root, Database: "helper"})
	switch role {
	case "open":
		if err != nil {
			fmt.Println("ERROR", strings.ReplaceAll(err.Error(), "\n", " "))
			return 1
		}
		fmt.Println("OPENED")
		s.Close(ctx)
		return 0
	case "writer":
		if err != nil {
			fmt.Println("ERROR", err)
			return 1
		}
		out := bufio.NewWriter(os.Stdout)
		for i := 0; ; i++ {
			m := newMemory("burst write "+strconv.Itoa(i), "Global")
			if err := s.Memories.Insert(ctx, m); err != nil {
				fmt.Fprintln(out, "ERROR", err)
				out.Flush()
				return 1
			}
			// Only acknowledged writes are reported.
			fmt.Fprintln(out, m.ID.Hex())
			out.Flush()
		}
	}
	return 2
}

func helperCmd(t *testing.T, role string, root dataroot.Root) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperRoleEnv+"="+role, helperRootEnv+"="+root.Dir)
	return cmd
}

func TestEmbeddedSurvivesRestart(t *testing.T) {
	root := testRoot(t)
	ctx := ctxT(t)
	s, err := Open(ctx, Options{Mode: ModeEmbedded, Root: root, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	m := newMemory("survives restart", "Global")
	if err := s.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root.RunDir(), "mongo.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind after close: %v", err)
	}
	s2, err := Open(ctx, Options{Mode: ModeEmbedded, Root: root, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close(ctx)
	got, err := s2.Memories.Get(ctx, m.ID)
	if err != nil || got.Text != m.Text {
		t.Fatalf("after restart: %+v %v", got, err)
	}
	scopes, _ := s2.Scopes.List(ctx)
	if len(scopes) != 1 {
		t.Fatalf("bootstrap on restart duplicated scopes: %v", scopes)
	}
}

func TestEmbeddedRefusesSecondProcess(t *testing.T) {
	root := testRoot(t)
	ctx := ctxT(t)
	s, err := Open(ctx, Options{Mode: ModeEmbedded, Root: root, Database: "helper", Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	m := newMemory("owned by the first process", "Global")
	if err := s.Memories.Insert(ctx, m); err != nil {
		t.Fatal(err)
	}
	out, err := helperCmd(t, "open", root).Output()
	if err == nil {
		t.Fatalf("second process opened the same embedded engine: %s", out)
	}
	msg := string(out)
	if !strings.Contains(msg, "in use by process "+strconv.Itoa(os.Getpid())) || !strings.Contains(msg, "hint:") {
		t.Fatalf("unclear error: %s", msg)
	}
	// The first owner is unaffected.
	if got, err := s.Memories.Get(ctx, m.ID); err != nil || got.Text != m.Text {
		t.Fatalf("first process after the refused open: %+v %v", got, err)
	}
	if err := s.Memories.Insert(ctx, newMemory("still writable", "Global")); err != nil {
		t.Fatal(err)
	}
}

// TestEmbeddedKilledMidWrite kills a writer process with SIGKILL in the
// middle of a burst and checks every write it saw acknowledged.
func TestEmbeddedKilledMidWrite(t *testing.T) {
	root := testRoot(t)
	cmd := helperCmd(t, "writer", root)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []bson.ObjectID
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && len(acked) < 300 {
		line := sc.Text()
		id, err := bson.ObjectIDFromHex(line)
		if err != nil {
			t.Fatalf("writer: %s", line)
		}
		acked = append(acked, id)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Drain what was acknowledged before the kill landed.
	for sc.Scan() {
		if id, err := bson.ObjectIDFromHex(sc.Text()); err == nil {
			acked = append(acked, id)
		}
	}
	cmd.Wait()
	if len(acked) < 300 {
		t.Fatalf("writer acknowledged only %d writes", len(acked))
	}
	ctx := ctxT(t)
	s, err := Open(ctx, Options{Mode: ModeEmbedded, Root: root, Database: "helper", Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close(ctx)
	present := map[bson.ObjectID]bool{}
	err = s.Memories.Iterate(ctx, 1000, func(b []Memory) error {
		for _, m := range b {
			present[m.ID] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range acked {
		if !present[id] {
			t.Fatalf("acknowledged write #%d (%s) lost after kill -9", i, id.Hex())
		}
	}
	t.Logf("%d acknowledged writes, all present; %d documents stored", len(acked), len(present))
}

func TestEmbeddedAddsIDIndexes(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	db, err := sql.Open("sqlite", "file:"+filepath.Join(testRootOf(s), dataroot.MongoData, s.Database().Name()+".sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE '%_infmem_id'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(CollectionNames) {
		t.Fatalf("%d _id indexes, want one per collection (%d)", n, len(CollectionNames))
	}
	var table string
	if err := db.QueryRow(`SELECT table_name FROM _ferretdb_collections WHERE name = ?`, ConversationHistory).Scan(&table); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(fmt.Sprintf(`EXPLAIN QUERY PLAN SELECT _ferretdb_sjson FROM %q WHERE _ferretdb_sjson->'$._id' = ?`, table), `{"$o":"000000000000000000000000"}`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var a, b, c int
		var d string
		rows.Scan(&a, &b, &c, &d)
		plan = append(plan, d)
	}
	if len(plan) == 0 || !strings.Contains(plan[0], "USING INDEX") {
		t.Fatalf("_id lookup does not use the index: %v", plan)
	}
}

func testRootOf(s *Store) string {
	e := s.eng.(*embedded)
	return filepath.Dir(e.dataDir)
}

func TestEmbeddedLongRootUsesPrivateSocketDir(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 40))
	root, err := dataroot.Prepare(long)
	if err != nil {
		t.Fatal(err)
	}
	s := openTestStore(t, Options{Mode: ModeEmbedded, Root: root})
	sock := s.eng.(*embedded).sock
	if len(sock) > sockdir.MaxPath {
		t.Fatalf("socket path %d bytes", len(sock))
	}
	fi, err := os.Stat(filepath.Dir(sock))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket dir %v %v", fi.Mode(), err)
	}
}

func TestExternalUnreachable(t *testing.T) {
	ctx := ctxT(t)
	start := time.Now()
	_, err := Open(ctx, Options{
		Mode: ModeExternal, URI: "mongodb://alice:hunter2@127.0.0.1:1/claude_memory",
		Root: testRoot(t), ConnectTimeout: 500 * time.Millisecond, Logger: testLogger(t),
	})
	if err == nil {
		t.Fatal("opened an unreachable server")
	}
	msg := err.Error()
	if strings.Contains(msg, "hunter2") {
		t.Fatalf("password leaked: %s", msg)
	}
	if !strings.Contains(msg, "mongodb://alice:REDACTED@127.0.0.1:1/claude_memory") || !strings.Contains(msg, "hint:") {
		t.Fatalf("error does not name the redacted URI: %s", msg)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("took %v to give up", time.Since(start))
	}
}

func TestExternalNeedsURI(t *testing.T) {
	_, err := Open(ctxT(t), Options{Mode: ModeExternal, Root: testRoot(t)})
	if err == nil || !strings.Contains(err.Error(), "mongo.uri is empty") {
		t.Fatalf("err = %v", err)
	}
}

func TestRedactURI(t *testing.T) {
	cases := map[string]string{
		"mongodb://localhost:27017/claude_memory":                  "mongodb://localhost:27017/claude_memory",
		"mongodb://u:p@localhost/db":                               "mongodb://u:REDACTED@localhost/db",
		"mongodb://u:p%40ss@h1:1,h2:2/db?replicaSet=rs":            "mongodb://u:REDACTED@h1:1,h2:2/db?replicaSet=rs",
		"mongodb+srv://u:pw@cluster.example.net/?retryWrites=true": "mongodb+srv://u:REDACTED@cluster.example.net/?retryWrites=true",
		"mongodb://u@host/db":                                      "mongodb://u@host/db",
		"mongodb://host/db?x=a@b":                                  "mongodb://host/db?x=a@b",
		"not a uri":                                                "not a uri",
	}
	for in, want := range cases {
		if got := RedactURI(in); got != want {
			t.Errorf("RedactURI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSchemaMigrations(t *testing.T) {
	root := testRoot(t)
	ctx := ctxT(t)
	open := func() (*Store, error) {
		return Open(ctx, Options{Mode: ModeEmbedded, Root: root, Logger: testLogger(t)})
	}
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	// Pretend the data was written by schema version SchemaVersion-1.
	if err := s.PutMeta(ctx, schemaKey, &schemaRecord{ID: schemaKey, Type: "schema", Version: SchemaVersion - 1}); err != nil {
		t.Fatal(err)
	}
	s.Close(ctx)

	ran := 0
	saved := Migrations
	defer func() { Migrations = saved }()
	Migrations = []Migration{{From: SchemaVersion - 1, Name: "test", Apply: func(ctx context.Context, s *Store) error {
		ran++
		return s.PutMeta(ctx, "migrated", bson.D{{Key: "_id", Value: "migrated"}})
	}}}
	if s, err = open(); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.SchemaVersionStored(ctx); v != SchemaVersion || ran != 1 {
		t.Fatalf("version %d after migration, ran %d", v, ran)
	}
	var doc bson.M
	if err := s.GetMeta(ctx, "migrated", &doc); err != nil {
		t.Fatal(err)
	}
	// A newer schema is refused rather than misread.
	s.PutMeta(ctx, schemaKey, &schemaRecord{ID: schemaKey, Type: "schema", Version: SchemaVersion + 1})
	s.Close(ctx)
	if _, err := open(); err == nil || !strings.Contains(err.Error(), "newer than this infmem understands") {
		t.Fatalf("newer schema: %v", err)
	}
}

// TestEmbeddedFilesArePrivate: the database, its WAL and shared-memory
// files are 0600 from the first write, and files left 0644 by an older
// version are fixed at the next open (issue 13).
func TestEmbeddedFilesArePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no unix modes")
	}
	root := testRoot(t)
	ctx := ctxT(t)
	check := func(when string) {
		t.Helper()
		entries, _ := os.ReadDir(root.MongoDataDir())
		n := 0
		for _, en := range entries {
			fi, _ := en.Info()
			if strings.HasSuffix(en.Name(), ".sqlite") {
				n++
			}
			if fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s: %s has mode %04o", when, en.Name(), fi.Mode().Perm())
			}
		}
		if n == 0 {
			t.Fatalf("%s: no database file in %s", when, root.MongoDataDir())
		}
	}
	s, err := Open(ctx, Options{Mode: ModeEmbedded, Root: root, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Memories.Insert(ctx, newMemory("private", "Global")); err != nil {
		t.Fatal(err)
	}
	check("while open")
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(root.MongoDataDir())
	for _, en := range entries {
		os.Chmod(filepath.Join(root.MongoDataDir(), en.Name()), 0o644)
	}
	s, err = Open(ctx, Options{Mode: ModeEmbedded, Root: root, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	check("after reopening files an older version left 0644")
}
