//go:build !windows

package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
)

// statusFails is a control handler that answers ping but not status, as a
// daemon stuck behind a long operation does.
type statusFails struct{}

func (statusFails) Status(context.Context) (*control.Status, error) {
	return nil, errors.New("the daemon is busy")
}
func (statusFails) Pause(context.Context, bool) (func(bool) error, error) {
	return nil, errors.New("no")
}
func (statusFails) Run(context.Context, string, json.RawMessage) (any, error) {
	return nil, errors.New("no")
}
func (statusFails) Reload(context.Context) (*control.ConfigStatus, error) {
	return nil, errors.New("no")
}
func (statusFails) Shutdown() {}

// status --json prints JSON even when the daemon answers ping but not the
// status request: scripts (and the tests) always get a report, naming why
// the daemon's part is missing, and a nonzero exit.
func TestStatusJSONWhenTheDaemonCannotSay(t *testing.T) {
	env := isolatedEnv(t)
	dir := filepath.Join(t.TempDir(), "root")
	root, err := dataroot.Prepare(dir)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := control.EndpointsFor(root)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(ep.Control), 0o700)
	ln, err := net.Listen("unix", ep.Control)
	if err != nil {
		t.Fatal(err)
	}
	srv := control.NewServer(statusFails{}, control.Pong{PID: os.Getpid(), Version: "test"}, nil)
	go srv.Serve(ln)
	defer srv.Close()

	code, out, errs := runCLI(t, env, "status", "--json", "--data-dir", dir)
	if code == exitOK {
		t.Fatalf("status succeeded without the daemon's status: %s", out)
	}
	var rep statusReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("status --json printed no JSON (%v): %q %q", err, out, errs)
	}
	if rep.Daemon.Presence != string(control.Running) || !strings.Contains(rep.Daemon.Problem, "the daemon is busy") {
		t.Fatalf("the report does not say why the daemon's part is missing: %+v", rep.Daemon)
	}
	code, out, _ = runCLI(t, env, "status", "--data-dir", dir)
	if code == exitOK || !strings.Contains(out, "its status cannot be read: ") {
		t.Fatalf("status: %d %q", code, out)
	}
}
