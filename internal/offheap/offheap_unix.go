//go:build unix

package offheap

import "golang.org/x/sys/unix"

// mapAnon maps size bytes of zeroed private memory, or returns nil.
func mapAnon(size int) []byte {
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil
	}
	return mem
}

// unmapAnon releases a mapping of mapAnon.
func unmapAnon(mem []byte) { _ = unix.Munmap(mem) }
