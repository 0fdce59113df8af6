//go:build unix

package sockdir

import (
	"io/fs"
	"syscall"
)

const privateModeMatters = true

func ownerUID(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
