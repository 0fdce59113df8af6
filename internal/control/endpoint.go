package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/logging"
	"github.com/infmem/infmem/internal/sockdir"
)

// Names of the daemon's files in the data root's run/ directory. The
// sockets move to a private directory under the temp dir when run/ is too
// deep for a unix socket path (see sockdir.Path).
const (
	LockName    = "daemon.lock"
	InfoName    = "daemon.json"
	MCPName     = "daemon.sock"
	ControlName = "control.sock"
)

// Endpoints are the paths of one data root's daemon files.
type Endpoints struct {
	// Root is the data root.
	Root dataroot.Root
	// Lock is held by the daemon for as long as it runs.
	Lock string
	// Info is daemon.json, written once the daemon listens.
	Info string
	// MCP is the socket where every connection is an MCP session.
	MCP string
	// Control is the control protocol's socket.
	Control string
}

// EndpointsFor computes the paths for root.
func EndpointsFor(root dataroot.Root) (Endpoints, error) {
	run := root.RunDir()
	mcp, err := sockdir.Path(run, MCPName)
	if err != nil {
		return Endpoints{}, err
	}
	ctl, err := sockdir.Path(run, ControlName)
	if err != nil {
		return Endpoints{}, err
	}
	return Endpoints{
		Root:    root,
		Lock:    filepath.Join(run, LockName),
		Info:    filepath.Join(run, InfoName),
		MCP:     mcp,
		Control: ctl,
	}, nil
}

// LogFile is the service log the daemon writes.
func (e Endpoints) LogFile() string { return filepath.Join(e.Root.LogsDir(), logging.FileName) }

// Info is daemon.json: who serves the data root and where.
type Info struct {
	PID           int       `json:"pid"`
	Socket        string    `json:"socket"`
	ControlSocket string    `json:"control_socket"`
	Version       string    `json:"version"`
	StartedAt     time.Time `json:"started_at"`
	DataRoot      string    `json:"data_root"`
}

// WriteInfo writes daemon.json atomically (a 0600 temp file renamed into
// place), so a reader sees the old file or the new one, never half of one.
func WriteInfo(path string, info Info) error {
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("cannot encode %s: %w", filepath.Base(path), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".daemon-*.json")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// ReadInfo reads daemon.json; an absent file is an error wrapping
// fs.ErrNotExist.
func ReadInfo(path string) (*Info, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var info Info
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	return &info, nil
}

// RemoveInfo removes daemon.json, if present.
func RemoveInfo(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot remove %s: %w", path, err)
	}
	return nil
}
