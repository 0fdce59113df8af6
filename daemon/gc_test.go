package daemon

import (
	"context"
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/config"
)

// keepGC restores the collector's settings when the test ends.
func keepGC(t *testing.T) {
	t.Helper()
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the daemon leaves the collector alone")
	}
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) })
}

// waitLimit collects until the soft memory limit satisfies ok (a floor's
// update runs after a cycle, on the cleanup goroutine).
func waitLimit(t *testing.T, what string, ok func(int64) bool) int64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l := debug.SetMemoryLimit(-1)
		if ok(l) {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the soft limit is %d MiB", what, l>>20)
		}
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
}

// TestGCFloor: the soft limit is the configured one while the live heap is
// small, rises to the live heap plus a quarter when it grows past it (so a
// larger memory is not collected without end), comes back down when the
// heap shrinks, and is lifted when the floor stops.
func TestGCFloor(t *testing.T) {
	keepGC(t)
	const base = 40 << 20
	f := startGCFloor(base)
	defer f.stop()
	waitLimit(t, "small heap", func(l int64) bool { return l == base })

	live := make([][]byte, 96)
	for i := range live {
		live[i] = make([]byte, 1<<20)
		live[i][0] = byte(i)
	}
	l := waitLimit(t, "96 MiB live", func(l int64) bool { return l >= 120<<20 })
	if l > 200<<20 {
		t.Errorf("96 MiB live: limit %d MiB, want about 1.25 times the live heap plus the runtime's own", l>>20)
	}
	runtime.KeepAlive(live)
	live = nil

	waitLimit(t, "heap released", func(l int64) bool { return l == base })
	f.stop()
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("stopped: limit %d, want none", l)
	}
	runtime.GC()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("a collection after stop set the limit to %d MiB", l>>20)
	}
}

// TestGCSettingsAfterLoad: a daemon applies memory.gc_percent and
// memory.gc_limit_mb once its index is loaded, and lifts the limit when it
// stops.
func TestGCSettingsAfterLoad(t *testing.T) {
	keepGC(t)
	debug.SetMemoryLimit(math.MaxInt64)
	opts := testOptions(t, testRoot(t))
	opts.Config.Memory.GCPercent = 170
	opts.Config.Memory.GCLimitMB = 900
	d, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(nil); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			d.Stop(nil)
		}
	}()
	waitLimit(t, "loaded", func(l int64) bool { return l == 900<<20 })
	if p := debug.SetGCPercent(170); p != 170 {
		t.Errorf("gc percent %d, want 170", p)
	}
	stopped = true
	if err := d.Stop(nil); err != nil {
		t.Fatal(err)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("stopped daemon: limit %d MiB, want none", l>>20)
	}
}

// TestGCLimitWhileLoading: while the index loads, the soft limit is
// memory.gc_limit_mb plus gcLoadExtra (the load's garbage no longer grows
// the heap to twice the live data); once loaded, the configured limit and
// percent; stopped, none.
func TestGCLimitWhileLoading(t *testing.T) {
	keepGC(t)
	debug.SetMemoryLimit(math.MaxInt64)
	loaded := make(chan struct{})
	stop := gcSettings(config.Memory{GCPercent: 170, GCLimitMB: 300}, loaded, slog.New(slog.DiscardHandler))
	if stop == nil {
		t.Fatal("no settings applied")
	}
	if l := debug.SetMemoryLimit(-1); l != 300<<20+gcLoadExtra {
		t.Errorf("loading: limit %d MiB, want %d", l>>20, (300<<20+gcLoadExtra)>>20)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("loading: gc percent %d, want Go's default", p)
	}
	close(loaded)
	waitLimit(t, "loaded", func(l int64) bool { return l == 300<<20 })
	if p := debug.SetGCPercent(170); p != 170 {
		t.Errorf("loaded: gc percent %d, want 170", p)
	}
	if err := stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("stopped: limit %d MiB, want none", l>>20)
	}
}
