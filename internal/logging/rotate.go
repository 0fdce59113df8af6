package logging

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// RotatingFile is an append-only file that, before a write would take it
// past its size limit, is renamed to <path>.1 (shifting older ones to .2 and
// so on, dropping the oldest) and started afresh. Safe for concurrent use.
type RotatingFile struct {
	path     string
	maxBytes int64
	keep     int

	mu   sync.Mutex
	f    *os.File
	size int64
}

// OpenRotating opens path for appending, creating it with mode 0600.
func OpenRotating(path string, maxBytes int64, keep int) (*RotatingFile, error) {
	r := &RotatingFile{path: path, maxBytes: maxBytes, keep: keep}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *RotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("cannot open log file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("cannot open log file: %w", err)
	}
	r.f, r.size = f, fi.Size()
	return nil
}

// Write appends p, rotating first when p would not fit.
func (r *RotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, fs.ErrClosed
	}
	if r.size > 0 && r.size+int64(len(p)) > r.maxBytes {
		if err := r.rotate(); err != nil {
			// Keep logging into the file we have; try again after another
			// full file's worth rather than on every record.
			r.size = 0
			fmt.Fprintf(r.f, "logging: cannot rotate %s: %v\n", r.path, err)
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// rotate shifts path.N-1 → path.N … path → path.1 and reopens path.
func (r *RotatingFile) rotate() error {
	if err := r.f.Close(); err != nil {
		return err
	}
	r.f = nil
	var errs []error
	if err := os.Remove(r.rotated(r.keep)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	for i := r.keep - 1; i >= 1; i-- {
		if err := os.Rename(r.rotated(i), r.rotated(i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := os.Rename(r.path, r.rotated(1)); err != nil {
		errs = append(errs, err)
	}
	if err := r.open(); err != nil {
		return errors.Join(append(errs, err)...)
	}
	return errors.Join(errs...)
}

func (r *RotatingFile) rotated(i int) string { return fmt.Sprintf("%s.%d", r.path, i) }

// Close closes the file.
func (r *RotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
