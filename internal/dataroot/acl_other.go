//go:build !windows

package dataroot

import "os"

// mkdirPrivate creates dir with mode 0700; an existing dir yields an error
// matching os.ErrExist.
func mkdirPrivate(dir string) error { return os.Mkdir(dir, 0o700) }

// CheckAccessList is for Windows, where access lists decide who may use a
// directory; elsewhere mode bits do, checked by Prepare, and it returns nil.
func CheckAccessList(dir string) error { return nil }
