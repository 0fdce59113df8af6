package memory

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestSnapshotLoadRefreshesOnlyWhatChanged: newID journals ids 32 at a
// time, so each engine that stores one memory and crashes leaves 31
// reserved ids no write used in the journal, which grows restart after
// restart until a snapshot is taken. A start read each journaled id back
// from the database, three round trips apiece: at load 30 with the race
// detector a few restarts' worth took past the 5 s a request waits
// ("memory is still loading", TestJournalDamage). Only the ids a write
// used are refreshed now, and nothing is lost.
func TestSnapshotLoadRefreshesOnlyWhatChanged(t *testing.T) {
	env := snapEnv{t: t, root: testenv.Root(t), emb: embed.NewHash(512)}
	ctx := testenv.Context(t)
	store, e := env.open()
	mustStore(t, e, StoreRequest{Content: "kept by the snapshot"})
	env.close(store, e)
	const restarts = 3
	for i := range restarts {
		store, e = env.open()
		mustStore(t, e, StoreRequest{Content: fmt.Sprintf("kept by the journal, restart %d", i)})
		crash(store, e)
	}

	logs := &lockedBuffer{}
	store, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: env.root})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	e = New(store, reg, Options{Embedder: env.emb, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
		SnapshotPath: env.root.Path(dataroot.MongoData, SnapshotFile)})
	e.Start(ctx)
	defer env.close(store, e)
	if err := e.wait(ctx); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`index loaded from snapshot.*journaled_changes=(\d+) refreshed=(\d+) duration=(\S+)`).FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatalf("not loaded from the snapshot:\n%s", logs.String())
	}
	journaled, _ := strconv.Atoi(m[1])
	refreshed, _ := strconv.Atoi(m[2])
	t.Logf("journaled ids %d, refreshed %d, in %s", journaled, refreshed, m[3])
	if journaled < restarts*reserveIDs || refreshed != restarts {
		t.Fatalf("journaled %d ids, refreshed %d; want at least %d journaled (reserved 32 at a time) and the %d stored refreshed", journaled, refreshed, restarts*reserveIDs, restarts)
	}
	for i := range restarts {
		q := fmt.Sprintf("kept by the journal, restart %d", i)
		if res, _ := e.Search(context.Background(), SearchRequest{Query: q, Mode: ModeKeyword}); len(res.Results) == 0 || res.Results[0].Text != q {
			t.Fatalf("%q lost", q)
		}
	}
}
