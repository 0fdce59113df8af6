package installer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/kardianos/service"
)

// ErrNoServiceManager means this machine has no per-user service manager
// infmem can register with (for example Linux without a systemd user
// instance). Claude Desktop still works without the login service, because
// `infmem mcp` starts the daemon on demand.
var ErrNoServiceManager = errors.New("no per-user service manager available")

// ServiceManager is the part of the OS service manager that Install and
// Uninstall drive. Install, Uninstall, Start and Stop have the meaning of
// kardianos/service's Service (which the real implementation wraps on Linux
// and macOS); tests substitute a recorder.
type ServiceManager interface {
	// Current returns the registered service definition as the manager
	// keeps it (the unit or plist file, the task XML), and whether one is
	// registered at all.
	Current() (definition string, installed bool, err error)
	Install() error
	Uninstall() error
	Start() error
	Stop() error
}

// servicePlan is what registering the login service means on one OS: the
// definition we expect the manager to hold and, for display, the commands
// the manager will run.
type servicePlan struct {
	kind     string // e.g. "systemd user unit"
	location string // definition file, or the task's name
	content  string
	// file is true when the manager keeps content in the file at location,
	// so a successful install can be checked by reading it back.
	file bool
	// matches reports whether a registered definition is ours, up to date.
	matches                         func(current string) bool
	install, start, stop, uninstall []planStep // what the manager does, for the plan
	mkdirs                          []string   // directories the service needs before it starts
}

// planStep is one thing a service manager does: a command it runs, or
// (command false) an action described in words.
type planStep struct {
	text    string
	command bool
}

func cmdStep(args ...string) planStep { return planStep{text: commandLine(args), command: true} }
func noteStep(text string) planStep   { return planStep{text: text} }

// planService computes the definition and commands for goos. home is the
// user's home directory; userID the Windows account the logon task is for.
func planService(goos string, cfg *service.Config, home, userID string) (*servicePlan, error) {
	unit := cfg.Name + ".service"
	switch goos {
	case "linux":
		content, err := RenderSystemdUnit(cfg)
		if err != nil {
			return nil, err
		}
		return &servicePlan{
			kind:      "systemd user unit",
			location:  path.Join(home, ".config/systemd/user", unit),
			content:   content,
			file:      true,
			matches:   func(cur string) bool { return cur == content },
			install:   []planStep{cmdStep("systemctl", "enable", "--user", unit), cmdStep("systemctl", "daemon-reload", "--user")},
			start:     []planStep{cmdStep("systemctl", "start", "--user", unit)},
			stop:      []planStep{cmdStep("systemctl", "stop", "--user", unit)},
			uninstall: []planStep{cmdStep("systemctl", "disable", "--user", unit), noteStep("remove the unit file"), cmdStep("systemctl", "daemon-reload", "--user")},
		}, nil
	case "darwin":
		content, err := RenderLaunchdPlist(cfg, home)
		if err != nil {
			return nil, err
		}
		plist := path.Join(home, "Library/LaunchAgents", cfg.Name+".plist")
		p := &servicePlan{
			kind:      "launchd user agent",
			location:  plist,
			content:   content,
			file:      true,
			matches:   func(cur string) bool { return cur == content },
			start:     []planStep{cmdStep("launchctl", "load", plist)},
			stop:      []planStep{cmdStep("launchctl", "unload", plist)},
			uninstall: []planStep{noteStep("remove the plist")},
		}
		if dir := optString(cfg.Option, optLogDirectory, ""); dir != "" {
			p.mkdirs = []string{dir}
		}
		return p, nil
	case "windows":
		content, err := RenderWindowsTask(cfg, userID)
		if err != nil {
			return nil, err
		}
		create, start, end, del := SchtasksCommands(cfg.Name, `%TEMP%\infmem-task-*.xml`)
		return &servicePlan{
			kind:      "Scheduled Task at logon",
			location:  `\` + cfg.Name,
			content:   content,
			matches:   func(cur string) bool { return windowsTaskMatches(cur, cfg) },
			install:   []planStep{cmdStep(create...)},
			start:     []planStep{cmdStep(start...)},
			stop:      []planStep{cmdStep(end...)},
			uninstall: []planStep{cmdStep(del...)},
		}, nil
	}
	return nil, fmt.Errorf("%w: infmem has no login service for %s", ErrNoServiceManager, goos)
}

// commandLine shows a command for a human, quoting arguments with spaces.
func commandLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'") {
			a = `"` + strings.ReplaceAll(a, `"`, `\"`) + `"`
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// kardianosManager drives a kardianos/service Service, which keeps the
// definition in the file at path.
type kardianosManager struct {
	service.Service
	path string
}

func (m *kardianosManager) Current() (string, bool, error) {
	b, err := os.ReadFile(m.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read the service definition: %w", err)
	}
	return string(b), true, nil
}

// registerOnly is the service.Interface for a process that only registers
// the service; the daemon supplies its own when it runs under the manager.
type registerOnly struct{}

func (registerOnly) Start(service.Service) error { return nil }
func (registerOnly) Stop(service.Service) error  { return nil }
