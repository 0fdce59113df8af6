package webui

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/infmem/infmem/internal/memory"
)

// A task is a long job the page started (a maintenance run, a backup, a
// verification): it runs on after the request that started it answered,
// and the page polls GET /api/tasks/{id} for its progress and outcome.
// One task of each kind runs at a time; tasks end with the listener.
type task struct {
	ID      string    `json:"id"`
	Kind    string    `json:"kind"`
	Label   string    `json:"label"`
	Started time.Time `json:"started"`

	mu       sync.Mutex
	state    string // running, done, failed
	finished time.Time
	progress any
	result   any
	err      string
}

// taskOut is a task as the page sees it.
type taskOut struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"`
	Label     string     `json:"label"`
	State     string     `json:"state"`
	Started   time.Time  `json:"started"`
	Finished  *time.Time `json:"finished,omitempty"`
	ElapsedMS int64      `json:"elapsed_ms"`
	Progress  any        `json:"progress,omitempty"`
	Result    any        `json:"result,omitempty"`
	Error     string     `json:"error,omitempty"`
}

func (t *task) out(now time.Time) taskOut {
	t.mu.Lock()
	defer t.mu.Unlock()
	o := taskOut{ID: t.ID, Kind: t.Kind, Label: t.Label, State: t.state, Started: t.Started, Progress: t.progress, Result: t.result, Error: t.err}
	end := now
	if !t.finished.IsZero() {
		f := t.finished
		o.Finished, end = &f, f
	}
	o.ElapsedMS = end.Sub(t.Started).Milliseconds()
	return o
}

// report records progress (called from the job's goroutines).
func (t *task) report(p any) {
	t.mu.Lock()
	t.progress = p
	t.mu.Unlock()
}

// tasks are the server's tasks, by id; they end with the listener.
type tasks struct {
	mu      sync.Mutex
	seq     int
	all     map[string]*task
	running map[string]*task // by kind
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// start runs fn as a new task of kind unless one of that kind runs; fn's
// context ends with the listener.
func (s *Server) startTask(kind, label string, fn func(ctx context.Context, t *task) (any, error)) (taskOut, error) {
	ts := &s.tasks
	ts.mu.Lock()
	if ts.all == nil {
		ts.all, ts.running = map[string]*task{}, map[string]*task{}
		ts.ctx, ts.cancel = context.WithCancel(context.Background())
	}
	if t := ts.running[kind]; t != nil {
		ts.mu.Unlock()
		return taskOut{}, conflictf("%s is already running (started %s)", t.Label, t.Started.Format(time.TimeOnly))
	}
	ts.seq++
	t := &task{ID: fmt.Sprintf("%s-%d", kind, ts.seq), Kind: kind, Label: label, Started: s.opts.Now(), state: "running"}
	ts.all[t.ID], ts.running[kind] = t, t
	ctx := ts.ctx
	ts.wg.Add(1)
	ts.mu.Unlock()
	go func() {
		defer ts.wg.Done()
		res, err := func() (res any, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("%s stopped unexpectedly: %v", label, r)
				}
			}()
			return fn(ctx, t)
		}()
		t.mu.Lock()
		t.finished = s.opts.Now()
		if err != nil {
			t.state, t.err = "failed", s.opts.Redact(err.Error())
			s.log.Warn("UI task failed", "task", t.Label, "err", t.err)
		} else {
			t.state = "done"
		}
		t.result = res
		t.mu.Unlock()
		ts.mu.Lock()
		if ts.running[kind] == t {
			delete(ts.running, kind)
		}
		ts.mu.Unlock()
	}()
	return t.out(s.opts.Now()), nil
}

// stopTasks cancels the running tasks and waits (a little) for them;
// Close calls it.
func (s *Server) stopTasks() {
	ts := &s.tasks
	ts.mu.Lock()
	cancel := ts.cancel
	ts.all, ts.running, ts.cancel = nil, nil, nil
	ts.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	done := make(chan struct{})
	go func() { ts.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		s.log.Warn("UI tasks did not stop within 30s")
	}
}

func (s *Server) runningTask(kind string) *taskOut {
	ts := &s.tasks
	ts.mu.Lock()
	t := ts.running[kind]
	ts.mu.Unlock()
	if t == nil {
		return nil
	}
	o := t.out(s.opts.Now())
	return &o
}

func (s *Server) getTask(w http.ResponseWriter, r *http.Request) {
	ts := &s.tasks
	ts.mu.Lock()
	t := ts.all[r.PathValue("id")]
	ts.mu.Unlock()
	if t == nil {
		writeError(w, http.StatusNotFound, "no such task (the page was closed since it started?)")
		return
	}
	writeJSON(w, http.StatusOK, t.out(s.opts.Now()))
}

// conflict is a request refused because something already runs.
type conflict struct{ msg string }

func (c conflict) Error() string { return c.msg }

func conflictf(format string, args ...any) error { return conflict{fmt.Sprintf(format, args...)} }

// noEngine adapts a handler that needs no engine to the api wrapper's
// shape, without waiting for the memory.
type noEngineFunc func(ctx context.Context, r *http.Request) (any, error)

func (s *Server) plain(fn noEngineFunc) http.Handler {
	return s.apiWith(false, func(ctx context.Context, _ *memory.Engine, r *http.Request) (any, error) { return fn(ctx, r) })
}
