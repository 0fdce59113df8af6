//go:build !unix

package textindex

// mapAnon maps nothing here: arenas live on the heap (arena.go).
func mapAnon(int) []byte { return nil }

// unmapAnon is never called here.
func unmapAnon([]byte) {}
