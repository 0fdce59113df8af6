package dataroot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrepareCreatesPrivateLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "root")
	r, err := Prepare(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"", MongoData, Backups, Logs, Export, Run} {
		fi, err := os.Stat(r.Path(sub))
		if err != nil {
			t.Fatal(err)
		}
		if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want drwx------", sub, fi.Mode())
		}
	}
	if _, err := Prepare(dir); err != nil {
		t.Fatalf("second Prepare: %v", err)
	}
}

func TestPrepareRefusesSharedRoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := Prepare(dir)
	if err == nil || !strings.Contains(err.Error(), "writable by group or others") || !strings.Contains(err.Error(), "hint: chmod 700") {
		t.Fatalf("err = %v", err)
	}
	os.Chmod(dir, 0o700)
	os.Mkdir(filepath.Join(dir, Logs), 0o770)
	os.Chmod(filepath.Join(dir, Logs), 0o770)
	if _, err := Prepare(dir); err == nil || !strings.Contains(err.Error(), Logs) {
		t.Fatalf("group-writable subdir accepted: %v", err)
	}
}

func TestPrepareRefusesUnreadableRoot(t *testing.T) {
	if os.Getuid() == 0 {
		// root reads through permission bits; emulate with a file where a directory must be.
		dir := t.TempDir()
		p := filepath.Join(dir, "file")
		os.WriteFile(p, nil, 0o600)
		if _, err := Prepare(p); err == nil || !strings.Contains(err.Error(), "not a directory") {
			t.Fatalf("err = %v", err)
		}
		return
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o300)
	defer os.Chmod(dir, 0o700)
	if _, err := Prepare(dir); err == nil || !strings.Contains(err.Error(), "cannot read data root") {
		t.Fatalf("err = %v", err)
	}
}

func TestPrepareRefusesFileInPlaceOfSubdir(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	os.WriteFile(filepath.Join(dir, Run), []byte("x"), 0o600)
	if _, err := Prepare(dir); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Fatalf("err = %v", err)
	}
}

func TestResolveOrder(t *testing.T) {
	env := map[string]string{"XDG_DATA_HOME": "/xdg"}
	getenv := func(k string) string { return env[k] }
	if d, how, _ := Resolve("", getenv, ""); how != "OS default" || !strings.HasSuffix(d, "infmem") {
		t.Fatalf("default: %s %s", d, how)
	}
	if d, how, _ := Resolve("", getenv, "/cfg"); d != "/cfg" || how != "config data_dir" {
		t.Fatalf("config: %s %s", d, how)
	}
	env[EnvDataDir] = "/env"
	if d, _, _ := Resolve("", getenv, "/cfg"); d != "/env" {
		t.Fatalf("env: %s", d)
	}
	if d, _, _ := Resolve("/flag", getenv, "/cfg"); d != "/flag" {
		t.Fatalf("flag: %s", d)
	}
	if d, _, _ := Resolve("rel/dir", getenv, ""); !filepath.IsAbs(d) {
		t.Fatalf("not absolute: %s", d)
	}
}

func TestDefaultPerOS(t *testing.T) {
	home := func() (string, error) { return "/home/u", nil }
	noHome := func() (string, error) { return "", errors.New("none") }
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		goos string
		env  map[string]string
		home func() (string, error)
		want string
	}{
		{"linux", nil, home, "/home/u/.local/share/infmem"},
		{"linux", map[string]string{"XDG_DATA_HOME": "/data"}, home, "/data/infmem"},
		{"linux", map[string]string{"XDG_DATA_HOME": "relative"}, home, "/home/u/.local/share/infmem"},
		{"darwin", nil, home, "/home/u/Library/Application Support/infmem"},
		{"windows", map[string]string{"AppData": `C:\Users\u\AppData\Roaming`}, home, filepath.Join(`C:\Users\u\AppData\Roaming`, "infmem")},
	}
	for _, c := range cases {
		got, err := defaultFor(c.goos, env(c.env), c.home)
		if err != nil || got != c.want {
			t.Errorf("%s %v: %q %v, want %q", c.goos, c.env, got, err, c.want)
		}
	}
	if _, err := defaultFor("linux", env(nil), noHome); err == nil || !strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("no home: %v", err)
	}
	if _, err := defaultFor("windows", env(nil), home); err == nil {
		t.Error("windows without AppData accepted")
	}
}
