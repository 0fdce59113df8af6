package backup

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"filippo.io/age"
	toolslog "github.com/mongodb/mongo-tools/common/log"
	"github.com/mongodb/mongo-tools/common/options"
	"github.com/mongodb/mongo-tools/common/progress"
	"github.com/mongodb/mongo-tools/mongodump"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/infmem/infmem/internal/version"
	"github.com/infmem/infmem/mongostore"
)

// stagingPrefixes name the collections a restore works in; a backup taken
// while one runs leaves them out.
var stagingPrefixes = []string{stagePrefix, replacedPrefix}

// Options configures one backup.
type Options struct {
	// Dir is the backups directory, normally the data root's backups/.
	Dir string
	// Kind is recorded in the manifest; retention deletes only daily and
	// weekly backups. Empty means manual.
	Kind Kind
	// Encryption says how to encrypt; its zero value writes a plain archive.
	Encryption Encryption
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Progress, when set, receives progress reports.
	Progress func(Progress)
	Logger   *slog.Logger
	// Space is the free-space floor the backup keeps on Dir's file
	// system; its zero value is the default (see DefaultMinFree).
	Space Space
}

func (o *Options) defaults() {
	if o.Kind == "" {
		o.Kind = KindManual
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Result is a finished backup.
type Result struct {
	// Path is the backup file; File is its base name.
	Path string
	File string
	// ManifestPath is the manifest beside it.
	ManifestPath string
	Manifest     Manifest
}

// Documents is the total number of documents in the backup.
func (r *Result) Documents() int64 {
	var n int64
	for _, c := range r.Manifest.Collections {
		n += c
	}
	return n
}

// Create writes a backup of the store's database into opts.Dir: a
// mongodump archive (written from SQLite on the embedded engine, see
// writeArchive; by mongo-tools' mongodump on MongoDB), gzip-compressed,
// encrypted with age as opts.Encryption says, written under a temporary
// name (0600) and renamed into place only when complete and checked.
// Plain text never reaches the disk when encryption is on.
//
// Create does not stop writers: a caller that needs a snapshot consistent
// across collections (the daemon) holds its writes while Create runs.
func Create(ctx context.Context, store *mongostore.Store, opts Options) (*Result, error) {
	opts.defaults()
	start := opts.Now().UTC()
	recipients, err := opts.Encryption.recipients()
	if err != nil {
		return nil, fmt.Errorf("cannot set up backup encryption: %w", err)
	}
	if opts.Encryption.NewIdentity {
		opts.Logger.Warn("made a backup identity: backups are encrypted to it and cannot be restored without it; keep a copy off this machine",
			"identity_file", opts.Encryption.IdentityFile)
	}
	schema, err := store.SchemaVersionStored(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot back up: %w", err)
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create backups directory: %w", err)
	}
	// What a killed backup left behind counts against the free space.
	if _, err := RemoveLeftovers(opts.Logger, opts.Now(), opts.Dir); err != nil {
		opts.Logger.Warn("cannot delete what an interrupted backup left", "err", err)
	}
	// The last backup's size says about what this one needs; while it is
	// written the free space is measured again every few megabytes.
	space := opts.Space.guard("backup", opts.Dir)
	if err := space.before(lastBackupSize(opts.Dir)); err != nil {
		opts.Logger.Warn("backup refused to keep free disk space", "err", err)
		return nil, err
	}
	rep := newReporter(opts.Progress, "backup")
	colls, err := store.Database().ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return nil, fmt.Errorf("cannot back up: cannot list collections: %w", err)
	}
	var dumped []string
	for _, c := range colls {
		if !isStaging(c) && c != mongostore.FeedCollection {
			dumped = append(dumped, c)
		}
	}
	rep.step("dumping", len(dumped), 0)

	tmp, err := os.CreateTemp(opts.Dir, tempPattern("backup"))
	if err != nil {
		return nil, fmt.Errorf("cannot create backup file: %w", err)
	}
	tmpPath := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmpPath)
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return nil, fmt.Errorf("cannot secure backup file: %w", err)
	}

	w, err := newArchiveWriter(space.writer(tmp), recipients, rep)
	if err != nil {
		return nil, err
	}
	estimated := func() {}
	if !writesOwnArchive(store) {
		// writeArchive counts them itself, from SQLite, before it starts.
		estimated = expectDocuments(ctx, store, dumped, rep, opts.Logger)
	}
	dumpErr := dump(ctx, store, w, rep)
	estimated()
	if dumpErr == nil {
		// A backup cancelled as it finished is not published either.
		dumpErr = ctx.Err()
	}
	if err := w.close(dumpErr); dumpErr == nil {
		dumpErr = err
	}
	if err := space.failed(); err != nil {
		// Said plainly, not as whatever mongodump made of the failed write.
		opts.Logger.Warn("backup stopped to keep free disk space", "err", err)
		return nil, err
	}
	if dumpErr != nil {
		return nil, fmt.Errorf("backup failed: %w", dumpErr)
	}
	summary := w.summary
	if err := tmp.Sync(); err != nil {
		return nil, fmt.Errorf("cannot write backup file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("cannot write backup file: %w", err)
	}

	m := Manifest{
		Format: manifestFormat, FormatVersion: 1, CreatedAt: start, Kind: opts.Kind,
		InfmemVersion: version.String(), SchemaVersion: schema,
		Database: store.Database().Name(), Engine: store.Engine,
		ServerVersion: summary.serverVersion, ToolVersion: summary.toolVersion,
		Encryption: opts.Encryption.Mode(), Recipients: opts.Encryption.Recipients,
		Collections: map[string]int64{}, ArchiveBytes: w.archiveBytes,
		Size: w.fileBytes, SHA256: hex.EncodeToString(w.fileHash.Sum(nil)),
	}
	if m.Encryption != EncryptionRecipients {
		m.Recipients = nil
	}
	for _, c := range summary.collections {
		m.Collections[c.name] = c.docs
	}
	path, mpath, err := publish(opts.Dir, tmpPath, &m, len(recipients) > 0)
	if err != nil {
		return nil, err
	}
	ok = true
	// The estimate was only that: the backup holds what the archive does.
	rep.update(true, func(p *Progress) {
		p.Docs, p.TotalDocs = summary.documents(), summary.documents()
		p.CollectionsDone, p.Collections = len(summary.collections), len(summary.collections)
		p.Done = true
	})
	res := &Result{Path: path, File: filepath.Base(path), ManifestPath: mpath, Manifest: m}
	opts.Logger.Info("backup written", "file", res.File, "kind", string(m.Kind), "encryption", m.Encryption,
		"documents", res.Documents(), "bytes", m.Size, "seconds", time.Since(start).Seconds())
	if err := recordBackup(ctx, store, res); err != nil {
		opts.Logger.Warn("cannot record the backup in Metadata", "file", res.File, "err", err)
	}
	return res, nil
}

