package offheap

import (
	"runtime"
	"testing"
	"unsafe"
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

// TestSlabReleasedWithItsParts checks that a slab's parts are zeroed,
// 64-byte aligned and start at a 2 MiB boundary, that it runs out of room
// when full, and that the mapping is released only once Done was called and
// every part's owner is unreachable.
func TestSlabReleasedWithItsParts(t *testing.T) {
	if !Available() {
		t.Skip("no anonymous mappings on this system")
	}
	var c Counter
	s := NewSlab(3<<20, &c)
	owners := []*[16]byte{new([16]byte), new([16]byte), new([16]byte)}
	var parts [][]byte
	for i, o := range owners {
		p := Take(s, o, 1<<20-100)
		if p == nil || len(p) != 1<<20-100 {
			t.Fatalf("part %d: %d bytes", i, len(p))
		}
		addr := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
		if addr%64 != 0 || i == 0 && addr%hugePage != 0 {
			t.Fatalf("part %d at %#x: not aligned", i, addr)
		}
		for _, b := range p {
			if b != 0 {
				t.Fatalf("part %d not zeroed", i)
			}
		}
		p[len(p)-1] = 7
		parts = append(parts, p)
	}
	if p := Take(s, new([16]byte), 1<<20); p != nil {
		t.Fatal("a full slab gave another part")
	}
	if got := c.Load(); got != 3<<20+hugePage {
		t.Fatalf("counted %d bytes, want %d", got, 3<<20+hugePage)
	}
	parts = nil
	s.Done()
	owners[0], owners[2] = nil, nil
	for range 20 {
		runtime.GC()
		runtime.Gosched()
	}
	if c.Load() == 0 {
		t.Fatal("released while a part's owner lives")
	}
	runtime.KeepAlive(owners[1])
	owners[1] = nil
	for i := 0; i < 200 && c.Load() != 0; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if got := c.Load(); got != 0 {
		t.Fatalf("%d bytes still mapped after every owner became unreachable", got)
	}
	var nilSlab *Slab
	if Take(nilSlab, new(int), 10) != nil {
		t.Fatal("a nil slab gave a part")
	}
	nilSlab.Done()
}
