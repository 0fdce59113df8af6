//go:build !unix

package main

// heapOnSignal does nothing: there is no SIGUSR1.
func heapOnSignal(func(n int)) {}
