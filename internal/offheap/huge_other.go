//go:build !linux

package offheap

// adviseHuge does nothing here.
func adviseHuge([]byte) {}
