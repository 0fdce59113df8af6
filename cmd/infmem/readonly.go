package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/infmem/infmem/internal/dataroot"
)

// readOnlyError says that the data root cannot be written: the database,
// the service log, the daemon's sockets and the backups all need to.
type readOnlyError struct {
	root string
	// dir is the first directory in which no file could be created.
	dir string
	err error
	// mount is set when the file system itself is mounted read-only.
	mount bool
}

func (e *readOnlyError) Error() string {
	what := "the data root " + e.root + " is read-only"
	if e.mount {
		what = "the data root " + e.root + " is on a file system mounted read-only"
	}
	return fmt.Sprintf("%s: no file can be created in %s (%v)\nhint: %s", what, e.dir, e.err, e.fix())
}

func (e *readOnlyError) Unwrap() error { return e.err }

// fix says what to do about it.
func (e *readOnlyError) fix() string {
	if e.mount {
		return "remount that file system read-write, or choose a data root on a writable disk with --data-dir or $INFMEM_DATA_DIR (your memories stay where they are until you move them)"
	}
	return fmt.Sprintf("give yourself write access again: chmod -R u+w %s (infmem keeps it private to you, mode 700), or choose another data root with --data-dir or $INFMEM_DATA_DIR", e.root)
}

// dataRootWritable checks that files can be created in the data root and
// in each of its directories, and returns a *readOnlyError when the file
// system or the permissions refuse it. Other failures (a full disk) are
// not its business and pass.
func dataRootWritable(root string) error {
	dirs := []string{root}
	for _, sub := range []string{dataroot.MongoData, dataroot.Logs, dataroot.Run, dataroot.Backups, dataroot.Export} {
		dirs = append(dirs, filepath.Join(root, sub))
	}
	for _, dir := range dirs {
		f, err := os.CreateTemp(dir, ".infmem-write-check-*")
		if err == nil {
			name := f.Name()
			f.Close()
			os.Remove(name)
			continue
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		rofs := errors.Is(err, syscall.EROFS)
		if rofs || errors.Is(err, fs.ErrPermission) {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return &readOnlyError{root: root, dir: dir, err: err, mount: rofs}
		}
	}
	return nil
}
