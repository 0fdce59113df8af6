//go:build !windows

package installer

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"runtime"

	"github.com/kardianos/service"
)

// newPlatformManager returns kardianos/service's user service for this OS:
// a systemd user unit on Linux, a LaunchAgent on macOS. On Linux it first
// makes sure a systemd user instance answers, because otherwise the library
// would write the unit and then fail to enable it, or, on a machine without
// systemd, pick a system-wide init script instead.
func newPlatformManager(ctx context.Context, cfg *service.Config, p *servicePlan) (ServiceManager, error) {
	switch runtime.GOOS {
	case "linux":
		if sys := service.ChosenSystem(); sys == nil || sys.String() != "linux-systemd" {
			return nil, fmt.Errorf("%w: systemd does not manage this machine", ErrNoServiceManager)
		}
		out, err := exec.CommandContext(ctx, "systemctl", "--user", "show-environment").CombinedOutput()
		if err != nil {
			msg := string(bytes.TrimSpace(out))
			if msg == "" {
				msg = err.Error()
			}
			return nil, fmt.Errorf("%w: systemctl --user cannot reach a systemd user instance: %s", ErrNoServiceManager, msg)
		}
	case "darwin":
	default:
		return nil, fmt.Errorf("%w: infmem has no login service for %s", ErrNoServiceManager, runtime.GOOS)
	}
	svc, err := service.New(registerOnly{}, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoServiceManager, err)
	}
	return &kardianosManager{Service: svc, path: p.location}, nil
}

// currentUserID is only needed for the Windows logon task.
func currentUserID() (string, error) { return "", nil }
