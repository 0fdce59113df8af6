package dataroot

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// Default is the OS-appropriate data root: $XDG_DATA_HOME/infmem or
// ~/.local/share/infmem on Linux and other Unixes, ~/Library/Application
// Support/infmem on macOS, %AppData%\infmem on Windows.
func Default(getenv func(string) string) (string, error) {
	return defaultFor(runtime.GOOS, getenv, os.UserHomeDir)
}

func defaultFor(goos string, getenv func(string) string, home func() (string, error)) (string, error) {
	switch goos {
	case "windows":
		if d := getenv("AppData"); d != "" {
			return filepath.Join(d, "infmem"), nil
		}
		return "", errors.New("cannot find the data root: %AppData% is not set; hint: pass --data-dir or set INFMEM_DATA_DIR")
	case "darwin", "ios":
		h, err := home()
		if err != nil {
			return "", errors.New("cannot find the data root: no home directory; hint: pass --data-dir or set INFMEM_DATA_DIR")
		}
		return filepath.Join(h, "Library", "Application Support", "infmem"), nil
	default:
		if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
			return filepath.Join(d, "infmem"), nil
		}
		h, err := home()
		if err != nil {
			return "", errors.New("cannot find the data root: no home directory; hint: pass --data-dir or set INFMEM_DATA_DIR")
		}
		return filepath.Join(h, ".local", "share", "infmem"), nil
	}
}
