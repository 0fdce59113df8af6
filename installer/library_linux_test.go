//go:build linux

package installer

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kardianos/service"
)

// librarySystemd returns kardianos/service's systemd backend whatever init
// system this machine runs, so its real Install can render our unit.
func librarySystemd(t *testing.T) service.System {
	t.Helper()
	for _, s := range service.AvailableSystems() {
		if s.String() == "linux-systemd" {
			return s
		}
	}
	t.Fatal("kardianos/service has no linux-systemd backend")
	return nil
}

// isolateLibrary points the library's home at a temporary directory and
// hides systemctl, so its Install writes the unit and then fails to run
// `systemctl enable` instead of touching a real systemd.
func isolateLibrary(t *testing.T) (home string) {
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PATH", t.TempDir())
	return home
}

// TestSystemdUnitMatchesLibrary renders our unit through kardianos/service's
// own Install and checks our renderer produced the same bytes.
func TestSystemdUnitMatchesLibrary(t *testing.T) {
	home := isolateLibrary(t)
	for _, o := range []Options{
		unixTestConfig(),
		{Binary: "/opt/with space/infmem", DataDir: `/data/"quoted" dir`},
	} {
		cfg := ServiceConfig(o)
		want, err := RenderSystemdUnit(cfg)
		if err != nil {
			t.Fatal(err)
		}
		svc, err := librarySystemd(t).New(registerOnly{}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Install(); err == nil || !strings.Contains(err.Error(), "systemctl") {
			t.Fatalf("library Install error = %v, want systemctl to be missing", err)
		}
		unit := filepath.Join(home, ".config/systemd/user/infmem.service")
		got, err := os.ReadFile(unit)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("library wrote:\n%s\nwe rendered:\n%s", got, want)
		}
		os.Remove(unit)
	}
}

// TestLibraryLeavesEmptyUnitOnRenderError pins the library behaviour that
// makes pre-rendering and the post-install check necessary, and shows that
// our renderer rejects the same template.
func TestLibraryLeavesEmptyUnitOnRenderError(t *testing.T) {
	home := isolateLibrary(t)
	cfg := ServiceConfig(unixTestConfig())
	cfg.Option[optSystemdScript] = "ExecStart={{.Path}}\n"
	if _, err := RenderSystemdUnit(cfg); err == nil {
		t.Error("our renderer accepted a template the library cannot render")
	}
	svc, err := librarySystemd(t).New(registerOnly{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Install(); err == nil {
		t.Fatal("library rendered a broken template")
	}
	got, err := os.ReadFile(filepath.Join(home, ".config/systemd/user/infmem.service"))
	if err != nil || len(got) != 0 {
		t.Errorf("library left %q (%v); this test expects the empty file it used to leave", got, err)
	}
}

// TestInstallThroughLibrary drives Install with the real kardianos/service
// systemd backend. With no systemctl to run, registration fails after the
// library has written the unit; Install must remove that unit, leave Claude
// Desktop's config alone and say how to go on.
func TestInstallThroughLibrary(t *testing.T) {
	home := isolateLibrary(t)
	bin := filepath.Join(home, "infmem")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(home, ".config/systemd/user/infmem.service")
	o := Options{
		Binary:  bin,
		DataDir: filepath.Join(home, "data"),
		Home:    home,
		Env:     func(string) string { return "" },
		NewServiceManager: func(cfg *service.Config) (ServiceManager, error) {
			svc, err := librarySystemd(t).New(registerOnly{}, cfg)
			return &kardianosManager{Service: svc, path: unit}, err
		},
	}
	_, err := Install(t.Context(), o, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "systemctl") || Hint(err) == "" {
		t.Fatalf("error = %v (hint %q)", err, Hint(err))
	}
	if _, err := os.Stat(unit); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the unit the library wrote was left behind (%v)", err)
	}
	claude, _ := ClaudeConfigPath("linux", o.Env, home)
	if _, err := os.Stat(claude); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Claude Desktop's config was written (%v)", err)
	}
}

// TestRealManagerWithoutSystemd runs Install on the real service-manager
// path where systemd does not manage the machine (as on the build machines):
// kardianos/service would fall back to a system-wide init script, so
// Install must refuse before changing anything.
func TestRealManagerWithoutSystemd(t *testing.T) {
	if sys := service.ChosenSystem(); sys != nil && sys.String() == "linux-systemd" {
		t.Skip("systemd manages this machine; this test must not reach its user instance")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	bin := filepath.Join(home, "infmem")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := Options{Binary: bin, DataDir: filepath.Join(home, "data"), Env: func(string) string { return "" }}
	before := snapshot(t, home)
	_, err := Install(t.Context(), o, io.Discard)
	if !errors.Is(err, ErrNoServiceManager) || !strings.Contains(Hint(err), "--no-service") {
		t.Fatalf("error = %v, hint %q", err, Hint(err))
	}
	sameSnapshot(t, before, snapshot(t, home))

	o.NoService = true
	if _, err := Install(t.Context(), o, io.Discard); err != nil {
		t.Fatalf("install without the service: %v", err)
	}
}
