//go:build !unix

package dataroot

import "os"

// checkPrivate relies on the per-user profile directory's ACLs on Windows,
// where Unix permission bits do not describe who may write.
func checkPrivate(dir string, fi os.FileInfo) error { return nil }
