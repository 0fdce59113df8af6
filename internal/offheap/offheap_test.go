package offheap

import (
	"runtime"
	"testing"
)

// TestReleasedWithOwner checks that a mapping is counted, writable, and
// released once its owner is unreachable (and not before).
func TestReleasedWithOwner(t *testing.T) {
	if !Available() {
		t.Skip("no anonymous mappings on this system")
	}
	var c Counter
	owner := new([16]byte)
	mem := Alloc(owner, 1<<20, &c)
	if mem == nil || len(mem) != 1<<20 {
		t.Fatalf("Alloc gave %d bytes", len(mem))
	}
	mem[len(mem)-1] = 7
	runtime.GC()
	if got := c.Load(); got != 1<<20 {
		t.Fatalf("counted %d bytes while the owner lives, want %d", got, 1<<20)
	}
	runtime.KeepAlive(owner)
	for i := 0; i < 200 && c.Load() != 0; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if got := c.Load(); got != 0 {
		t.Fatalf("%d bytes still mapped after the owner became unreachable", got)
	}
}
