// Package flock owns exclusive, non-blocking, process-wide file locks that
// record the holder's pid, so a second owner of a data root is refused with a
// message naming the first. The OS drops the lock when the holder dies.
package flock

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// HeldError reports a lock that another process (or another opener in this
// process) holds.
type HeldError struct {
	Path string
	PID  int // 0 when the holder's pid could not be read
}

func (e *HeldError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is locked by process %d", e.Path, e.PID)
	}
	return fmt.Sprintf("%s is locked by another process", e.Path)
}

// Lock is a held lock.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes the lock at path without waiting, creating the file (0600)
// if needed, and writes this process's pid into it.
func Acquire(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open lock file %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, &HeldError{Path: path, PID: readPID(path)}
		}
		return nil, fmt.Errorf("cannot lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		if err == nil {
			err = f.Sync()
		}
		if err != nil {
			unlockFile(f)
			f.Close()
			return nil, fmt.Errorf("cannot write lock file %s: %w", path, err)
		}
	}
	return &Lock{f: f, path: path}, nil
}

// Release drops the lock. The file stays, empty, so a reader never mistakes
// a released lock for a live holder's pid.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := unlockFile(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

func readPID(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0
	}
	return pid
}
