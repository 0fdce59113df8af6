package mongostore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/infmem/infmem/internal/dataroot"
)

// Engine names.
const (
	ModeAuto     = "auto"
	ModeEmbedded = "embedded"
	ModeManaged  = "managed"
	ModeExternal = "external"
)

// Options selects and configures the engine.
type Options struct {
	// Mode is auto, embedded, managed or external.
	Mode string
	// URI is the external engine's connection string.
	URI string
	// MongodPath is the managed engine's binary; empty searches PATH.
	MongodPath string
	// Root is the prepared data root.
	Root dataroot.Root
	// Database is the database name (claude_memory by default).
	Database string
	// ConnectTimeout bounds reaching the engine; zero means 10 s.
	ConnectTimeout time.Duration
	// KeepIndexSnapshot promises that this opener changes no memory,
	// summary or embedding (a backup, an export, a status check), so the
	// memory engine's index snapshot stays valid. Otherwise Open withdraws
	// it, and the next engine start reads the whole index from the database.
	KeepIndexSnapshot bool
	// Device, when set, opens the store for sync under this device name:
	// the change feed collection exists and the index snapshot record is
	// the device's own (feed.go, snapshot.go).
	Device string
	Logger *slog.Logger
}

// engine is a running (or reachable) MongoDB-wire server.
type engine interface {
	// uri carries credentials when the engine has them; never log it.
	uri() string
	redactedURI() string
	// prepare runs after the schema exists (the embedded engine adds the
	// SQLite indexes FerretDB lacks).
	prepare(ctx context.Context, database string) error
	stop(ctx context.Context) error
}

// Store is an open database with typed access to its collections.
type Store struct {
	// Engine is the engine in use: embedded, managed or external.
	Engine string
	// Reason says why that engine was chosen.
	Reason string

	Memories  Collection[Memory]
	Summaries Collection[Summary]
	Profiles  Collection[Profile]
	Index     Collection[IndexEntry]
	// Vectors is Index read as IndexVector: the index load's read.
	Vectors Collection[IndexVector]
	Scopes  ScopeCollection

	eng engine
	// raw reads the embedded engine's SQLite file directly (rawscan.go);
	// nil on the other engines.
	raw    *sqliteFiles
	client *mongo.Client
	db     *mongo.Database
	log    *slog.Logger

	device        string
	snapshotToken string
	snapshotFeed  map[string]int64
}

// Open starts or reaches the engine the options select, connects with
// journaled writes, and bootstraps the schema.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Database == "" {
		opts.Database = "claude_memory"
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = 10 * time.Second
	}
	mode, reason, err := chooseMode(opts)
	if err != nil {
		return nil, err
	}
	opts.Logger.Info("database engine chosen", "engine", mode, "reason", reason)

	var eng engine
	switch mode {
	case ModeEmbedded:
		eng, err = startEmbedded(ctx, opts)
	case ModeManaged:
		eng, err = startManaged(ctx, opts)
	case ModeExternal:
		eng = external{raw: opts.URI}
	}
	if err != nil {
		return nil, err
	}
	s, err := connect(ctx, eng, mode, reason, opts)
	if err != nil {
		_ = eng.stop(context.WithoutCancel(ctx))
		return nil, err
	}
	return s, nil
}

func clientOptions(eng engine, timeout time.Duration) *options.ClientOptions {
	return options.Client().
		ApplyURI(eng.uri()).
		SetAppName("infmem").
		SetWriteConcern(writeconcern.Journaled()).
		SetServerSelectionTimeout(timeout).
		SetConnectTimeout(timeout)
}

