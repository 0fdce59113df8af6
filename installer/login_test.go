package installer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"testing"

	"github.com/kardianos/service"
)

func TestLoginServiceFollowsInstall(t *testing.T) {
	e := newTestEnv(t, runtime.GOOS)
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the fake manager keeps unit files for linux and darwin")
	}
	ctx := context.Background()
	ls, err := OpenLoginService(ctx, e.opts())
	if err != nil {
		t.Fatal(err)
	}
	if ls.Installed() || ls.Current() || ls.Location != e.mgr.path {
		t.Fatalf("before install: %+v", ls)
	}
	if _, err := Install(ctx, e.opts(), io.Discard); err != nil {
		t.Fatal(err)
	}
	if ls, err = OpenLoginService(ctx, e.opts()); err != nil || !ls.Installed() || !ls.Current() {
		t.Fatalf("after install: %+v %v", ls, err)
	}
	// Registered for another data root: installed, but not current.
	other := e.opts()
	other.DataDir = t.TempDir()
	if ls2, err := OpenLoginService(ctx, other); err != nil || !ls2.Installed() || ls2.Current() {
		t.Fatalf("other root: %+v %v", ls2, err)
	}
	e.mgr.calls = nil
	if err := ls.Start(); err != nil {
		t.Fatal(err)
	}
	if err := ls.Stop(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.mgr.calls, []string{"Start", "Stop"}) {
		t.Fatalf("calls %v", e.mgr.calls)
	}
	// The fake manager cannot tell whether the service runs.
	if _, err := ls.Running(); !errors.Is(err, ErrStatusUnknown) {
		t.Fatalf("running: %v", err)
	}
}

func TestLoginServiceWithoutManager(t *testing.T) {
	e := newTestEnv(t, "linux")
	o := e.opts()
	o.NewServiceManager = func(*service.Config) (ServiceManager, error) {
		return nil, fmt.Errorf("%w: systemd does not manage this machine", ErrNoServiceManager)
	}
	_, err := OpenLoginService(context.Background(), o)
	if !errors.Is(err, ErrNoServiceManager) || Hint(err) == "" {
		t.Fatalf("got %v (hint %q)", err, Hint(err))
	}
}
