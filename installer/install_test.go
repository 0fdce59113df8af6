package installer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kardianos/service"
)

// fakeManager stands in for the OS service manager. Like kardianos/service
// it refuses to install over an existing definition and writes the file
// before the step that may fail.
type fakeManager struct {
	path    string // definition file; "" keeps the definition in memory
	content string // what Install writes
	calls   []string

	memDef       string
	memInstalled bool

	writeEmpty   bool
	failInstall  error
	failUinstall error
	failStart    error
}

func (f *fakeManager) Current() (string, bool, error) {
	f.calls = append(f.calls, "Current")
	if f.path == "" {
		return f.memDef, f.memInstalled, nil
	}
	b, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	return string(b), err == nil, err
}

func (f *fakeManager) Install() error {
	f.calls = append(f.calls, "Install")
	content := f.content
	if f.writeEmpty {
		content = ""
	}
	if f.path == "" {
		f.memDef, f.memInstalled = content, true
		return f.failInstall
	}
	if _, err := os.Stat(f.path); err == nil {
		return fmt.Errorf("Init already exists: %s", f.path)
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(f.path, []byte(content), 0o644); err != nil {
		return err
	}
	return f.failInstall
}

func (f *fakeManager) Uninstall() error {
	f.calls = append(f.calls, "Uninstall")
	if f.failUinstall != nil {
		return f.failUinstall
	}
	if f.path == "" {
		f.memDef, f.memInstalled = "", false
		return nil
	}
	return os.Remove(f.path)
}

func (f *fakeManager) Start() error {
	f.calls = append(f.calls, "Start")
	return f.failStart
}

func (f *fakeManager) Stop() error {
	f.calls = append(f.calls, "Stop")
	return nil
}

// testEnv is a fake user account: a home directory holding the infmem
// binary and the data root, and a fake service manager.
type testEnv struct {
	t      *testing.T
	goos   string
	home   string
	bin    string
	data   string
	env    map[string]string
	now    time.Time
	mgr    *fakeManager
	builds int
}

func newTestEnv(t *testing.T, goos string) *testEnv {
	e := &testEnv{t: t, goos: goos, home: t.TempDir(), env: map[string]string{},
		now: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), mgr: &fakeManager{}}
	switch goos {
	case "windows":
		e.bin = `C:\Users\Ann\AppData\Local\Programs\infmem\infmem.exe`
		e.data = `C:\Users\Ann\AppData\Roaming\infmem`
		e.env["APPDATA"] = filepath.Join(e.home, "AppData", "Roaming")
	default:
		e.bin = filepath.Join(e.home, "bin", "infmem")
		e.data = filepath.Join(e.home, "data", "infmem")
		if err := os.MkdirAll(filepath.Dir(e.bin), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(e.bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(e.data, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.data, "memories.db"), []byte("precious"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	switch goos {
	case "linux":
		e.mgr.path = filepath.Join(e.home, ".config/systemd/user/infmem.service")
	case "darwin":
		e.mgr.path = filepath.Join(e.home, "Library/LaunchAgents/infmem.plist")
	}
	return e
}

func (e *testEnv) opts() Options {
	return Options{
		Binary:         e.bin,
		DataDir:        e.data,
		DefaultDataDir: e.data,
		Home:           e.home,
		Env:            func(k string) string { return e.env[k] },
		Now:            func() time.Time { return e.now },
		NewServiceManager: func(cfg *service.Config) (ServiceManager, error) {
			e.builds++
			var err error
			switch e.goos {
			case "linux":
				e.mgr.content, err = RenderSystemdUnit(cfg)
			case "darwin":
				e.mgr.content, err = RenderLaunchdPlist(cfg, e.home)
			case "windows":
				e.mgr.content, err = RenderWindowsTask(cfg, e.opts().userID)
			}
			return e.mgr, err
		},
		goos:   e.goos,
		userID: `DESKTOP-1\Ann`,
	}
}

func (e *testEnv) claudePath() string {
	p, err := ClaudeConfigPath(e.goos, func(k string) string { return e.env[k] }, e.home)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *testEnv) writeClaude(content string, mode fs.FileMode) {
	e.t.Helper()
	p := e.claudePath()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // umask may have narrowed it
		e.t.Fatal(err)
	}
}

func (e *testEnv) readClaude() string {
	e.t.Helper()
	b, err := os.ReadFile(e.claudePath())
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *testEnv) install(o Options) (*Report, string, error) {
	var out bytes.Buffer
	rep, err := Install(context.Background(), o, &out)
	return rep, strings.ReplaceAll(out.String(), e.home, "$HOME"), err
}

func (e *testEnv) uninstall(o Options) (*Report, string, error) {
	var out bytes.Buffer
	rep, err := Uninstall(context.Background(), o, &out)
	return rep, strings.ReplaceAll(out.String(), e.home, "$HOME"), err
}

// snapshot records every file under root with its mode and content (or
// link target), to prove that nothing changed.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		entry := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			entry += " -> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			entry += " " + string(b)
		}
		files[p] = entry
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range after {
		if w, ok := before[p]; !ok {
			t.Errorf("created %s", p)
		} else if w != v {
			t.Errorf("changed %s", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("removed %s", p)
		}
	}
}

func backups(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "claude_desktop_config.json.bak-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestInstallFreshAndAgain(t *testing.T) {
	e := newTestEnv(t, "linux")
	rep, out, err := e.install(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "install-linux.out.golden", []byte(out))
	if want := []string{"Current", "Install", "Current", "Start"}; !slices.Equal(e.mgr.calls, want) {
		t.Errorf("service calls = %v, want %v", e.mgr.calls, want)
	}
	unit, err := os.ReadFile(e.mgr.path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := RenderSystemdUnit(ServiceConfig(e.opts()))
	if string(unit) != want || !strings.Contains(want, `"--data-dir" "`+e.data+`"`) {
		t.Errorf("unit file:\n%s", unit)
	}
	entry, err := readEntry([]byte(e.readClaude()))
	if err != nil || entry == nil || entry.Command != e.bin || !slices.Equal(entry.Args, []string{"mcp"}) {
		t.Errorf("claude entry = %+v (%v)", entry, err)
	}
	fi, err := os.Stat(e.claudePath())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("new claude config mode = %v (%v), want 0600", fi.Mode(), err)
	}
	if !rep.ServiceChanged || !rep.ClaudeConfigChanged || rep.Backup != "" || rep.ServiceKind != "systemd user unit" ||
		rep.ServiceLocation != e.mgr.path || rep.ClaudeConfig != e.claudePath() || rep.DataDir != e.data {
		t.Errorf("report = %+v", rep)
	}

	before := snapshot(t, e.home)
	e.mgr.calls = nil
	rep, out, err = e.install(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "install-again-linux.out.golden", []byte(out))
	sameSnapshot(t, before, snapshot(t, e.home))
	if !slices.Equal(e.mgr.calls, []string{"Current"}) {
		t.Errorf("second install drove the service manager: %v", e.mgr.calls)
	}
	if rep.ServiceChanged || rep.ClaudeConfigChanged || rep.Backup != "" {
		t.Errorf("second install report = %+v", rep)
	}
}

func TestInstallEditsExistingConfig(t *testing.T) {
	e := newTestEnv(t, "linux")
	orig, err := os.ReadFile("testdata/claude/odd-format.in.json")
	if err != nil {
		t.Fatal(err)
	}
	e.writeClaude(string(orig), 0o644)
	o := e.opts()
	o.DefaultDataDir = "/somewhere/else"
	o.ConfigFile = filepath.Join(e.home, "infmem.toml")
	rep, _, err := e.install(o)
	if err != nil {
		t.Fatal(err)
	}
	wantBackup := e.claudePath() + ".bak-20250102T030405Z"
	if rep.Backup != wantBackup {
		t.Errorf("backup = %q, want %q", rep.Backup, wantBackup)
	}
	b, err := os.ReadFile(wantBackup)
	if err != nil || !bytes.Equal(b, orig) {
		t.Errorf("backup holds %q (%v), want the original", b, err)
	}
	for _, p := range []string{wantBackup, e.claudePath()} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s mode = %v (%v), want the original 0644", p, fi.Mode(), err)
		}
	}
	updated := e.readClaude()
	if !insertedOnly(orig, []byte(updated)) {
		t.Errorf("the install rewrote more than it inserted:\n%s", updated)
	}
	entry, _ := readEntry([]byte(updated))
	wantArgs := []string{"mcp", "--data-dir", e.data, "--config", o.ConfigFile}
	if entry == nil || !slices.Equal(entry.Args, wantArgs) {
		t.Errorf("entry = %+v, want args %q", entry, wantArgs)
	}
	if n := len(backups(t, filepath.Dir(e.claudePath()))); n != 1 {
		t.Errorf("%d backups", n)
	}
	entries, _ := os.ReadDir(filepath.Dir(e.claudePath()))
	for _, de := range entries {
		if strings.Contains(de.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", de.Name())
		}
	}

	// Unchanged content makes no backup, even at another time.
	e.now = e.now.Add(time.Hour)
	if _, _, err := e.install(o); err != nil {
		t.Fatal(err)
	}
	if n := len(backups(t, filepath.Dir(e.claudePath()))); n != 1 {
		t.Errorf("%d backups after an install that changed nothing", n)
	}
}

