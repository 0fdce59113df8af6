package installer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/kardianos/service"
)

// Options says what to install and where. Binary, DataDir and ConfigFile are
// made absolute.
type Options struct {
	// Binary is the infmem executable the service and Claude Desktop run;
	// empty means the running executable.
	Binary string
	// DataDir is the data root, already chosen by the caller (flag,
	// INFMEM_DATA_DIR or the default). Required. The service always gets it
	// as --data-dir.
	DataDir string
	// DefaultDataDir is the data root infmem picks when given none. When
	// DataDir equals it, Claude Desktop's entry leaves --data-dir out; when it
	// is empty, the entry always carries --data-dir.
	DefaultDataDir string
	// ConfigFile, when set, is passed to both as --config.
	ConfigFile string
	// DryRun computes and prints the plan but changes nothing.
	DryRun bool
	// NoService leaves the login service alone and only edits Claude
	// Desktop's config.
	NoService bool

	// Home replaces the user's home directory, for tests. With the real
	// service manager it must be the actual home directory, because
	// kardianos/service looks that up by itself.
	Home string
	// Env replaces os.Getenv, for tests.
	Env func(string) string
	// Now replaces time.Now, for backup names in tests.
	Now func() time.Time
	// NewServiceManager replaces the OS service manager, for tests.
	NewServiceManager func(cfg *service.Config) (ServiceManager, error)

	goos   string // replaces runtime.GOOS, for tests of other platforms' plans
	userID string // replaces the current Windows account, for tests
}

// resolve fills in defaults and makes paths absolute.
func (o Options) resolve() (Options, error) {
	if o.goos == "" {
		o.goos = runtime.GOOS
	}
	if o.Env == nil {
		o.Env = os.Getenv
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	native := o.goos == runtime.GOOS
	home, err := os.UserHomeDir()
	if o.Home == "" {
		if err != nil {
			return o, fmt.Errorf("find the home directory: %w", err)
		}
		o.Home = home
	} else if !o.NoService && o.NewServiceManager == nil && o.Home != home {
		return o, errors.New("a home directory override needs a substitute service manager: kardianos/service always uses the real one")
	}
	if o.DataDir == "" {
		return o, errors.New("no data directory given")
	}
	if o.Binary == "" {
		if o.Binary, err = os.Executable(); err != nil {
			return o, fmt.Errorf("find the infmem executable: %w", err)
		}
	}
	if native {
		for _, p := range []*string{&o.Binary, &o.DataDir, &o.DefaultDataDir, &o.ConfigFile} {
			if *p == "" {
				continue
			}
			if *p, err = filepath.Abs(*p); err != nil {
				return o, fmt.Errorf("make %q absolute: %w", *p, err)
			}
		}
		fi, err := os.Stat(o.Binary)
		if err != nil {
			return o, fmt.Errorf("check the infmem executable: %w", err)
		}
		if !fi.Mode().IsRegular() || (o.goos != "windows" && fi.Mode().Perm()&0o111 == 0) {
			return o, fmt.Errorf("check the infmem executable: %s is not an executable file", o.Binary)
		}
	}
	return o, nil
}

// claudeEntry is the command Claude Desktop runs: `infmem mcp`, plus the
// data root when it is not the default and the config file when given.
func (o Options) claudeEntry() ServerEntry {
	args := []string{"mcp"}
	if o.DefaultDataDir == "" || filepath.Clean(o.DataDir) != filepath.Clean(o.DefaultDataDir) {
		args = append(args, "--data-dir", o.DataDir)
	}
	if o.ConfigFile != "" {
		args = append(args, "--config", o.ConfigFile)
	}
	return ServerEntry{Command: o.Binary, Args: args}
}

// Report says what Install or Uninstall changed or, in a dry run, would
// change.
type Report struct {
	DryRun bool
	// ServiceKind describes the login service ("systemd user unit", ...);
	// empty when the service was left alone (Options.NoService).
	ServiceKind string
	// ServiceLocation is the service definition file, or the task name.
	ServiceLocation string
	ServiceChanged  bool
	// ClaudeConfig is the path of Claude Desktop's config file.
	ClaudeConfig        string
	ClaudeConfigChanged bool
	// Backup is the saved previous version of ClaudeConfig, if one was made.
	Backup string
	// DataDir is the data root, which neither command touches.
	DataDir string
}

// hinted attaches advice for the user to an error.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }

// Hint returns the advice attached to err, for the CLI's "hint:" line, or "".
func Hint(err error) string {
	var h *hinted
	if errors.As(err, &h) {
		return h.hint
	}
	return ""
}
