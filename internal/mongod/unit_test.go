package mongod

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/infmem/infmem/internal/sockdir"
)

func TestPasswordNeverPrints(t *testing.T) {
	const pw = "hunter2-very-secret"
	c := credential{User: "infmem", Password: password{pw}}
	var out []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T"} {
		out = append(out, fmt.Sprintf(verb, c), fmt.Sprintf(verb, c.Password), fmt.Sprintf(verb, &c))
	}
	j, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, string(j))
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "cred", c, "pw", c.Password)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("x", "cred", c, "pw", c.Password)
	out = append(out, logs.String())
	for _, s := range out {
		if strings.Contains(s, pw) {
			t.Errorf("password leaked: %s", s)
		}
	}
	if !strings.Contains(string(j), redacted) || !strings.Contains(logs.String(), redacted) {
		t.Errorf("expected REDACTED in %s and %s", j, logs.String())
	}
	if c.Password.reveal() != pw {
		t.Errorf("reveal() = %q", c.Password.reveal())
	}
}

func TestNewCredentialIsLongAndRandom(t *testing.T) {
	a, b := newCredential(), newCredential()
	if len(a.Password.reveal()) < 32 {
		t.Errorf("password has %d characters, want at least 32", len(a.Password.reveal()))
	}
	if a.Password.reveal() == b.Password.reveal() {
		t.Error("two generated passwords are equal")
	}
}

