//go:build unix

package dataroot

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivate refuses a directory others can write to or that someone else
// owns: either would let another account read or plant memories.
func checkPrivate(dir string, fi os.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("data root %s is owned by uid %d, not by you (uid %d)\nhint: use a directory you own, via --data-dir or INFMEM_DATA_DIR", dir, st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("refusing %s: it is writable by group or others (mode %04o)\nhint: chmod 700 %s", dir, perm, dir)
	}
	return nil
}
