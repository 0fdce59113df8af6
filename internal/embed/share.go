package embed

import (
	"context"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/infmem/infmem/internal/cores"
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
	// workerChunks counts the chunks the workers ran, waitNanos the time
	// callers waited for a worker's last chunk (tests, benchmarks).
	workerChunks, waitNanos atomic.Int64
	// hinted counts the parked workers that expect woke (tests).
	hinted atomic.Int64
	// coolUntil (time since shareEpoch, ns) stops callers from posting
	// products while the workers look descheduled: a loaded machine.
	coolUntil atomic.Int64
	// cools counts the cool-downs by cause (tests, benchmarks).
	cools [3]atomic.Int64
}

// shareEpoch is the origin of the sharer's monotonic clock.
var shareEpoch = time.Now()

func shareNow() int64 { return int64(time.Since(shareEpoch)) }

// A shareWorker, after a job, polls for the next one for shareIdle (a
// text's products follow each other within tens to hundreds of
// microseconds), then parks on its channel. Waking a parked goroutine
// costs about 50 us on this runtime (it is stolen from the waker's run
// queue after a sleep), a large part of a short product.
type shareWorker struct {
	s     *sharer
	delay runDelay     // reads its thread's wait for a core
	state atomic.Int32 // workerPolling, workerParked, workerBusy
	slot  atomic.Pointer[shareJob]
	// wake brings a parked worker a job, or nil from expect: a product is
	// coming, poll for it.
	wake chan *shareJob
	// until (time since shareEpoch, ns) is when a polling worker parks.
	until atomic.Int64
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
	n      int64
	theirs atomic.Int64 // chunks the workers ran
	next   atomic.Int64 // next chunk to claim
	done   atomic.Int64 // chunks finished
	fin    chan struct{}
	fn     func(i int)
	s      *sharer
}

// newSharer starts the worker goroutines; they live as long as the process.
func newSharer(workers int) *sharer {
	s := &sharer{}
	for range workers {
		w := &shareWorker{s: s, wake: make(chan *shareJob)}
		w.state.Store(workerBusy)
		s.ws = append(s.ws, w)
		go pprof.Do(context.Background(), pprof.Labels("embed", "share-worker"), func(context.Context) { w.work() })
	}
	return s
}

func (w *shareWorker) work() {
	for {
		w.extend(shareNow() + int64(shareIdle))
		w.state.Store(workerPolling)
		// While it polls and runs chunks, the worker's thread waits for a
		// core only when the kernel gives it to another thread.
		d0, tid := w.delay.read()
		var j *shareJob
		for j == nil {
			switch {
			case w.state.Load() == workerBusy:
				// A caller claimed this worker; its job follows.
				for j = w.slot.Swap(nil); j == nil; j = w.slot.Swap(nil) {
					runtime.Gosched()
				}
			case shareNow() > w.until.Load() || shareNow() < w.s.coolUntil.Load():
				// Idle, or cooling down (see shareCool): park.
				if w.state.CompareAndSwap(workerPolling, workerParked) {
					if j = <-w.wake; j == nil {
						// expect: poll for the product announced.
						w.state.Store(workerPolling)
						w.s.hinted.Add(1)
						d0, tid = w.delay.read()
						continue
					}
					w.state.Store(workerBusy)
					d0, tid = w.delay.read()
				}
			default:
				runtime.Gosched()
			}
		}
		j.run(true)
		if d1, tid1 := w.delay.read(); d0 >= 0 && d1 >= 0 && tid1 == tid && d1-d0 > int64(shareOffCore) {
			// The worker's thread waited for its core for a while between
			// the caller's products or amid its chunks: the second core is
			// not free.
			w.s.cool(coolOffCore)
		}
	}
}

// extend makes w poll at least until t (time since shareEpoch, ns).
func (w *shareWorker) extend(t int64) {
	for {
		u := w.until.Load()
		if u >= t || w.until.CompareAndSwap(u, t) {
			return
		}
	}
}

// shareExpect is how long a worker polls for a product announced by
// expect before it parks again: the time from a request's line read to
// its first product (the decode and dispatch, about 0.2-0.5 ms), with
// room for a loaded moment. A hint that no product follows (a call that
// does not embed, an embedding found in a cache) costs at most this much
// of a core's time.
const shareExpect = time.Millisecond

// expect tells the workers that a product is likely to come soon (a
// request was read): a parked worker is woken now and polls for
// shareExpect, so that its wake-up (a futex wake, a halted core coming
// back) overlaps the request's decode instead of the first product. Only
// a hint: the products are the same whoever runs them. Nothing is woken
// while the sharer cools down.
func (s *sharer) expect() {
	if s == nil {
		return
	}
	now := shareNow()
	if now < s.coolUntil.Load() {
		return
	}
	for _, w := range s.ws {
		w.extend(now + int64(shareExpect))
		if w.state.Load() == workerParked {
			select {
			case w.wake <- nil:
			default:
			}
		}
	}
}

