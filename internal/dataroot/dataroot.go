// Package dataroot owns the data root: the one directory holding all of a
// user's infmem data (mongo_data/ backups/ logs/ export/ run/), where it is,
// and that only its owner can touch it.
package dataroot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// EnvDataDir names the environment variable that selects the data root.
const EnvDataDir = "INFMEM_DATA_DIR"

// Subdirectories of every data root.
const (
	MongoData = "mongo_data"
	Backups   = "backups"
	Logs      = "logs"
	Export    = "export"
	Run       = "run"
)

var subdirs = []string{MongoData, Backups, Logs, Export, Run}

// Root is a prepared data root.
type Root struct{ Dir string }

// Path joins elem to the root.
func (r Root) Path(elem ...string) string { return filepath.Join(append([]string{r.Dir}, elem...)...) }

// MongoDataDir and the others return the fixed subdirectories.
func (r Root) MongoDataDir() string { return r.Path(MongoData) }
func (r Root) BackupsDir() string   { return r.Path(Backups) }
func (r Root) LogsDir() string      { return r.Path(Logs) }
func (r Root) ExportDir() string    { return r.Path(Export) }
func (r Root) RunDir() string       { return r.Path(Run) }

// Resolve picks the data root: the --data-dir flag, then INFMEM_DATA_DIR,
// then the config's data_dir, then the OS default. It returns an absolute path
// and says which of those decided.
func Resolve(flagDir string, getenv func(string) string, configDir string) (dir, how string, err error) {
	switch {
	case flagDir != "":
		dir, how = flagDir, "--data-dir"
	case getenv(EnvDataDir) != "":
		dir, how = getenv(EnvDataDir), EnvDataDir
	case configDir != "":
		dir, how = configDir, "config data_dir"
	default:
		dir, err = Default(getenv)
		if err != nil {
			return "", "", err
		}
		how = "OS default"
	}
	abs, err := filepath.Abs(expandHome(dir))
	if err != nil {
		return "", "", fmt.Errorf("cannot resolve data root %q: %w", dir, err)
	}
	return abs, how, nil
}

func expandHome(dir string) string {
	if dir == "~" || len(dir) > 1 && dir[0] == '~' && os.IsPathSeparator(dir[1]) {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, dir[1:])
		}
	}
	return dir
}

// Prepare creates the root and its subdirectories private to the user (mode
// 0700; on Windows an access list for the user and SYSTEM only, see acl.go)
// and refuses a root that is not a directory, cannot be read, or can be
// written by others.
func Prepare(dir string) (Root, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return Root{}, fmt.Errorf("cannot create data root %s: %w", dir, err)
	}
	if err := mkdirPrivate(dir); err != nil && !errors.Is(err, os.ErrExist) {
		return Root{}, fmt.Errorf("cannot create data root %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return Root{}, fmt.Errorf("cannot open data root %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return Root{}, fmt.Errorf("data root %s is not a directory", dir)
	}
	if err := checkPrivate(dir, fi); err != nil {
		return Root{}, err
	}
	if _, err := os.ReadDir(dir); err != nil {
		return Root{}, fmt.Errorf("cannot read data root %s: %w\nhint: make it readable and writable by you only: chmod 700 %s", dir, err, dir)
	}
	for _, sub := range subdirs {
		p := filepath.Join(dir, sub)
		if err := mkdirPrivate(p); err != nil && !errors.Is(err, os.ErrExist) {
			return Root{}, fmt.Errorf("cannot create %s: %w", p, err)
		}
		sfi, err := os.Stat(p)
		if err != nil {
			return Root{}, fmt.Errorf("cannot open %s: %w", p, err)
		}
		if !sfi.IsDir() {
			return Root{}, fmt.Errorf("%s is not a directory; move it away so infmem can create it", p)
		}
		if err := checkPrivate(p, sfi); err != nil {
			return Root{}, err
		}
	}
	return Root{Dir: dir}, nil
}
