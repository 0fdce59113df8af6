// Package cores lets a computation share its work with the goroutines a
// process keeps polling on its other cores. The embedding model's sharer
// (internal/embed) keeps such workers: between the products of a text they
// poll for the next one instead of sleeping, and a search that starts
// right after its query's embedding finds them awake, where a goroutine
// started for it would wait in the run queue (tens to hundreds of
// microseconds on a busy machine). With no sharer registered, Share runs
// nothing and says so.
package cores

import "sync/atomic"

// A Sharer runs fn(0) … fn(n-1), each exactly once, on the calling
// goroutine and whichever of its idle workers claim some, and returns when
// all have returned. A call the workers have not claimed by the time the
// caller is done with its own runs on the caller.
type Sharer func(n int, fn func(i int))

var sharer atomic.Pointer[Sharer]

// Register makes s the process's sharer (nil: none) and returns the one
// it replaces.
func Register(s Sharer) (prev Sharer) {
	var p *Sharer
	if s != nil {
		p = &s
	}
	if old := sharer.Swap(p); old != nil {
		return *old
	}
	return nil
}

// Share runs fn(0) … fn(n-1) with the process's sharer and reports true,
// or runs nothing and reports false when there is none.
func Share(n int, fn func(i int)) bool {
	s := sharer.Load()
	if s == nil {
		return false
	}
	(*s)(n, fn)
	return true
}
