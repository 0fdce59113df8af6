package backup

import (
	"context"
	"sync"
	"testing"
)

// progressLog records progress reports; they come from several goroutines.
type progressLog struct {
	mu      sync.Mutex
	reports []Progress
}

func (l *progressLog) add(p Progress) {
	l.mu.Lock()
	l.reports = append(l.reports, p)
	l.mu.Unlock()
}

func (l *progressLog) all() []Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Progress(nil), l.reports...)
}

// TestBackupProgressMovesFromTheStart: a backup's progress counts the
// documents as they are read, against a total known from the start,
// so a progress bar moves while the first (largest) collection is dumped
// instead of waiting for whole collections; the counts never go back and
// end consistent.
func TestBackupProgressMovesFromTheStart(t *testing.T) {
	env := openTestStore(t)
	// The embedded engine takes about half a second (several times that
	// under the race detector) to read each of the two large collections
	// of 3,000 memories: several reports' worth.
	populate(t, env.store, 3000)
	var log progressLog
	res, err := Create(context.Background(), env.store, Options{Dir: env.root.BackupsDir(), Progress: log.add})
	if err != nil {
		t.Fatal(err)
	}
	reports := log.all()
	movedEarly := false
	var lastDocs int64
	for _, p := range reports {
		if p.Op != "backup" || p.Step != "dumping" {
			t.Fatalf("report %+v", p)
		}
		if p.CollectionsDone == 0 && p.Docs > 0 && p.TotalDocs > 0 {
			movedEarly = true
		}
		if p.Docs < lastDocs {
			t.Fatalf("documents went back from %d: %+v", lastDocs, p)
		}
		lastDocs = p.Docs
		if p.CollectionsDone > p.Collections {
			t.Fatalf("more collections done than there are: %+v", p)
		}
	}
	if !movedEarly {
		t.Errorf("no report counted documents against a total before the first collection was complete; reports:\n%+v", reports)
	}
	last := reports[len(reports)-1]
	if !last.Done || last.Docs != res.Documents() || last.TotalDocs != res.Documents() ||
		last.Collections != 5 || last.CollectionsDone != 5 {
		t.Fatalf("last report %+v, the backup holds %d documents in 5 collections", last, res.Documents())
	}
}

// TestRestoreProgressCountsCollections: each step of a restore that counts
// collections advances them as it finishes each one, so no step ends (or
// reaches 100 %) with collections left at 0.
func TestRestoreProgressCountsCollections(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 300)
	ctx := context.Background()
	res, err := Create(ctx, env.store, Options{Dir: env.root.BackupsDir()})
	if err != nil {
		t.Fatal(err)
	}
	var log progressLog
	if _, err := Restore(ctx, env.store, res.Path, RestoreOptions{RunDir: env.root.RunDir(), Progress: log.add}); err != nil {
		t.Fatal(err)
	}
	reports := log.all()
	// The last report of each step, and whether a loading report had
	// some collections but not all done.
	lastOf := map[string]Progress{}
	var order []string
	partway := false
	for i, p := range reports {
		if _, seen := lastOf[p.Step]; !seen {
			order = append(order, p.Step)
		}
		if i > 0 && reports[i-1].Step == p.Step && p.CollectionsDone < reports[i-1].CollectionsDone {
			t.Fatalf("collections done went back: %+v after %+v", p, reports[i-1])
		}
		if p.Step == "loading" && p.CollectionsDone > 0 && p.CollectionsDone < p.Collections {
			partway = true
		}
		lastOf[p.Step] = p
	}
	for _, step := range []string{"loading", "indexing", "swapping"} {
		p, ok := lastOf[step]
		if !ok {
			t.Fatalf("no %s step; steps %v", step, order)
		}
		if p.Collections != 5 || p.CollectionsDone != 5 {
			t.Errorf("the %s step ended at %d/%d collections: %+v", step, p.CollectionsDone, p.Collections, p)
		}
	}
	if p := lastOf["loading"]; p.Docs != res.Documents() || p.TotalDocs != res.Documents() {
		t.Errorf("loading ended at %d of %d documents, the backup holds %d", p.Docs, p.TotalDocs, res.Documents())
	}
	if !partway {
		t.Errorf("loading never reported a collection done before the last; reports:\n%+v", reports)
	}
	if last := reports[len(reports)-1]; !last.Done || last.Step != "swapping" || last.CollectionsDone != last.Collections {
		t.Errorf("last report %+v", last)
	}
}
