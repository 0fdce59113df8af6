package daemon

import (
	"context"
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/infmem/infmem/internal/config"
)

// The server's collector, once its memory index is loaded. Until this
// session it ran at a fixed GOGC 25: the heap could grow by a quarter of
// the live data (~55 MB at 100k memories) before a collection, so a burst
// of retrieves met a collection every ~14 MB allocated, ~1.2 ms of a
// retrieve's p50 and 3-4 ms of its p99 (BENCHMARKS.md, speed10), while GOGC
// 100 alone took the server's RSS from ~216 to ~255 MB, above issue 24's
// 250 MB. Now the target is memory.gc_percent (default 100) with a soft
// limit of the Go runtime's memory, memory.gc_limit_mb, which caps the
// growth where the memory is large; what lies outside the Go runtime (the
// index's vectors and keyword lists, the model's weights, mapped; the
// binary) is ~150 MB of the server's RSS at 100k memories and is not
// counted by the limit (BENCHMARKS.md, speed12).
//
// A fixed limit alone would collect without end once the live heap nears
// it (a larger memory, an import, a backup): after each collection the
// limit is raised, when needed, to what the old GOGC 25 allowed, the live
// heap plus a quarter plus the runtime's own memory, so no memory is
// collected more often than before.

// gcFloorPercent is the least growth the limit leaves the heap: the old
// fixed target.
const gcFloorPercent = 25

// gcLoadExtra is what the soft limit leaves the Go runtime beyond
// memory.gc_limit_mb while the index loads. Without a limit the load's
// garbage (every document read, decoded and dropped: ~1.2 GB allocated at
// 100k memories) let the heap grow to twice the live data at Go's default
// target, and a first start without a snapshot peaked at 301-312 MB of RSS
// against serving's ~245 (issue 24). At the serving limit itself the load
// collected so often it took twice as long (5.3 -> 10-13 s, a 95 MiB limit
// through GOMEMLIMIT); 25 MiB more kept the peak at ~235 MB and the load's
// time within noise (BENCHMARKS.md, mem15). The floor (below) still lifts it
// for a larger memory, so a load is never collected without end.
const gcLoadExtra = 25 << 20

// gcAttacher returns the Attach applying mem's collector settings: while
// the stack's index loads, the soft limit at memory.gc_limit_mb plus
// gcLoadExtra (Go's default target); once it is loaded, memory.gc_percent
// and the limit itself. GOGC and GOMEMLIMIT, when set, win.
func gcAttacher(mem config.Memory, log *slog.Logger) Attach {
	return func(ctx context.Context, s *Stack) (func(context.Context) error, error) {
		// Read before anything runs: a resume replaces s.Memory (after
		// detaching this), possibly before the goroutine first runs.
		return gcSettings(mem, s.Memory.Loaded(), log), nil
	}
}

// gcSettings applies mem's collector settings for a stack whose index is
// loaded when loaded is closed, and returns what undoes them (nil when the
// environment's GOGC and GOMEMLIMIT leave it nothing to do).
func gcSettings(mem config.Memory, loaded <-chan struct{}, log *slog.Logger) func(context.Context) error {
	envPercent, envLimit := os.Getenv("GOGC") != "", os.Getenv("GOMEMLIMIT") != ""
	if envPercent && (envLimit || mem.GCLimitMB == 0) {
		return nil
	}
	stop := make(chan struct{})
	var (
		mu      sync.Mutex
		floor   *gcFloor
		stopped bool
	)
	base := int64(mem.GCLimitMB) << 20
	if !envLimit && mem.GCLimitMB > 0 {
		floor = startGCFloor(base + gcLoadExtra)
	}
	go func() {
		select {
		case <-loaded:
		case <-stop:
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		if !envPercent {
			debug.SetGCPercent(mem.GCPercent)
		}
		if floor != nil {
			floor.setBase(base)
		}
		log.Debug("collector settings applied", "gc_percent", mem.GCPercent, "gc_limit_mb", mem.GCLimitMB,
			"env_gogc", envPercent, "env_gomemlimit", envLimit)
		// The load's garbage (every document read, decoded and
		// dropped) goes back to the system now, not over minutes.
		debug.FreeOSMemory()
	}()
	return func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			stopped = true
			close(stop)
		}
		if floor != nil {
			// Lifted until the next stack sets its own (a restore's
			// pause, shutdown).
			floor.stop()
			floor = nil
		}
		return nil
	}
}

// gcFloor keeps the soft memory limit at least at what gcFloorPercent
// needs, re-read after every collection.
type gcFloor struct {
	base    int64 // the configured limit, bytes
	mu      sync.Mutex
	stopped bool
	limit   int64 // the limit in force
	samples []metrics.Sample
}

// gcSentinel is the object whose collection marks the end of a cycle: a
// pointer field keeps it out of the tiny allocator, whose blocks may
// outlive their objects by many cycles.
type gcSentinel struct{ _ *byte }

func startGCFloor(base int64) *gcFloor {
	f := &gcFloor{base: base, samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}}
	f.update()
	f.arm()
	return f
}

func (f *gcFloor) arm() {
	runtime.AddCleanup(&gcSentinel{}, func(f *gcFloor) {
		if f.update() {
			f.arm()
		}
	}, f)
}

// update sets the limit to the larger of the configured one and the floor;
// false once stopped.
func (f *gcFloor) update() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	metrics.Read(f.samples)
	var v [6]uint64
	for i, s := range f.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	limit := max(f.base, gcFloorLimit(v[0], v[1]-v[2]-v[3]-v[4]-v[5]))
	// Set when it moved by more than 1 MiB, or when something else (another
	// runtime in this process, a test) changed it.
	if cur := debug.SetMemoryLimit(-1); cur != f.limit || limit > f.limit+1<<20 || limit < f.limit-1<<20 {
		f.limit = limit
		debug.SetMemoryLimit(limit)
	}
	return true
}

// gcFloorLimit is the least soft limit that lets a heap of live bytes grow
// by gcFloorPercent before a collection, with overhead bytes of the
// runtime's own (stacks, metadata) beside it, plus a slack of 1/16 for the
// heap's fragmentation.
func gcFloorLimit(live, overhead uint64) int64 {
	goal := live + live*gcFloorPercent/100
	n := goal + goal/16 + overhead
	if n > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}

// setBase makes base the configured limit (bytes) from now on.
func (f *gcFloor) setBase(base int64) {
	f.mu.Lock()
	f.base = base
	f.mu.Unlock()
	f.update()
}

// stop ends the floor's updates and lifts the limit.
func (f *gcFloor) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	debug.SetMemoryLimit(math.MaxInt64)
}
