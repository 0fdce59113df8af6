package cores

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestShare: without a sharer Share runs nothing and reports false; with
// one it runs every index exactly once through it; Register returns the
// sharer it replaces.
func TestShare(t *testing.T) {
	prev := Register(nil)
	defer Register(prev)
	ran := 0
	if Share(3, func(int) { ran++ }) || ran != 0 {
		t.Fatalf("no sharer: Share reported true or ran %d", ran)
	}
	var through atomic.Int64
	s := Sharer(func(n int, fn func(i int)) {
		through.Add(1)
		var wg sync.WaitGroup
		for i := 1; i < n; i++ {
			wg.Go(func() { fn(i) })
		}
		fn(0)
		wg.Wait()
	})
	if old := Register(s); old != nil {
		t.Fatal("Register(nil) left a sharer")
	}
	var counts [4]atomic.Int32
	if !Share(len(counts), func(i int) { counts[i].Add(1) }) {
		t.Fatal("Share with a sharer reported false")
	}
	for i := range counts {
		if c := counts[i].Load(); c != 1 {
			t.Fatalf("index %d ran %d times", i, c)
		}
	}
	if through.Load() != 1 {
		t.Fatalf("the sharer ran %d times", through.Load())
	}
	if old := Register(nil); old == nil {
		t.Fatal("Register did not return the sharer it replaced")
	}
}