func TestInstallDryRunTouchesNothing(t *testing.T) {
	e := newTestEnv(t, "linux")
	other, err := os.ReadFile("testdata/claude/other-servers.in.json")
	if err != nil {
		t.Fatal(err)
	}
	e.writeClaude(string(other), 0o600)
	if err := os.MkdirAll(filepath.Dir(e.mgr.path), 0o755); err != nil {
		t.Fatal(err)
	}
	stale := "[Unit]\nDescription=old infmem\n\n[Service]\nExecStart=/old/infmem daemon\n\n[Install]\nWantedBy=multi-user.target\n"
	if err := os.WriteFile(e.mgr.path, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, e.home)
	o := e.opts()
	o.DryRun = true
	rep, out, err := e.install(o)
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, before, snapshot(t, e.home))
	if !slices.Equal(e.mgr.calls, []string{"Current"}) {
		t.Errorf("dry run drove the service manager: %v", e.mgr.calls)
	}
	if !rep.DryRun || !rep.ServiceChanged || !rep.ClaudeConfigChanged || rep.Backup != "" {
		t.Errorf("report = %+v", rep)
	}
	golden(t, "install-dryrun-linux.out.golden", []byte(out))
}

func TestInstallDryRunOtherPlatforms(t *testing.T) {
	for _, goos := range []string{"darwin", "windows"} {
		t.Run(goos, func(t *testing.T) {
			e := newTestEnv(t, goos)
			before := snapshot(t, e.home)
			o := e.opts()
			o.DryRun = true
			if _, out, err := e.install(o); err != nil {
				t.Fatal(err)
			} else {
				golden(t, "install-dryrun-"+goos+".out.golden", []byte(out))
			}
			sameSnapshot(t, before, snapshot(t, e.home))
			if !slices.Equal(e.mgr.calls, []string{"Current"}) {
				t.Errorf("dry run drove the service manager: %v", e.mgr.calls)
			}
		})
	}
}

