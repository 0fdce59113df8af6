package mongostore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/dataroot"
)

type testEngine struct {
	name string
	open func(t *testing.T) *Store
}

// testEngines lists the engines this machine can run.
func testEngines(t *testing.T) []testEngine {
	engines := []testEngine{{ModeEmbedded, func(t *testing.T) *Store {
		return openTestStore(t, Options{Mode: ModeEmbedded})
	}}}
	if bin := fakeMongod(t); bin != "" {
		engines = append(engines, testEngine{ModeManaged, func(t *testing.T) *Store {
			return openTestStore(t, Options{Mode: ModeManaged, MongodPath: bin})
		}})
	}
	if uri := os.Getenv("INFMEM_TEST_MONGODB_URI"); uri != "" {
		engines = append(engines, testEngine{ModeExternal, func(t *testing.T) *Store {
			s := openTestStore(t, Options{Mode: ModeExternal, URI: uri})
			t.Cleanup(func() { _ = s.Database().Drop(context.Background()) })
			return s
		}})
	}
	return engines
}

// openTestStore opens a store on a fresh data root with a database named after the test.
func openTestStore(t *testing.T, opts Options) *Store {
	t.Helper()
	if opts.Root.Dir == "" {
		opts.Root = testRoot(t)
	}
	if opts.Database == "" {
		opts.Database = testDBName(t)
	}
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := Open(ctx, opts)
	if err != nil {
		t.Fatalf("open %s engine: %v", opts.Mode, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func testRoot(t *testing.T) dataroot.Root {
	t.Helper()
	r, err := dataroot.Prepare(filepath.Join(t.TempDir(), "root"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// testDBName derives a valid, unique database name from the test's name.
func testDBName(t *testing.T) string {
	n := nonName.ReplaceAllString(t.Name(), "_")
	if len(n) > 50 {
		sum := sha256.Sum256([]byte(t.Name()))
		n = n[:40] + "_" + hex.EncodeToString(sum[:4])
	}
	return n
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

var (
	fakeOnce sync.Once
	fakeDir  string
	fakeBin  string
	fakeErr  error
)

func TestMain(m *testing.M) {
	if role := os.Getenv(helperRoleEnv); role != "" {
		os.Exit(runHelper(role))
	}
	code := m.Run()
	if fakeDir != "" {
		os.RemoveAll(fakeDir)
	}
	os.Exit(code)
}

// fakeMongod builds the test-only stand-in for the mongod binary (it serves
// the embedded engine behind mongod's command line) once per test run.
func fakeMongod(t *testing.T) string {
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "infmem-fakemongod")
		if err != nil {
			fakeErr = err
			return
		}
		fakeDir = dir
		bin := filepath.Join(dir, "mongod")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/infmem/infmem/internal/mongod/internal/fakemongod").CombinedOutput()
		if err != nil {
			fakeErr = err
			fakeBin = string(out)
			return
		}
		fakeBin = bin
	})
	if fakeErr != nil {
		t.Fatalf("cannot build the stand-in mongod: %v\n%s", fakeErr, fakeBin)
	}
	return fakeBin
}