func connect(ctx context.Context, eng engine, mode, reason string, opts Options) (*Store, error) {
	client, err := mongo.Connect(clientOptions(eng, opts.ConnectTimeout))
	if err != nil {
		return nil, fmt.Errorf("cannot connect to MongoDB at %s: %s", eng.redactedURI(), redactErr(err, eng.uri()))
	}
	pctx, cancel := context.WithTimeout(ctx, opts.ConnectTimeout)
	defer cancel()
	if err := client.Ping(pctx, nil); err != nil {
		_ = client.Disconnect(context.WithoutCancel(ctx))
		hint := "check that the server is running and the address is right"
		if mode == ModeExternal {
			hint = "start that MongoDB server, fix mongo.uri in the config, or set mongo.mode to embedded"
		}
		return nil, fmt.Errorf("cannot reach MongoDB at %s: %s\nhint: %s", eng.redactedURI(), redactErr(err, eng.uri()), hint)
	}
	db := client.Database(opts.Database)
	var raw *sqliteFiles
	if e, ok := eng.(*embedded); ok {
		raw = newSQLiteFiles(e.dataDir, opts.Database)
	}
	s := &Store{
		Engine:    mode,
		Reason:    reason,
		Memories:  Collection[Memory]{db.Collection(ConversationHistory), raw},
		Summaries: Collection[Summary]{db.Collection(Summaries), raw},
		Profiles:  Collection[Profile]{db.Collection(UserProfile), raw},
		Index:     Collection[IndexEntry]{db.Collection(MemoryIndex), raw},
		Vectors:   Collection[IndexVector]{db.Collection(MemoryIndex), raw},
		Scopes:    ScopeCollection{Collection[Scope]{db.Collection(Metadata), raw}},
		raw:       raw,
		eng:       eng,
		client:    client,
		db:        db,
		log:       opts.Logger,
		device:    opts.Device,
	}
	if err := s.bootstrap(ctx); err != nil {
		_ = client.Disconnect(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("cannot prepare database %s: %w", opts.Database, err)
	}
	if opts.Device != "" {
		if err := s.ensureFeed(ctx); err != nil {
			_ = client.Disconnect(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("cannot prepare database %s: %w", opts.Database, err)
		}
	}
	if err := eng.prepare(ctx, opts.Database); err != nil {
		_ = client.Disconnect(context.WithoutCancel(ctx))
		return nil, err
	}
	if opts.KeepIndexSnapshot {
		return s, nil
	}
	if err := s.takeSnapshotToken(ctx); err != nil {
		_ = client.Disconnect(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("cannot read the index snapshot record: %w", err)
	}
	return s, nil
}

// Close disconnects and stops the engine if this process started it.
func (s *Store) Close(ctx context.Context) error {
	if s.raw != nil {
		s.raw.close()
	}
	err := s.client.Disconnect(ctx)
	if serr := s.eng.stop(ctx); err == nil {
		err = serr
	}
	return err
}

// Database is the driver handle of the memory database.
func (s *Store) Database() *mongo.Database { return s.db }

// Client is the driver client.
func (s *Store) Client() *mongo.Client { return s.client }

// URI is the engine's connection string for tools that open their own
// connection (mongodump). It may carry credentials: never log or show it.
func (s *Store) URI() string { return s.eng.uri() }

// RedactedURI is the connection string with any password removed.
func (s *Store) RedactedURI() string { return s.eng.redactedURI() }

// Prepare re-applies engine-specific preparation to database (used after
// collections were created outside bootstrap, e.g. by a restore).
func (s *Store) Prepare(ctx context.Context, database string) error {
	return s.eng.prepare(ctx, database)
}

// Ping checks that the engine answers.
func (s *Store) Ping(ctx context.Context) error { return s.client.Ping(ctx, nil) }

// CountDocuments counts the documents of the named collection without
// reading them (see Collection.EstimatedCount).
func (s *Store) CountDocuments(ctx context.Context, collection string) (int64, error) {
	return Collection[bson.Raw]{s.db.Collection(collection), s.raw}.EstimatedCount(ctx)
}

// DataSize is how many bytes the database takes. On the embedded engine it
// is the size of its SQLite files (database and write-ahead log), read
// from the file system: asking SQLite (dbStats) reads every page, about a
// second at 100k memories. On mongod it is dbStats' data size, which
// mongod keeps.
func (s *Store) DataSize(ctx context.Context) (int64, error) {
	if s.raw != nil {
		var n int64
		for _, f := range []string{s.raw.file, s.raw.file + "-wal"} {
			fi, err := os.Stat(f)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return 0, fmt.Errorf("cannot read the database size: %w", err)
			}
			n += fi.Size()
		}
		return n, nil
	}
	data, _, err := s.DBStats(ctx)
	return data, err
}

// DBStats returns the dataSize and storageSize of the database in bytes.
func (s *Store) DBStats(ctx context.Context) (dataSize, storageSize int64, err error) {
	var res bson.Raw
	res, err = s.db.RunCommand(ctx, bson.D{{Key: "dbStats", Value: 1}}).Raw()
	if err != nil {
		return 0, 0, fmt.Errorf("cannot read database stats: %w", err)
	}
	return rawNumber(res, "dataSize"), rawNumber(res, "storageSize"), nil
}

func rawNumber(doc bson.Raw, key string) int64 {
	v, err := doc.LookupErr(key)
	if err != nil {
		return 0
	}
	if n, ok := v.AsInt64OK(); ok {
		return n
	}
	if f, ok := v.DoubleOK(); ok {
		return int64(f)
	}
	return 0
}