func TestInstallDarwinCreatesLogDir(t *testing.T) {
	e := newTestEnv(t, "darwin")
	if _, _, err := e.install(e.opts()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(e.data, "logs"))
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("log directory: %v, %v", fi, err)
	}
	plist, _ := os.ReadFile(e.mgr.path)
	if !bytes.Contains(plist, []byte("<key>RunAtLoad</key>\n\t<true/>")) {
		t.Errorf("plist:\n%s", plist)
	}
}

func TestInstallWindowsIdempotent(t *testing.T) {
	e := newTestEnv(t, "windows")
	if err := os.MkdirAll(e.env["APPDATA"], 0o700); err != nil {
		t.Fatal(err)
	}
	// The task as Task Scheduler would export it after registration.
	e.mgr.memDef, e.mgr.memInstalled = string(EncodeUTF16(strings.NewReplacer(
		`c:\users\ann lee\appdata\local\programs\infmem\infmem.exe`, e.bin,
		`daemon --data-dir "C:\Users\Ann Lee\AppData\Roaming\infmem" --config "C:\cfg\a\"b\\"`, `daemon --data-dir `+e.data,
	).Replace(exportedTask))), true
	o := e.opts()
	o.DryRun = true
	rep, _, err := e.install(o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ServiceChanged {
		t.Error("a registered task that runs the same command counts as changed")
	}
}

func TestInstallReplacesStaleService(t *testing.T) {
	e := newTestEnv(t, "linux")
	if err := os.MkdirAll(filepath.Dir(e.mgr.path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.mgr.path, []byte("[Service]\nExecStart=/old/infmem\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.install(e.opts()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"Current", "Stop", "Uninstall", "Install", "Current", "Start"}; !slices.Equal(e.mgr.calls, want) {
		t.Errorf("calls = %v, want %v", e.mgr.calls, want)
	}
	if unit, _ := os.ReadFile(e.mgr.path); string(unit) != e.mgr.content {
		t.Errorf("unit not replaced:\n%s", unit)
	}
}

// An empty unit left by an earlier failed render cannot be disabled; the
// install removes it and registers a good one.
func TestInstallRecoversFromEmptyUnit(t *testing.T) {
	e := newTestEnv(t, "linux")
	if err := os.MkdirAll(filepath.Dir(e.mgr.path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.mgr.path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e.mgr.failUinstall = errors.New("unit infmem.service has a bad unit file setting")
	if _, _, err := e.install(e.opts()); err != nil {
		t.Fatal(err)
	}
	if unit, _ := os.ReadFile(e.mgr.path); len(unit) == 0 || string(unit) != e.mgr.content {
		t.Errorf("unit = %q", unit)
	}
}

func TestInstallDetectsEmptyUnit(t *testing.T) {
	e := newTestEnv(t, "linux")
	e.mgr.writeEmpty = true
	_, _, err := e.install(e.opts())
	if err == nil || !strings.Contains(err.Error(), "empty") || !strings.Contains(err.Error(), e.mgr.path) {
		t.Fatalf("error = %v, want one about the empty unit", err)
	}
	if _, err := os.Stat(e.mgr.path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the empty unit was left behind (%v)", err)
	}
	if _, err := os.Stat(e.claudePath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Claude Desktop's config was written although the service failed (%v)", err)
	}
	if slices.Contains(e.mgr.calls, "Start") {
		t.Error("started a service with an empty unit")
	}
}

func TestInstallServiceFailureRollsBack(t *testing.T) {
	e := newTestEnv(t, "linux")
	e.mgr.failInstall = errors.New(`"systemctl" failed: Failed to connect to bus`)
	_, _, err := e.install(e.opts())
	if err == nil || !strings.Contains(err.Error(), "Failed to connect to bus") || !strings.Contains(Hint(err), "--no-service") {
		t.Fatalf("error = %v (hint %q)", err, Hint(err))
	}
	if _, err := os.Stat(e.mgr.path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the unit written before the failure was left behind (%v)", err)
	}
	if _, err := os.Stat(e.claudePath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Claude Desktop's config was written although the service failed (%v)", err)
	}
}

func TestInstallStartFailure(t *testing.T) {
	e := newTestEnv(t, "linux")
	e.mgr.failStart = errors.New("unit failed")
	if _, _, err := e.install(e.opts()); err == nil || !strings.Contains(err.Error(), "starting it failed") {
		t.Fatalf("error = %v", err)
	}
}

func TestInstallNotesUnexpectedDefinition(t *testing.T) {
	e := newTestEnv(t, "linux")
	o := e.opts()
	build := o.NewServiceManager
	o.NewServiceManager = func(cfg *service.Config) (ServiceManager, error) {
		m, err := build(cfg)
		e.mgr.content += "# added by the service manager\n"
		return m, err
	}
	_, out, err := e.install(o)
	if err != nil || !strings.Contains(out, "Note: the registered systemd user unit differs") {
		t.Errorf("err = %v, output:\n%s", err, out)
	}
}

func TestMalformedClaudeConfigIsLeftAlone(t *testing.T) {
	for _, doc := range []string{"{\n  \"mcpServers\": {\n    \"a\": {}\n  \n", `{"mcpServers": ["a"]}`} {
		for name, run := range map[string]func(*testEnv, Options) (*Report, string, error){
			"install": (*testEnv).install, "uninstall": (*testEnv).uninstall,
		} {
			e := newTestEnv(t, "linux")
			e.writeClaude(doc, 0o600)
			before := snapshot(t, e.home)
			_, _, err := run(e, e.opts())
			if !errors.Is(err, ErrMalformedConfig) || !strings.Contains(err.Error(), e.claudePath()) ||
				!strings.Contains(err.Error(), "left unchanged") || Hint(err) == "" {
				t.Errorf("%s %q: error = %v (hint %q)", name, doc, err, Hint(err))
			}
			sameSnapshot(t, before, snapshot(t, e.home))
			if e.builds != 0 {
				t.Errorf("%s %q: the service manager was consulted", name, doc)
			}
		}
	}
}

func TestUninstall(t *testing.T) {
	e := newTestEnv(t, "linux")
	orig, err := os.ReadFile("testdata/claude/other-servers.in.json")
	if err != nil {
		t.Fatal(err)
	}
	e.writeClaude(string(orig), 0o600)
	if _, _, err := e.install(e.opts()); err != nil {
		t.Fatal(err)
	}

	o := e.opts()
	o.DryRun = true
	before := snapshot(t, e.home)
	e.mgr.calls = nil
	_, out, err := e.uninstall(o)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "uninstall-dryrun-linux.out.golden", []byte(out))
	sameSnapshot(t, before, snapshot(t, e.home))
	if !slices.Equal(e.mgr.calls, []string{"Current"}) {
		t.Errorf("dry run drove the service manager: %v", e.mgr.calls)
	}

	e.mgr.calls = nil
	rep, out, err := e.uninstall(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "uninstall-linux.out.golden", []byte(out))
	if want := []string{"Current", "Stop", "Uninstall", "Current"}; !slices.Equal(e.mgr.calls, want) {
		t.Errorf("calls = %v, want %v", e.mgr.calls, want)
	}
	if _, err := os.Stat(e.mgr.path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unit still there (%v)", err)
	}
	if got := e.readClaude(); got != string(orig) {
		t.Errorf("uninstall did not restore the user's config:\n%s", unifiedDiff("orig", "now", string(orig), got))
	}
	if b, err := os.ReadFile(filepath.Join(e.data, "memories.db")); err != nil || string(b) != "precious" {
		t.Errorf("data directory touched: %q, %v", b, err)
	}
	// Install and uninstall ran at the same instant: the second backup
	// must not overwrite the first.
	got := backups(t, filepath.Dir(e.claudePath()))
	want := []string{e.claudePath() + ".bak-20250102T030405Z", e.claudePath() + ".bak-20250102T030405Z-2"}
	if !slices.Equal(got, want) || rep.Backup != want[1] {
		t.Errorf("backups = %q (report %q), want %q", got, rep.Backup, want)
	}
	if !rep.ServiceChanged || !rep.ClaudeConfigChanged || rep.DataDir != e.data {
		t.Errorf("report = %+v", rep)
	}

	before = snapshot(t, e.home)
	e.mgr.calls = nil
	rep, out, err = e.uninstall(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "uninstall-again-linux.out.golden", []byte(out))
	sameSnapshot(t, before, snapshot(t, e.home))
	if rep.ServiceChanged || rep.ClaudeConfigChanged || !slices.Equal(e.mgr.calls, []string{"Current"}) {
		t.Errorf("second uninstall: report %+v, calls %v", rep, e.mgr.calls)
	}
}

func TestUninstallWithoutConfigFile(t *testing.T) {
	e := newTestEnv(t, "linux")
	if _, _, err := e.uninstall(e.opts()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(e.claudePath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("uninstall created Claude's config (%v)", err)
	}
}

func TestNoService(t *testing.T) {
	e := newTestEnv(t, "linux")
	o := e.opts()
	o.NoService = true
	rep, out, err := e.install(o)
	if err != nil {
		t.Fatal(err)
	}
	if e.builds != 0 || rep.ServiceKind != "" || !strings.Contains(out, "left alone") {
		t.Errorf("builds=%d report=%+v output:\n%s", e.builds, rep, out)
	}
	if entry, _ := readEntry([]byte(e.readClaude())); entry == nil {
		t.Error("no Claude entry")
	}
	// Without a service manager, Home may point anywhere.
	o.NewServiceManager = nil
	if _, _, err := e.uninstall(o); err != nil {
		t.Fatal(err)
	}
}

func TestSymlinkedClaudeConfig(t *testing.T) {
	e := newTestEnv(t, "linux")
	dotfiles := filepath.Join(e.home, "dotfiles")
	if err := os.MkdirAll(dotfiles, 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dotfiles, "claude.json")
	if err := os.WriteFile(target, []byte("{}\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(e.claudePath()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, e.claudePath()); err != nil {
		t.Fatal(err)
	}
	rep, _, err := e.install(e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(e.claudePath()); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file (%v)", err)
	}
	if entry, _ := readEntry([]byte(e.readClaude())); entry == nil {
		t.Error("the link target was not edited")
	}
	if filepath.Dir(rep.Backup) != dotfiles {
		t.Errorf("backup %s is not next to the file it saves", rep.Backup)
	}
}

func TestOptionsValidation(t *testing.T) {
	e := newTestEnv(t, "linux")

	o := e.opts()
	o.NewServiceManager = nil
	if _, _, err := e.install(o); err == nil || !strings.Contains(err.Error(), "home directory override") {
		t.Errorf("home override with the real service manager: %v", err)
	}

	o = e.opts()
	o.DataDir = ""
	if _, _, err := e.install(o); err == nil || !strings.Contains(err.Error(), "data directory") {
		t.Errorf("no data directory: %v", err)
	}

	o = e.opts()
	if err := os.Chmod(e.bin, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.install(o); err == nil || !strings.Contains(err.Error(), "not an executable") {
		t.Errorf("non-executable binary: %v", err)
	}

	o.Binary = filepath.Join(e.home, "missing")
	if _, _, err := e.install(o); err == nil {
		t.Error("missing binary accepted")
	}
}

func TestNoServiceManagerHint(t *testing.T) {
	e := newTestEnv(t, "linux")
	o := e.opts()
	o.NewServiceManager = func(*service.Config) (ServiceManager, error) {
		return nil, fmt.Errorf("%w: systemd does not manage this machine", ErrNoServiceManager)
	}
	_, _, err := e.install(o)
	if !errors.Is(err, ErrNoServiceManager) || !strings.Contains(Hint(err), "--no-service") {
		t.Errorf("error = %v, hint %q", err, Hint(err))
	}
	if _, err := os.Stat(e.claudePath()); !errors.Is(err, fs.ErrNotExist) {
		t.Error("Claude's config was written although the install failed")
	}
}

func TestReplaceFileRefusesConcurrentChange(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "claude_desktop_config.json")
	if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := readFileState(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"saved": "by Claude"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := replaceFile(st, []byte(`{"mine": 1}`), time.Now()); err == nil || !strings.Contains(err.Error(), "changed while") {
		t.Errorf("error = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != `{"saved": "by Claude"}` {
		t.Errorf("file = %s", b)
	}
	if n := len(backups(t, dir)); n != 0 {
		t.Errorf("%d backups", n)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := writeFileAtomic(p, []byte("one"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if err != nil || string(b) != "two" || fi.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v err %v", b, fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	if err := writeFileAtomic(filepath.Join(dir, "missing", "f"), nil, 0o600); err == nil {
		t.Error("wrote into a missing directory")
	}
}
