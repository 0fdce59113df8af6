//go:build !unix

package offheap

// mapAnon maps nothing here: callers allocate on the heap.
func mapAnon(int) []byte { return nil }

// unmapAnon is never called here.
func unmapAnon([]byte) {}
