package backup

import (
	"strings"
	"sync"
	"time"

	"github.com/mongodb/mongo-tools/common/progress"
)

// Progress is a snapshot of a running backup, verification, restore or
// export, for a progress bar.
type Progress struct {
	// Op is backup, verify, restore or export.
	Op string
	// Step says what is happening now, e.g. "dumping", "verifying", "loading".
	Step string
	// Collection is the collection being worked on, if any.
	Collection string
	// CollectionsDone of Collections are finished.
	CollectionsDone, Collections int
	// Bytes of TotalBytes are done; TotalBytes is 0 when unknown.
	Bytes, TotalBytes int64
	// Docs of TotalDocs documents are done; TotalDocs is 0 when unknown.
	Docs, TotalDocs int64
	// Done is set on the last report of a step.
	Done bool
}

// reporter serializes and throttles progress reports: mongodump reports
// from several goroutines, and a terminal needs no more than ten a second.
type reporter struct {
	mu    sync.Mutex
	fn    func(Progress)
	p     Progress
	last  time.Time
	every time.Duration
}

func newReporter(fn func(Progress), op string) *reporter {
	return &reporter{fn: fn, p: Progress{Op: op}, every: 100 * time.Millisecond}
}

// active reports whether anyone listens.
func (r *reporter) active() bool { return r != nil && r.fn != nil }

// update changes the snapshot under the lock and reports it unless the
// last report was too recent; force reports regardless.
func (r *reporter) update(force bool, change func(p *Progress)) {
	if r == nil || r.fn == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	change(&r.p)
	now := time.Now()
	if !force && now.Sub(r.last) < r.every {
		return
	}
	r.last = now
	r.fn(r.p)
}

// step starts a new step, resetting the counters.
func (r *reporter) step(step string, collections int, totalBytes int64) {
	r.update(true, func(p *Progress) {
		*p = Progress{Op: p.Op, Step: step, Collections: collections, TotalBytes: totalBytes}
	})
}

// finish reports the current step as done.
func (r *reporter) finish() {
	r.update(true, func(p *Progress) { p.Done = true })
}

// dumpProgress follows mongodump through its progress.Manager: while it
// reads a collection, the collection's counter is attached, and mongodump
// counts each document it receives from the server. The archive itself
// shows progress too late: mongodump gathers up to 16 MB of a collection
// before it writes a block, so a database of a few thousand memories
// reaches the archive only as each collection ends.
type dumpProgress struct {
	r        *reporter
	mu       sync.Mutex
	attached map[string]progress.Progressor
	done     int64
}

// docs is how many documents mongodump has read; the caller holds d.mu.
func (d *dumpProgress) docs() int64 {
	n := d.done
	for _, p := range d.attached {
		cur, _ := p.Progress()
		n += cur
	}
	return n
}

func (d *dumpProgress) Attach(ns string, p progress.Progressor) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.attached[ns] = p
	_, coll, _ := strings.Cut(ns, ".")
	d.r.update(true, func(pr *Progress) { pr.Collection = coll })
}

func (d *dumpProgress) Detach(ns string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p, ok := d.attached[ns]; ok {
		n, _ := p.Progress()
		d.done += n
		delete(d.attached, ns)
	}
	docs := d.docs()
	d.r.update(true, func(pr *Progress) {
		pr.CollectionsDone++
		pr.Docs = docs
	})
}

// poll reports the documents read so far as often as the reporter does, until
// the returned function is called. Reports are made under d.mu, so the
// count never goes back.
func (d *dumpProgress) poll() (stop func()) {
	if !d.r.active() {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(d.r.every)
		defer t.Stop()
		var last int64
		for {
			select {
			case <-done:
				return
			case <-t.C:
				d.mu.Lock()
				if docs := d.docs(); docs != last {
					last = docs
					d.r.update(false, func(pr *Progress) { pr.Docs = docs })
				}
				d.mu.Unlock()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
