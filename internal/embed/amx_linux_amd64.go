//go:build linux && amd64 && !purego

package embed

import "syscall"

// requestAMX asks Linux for permission to use the AMX tile data state
// (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA), which a process
// must hold before its first tile instruction (without it that
// instruction faults). The permission covers every thread of the process.
// A kernel without AMX support, or one that refuses, answers an error.
func requestAMX() bool {
	const (
		archReqXcompPerm  = 0x1023
		xfeatureXTileData = 18
	)
	_, _, errno := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureXTileData, 0)
	return errno == 0
}
