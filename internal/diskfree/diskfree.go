// Package diskfree measures how much room is left on a file system.
package diskfree

// Space is the size of a file system and the part of it this user can
// still write to.
type Space struct {
	// Free is the space available to this user: what an ordinary write
	// can still use (unix f_bavail, which leaves out the blocks reserved
	// for root; on Windows the caller's quota-aware free space).
	Free uint64
	// Total is the file system's size as this user sees it.
	Total uint64
}
