package embed

import (
	"context"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
)

// A sharer lets long-lived worker goroutines take part in the caller's
// products: a product is cut into small chunks (pairs of output panels)
// that the caller and the idle workers claim one at a time from an atomic
// counter. When a worker is busy or not scheduled (a loaded machine), the
// caller simply claims every chunk itself, and it never waits for more
// than the chunks the workers hold. Each chunk computes its outputs whole,
// in the same order as on one goroutine, so the result is the same bits
// whoever runs it.
type sharer struct {
	ws []*shareWorker
	// workerChunks counts the chunks the workers ran (tests, benchmarks).
	workerChunks atomic.Int64
}

// A shareWorker, after a job, polls for the next one for shareIdle (a
// text's products follow each other within tens to hundreds of
// microseconds), then parks on its channel. Waking a parked goroutine
// costs about 50 us on this runtime (it is stolen from the waker's run
// queue after a sleep), a large part of a short product.
type shareWorker struct {
	state atomic.Int32 // workerPolling, workerParked, workerBusy
	slot  atomic.Pointer[shareJob]
	wake  chan *shareJob
}

const (
	workerBusy = iota
	workerPolling
	workerParked
)

// shareIdle is how long a worker polls for the next product before it
// parks.
const shareIdle = 200 * time.Microsecond

// shareJob is one product's chunks.
type shareJob struct {
	n    int64
	next atomic.Int64 // next chunk to claim
	done atomic.Int64 // chunks finished
	fin  chan struct{}
	fn   func(i int)
	s    *sharer
}

// newSharer starts the worker goroutines; they live as long as the process.
func newSharer(workers int) *sharer {
	s := &sharer{}
	for range workers {
		w := &shareWorker{wake: make(chan *shareJob)}
		w.state.Store(workerBusy)
		s.ws = append(s.ws, w)
		go pprof.Do(context.Background(), pprof.Labels("embed", "share-worker"), func(context.Context) { w.work() })
	}
	return s
}

func (w *shareWorker) work() {
	for {
		w.state.Store(workerPolling)
		t0 := time.Now()
		var j *shareJob
		for j == nil {
			switch {
			case w.state.Load() == workerBusy:
				// A caller claimed this worker; its job follows.
				for j = w.slot.Swap(nil); j == nil; j = w.slot.Swap(nil) {
				}
			case time.Since(t0) > shareIdle:
				if w.state.CompareAndSwap(workerPolling, workerParked) {
					j = <-w.wake
					w.state.Store(workerBusy)
				}
			default:
				// Let the process's other goroutines have this core.
				runtime.Gosched()
			}
		}
		j.run(true)
	}
}

// post hands j to w if w is idle.
func (w *shareWorker) post(j *shareJob) bool {
	switch w.state.Load() {
	case workerPolling:
		if w.state.CompareAndSwap(workerPolling, workerBusy) {
			w.slot.Store(j)
			return true
		}
	case workerParked:
		select {
		case w.wake <- j:
			return true
		default:
		}
	}
	return false
}

// maxShareWorkers bounds the workers of the process's sharer: past a few
// cores the chunks of a short text's product (16 to 48) are too few.
const maxShareWorkers = 3

// defaultSharer is the process's sharer with one worker per core past the
// first (up to maxShareWorkers), or nil on a machine (or under a GOMAXPROCS)
// with one core, where there is nothing to share with.
var defaultSharer = sync.OnceValue(func() *sharer {
	w := min(runtime.GOMAXPROCS(0)-1, maxShareWorkers)
	if w < 1 {
		return nil
	}
	return newSharer(w)
})

// run claims and runs chunks until none is left. The worker that finishes
// the last chunk closes fin; the caller then waits on it.
func (j *shareJob) run(worker bool) {
	for {
		i := j.next.Add(1) - 1
		if i >= j.n {
			return
		}
		j.fn(int(i))
		if worker {
			j.s.workerChunks.Add(1)
		}
		if j.done.Add(1) == j.n && worker {
			close(j.fin)
		}
	}
}

// shareSpin is how long the caller polls for the workers' last chunks
// before it parks (a chunk is some tens of microseconds of products).
const shareSpin = 50 * time.Microsecond

// do runs fn(0) … fn(n-1), each exactly once, on the calling goroutine and
// the idle workers; it returns when all have returned. A nil sharer runs
// them in order on the caller.
func (s *sharer) do(n int, fn func(i int)) {
	if s == nil || n < 2 {
		for i := range n {
			fn(i)
		}
		return
	}
	j := &shareJob{n: int64(n), fn: fn, fin: make(chan struct{}), s: s}
	posted := 0
	for _, w := range s.ws {
		if posted < n-1 && w.post(j) {
			posted++
		}
	}
	if posted == 0 {
		// Every worker is running another caller's product.
		for i := range n {
			fn(i)
		}
		return
	}
	j.run(false)
	if j.done.Load() == j.n {
		return
	}
	// A worker still holds a chunk: poll a little, then park.
	t0 := time.Now()
	for j.done.Load() != j.n {
		if time.Since(t0) > shareSpin {
			<-j.fin
			return
		}
	}
}

// shareMinWork is the multiply-add count from which a VDPBF16PS product
// is shared with the sharer's workers.
const shareMinWork = 0
