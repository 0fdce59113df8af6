//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// heapOnSignal calls write (with 1, 2, …) on each SIGUSR1.
func heapOnSignal(write func(n int)) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		for n := 1; ; n++ {
			<-ch
			write(n)
		}
	}()
}
