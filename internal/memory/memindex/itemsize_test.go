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
