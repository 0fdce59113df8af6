package mongostore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/FerretDB/FerretDB/ferretdb"

	"github.com/infmem/infmem/internal/flock"
	"github.com/infmem/infmem/internal/sockdir"
)

// embeddedLockFile guards the SQLite files against a second process.
const embeddedLockFile = "infmem-embedded.lock"

// embedded is FerretDB with its SQLite backend, inside this process,
// listening on a unix socket in run/ (engine.sock; mongo.sock for other
// processes, see embedded_guard.go).
type embedded struct {
	dataDir string
	sock    string
	inner   string
	guard   *guardedSocket
	lock    *flock.Lock
	f       *ferretdb.FerretDB
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once
}

func startEmbedded(ctx context.Context, opts Options) (*embedded, error) {
	dataDir := opts.Root.MongoDataDir()
	lock, err := flock.Acquire(filepath.Join(dataDir, embeddedLockFile))
	if err != nil {
		var held *flock.HeldError
		if errors.As(err, &held) {
			who := "another process"
			if held.PID > 0 {
				who = fmt.Sprintf("process %d", held.PID)
			}
			return nil, fmt.Errorf("the embedded database in %s is in use by %s\nhint: stop that process, or let it serve you: 'infmem mcp' connects to a running daemon", dataDir, who)
		}
		return nil, err
	}
	sock, err := socketPath(opts.Root.RunDir())
	if err != nil {
		lock.Release()
		return nil, err
	}
	inner, err := innerSocketPath(opts.Root.RunDir())
	if err != nil {
		lock.Release()
		return nil, err
	}
	// We hold the lock, so a socket file left here is a crashed run's.
	if err := os.Remove(inner); err != nil && !errors.Is(err, os.ErrNotExist) {
		lock.Release()
		return nil, fmt.Errorf("cannot remove stale socket %s: %w", inner, err)
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{Unix: inner},
		Handler:   "sqlite",
		SQLiteURL: ferretSQLiteURL(dataDir),
		Logger:    slog.New(errorsOnly{opts.Logger.Handler()}),
	})
	if err != nil {
		lock.Release()
		return nil, fmt.Errorf("cannot start the embedded database in %s: %w", dataDir, err)
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e := &embedded{dataDir: dataDir, sock: sock, inner: inner, lock: lock, f: f, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		_ = f.Run(rctx)
	}()
	// FerretDB made its socket with the umask's mode: owner-only now,
	// before anything uses it (embedded_guard.go).
	if err == nil {
		err = privateSocket(inner)
	}
	if err == nil {
		e.guard, err = listenGuarded(sock, inner, opts.Logger)
	}
	if err != nil {
		e.stop(context.WithoutCancel(ctx))
		return nil, err
	}
	return e, nil
}

// socketPath places the socket in run/, or, when that path is too long for
// a unix socket, in a private per-root directory under the temp dir.
func socketPath(runDir string) (string, error) { return sockdir.Path(runDir, "mongo.sock") }

func (e *embedded) uri() string         { return e.f.MongoDBURI() }
func (e *embedded) redactedURI() string { return e.f.MongoDBURI() }

func (e *embedded) prepare(ctx context.Context, database string) error {
	if err := ensureIDIndexes(ctx, e.dataDir, database); err != nil {
		return err
	}
	return secureDataFiles(e.dataDir, database)
}

// secureDataFiles keeps the database files owner-only (0600): SQLite
// would create the database file with the umask's mode (usually 0644) and
// gives its WAL and shared-memory files the database file's mode, so the
// file is made here first, and files an older version made are fixed.
func secureDataFiles(dataDir, database string) error {
	file := filepath.Join(dataDir, database+".sqlite")
	f, err := os.OpenFile(file, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("cannot create the database file %s: %w", file, err)
	}
	f.Close()
	if runtime.GOOS == "windows" {
		return nil // no unix modes; the data root's ACL keeps it private
	}
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", dataDir, err)
	}
	for _, en := range entries {
		if !en.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dataDir, en.Name())
		if fi, err := en.Info(); err == nil && fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, fi.Mode().Perm()&0o700); err != nil {
				return fmt.Errorf("cannot make %s private: %w", p, err)
			}
		}
	}
	return nil
}

func (e *embedded) stop(ctx context.Context) error {
	var err error
	e.once.Do(func() {
		if e.guard != nil {
			e.guard.close()
		}
		e.cancel()
		select {
		case <-e.done:
		case <-ctx.Done():
			err = fmt.Errorf("embedded database did not stop: %w", ctx.Err())
		}
		_ = os.Remove(e.inner)
		if rerr := e.lock.Release(); err == nil {
			err = rerr
		}
	})
	return err
}

// errorsOnly passes only error records: FerretDB logs every connection at info.
type errorsOnly struct{ slog.Handler }

func (h errorsOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelError && h.Handler.Enabled(ctx, l)
}
func (h errorsOnly) WithAttrs(a []slog.Attr) slog.Handler { return errorsOnly{h.Handler.WithAttrs(a)} }
func (h errorsOnly) WithGroup(n string) slog.Handler      { return errorsOnly{h.Handler.WithGroup(n)} }
