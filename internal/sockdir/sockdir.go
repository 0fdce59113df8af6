// Package sockdir places the unix sockets of a data root: in its run
// folder, or, when that path is too long for a socket, in a private
// per-root folder it checks is ours.
package sockdir

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// MaxPath keeps a unix socket path under every OS's sun_path limit (104
// bytes on macOS, 108 on Linux, both including the NUL), with room to spare.
const MaxPath = 100

// Path is where the unix socket called name for the data root whose
// run directory is runDir lives: in runDir itself, or, when that path would
// pass the OS's sun_path limit, in a private per-root directory under
// $XDG_RUNTIME_DIR (when it is ours and private) or the temp dir. Every
// socket of one root (the embedded engine's, the daemon's) lands in the
// same place, and the same root always maps to the same directory, so
// other processes find it by the same rule.
//
// A directory in a shared place could be made by another user first, who
// would then own the sockets' folder: the directory must be ours, a real
// directory (not a symlink) and 0700, or Path refuses it.
func Path(runDir, name string) (string, error) {
	p := filepath.Join(runDir, name)
	if len(p) <= MaxPath {
		return p, nil
	}
	sum := sha256.Sum256([]byte(runDir))
	base := "infmem-" + strconv.Itoa(os.Getuid()) + "-" + hex.EncodeToString(sum[:6])
	parent := os.TempDir()
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) && checkPrivateDir(x) == nil {
		parent = x
	}
	dir := filepath.Join(parent, base)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("cannot create socket directory %s: %w", dir, err)
	}
	if err := checkPrivateDir(dir); err != nil {
		return "", fmt.Errorf("refusing socket directory %s: %w\nhint: remove it if you do not know who made it, or use a shorter data directory path (--data-dir) so the sockets stay in its run folder", dir, err)
	}
	p = filepath.Join(dir, name)
	if len(p) > MaxPath {
		return "", fmt.Errorf("no unix socket path short enough for %s: even %s is %d bytes (the limit is %d)\nhint: use a shorter data directory path (--data-dir), or a shorter $XDG_RUNTIME_DIR or $TMPDIR", runDir, p, len(p), MaxPath)
	}
	return p, nil
}

// checkPrivateDir accepts a real directory owned by the current user that
// only that user can enter.
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return errors.New("it is a symbolic link")
	case !fi.IsDir():
		return errors.New("it is not a directory")
	}
	if uid, ok := ownerUID(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("it belongs to uid %d, not to this user (uid %d)", uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm != 0o700 && privateModeMatters {
		return fmt.Errorf("its mode is %04o, not 0700", perm)
	}
	return nil
}
