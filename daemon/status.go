package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
)

// ReadStoreStatus describes an open database: engine, schema version,
// documents per collection and size, none of it by reading documents
// (Store.CountDocuments, Store.DataSize). `infmem status` uses it on a
// store it opened itself when no daemon runs.
func ReadStoreStatus(ctx context.Context, store *mongostore.Store, database string) (*control.StoreStatus, error) {
	s := &control.StoreStatus{Engine: store.Engine, EngineReason: store.Reason, URI: store.RedactedURI(),
		Database: database, Collections: map[string]int64{}}
	var err error
	if s.SchemaVersion, err = store.SchemaVersionStored(ctx); err != nil {
		return nil, err
	}
	for _, name := range mongostore.CollectionNames {
		n, err := store.CountDocuments(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("cannot count %s: %w", name, err)
		}
		s.Collections[name] = n
	}
	if s.DataSizeBytes, err = store.DataSize(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Status reports the runtime's state and, when the memory is open, what it
// holds. It never waits for the memory: a daemon that is starting or
// paused says so.
func (r *Runtime) Status(ctx context.Context) *control.Status {
	st := &control.Status{Version: r.opts.Version, DataRoot: r.opts.Root.Dir, Embedding: r.embeddingStatus()}
	stack, leave, err := r.enter(ctx, 0)
	if err != nil {
		state, lastErr := r.State()
		st.State = state
		if lastErr != nil {
			st.Error = r.redact(lastErr.Error())
		}
		return st
	}
	defer leave()
	st.State = control.StateReady
	if ss, err := ReadStoreStatus(ctx, stack.Store, r.opts.Config.Database); err != nil {
		st.Error = r.redact(err.Error())
	} else {
		st.Store = ss
	}
	eng := stack.Memory
	loaded, expected := eng.LoadProgress()
	st.Index = &control.IndexStatus{Ready: eng.Ready(), Loaded: loaded, Expected: expected}
	if err := eng.LoadErr(); err != nil {
		st.Index.Error = r.redact(err.Error())
	}
	if stack.Others != nil {
		others, _ := stack.Others.Names()
		for _, o := range others {
			st.Index.OtherWriters = append(st.Index.OtherWriters, r.redact(o))
		}
	}
	var skipped []memory.SkippedDoc
	st.Index.Skipped, skipped = eng.Skipped()
	for _, d := range skipped[max(0, len(skipped)-5):] {
		st.Index.SkippedRecent = append(st.Index.SkippedRecent, r.redact(d.Collection+" "+d.ID+": "+d.Reason))
	}
	if eng.Ready() {
		if ms, err := eng.Stats(ctx); err == nil {
			st.Index.Source = ms.IndexSource
			st.Memories = &control.MemoryCounts{Total: ms.TotalMemories, Conversations: ms.ConversationCount,
				Summaries: ms.Summaries, Files: ms.Files, Forgotten: ms.Forgotten, Archived: ms.Archived, Scopes: ms.Scopes}
			if st.Store != nil {
				// The index holds every memory and summary document.
				st.Store.Collections[mongostore.ConversationHistory] = int64(ms.Documents)
				st.Store.Collections[mongostore.Summaries] = int64(ms.SummaryDocuments)
			}
		}
	}
	if stack.Sync != nil {
		ss := stack.Sync.Status(ctx)
		st.Sync = &control.SyncStatus{Device: ss.Device, FeedNext: ss.Next, FeedPending: ss.Pending, Position: ss.Position,
			Behind: ss.Behind, Applied: ss.Applied, LastPoll: ss.LastPoll, Error: r.redact(ss.LastErr),
			Reloads: ss.Reloads, ReloadReason: ss.ReloadReason, ReloadAt: ss.ReloadAt,
			FollowMode: ss.Mode, Streaming: ss.Streaming, StreamError: r.redact(ss.StreamError), StreamFallbacks: ss.Fallbacks,
			DeviceConflict: ss.Conflict}
		r.svc.maintenance.leaseStatus(ctx, stack, st.Sync)
	}
	var errs []error
	st.Backups, st.Maintenance, errs = r.svc.states(ctx, stack)
	for _, err := range errs {
		r.log.Warn("a status section cannot be read", "err", r.redact(err.Error()))
	}
	return st
}

// RunJob runs the job registered under name on the open memory.
func (r *Runtime) RunJob(ctx context.Context, name string, args json.RawMessage) (any, error) {
	job, ok := r.svc.jobs[name]
	if !ok {
		names := slices.Sorted(maps.Keys(r.svc.jobs))
		if len(names) == 0 {
			return nil, fmt.Errorf("the daemon offers no job %q (it offers none)", name)
		}
		return nil, fmt.Errorf("the daemon offers no job %q (it offers %v)", name, names)
	}
	var out any
	err := r.Do(ctx, func(s *Stack) error {
		var err error
		out, err = job(ctx, s, args)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %s", name, r.redact(err.Error()))
	}
	return out, nil
}

// embeddingStatus reports the embedder's load state without waiting for it.
func (r *Runtime) embeddingStatus() *control.EmbeddingStatus {
	es := &control.EmbeddingStatus{Model: r.opts.Config.Embedding.Model}
	if r.modelID == embed.USELiteModelID {
		es.Weights = embed.WeightsSource()
	}
	l, ok := r.embedder.(interface {
		Ready() bool
		Err() error
	})
	switch {
	case r.embedder == nil:
		es.State = control.EmbeddingOff
	case !ok || l.Ready():
		es.State = control.EmbeddingReady
	case l.Err() != nil:
		es.State, es.Error = control.EmbeddingFailed, r.redact(l.Err().Error())
	default:
		es.State = control.EmbeddingLoading
	}
	return es
}
