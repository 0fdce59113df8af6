package backup

import (
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

// dumpProgress adapts mongodump's progress.Manager: a collection is
// attached while it is being dumped.
type dumpProgress struct {
	r        *reporter
	mu       sync.Mutex
	attached map[string]progress.Progressor
	done     int64
}

func (d *dumpProgress) Attach(name string, p progress.Progressor) {
	d.mu.Lock()
	d.attached[name] = p
	d.mu.Unlock()
	d.r.update(false, func(pr *Progress) { pr.Collection = name })
}

func (d *dumpProgress) Detach(name string) {
	d.mu.Lock()
	if p, ok := d.attached[name]; ok {
		n, _ := p.Progress()
		d.done += n
		delete(d.attached, name)
	}
	docs := d.done
	d.mu.Unlock()
	d.r.update(true, func(pr *Progress) {
		pr.CollectionsDone++
		pr.Docs = docs
	})
}
