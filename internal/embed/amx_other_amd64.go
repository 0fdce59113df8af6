//go:build !linux && amd64 && !purego

package embed

// requestAMX reports that this system's permission for the AMX tile state
// is not asked for: the tile unit is used on Linux only.
func requestAMX() bool { return false }
