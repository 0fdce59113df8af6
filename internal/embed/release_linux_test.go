//go:build linux

package embed

import (
	"encoding/binary"
	"os"
	"testing"
	"unsafe"
)

// residentPages counts the pages wholly inside b that are mapped into
// this process right now (bit 63 of /proc/self/pagemap), and all of them.
func residentPages(t *testing.T, b []byte) (present, total int) {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("no pagemap: %v", err)
	}
	defer f.Close()
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo, hi := (start+page-1)&^(page-1), (start+uintptr(len(b)))&^(page-1)
	buf := make([]byte, 8*((hi-lo)/page))
	if _, err := f.ReadAt(buf, int64(lo/page*8)); err != nil {
		t.Skipf("cannot read pagemap: %v", err)
	}
	for i := 0; i+8 <= len(buf); i += 8 {
		total++
		if binary.LittleEndian.Uint64(buf[i:])&(1<<63) != 0 {
			present++
		}
	}
	return present, total
}

// Loading the model from the weights embedded in the binary leaves few of
// their pages resident: it reads them all to build its panels, then gives
// them back (releasePages); only embedding rows a text uses come back.
func TestEmbeddedWeightsLeaveTheResidentSet(t *testing.T) {
	data, inPlace, err := modelWeights()
	if err != nil || !inPlace {
		t.Skip("the weights are not read in place from the binary in this build")
	}
	m, err := NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	present, total := residentPages(t, data)
	t.Logf("after load: %d of %d pages of the weights resident", present, total)
	if present > total/4 {
		t.Errorf("after load %d of the weights' %d pages are resident; want at most a quarter", present, total)
	}
	v, err := m.Embed(t.Context(), "What did we discuss about the database migration last week?")
	if err != nil || len(v) != useDim {
		t.Fatalf("embedding after the release: %d dims, %v", len(v), err)
	}
	present, _ = residentPages(t, data)
	t.Logf("after one query: %d of %d pages resident", present, total)
	want, err := newUSELiteBF16(data, bestKernel(), asmF16Kernel(), asmF16Kernel12(), useAMX(), useVDP())
	if err != nil {
		t.Fatal(err)
	}
	w, _ := want.Embed(t.Context(), "What did we discuss about the database migration last week?")
	for i := range v {
		if v[i] != w[i] {
			t.Fatalf("dimension %d: %v after the release, %v from a fresh read", i, v[i], w[i])
		}
	}
}
