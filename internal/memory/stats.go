package memory

import (
	"context"
	"maps"
	"time"
)

// Stats describes what the memory holds.
type Stats struct {
	// TotalMemories counts live memories and summaries (not forgotten, not archived).
	TotalMemories     int
	ConversationCount int
	// Scopes counts live memories per scope; every defined scope is listed.
	Scopes    map[string]int
	Summaries int
	// Files counts the memory tool's files: the memories with a path (paths.go).
	Files     int
	Forgotten int
	Archived  int
	// Documents and SummaryDocuments count every memory and summary the
	// index holds, forgotten and archived included (the documents of
	// ConversationHistory and Summaries).
	Documents, SummaryDocuments int
	// DBSizeMB is the database's size (Store.DataSize: its files on the
	// embedded engine).
	DBSizeMB   float64
	IndexReady bool
	// IndexLoaded and IndexExpected report load progress.
	IndexLoaded, IndexExpected int64
	// IndexSource is where the index was loaded from: snapshot or database.
	IndexSource string
	Engine      string
	Generated   time.Time
	// Embedding describes semantic recall: the model, how many live
	// memories have a vector of it, and how many wait for one (a model
	// change re-embeds everything in the background).
	Embedding EmbeddingStats
}

// EmbeddingStats is the state of the vector index.
type EmbeddingStats struct {
	Model   string
	Vectors int
	Pending int
}

// Stats counts what the memory holds, from the counts the index keeps, and
// the database's size from a cheap source (Store.DataSize): it reads no
// document.
func (e *Engine) Stats(ctx context.Context) (Stats, error) {
	if err := e.wait(ctx); err != nil {
		return Stats{}, err
	}
	c := e.index().Count()
	st := Stats{
		TotalMemories: c.Live, ConversationCount: c.Conversations, Scopes: map[string]int{}, Summaries: c.Summaries,
		Files: c.PerSource[sourceFile], Forgotten: c.Forgotten, Archived: c.Archived,
		Documents: c.Memories, SummaryDocuments: c.SummaryDocs, IndexReady: e.Ready(), Engine: e.store.Engine, Generated: e.now(),
	}
	st.IndexLoaded, st.IndexExpected = e.LoadProgress()
	st.IndexSource = "database"
	if e.fromSnapshot.Load() {
		st.IndexSource = "snapshot"
	}
	st.Embedding = EmbeddingStats{Model: e.modelID, Vectors: e.index().VectorCount(), Pending: e.embeds.len()}
	for _, name := range e.scopes.Names() {
		st.Scopes[name] = 0
	}
	maps.Copy(st.Scopes, c.PerScope)
	size, err := e.store.DataSize(ctx)
	if err != nil {
		return Stats{}, err
	}
	st.DBSizeMB = float64(size*10/(1<<20)) / 10
	return st, nil
}

// DataSizeMB is the size of the data the database holds, asked of the
// engine (dbStats), which on the embedded engine reads every page: about a
// second at 100k memories. The size limits use it, since the files that
// Stats measures include the write-ahead log and free pages, which come
// and go with checkpoints and would make the limits archive too much.
func (e *Engine) DataSizeMB(ctx context.Context) (float64, error) {
	data, _, err := e.store.DBStats(ctx)
	if err != nil {
		return 0, err
	}
	return float64(data*10/(1<<20)) / 10, nil
}
