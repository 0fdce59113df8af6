package installer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// backupTimeFormat is the UTC timestamp in backup names; it sorts by time.
const backupTimeFormat = "20060102T150405Z"

// backupName is where the previous version of path is saved at now.
func backupName(path string, now time.Time) string {
	return path + ".bak-" + now.UTC().Format(backupTimeFormat)
}

// writeBackup saves data next to path as path.bak-<UTC timestamp>, never
// overwriting an earlier backup (a second one within the same second gets a
// -2, -3, ... suffix). It returns the name used.
func writeBackup(path string, data []byte, mode fs.FileMode, now time.Time) (string, error) {
	base := backupName(path, now)
	for n := 1; n <= 100; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("back up %s: too many backups named %s*", path, base)
}

// writeFileAtomic replaces path with data so that readers see either the old
// or the new file, never a mix: a temporary file in the same directory is
// written, synced and renamed over path, then the directory is synced.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: set mode: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Make the rename itself durable. Directories cannot be synced on
	// Windows; the rename is still atomic there.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// fileState is a file as read before an edit.
type fileState struct {
	path   string // as shown to the user
	target string // the file actually read and written (symlinks followed)
	exists bool
	data   []byte
	mode   fs.FileMode
}

// readFileState reads path, following a symlink so that the edit lands in
// the file it points to instead of replacing the link.
func readFileState(path string) (fileState, error) {
	st := fileState{path: path, target: path, mode: 0o600}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if st.target, err = filepath.EvalSymlinks(path); err != nil {
			return st, fmt.Errorf("read %s: %w", path, err)
		}
	}
	fi, err := os.Stat(st.target)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return st, fmt.Errorf("read %s: not a regular file", path)
	}
	if st.data, err = os.ReadFile(st.target); err != nil {
		return st, fmt.Errorf("read %s: %w", path, err)
	}
	st.exists, st.mode = true, fi.Mode().Perm()
	return st, nil
}

// replaceFile writes data over the file read as st: it refuses if the file
// changed since (Claude Desktop may have saved settings meanwhile), saves the
// previous content as a timestamped backup, and writes atomically. It
// returns the backup's name ("" when there was no previous file).
func replaceFile(st fileState, data []byte, now time.Time) (string, error) {
	cur, err := readFileState(st.path)
	if err != nil {
		return "", err
	}
	if cur.exists != st.exists || !bytes.Equal(cur.data, st.data) {
		return "", fmt.Errorf("write %s: the file changed while infmem was editing it; run the command again", st.path)
	}
	backup := ""
	if st.exists {
		if backup, err = writeBackup(st.target, st.data, st.mode, now); err != nil {
			return "", err
		}
	} else if err := os.MkdirAll(filepath.Dir(st.target), 0o700); err != nil {
		return "", fmt.Errorf("create the directory of %s: %w", st.path, err)
	}
	if err := writeFileAtomic(st.target, data, st.mode); err != nil {
		return backup, err
	}
	return backup, nil
}
