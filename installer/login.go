package installer

import (
	"context"
	"errors"

	"github.com/kardianos/service"
)

// LoginService is the login service as Install registers it for some
// Options, found through the same OS service manager, for the start, stop,
// status and doctor commands.
type LoginService struct {
	// Kind describes the service ("systemd user unit", "launchd user agent",
	// "Scheduled Task at logon"); Location is its definition file or task.
	Kind, Location string
	mgr            ServiceManager
	state          serviceState
}

// OpenLoginService looks up the login service for opts. The error wraps
// ErrNoServiceManager when this machine has no per-user service manager.
func OpenLoginService(ctx context.Context, opts Options) (*LoginService, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	st, err := o.planServiceStep(ctx)
	if err != nil {
		return nil, err
	}
	return &LoginService{Kind: st.plan.kind, Location: st.plan.location, mgr: st.mgr, state: st.state}, nil
}

// Installed reports whether a service by infmem's name is registered.
func (s *LoginService) Installed() bool { return s.state != serviceAbsent }

// Current reports whether the registered service is exactly what Install
// would register for these Options (same binary, data root and config).
func (s *LoginService) Current() bool { return s.state == serviceCurrent }

// Start asks the service manager to start the service.
func (s *LoginService) Start() error { return s.mgr.Start() }

// Stop asks the service manager to stop the service.
func (s *LoginService) Stop() error { return s.mgr.Stop() }

// ErrStatusUnknown means the service manager cannot say whether the
// service runs.
var ErrStatusUnknown = errors.New("the service manager does not report whether the service runs")

// Running asks the service manager whether the service runs.
func (s *LoginService) Running() (bool, error) {
	sm, ok := s.mgr.(interface {
		Status() (service.Status, error)
	})
	if !ok {
		return false, ErrStatusUnknown
	}
	st, err := sm.Status()
	if err != nil {
		return false, err
	}
	switch st {
	case service.StatusRunning:
		return true, nil
	case service.StatusStopped:
		return false, nil
	}
	return false, ErrStatusUnknown
}
