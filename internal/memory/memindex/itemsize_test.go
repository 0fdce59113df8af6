package memindex

import (
	"testing"
	"unsafe"
)

// An item is kept for every memory (125k slots at 100k memories): a field
// added in the wrong place costs up to 8 bytes each in padding.
func TestItemHasNoPadding(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("64-bit layout")
	}
	if got := unsafe.Sizeof(item{}); got > 128 {
		t.Fatalf("item is %d bytes; order its fields so that it fits in 128", got)
	}
}

// The items grow by a sixteenth when full, not by append's quarter.
func TestItemsGrowBySixteenth(t *testing.T) {
	items := make([]item, 100_000)
	items = appendItem(items)
	if len(items) != 100_001 || cap(items) > 100_000+100_000/16 {
		t.Fatalf("len %d cap %d after one append to 100k full items; want cap at most %d", len(items), cap(items), 100_000+100_000/16)
	}
	small := appendItem(nil)
	if len(small) != 1 || cap(small) < 1024 {
		t.Fatalf("len %d cap %d from nil; want room for 1,024", len(small), cap(small))
	}
}
