//go:build !linux

package embed

// releasePages does nothing here: the embedded weights' pages stay
// resident once read (release_linux.go).
func releasePages([]byte) {}