// archiveWriter is the pipeline mongodump writes into: the archive is
// parsed as it streams by (to check it and count documents), gzipped,
// optionally encrypted, and hashed on its way to the file.
type archiveWriter struct {
	file      *bufio.Writer
	fileHash  interface{ Sum([]byte) []byte }
	fileBytes int64
	enc       io.WriteCloser // nil when not encrypted
	gz        *gzip.Writer
	pw        *io.PipeWriter
	parsed    chan parseResult
	rep       *reporter

	archiveBytes int64
	summary      *archiveSummary
}

type parseResult struct {
	s   *archiveSummary
	err error
}

type countingWriter struct {
	w io.Writer
	n *int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}

func newArchiveWriter(f io.Writer, recipients []age.Recipient, rep *reporter) (*archiveWriter, error) {
	h := sha256.New()
	w := &archiveWriter{fileHash: h, rep: rep}
	w.file = bufio.NewWriterSize(countingWriter{io.MultiWriter(f, h), &w.fileBytes}, 1<<20)
	var sink io.Writer = w.file
	if len(recipients) > 0 {
		enc, err := age.Encrypt(w.file, recipients...)
		if err != nil {
			return nil, fmt.Errorf("cannot start encryption: %w", err)
		}
		w.enc = enc
		sink = enc
	}
	gz, err := gzip.NewWriterLevel(sink, gzipLevel)
	if err != nil {
		return nil, err
	}
	w.gz = gz
	pr, pw := io.Pipe()
	w.pw = pw
	w.parsed = make(chan parseResult, 1)
	go func() {
		// The parse cannot be cancelled from here; closing the pipe ends it.
		s, err := readArchive(context.Background(), bufio.NewReaderSize(pr, 1<<16), nil)
		if err == nil {
			// Anything after the archive's end is a malformed dump.
			if n, _ := io.Copy(io.Discard, pr); n > 0 {
				err = fmt.Errorf("%d bytes follow the end of the archive", n)
			}
		}
		pr.CloseWithError(err)
		w.parsed <- parseResult{s, err}
	}()
	return w, nil
}

// gzipLevel trades size for speed: embeddings barely compress, so higher
// levels cost time for little gain (see BENCHMARKS.md).
const gzipLevel = gzip.BestSpeed

