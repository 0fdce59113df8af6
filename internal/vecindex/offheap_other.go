//go:build !unix

package vecindex

// mapAnon maps nothing here: blocks live on the heap (blockmem.go).
func mapAnon(int) []byte { return nil }

// unmapAnon is never called here.
func unmapAnon([]byte) {}