// Expect tells the process's embedding workers that an embedding is likely
// to start soon (the daemon calls it when it reads a tool call), so that
// they are awake when its products start. It does nothing in a process
// that has not loaded a model that shares its products, and never changes
// an embedding.
func Expect() {
	if s := liveSharer.Load(); s != nil {
		s.expect()
	}
}

// liveSharer is defaultSharer once a model has asked for it.
var liveSharer atomic.Pointer[sharer]

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
	s := newSharer(w)
	liveSharer.Store(s)
	cores.Register(s.do)
	return s
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
			j.theirs.Add(1)
		}
		if j.done.Add(1) == j.n && worker {
			close(j.fin)
		}
	}
}

// shareOffCore is how long a worker's thread may wait for its core (the
// kernel running another thread there) between its last park and the end
// of a product's chunks before the sharer takes the machine for loaded.
const shareOffCore = time.Millisecond

// shareCool is how long the callers run their products alone after a
// worker looked descheduled (its thread lost its core, or it held up the
// caller with its last chunk): on a loaded machine the second core is not
// free, and a polling worker takes CPU from the caller's own share. The
// workers do not poll while the sharer cools down.
const shareCool = 100 * time.Millisecond

// shareHeld is how long the caller may wait for the workers' last chunks
// (a chunk is up to ~50 us) before the sharer takes a worker for
// descheduled.
const shareHeld = 300 * time.Microsecond

// shareSpin is how long the caller polls for the workers' last chunks
// before it parks (a chunk is some tens of microseconds of products).
const shareSpin = 50 * time.Microsecond

// do runs fn(0) … fn(n-1), each exactly once, on the calling goroutine and
// the idle workers; it returns when all have returned. A nil sharer runs
// them in order on the caller.
func (s *sharer) do(n int, fn func(i int)) {
	if s == nil || n < 2 || shareNow() < s.coolUntil.Load() {
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
	if j.done.Load() != j.n {
		// A worker still holds a chunk: poll a little, then park.
		t0 := time.Now()
		for j.done.Load() != j.n {
			if time.Since(t0) > shareSpin {
				<-j.fin
				break
			}
		}
		w := time.Since(t0)
		s.waitNanos.Add(int64(w))
		if w > shareHeld {
			// The worker was descheduled holding its chunk.
			s.cool(coolHeld)
		}
	}
	s.workerChunks.Add(j.theirs.Load())
}

// The causes of a cool-down.
const (
	coolHeld    = iota // a worker held the caller up more than shareHeld
	coolOffCore        // a worker's thread waited shareOffCore for its core
	coolCaller         // a caller's thread waited for its core in a pass (callerOffCore)
)

// cool stops the sharing for shareCool.
func (s *sharer) cool(why int) {
	s.cools[why].Add(1)
	s.coolUntil.Store(shareNow() + int64(shareCool))
}

// A passWatch tells whether the thread of a forward pass that shares its
// products waited for its core: then a worker polling beside it takes
// CPU from the caller's own share (a loaded machine), and the sharer cools
// down.
type passWatch struct {
	d0, t0 int64
	tid    int
}

func (s *sharer) watchPass() passWatch {
	if s == nil {
		return passWatch{d0: -1}
	}
	d0, tid := threadRunDelay()
	return passWatch{d0: d0, t0: shareNow(), tid: tid}
}

func (s *sharer) endPass(w passWatch) {
	if s == nil || w.d0 < 0 {
		return
	}
	if d1, tid := threadRunDelay(); d1 >= 0 && tid == w.tid && callerOffCore(d1-w.d0, shareNow()-w.t0) {
		s.cool(coolCaller)
	}
}

// callerOffCore reports whether a pass whose thread waited delay for its
// core during wall (both ns) ran on a loaded machine: it waited more than
// shareOffCore and for more than half the pass. On a loaded machine the
// thread waits for most of a pass (its core is shared with several
// others). On a quiet one a stored text's pass (4-5 ms) may wait a
// millisecond or two for the process's own other work (the database
// write, the collector) or a passing process: with shareOffCore alone as
// the bound, a quiet daemon cooled down about once every 16 stores and ran
// half its stores' products on one core (store p50 +0.7-1 ms at 100k).
func callerOffCore(delay, wall int64) bool {
	return delay > int64(shareOffCore) && 2*delay > wall
}