func (w *archiveWriter) Write(p []byte) (int, error) {
	if _, err := w.pw.Write(p); err != nil {
		return 0, fmt.Errorf("the dump is not a well-formed archive: %w", err)
	}
	n, err := w.gz.Write(p)
	w.archiveBytes += int64(n)
	fb := w.fileBytes
	w.rep.update(false, func(pr *Progress) { pr.Bytes = fb })
	return n, err
}

// close finishes every layer and waits for the parse; after a failed dump
// it only unblocks the parser.
func (w *archiveWriter) close(dumpErr error) error {
	if dumpErr != nil {
		w.pw.CloseWithError(dumpErr)
		<-w.parsed
		return dumpErr
	}
	w.pw.Close()
	res := <-w.parsed
	if res.err != nil {
		return fmt.Errorf("the dump is not a well-formed archive: %w", res.err)
	}
	w.summary = res.s
	if err := w.gz.Close(); err != nil {
		return fmt.Errorf("cannot compress backup: %w", err)
	}
	if w.enc != nil {
		if err := w.enc.Close(); err != nil {
			return fmt.Errorf("cannot encrypt backup: %w", err)
		}
	}
	if err := w.file.Flush(); err != nil {
		return fmt.Errorf("cannot write backup file: %w", err)
	}
	return nil
}

// quietTools silences mongo-tools' process-wide logger once: it would print
// to stderr, and everything it reports comes back to us as errors anyway.
var quietTools sync.Once

// dumpInto runs mongo-tools' mongodump on the store's database, writing
// the archive to out.
func dumpInto(ctx context.Context, store *mongostore.Store, out io.Writer, rep *reporter) error {
	quietTools.Do(func() {
		toolslog.SetVerbosity(&options.Verbosity{Quiet: true})
		toolslog.SetWriter(io.Discard)
	})
	if asksForPassword(store.URI()) {
		return fmt.Errorf("the connection string %s names a user but no password, and mongodump cannot ask for one\nhint: put the password in mongo.uri", store.RedactedURI())
	}
	var uri string
	if store.Engine == mongostore.ModeEmbedded {
		proxy, puri, err := startCountProxy(store.URI())
		if err != nil {
			return err
		}
		defer proxy.Close()
		uri = puri
	} else {
		var cleanup func()
		var err error
		if uri, cleanup, err = toolsURI(store.URI()); err != nil {
			return err
		}
		defer cleanup()
	}
	prog := &dumpProgress{r: rep, attached: map[string]progress.Progressor{}}
	stopPolling := prog.poll()
	defer stopPolling()
	tool := options.New("mongodump", toolsVersion(), "", "", false, options.EnabledOptions{Auth: true, Connection: true, URI: true})
	tool.URI.ConnectionString = uri
	if err := tool.NormalizeOptionsAndURI(); err != nil {
		return redact(store, fmt.Errorf("cannot configure mongodump: %w", err))
	}
	tool.Namespace = &options.Namespace{DB: store.Database().Name()}
	dump := &mongodump.MongoDump{
		ToolOptions:  tool,
		InputOptions: &mongodump.InputOptions{},
		OutputOptions: &mongodump.OutputOptions{
			Archive:                    "-",
			NumParallelCollections:     dumpParallel,
			ExcludedCollectionPrefixes: stagingPrefixes,
			// The change feed of daemons sharing the database describes
			// changes, not memories: a restore keeps the live one
			// (restore.go's announceRestore, docs/SYNC.md).
			ExcludedCollections: []string{mongostore.FeedCollection},
		},
		OutputWriter:      ctxWriter{ctx: ctx, w: out},
		SkipUsersAndRoles: true,
		ProgressManager:   prog,
	}
	if err := dump.Init(); err != nil {
		return redact(store, fmt.Errorf("mongodump cannot start: %w", err))
	}
	// A cancelled context stops the dump at its next write (ctxWriter).
	// mongodump's own HandleInterrupt is not used: it reads a field that
	// Dump sets when it starts, unsynchronised, a data race when a backup
	// is cancelled as it begins.
	if err := dump.Dump(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return redact(store, fmt.Errorf("mongodump failed: %w", err))
	}
	return nil
}

// expectDocuments tells rep how many documents the dump of colls will
// write, once it knows, so a progress bar moves from the first document
// (mongodump counts them as it reads them, see dumpProgress). The estimate
// is read beside the dump, which waits for nothing; wait returns when it
// is done. Nothing is read when nobody listens to rep.
func expectDocuments(ctx context.Context, store *mongostore.Store, colls []string, rep *reporter, log *slog.Logger) (wait func()) {
	var wg sync.WaitGroup
	if rep.active() {
		wg.Go(func() {
			n, err := estimateDocuments(ctx, store.Database(), colls)
			if err != nil {
				if ctx.Err() == nil {
					log.Debug("cannot estimate how many documents the backup will hold", "err", err)
				}
				return
			}
			rep.update(true, func(p *Progress) { p.TotalDocs = n })
		})
	}
	return wg.Wait
}

