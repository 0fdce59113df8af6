package control

import (
	"context"
	"encoding/json"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/maintenance"
)

// Operations of the control protocol.
const (
	OpPing     = "ping"
	OpStatus   = "status"
	OpPause    = "pause"
	OpResume   = "resume"
	OpRun      = "run"
	OpReload   = "reload"
	OpShutdown = "shutdown"
	// OpUI starts the daemon's local web UI if it is not running and
	// answers a URL that opens it once (UIInfo).
	OpUI = "ui"
)

// Request is one line a client sends.
type Request struct {
	Op string `json:"op"`
	// Release (pause) asks the daemon to also close its database, so that
	// another process can open the data root (the embedded engine allows
	// one process at a time).
	Release bool `json:"release,omitempty"`
	// Reload (resume) says the data changed while paused.
	Reload bool `json:"reload,omitempty"`
	// Job and Args (run) name a job the daemon offers and its arguments.
	Job  string          `json:"job,omitempty"`
	Args json.RawMessage `json:"args,omitempty"`
	// Progress (run) asks for progress lines while the job runs.
	Progress bool `json:"progress,omitempty"`
}

// Response is one line the daemon answers with.
type Response struct {
	OK     bool            `json:"ok"`
	Error  string          `json:"error,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	// Progress marks an interim line of a run that asked for progress;
	// the final line has none.
	Progress json.RawMessage `json:"progress,omitempty"`
}

type progressKey struct{}

// WithProgress gives a job's context a progress reporter.
func WithProgress(ctx context.Context, report func(v any)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ReportProgress sends v (JSON-encodable) to the client that runs the job
// of ctx, if it asked for progress; otherwise it does nothing.
func ReportProgress(ctx context.Context, v any) {
	if report, ok := ctx.Value(progressKey{}).(func(any)); ok {
		report(v)
	}
}

// Pong is the result of ping.
type Pong struct {
	PID     int    `json:"pid"`
	Version string `json:"version"`
}

// Daemon states reported in Status.State.
const (
	StateStarting = "starting" // opening the database
	StateReady    = "ready"    // serving
	StatePausing  = "pausing"  // waiting for running calls before a pause
	StatePaused   = "paused"   // paused by a client (a restore)
	StateFailed   = "failed"   // the database could not be opened; retrying
	StateStopping = "stopping" // shutting down
)

// Status is the result of status: the daemon, its database and its memory.
type Status struct {
	PID       int       `json:"pid"`
	Version   string    `json:"version"`
	StartedAt time.Time `json:"started_at"`
	DataRoot  string    `json:"data_root"`
	Socket    string    `json:"socket"`
	// State is one of the State constants; Error says why it is failed.
	State string `json:"state"`
	Error string `json:"error,omitempty"`
	// Sessions counts open MCP connections.
	Sessions int `json:"sessions"`
	// Store, Index and Memories are present while the database is open.
	Store    *StoreStatus  `json:"store,omitempty"`
	Index    *IndexStatus  `json:"index,omitempty"`
	Memories *MemoryCounts `json:"memories,omitempty"`
	// Embedding is the sentence embedder's load state (absent from older
	// daemons).
	Embedding *EmbeddingStatus `json:"embedding,omitempty"`
	// Backups is the backup state (the newest backup, the last runs, what
	// the configuration lacks) and Maintenance each job's last run; both
	// are present while the database is open.
	Backups     *backup.State      `json:"backups,omitempty"`
	Maintenance *maintenance.State `json:"maintenance,omitempty"`
	// Config is the configuration the daemon runs with and what became of
	// the last change to its file (absent from daemons that cannot reload).
	Config *ConfigStatus `json:"config,omitempty"`
	// UI is the local web UI's state (absent from daemons without one).
	UI *UIStatus `json:"ui,omitempty"`
	// Sync is present when sync is enabled (docs/SYNC.md).
	Sync *SyncStatus `json:"sync,omitempty"`
}

// SyncStatus is this daemon's part in a database several daemons share.
type SyncStatus struct {
	// Device is this daemon's name in the change feed and the lease.
	Device string `json:"device"`
	// FeedNext is the number this device's next feed entry gets;
	// FeedPending says one waits to be written again.
	FeedNext    int64 `json:"feed_next"`
	FeedPending bool  `json:"feed_pending,omitempty"`
	// Position is, per other device, the last of its feed entries this
	// daemon applied to its index; Behind how many it has not yet (as of
	// that device's last recorded head).
	Position map[string]int64 `json:"position"`
	Behind   map[string]int64 `json:"behind"`
	Applied  int64            `json:"applied"`
	LastPoll time.Time        `json:"last_poll,omitzero"`
	Error    string           `json:"error,omitempty"`
	// Reloads counts full index reloads because this daemon fell behind
	// the feed's trim point or another device restored a backup;
	// ReloadReason says why the last happened.
	Reloads      int       `json:"reloads"`
	ReloadReason string    `json:"reload_reason,omitempty"`
	ReloadAt     time.Time `json:"reload_at,omitzero"`
	// FollowMode is how this daemon hears of the others' changes:
	// "change stream (replica set NAME)" or "feed polling"; Streaming
	// says the stream is open now, StreamError why there is none (or why
	// the last ended), StreamFallbacks how many streams could not resume
	// from their token and caught up from the feed instead.
	FollowMode      string `json:"follow_mode,omitempty"`
	Streaming       bool   `json:"streaming,omitempty"`
	StreamError     string `json:"stream_error,omitempty"`
	StreamFallbacks int    `json:"stream_fallbacks,omitempty"`
	// DeviceConflict names another daemon writing under this device name.
	DeviceConflict string `json:"device_conflict,omitempty"`
	// LeaseHolder is the device running scheduled maintenance and
	// backups, until LeaseExpiresAt unless renewed; HoldsLease says
	// whether that is this daemon.
	LeaseHolder    string    `json:"lease_holder,omitempty"`
	LeaseExpiresAt time.Time `json:"lease_expires_at,omitzero"`
	HoldsLease     bool      `json:"holds_lease"`
	LeaseError     string    `json:"lease_error,omitempty"`
}

// UIInfo is the answer to ui: the address of the daemon's web UI and a
// URL that opens it once (it carries a launch secret, spent by its first
// use: print it only to the user who asked).
type UIInfo struct {
	URL  string `json:"url"`
	Addr string `json:"addr"`
	// LaunchFile is a private HTML file in the data root's run/ that
	// sends a browser on to URL: open the browser on it, so that the
	// secret is on no command line (other users can read those).
	LaunchFile string `json:"launch_file,omitempty"`
	// IdleTimeout is how long the UI stays up without a request.
	IdleTimeout time.Duration `json:"idle_timeout"`
}

// UIStatus says whether the daemon's web UI is listening (status).
type UIStatus struct {
	// Addr is 127.0.0.1:PORT while it listens, "" otherwise.
	Addr string `json:"addr,omitempty"`
}

// ConfigStatus is the daemon's record of its configuration: where it
// comes from, when it was read, and which changes to the file it could not
// apply. It is also the result of reload.
type ConfigStatus struct {
	// Path is the file the daemon reads ("" for the built-in defaults).
	Path string `json:"path"`
	// LoadedAt is when the configuration the daemon runs with was last
	// read; StartedAt when the daemon first read it.
	LoadedAt  time.Time `json:"loaded_at"`
	StartedAt time.Time `json:"started_at"`
	// Reloads counts the times the daemon read its configuration again.
	Reloads int `json:"reloads"`
	// Applied lists the keys the last reload that changed anything in what
	// the daemon runs with applied, and AppliedAt says when (it equals
	// LoadedAt when that was the latest reload).
	Applied   []string   `json:"applied,omitempty"`
	AppliedAt *time.Time `json:"applied_at,omitempty"`
	// RestartNeeded lists the keys whose value in the file differs from
	// what the daemon runs with because they take effect only when it
	// restarts (the data root, the database engine, the embedding model).
	RestartNeeded []string `json:"restart_needed,omitempty"`
	// Error says why the file as it is now was refused; the daemon runs
	// with its previous configuration meanwhile. ErrorAt is when.
	Error   string     `json:"error,omitempty"`
	ErrorAt *time.Time `json:"error_at,omitempty"`
}

// StoreStatus describes the open database.
type StoreStatus struct {
	Engine        string           `json:"engine"`
	EngineReason  string           `json:"engine_reason"`
	URI           string           `json:"uri"` // password removed
	Database      string           `json:"database"`
	SchemaVersion int              `json:"schema_version"`
	Collections   map[string]int64 `json:"collections"`
	DataSizeBytes int64            `json:"data_size_bytes"`
}

// IndexStatus is the in-memory index's load state.
type IndexStatus struct {
	Ready    bool  `json:"ready"`
	Loaded   int64 `json:"loaded"`
	Expected int64 `json:"expected"`
	// Source is where a ready index came from: snapshot (the file in
	// mongo_data/, with its change journal) or database (read in full).
	Source string `json:"source,omitempty"`
	// Error is why the index has not loaded (the daemon tries again by
	// itself); empty while it loads or once loaded.
	Error string `json:"error,omitempty"`
	// Skipped counts the documents in the database the index left out
	// because they break the rules for a memory (or do not decode);
	// SkippedRecent names the latest few: "collection id: reason".
	Skipped       int64    `json:"skipped,omitempty"`
	SkippedRecent []string `json:"skipped_recent,omitempty"`
	// OtherWriters names, when this daemon's sync is off, the devices with
	// sync on found writing to its database: its index misses their
	// changes.
	OtherWriters []string `json:"other_writers,omitempty"`
}

// Embedding model states.
const (
	EmbeddingLoading = "loading"
	EmbeddingReady   = "ready"
	// EmbeddingFailed: the model cannot load; search ranks by keywords
	// only until the daemon restarts (memories stored meanwhile are
	// embedded then).
	EmbeddingFailed = "failed"
	// EmbeddingOff: embedding.model is none (keyword search by choice).
	EmbeddingOff = "off"
)

// EmbeddingStatus is the daemon's sentence embedder.
type EmbeddingStatus struct {
	// Model is the configured embedding.model (use-lite, hash, none).
	Model string `json:"model"`
	State string `json:"state"`
	// Weights says where USE-lite's weights come from: embedded in the
	// binary, or the file a build without them reads.
	Weights string `json:"weights,omitempty"`
	// Error says why the model failed to load, ending in "; hint: <fix>".
	Error string `json:"error,omitempty"`
}

// MemoryCounts counts what the memory holds, from the index.
type MemoryCounts struct {
	Total         int `json:"total"`
	Conversations int `json:"conversations"`
	Summaries     int `json:"summaries"`
	// Files counts the memory tool's files in /memories.
	Files     int            `json:"files"`
	Forgotten int            `json:"forgotten"`
	Archived  int            `json:"archived"`
	Scopes    map[string]int `json:"scopes"`
}