func TestCredentialFileRoundTripAndPermissions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cred.json")
	if _, exists, _, err := loadCredential(path); err != nil || exists {
		t.Fatalf("missing file: exists=%v err=%v", exists, err)
	}
	c := newCredential()
	if err := saveCredential(path, c); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("credential file mode %v, want 0600", st.Mode().Perm())
	}
	got, exists, widened, err := loadCredential(path)
	if err != nil || !exists || widened {
		t.Fatalf("load: exists=%v widened=%v err=%v", exists, widened, err)
	}
	if got.User != c.User || got.Password.reveal() != c.Password.reveal() {
		t.Error("loaded credential differs from the saved one")
	}

	if runtime.GOOS != "windows" {
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, widened, err := loadCredential(path); err != nil || !widened {
			t.Fatalf("widened file: widened=%v err=%v", widened, err)
		}
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("widened file not restricted: %v", st.Mode().Perm())
		}
	}

	if err := os.WriteFile(path, []byte(`{"user":""}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := loadCredential(path); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("damaged file: err=%v", err)
	}
}

func TestFindMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, configured := range []string{"", filepath.Join(t.TempDir(), "no-such-mongod")} {
		_, err := Find(configured)
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("Find(%q) = %v, want ErrNotFound", configured, err)
		}
		for _, hint := range []string{"install MongoDB", "mongo.mongod_path", "mongo.mode=embedded"} {
			if !strings.Contains(err.Error(), hint) {
				t.Errorf("Find(%q) error %q lacks %q", configured, err, hint)
			}
		}
	}
	if _, err := New(Config{DataRoot: t.TempDir()}); !errors.Is(err, ErrNotFound) {
		t.Errorf("New without mongod = %v, want ErrNotFound", err)
	}
}

func newTestSupervisor(t *testing.T, root string) *Supervisor {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mongod")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Binary: bin, DataRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestArgs(t *testing.T) {
	root := t.TempDir()
	s := newTestSupervisor(t, root)
	args := s.args(4242)
	flag := func(name string) (string, bool) {
		i := slices.Index(args, name)
		if i < 0 {
			return "", false
		}
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
			return args[i+1], true
		}
		return "", true
	}
	want := map[string]string{
		"--dbpath":  filepath.Join(root, "mongo_data"),
		"--port":    "4242",
		"--bind_ip": "127.0.0.1",
		"--logpath": filepath.Join(root, "logs", "mongo.log"),
	}
	if unixSocketsSupported {
		want["--bind_ip"] = filepath.Join(root, "run", "mongodl-4242.sock")
		want["--unixSocketPrefix"] = filepath.Join(root, "run")
		want["--filePermissions"] = "0700"
	}
	for name, v := range want {
		if got, ok := flag(name); !ok || got != v {
			t.Errorf("%s = %q (present %v), want %q; args %q", name, got, ok, v, args)
		}
	}
	for _, name := range []string{"--auth", "--logappend"} {
		if _, ok := flag(name); !ok {
			t.Errorf("%s missing from %q", name, args)
		}
	}
	for _, name := range []string{"--journal", "--nojournal", "--enableFreeMonitoring", "--bind_ip_all"} {
		if _, ok := flag(name); ok {
			t.Errorf("%s must not be passed: %q", name, args)
		}
	}
	if strings.Contains(strings.Join(args, " "), "0.0.0.0") {
		t.Errorf("args bind a non-loopback address: %q", args)
	}
}

func TestURIParsesForTheDriver(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data root+with spaces")
	s := newTestSupervisor(t, root)
	s.port = 4242
	s.cred = &credential{User: "infmem", Password: password{"p@ss/word:?"}}
	cs, err := connstring.ParseAndValidate(s.URI())
	if err != nil {
		t.Fatalf("driver cannot parse the URI: %v", err)
	}
	wantHost := "127.0.0.1:4242"
	if s.unixSocket {
		wantHost = filepath.Join(root, "run", "mongod.sock")
	}
	if len(cs.Hosts) != 1 || cs.Hosts[0] != wantHost {
		t.Errorf("hosts = %q, want %q", cs.Hosts, wantHost)
	}
	if cs.Username != "infmem" || cs.Password != "p@ss/word:?" || cs.AuthSource != "admin" {
		t.Errorf("credentials parsed as user=%q authSource=%q", cs.Username, cs.AuthSource)
	}
	red := s.RedactedURI()
	if strings.Contains(red, "word") || !strings.Contains(red, redacted) {
		t.Errorf("RedactedURI = %q", red)
	}
}

func TestColonInDataRootFallsBackToTCP(t *testing.T) {
	s := newTestSupervisor(t, filepath.Join(t.TempDir(), "a:b"))
	if s.unixSocket {
		t.Fatal("a socket path with ':' cannot be written in a URI the driver accepts")
	}
	s.port = 4242
	s.cred = &credential{User: "infmem", Password: password{"pw"}}
	cs, err := connstring.ParseAndValidate(s.URI())
	if err != nil || len(cs.Hosts) != 1 || cs.Hosts[0] != "127.0.0.1:4242" {
		t.Errorf("URI hosts = %v, %v", cs, err)
	}
	if runtime.GOOS != "windows" && !slices.Contains(s.args(4242), "--nounixsocket") {
		t.Errorf("args lack --nounixsocket: %q", s.args(4242))
	}
}

func TestTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if got := tail(path); !strings.Contains(got, "unavailable") {
		t.Errorf("tail of a missing file = %q", got)
	}
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(tail(path), "\n")
	if len(got) != tailLines || got[0] != "line 80" || got[len(got)-1] != "line 99" {
		t.Errorf("tail = %q", got)
	}
}

func TestRestartBackoffDoublesUpToTheCap(t *testing.T) {
	s := newTestSupervisor(t, t.TempDir())
	s.cfg.RestartBackoff, s.cfg.MaxRestartBackoff = 500*time.Millisecond, 3*time.Second
	for crashes, want := range map[int]time.Duration{
		1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second, 4: 3 * time.Second, 1000: 3 * time.Second,
	} {
		if got := s.restartBackoff(crashes); got != want {
			t.Errorf("restartBackoff(%d) = %s, want %s", crashes, got, want)
		}
	}
	s.cfg.RestartBackoff = time.Minute
	if got := s.restartBackoff(1); got != 3*time.Second {
		t.Errorf("a first backoff above the cap = %s, want the cap", got)
	}
}

func TestRecordCrashCountsWithinTheWindow(t *testing.T) {
	s := newTestSupervisor(t, t.TempDir())
	s.cfg.RestartWindow = time.Minute
	t0 := time.Now()
	for _, step := range []struct {
		at   time.Duration
		want int
	}{
		{0, 1},
		{30 * time.Second, 2},
		{59 * time.Second, 3},
		{60 * time.Second, 3},  // the first crash is exactly a window old: forgotten
		{119 * time.Second, 2}, // only the last two are within the window
	} {
		if got := s.recordCrash(t0.Add(step.at)); got != step.want {
			t.Errorf("crash at +%s: %d in the window, want %d", step.at, got, step.want)
		}
	}
}

// Issue 22, item 7: with a data root long enough that mongod's socket
// needs the fallback folder (/tmp/infmem-UID-HASH), another local user
// who made that folder first pushed mongod onto 127.0.0.1, where they
// could reach it. Now the supervisor refuses, naming the folder, and
// never listens on TCP.
func TestSocketFolderTakeoverRefused(t *testing.T) {
	if !unixSocketsSupported {
		t.Skip("mongod has no unix socket here")
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	root := filepath.Join(t.TempDir(), strings.Repeat("a-long-folder-name/", 6))
	run := filepath.Join(root, "run")
	p, err := sockdirPath(run)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	if filepath.Dir(dir) != filepath.Clean(os.TempDir()) {
		t.Fatalf("the root is not long enough to need the fallback folder: %s", p)
	}
	os.RemoveAll(dir)
	t.Cleanup(func() { os.RemoveAll(dir) })
	// The neighbour's folder: theirs when the test runs as root (nobody
	// owns it), else open to everyone.
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(t.TempDir(), "mongod")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	s, err := New(Config{Binary: bin, DataRoot: root})
	if err == nil {
		t.Fatalf("the supervisor accepted another user's socket folder; mongod args: %q", s.args(4242))
	}
	if !strings.Contains(err.Error(), "refusing socket directory "+dir) {
		t.Fatalf("error %q does not name the folder", err)
	}
}

func sockdirPath(run string) (string, error) { return sockdir.Path(run, "mongodb-65535.sock") }
