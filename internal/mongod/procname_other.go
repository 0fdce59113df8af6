//go:build unix && !linux

package mongod

// processName cannot tell what pid runs without /proc; callers then assume
// the worst (that it is a mongod) rather than remove a live lock.
func processName(int) (string, bool) { return "", false }
