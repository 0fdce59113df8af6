//go:build windows

package installer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"

	"github.com/kardianos/service"
)

// newPlatformManager returns the Scheduled Task manager (see schtask.go for
// why a task and not a Run key or a Windows service).
func newPlatformManager(ctx context.Context, cfg *service.Config, p *servicePlan) (ServiceManager, error) {
	if _, err := exec.LookPath("schtasks"); err != nil {
		return nil, fmt.Errorf("%w: schtasks.exe not found: %v", ErrNoServiceManager, err)
	}
	return &schtasksManager{ctx: ctx, name: cfg.Name, definition: p.content}, nil
}

func currentUserID() (string, error) {
	u, err := user.Current()
	if err != nil {
		return "", fmt.Errorf("look up the current user: %w", err)
	}
	return u.Username, nil
}

// schtasksManager registers the logon task with schtasks.exe.
type schtasksManager struct {
	ctx        context.Context
	name       string
	definition string // task XML
}

func (m *schtasksManager) run(args []string) ([]byte, error) {
	cmd := exec.CommandContext(m.ctx, args[0], args[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := bytes.TrimSpace(stderr.Bytes())
		if len(msg) == 0 {
			msg = bytes.TrimSpace(out)
		}
		return out, fmt.Errorf("%s: %w: %s", commandLine(args), err, msg)
	}
	return out, nil
}

func (m *schtasksManager) Current() (string, bool, error) {
	out, err := m.run([]string{"schtasks", "/Query", "/TN", m.name, "/XML"})
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			// schtasks exits 1 when no such task exists.
			return "", false, nil
		}
		return "", false, err
	}
	return string(out), true, nil
}

func (m *schtasksManager) Install() error {
	f, err := os.CreateTemp("", "infmem-task-*.xml")
	if err != nil {
		return fmt.Errorf("write the task definition: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(EncodeUTF16(m.definition)); err != nil {
		f.Close()
		return fmt.Errorf("write the task definition: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write the task definition: %w", err)
	}
	create, _, _, _ := SchtasksCommands(m.name, f.Name())
	_, err = m.run(create)
	return err
}

func (m *schtasksManager) Start() error {
	_, run, _, _ := SchtasksCommands(m.name, "")
	_, err := m.run(run)
	return err
}

func (m *schtasksManager) Stop() error {
	_, _, end, _ := SchtasksCommands(m.name, "")
	_, err := m.run(end)
	return err
}

func (m *schtasksManager) Uninstall() error {
	_, _, _, del := SchtasksCommands(m.name, "")
	_, err := m.run(del)
	return err
}