// estimateDocuments says about how many documents the collections hold,
// from their statistics ($collStats count): metadata on MongoDB, SQLite's
// page statistics on the embedded engine, never a read of the documents.
// (A count command would read them all on the embedded engine; see
// countProxy.)
func estimateDocuments(ctx context.Context, db *mongo.Database, colls []string) (int64, error) {
	var total int64
	for _, name := range colls {
		pipeline := mongo.Pipeline{{{Key: "$collStats", Value: bson.D{{Key: "count", Value: bson.D{}}}}}}
		cur, err := db.Collection(name).Aggregate(ctx, pipeline)
		if err != nil {
			return 0, fmt.Errorf("statistics of %s: %w", name, err)
		}
		var stats []struct {
			Count int64 `bson:"count"`
		}
		if err := cur.All(ctx, &stats); err != nil {
			return 0, fmt.Errorf("statistics of %s: %w", name, err)
		}
		// A sharded collection has one document per shard.
		for _, st := range stats {
			total += st.Count
		}
	}
	return total, nil
}

// ctxWriter fails every write once its context is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// dumpParallel is how many collections mongodump reads at once. It must
// stay 1: with more, a failure in one collection (a cancelled backup, a
// full disk) makes the pinned mongodump close its multiplexer while other
// workers still open collections on it, and they panic with "send on
// closed channel", which would take the daemon down. On the embedded
// engine one reader is as fast as four: FerretDB's decoding is the cost.
const dumpParallel = 1

// toolsVersion is the pinned mongo-tools module version in this binary.
func toolsVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/mongodb/mongo-tools" {
				return "mongo-tools " + d.Version
			}
		}
	}
	return "mongo-tools"
}

// redact removes the connection string and its password from err's text:
// mongo-tools and the driver sometimes quote their input.
func redact(store *mongostore.Store, err error) error {
	uri, red := store.URI(), store.RedactedURI()
	msg := err.Error()
	if uri == red {
		return err
	}
	msg = strings.ReplaceAll(msg, uri, red)
	if pw := passwordIn(uri, red); pw != "" {
		msg = strings.ReplaceAll(msg, pw, "REDACTED")
	}
	return errors.New(msg)
}

// passwordIn recovers the text RedactURI replaced: what lies between the
// common prefix and suffix of the two strings.
func passwordIn(uri, red string) string {
	i := 0
	for i < len(uri) && i < len(red) && uri[i] == red[i] {
		i++
	}
	j := 0
	for j < len(uri)-i && j < len(red)-i && uri[len(uri)-1-j] == red[len(red)-1-j] {
		j++
	}
	return uri[i : len(uri)-j]
}

// publish moves the finished archive at tmpPath into place next to its
// manifest, choosing the first free name for the backup's time. The
// manifest goes first, so an archive under a final name always has one.
func publish(dir, tmpPath string, m *Manifest, encrypted bool) (path, mpath string, err error) {
	for suffix := 0; suffix < 100; suffix++ {
		name := backupName(m.CreatedAt, suffix, encrypted)
		path = filepath.Join(dir, name)
		mpath = manifestPath(path)
		if exists(path) || exists(mpath) {
			continue
		}
		m.File = name
		data, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return "", "", err
		}
		if err := writeFileAtomic(mpath, append(data, '\n')); err != nil {
			if errors.Is(err, os.ErrExist) {
				continue
			}
			return "", "", err
		}
		if err := placeFile(tmpPath, path); err != nil {
			os.Remove(mpath)
			if errors.Is(err, os.ErrExist) {
				continue
			}
			return "", "", fmt.Errorf("cannot move backup into place: %w", err)
		}
		syncDir(dir)
		return path, mpath, nil
	}
	return "", "", fmt.Errorf("cannot find a free backup name in %s", dir)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// placeFile moves from to to without replacing an existing file: a hard
// link fails if to exists, which rename would not. Where links are not
// supported it falls back to rename after a check.
func placeFile(from, to string) error {
	if err := os.Link(from, to); err == nil {
		return os.Remove(from)
	} else if errors.Is(err, os.ErrExist) {
		return err
	}
	if exists(to) {
		return os.ErrExist
	}
	return os.Rename(from, to)
}

// writeFileAtomic writes data to path (0600) through a temporary file, so
// path never holds a partial file, and fails if path exists.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), tempPattern("manifest"))
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", filepath.Base(path), err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = placeFile(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		if errors.Is(err, os.ErrExist) {
			return err
		}
		return fmt.Errorf("cannot write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// syncDir makes renames in dir durable where the OS allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
