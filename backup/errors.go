package backup

import (
	"errors"
	"fmt"
)

// Reasons a backup file is refused. Each one is found before the live data
// is touched; test for them with errors.Is.
var (
	ErrEmpty = errors.New("empty file")
	// ErrNotBackup: the file is not an (infmem) mongodump archive.
	ErrNotBackup = errors.New("not an infmem backup")
	// ErrKeyNeeded: the file is encrypted and no key of its kind was given.
	ErrKeyNeeded = errors.New("key needed")
	// ErrWrongPassphrase: the passphrase given does not decrypt the file.
	ErrWrongPassphrase = errors.New("wrong passphrase")
	// ErrWrongKey: none of the identities given decrypts the file.
	ErrWrongKey = errors.New("wrong key")
	// ErrTruncated: the file ends before the backup does.
	ErrTruncated = errors.New("truncated")
	// ErrDamaged: the file was changed or damaged after it was written.
	ErrDamaged = errors.New("damaged")
	// ErrNewerSchema: the backup comes from a newer infmem.
	ErrNewerSchema = errors.New("newer schema")
)

// RefusedError explains why a backup file cannot be used.
type RefusedError struct {
	// File is the backup's base name.
	File string
	// Reason is one of the Err* sentinels above.
	Reason error
	// Detail says what was found, in words for the user.
	Detail string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("cannot use backup %s: %s", e.File, e.Detail)
}

func (e *RefusedError) Unwrap() error { return e.Reason }

func refuse(file string, reason error, format string, args ...any) error {
	return &RefusedError{File: file, Reason: reason, Detail: fmt.Sprintf(format, args...)}
}
