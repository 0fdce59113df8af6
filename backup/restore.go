package backup

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"filippo.io/age"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/infmem/infmem/internal/flock"
	"github.com/infmem/infmem/mongostore"
)

// Collection name prefixes of a restore in progress. A restore loads the
// backup into staging collections of the live database and then renames
// them over the live ones: FerretDB renames only within one database, and
// on MongoDB a rename within a database is a metadata change, not a copy.
const (
	stagePrefix    = "_infmem_restore_"
	replacedPrefix = "_infmem_replaced_"
)

func isStaging(name string) bool {
	return strings.HasPrefix(name, stagePrefix) || strings.HasPrefix(name, replacedPrefix)
}

// Files in the run directory.
const (
	restoreLockFile = "restore.lock"
	journalFile     = "restore-journal.json"
)

// Pauser is a running service that serves the database (the daemon). A
// restore pauses it just before it replaces the live collections, so no
// client sees a half-restored state, and resumes it afterwards; reload
// says the data changed and in-memory state must be rebuilt from it.
type Pauser interface {
	Pause(ctx context.Context) (resume func(reload bool) error, err error)
}

// RestoreOptions configures a restore.
type RestoreOptions struct {
	// Keys decrypt the backup.
	Keys Keys
	// RunDir holds the restore's lock and journal: the data root's run/.
	RunDir string
	// TempDir holds the verified copy of the backup while it is restored;
	// empty means the backup's own directory.
	TempDir string
	// SafetyBackup, when set, is taken of the live data just before it is
	// replaced (its Kind is forced to safety).
	SafetyBackup *Options
	// Pauser, when set, is paused around the swap.
	Pauser Pauser
	// Device is the sync device the restore runs as (config sync.device
	// with sync on; else the store's own device, if any). When daemons
	// share the database (docs/SYNC.md) the restore announces itself in
	// the change feed as this device (mongostore.RestoreDevice when
	// none), so that every other daemon reloads its whole index.
	Device   string
	Progress func(Progress)
	Logger   *slog.Logger
}

// RestoreResult is a finished restore.
type RestoreResult struct {
	// Contents is what the backup held (and now the database holds).
	Contents *Contents
	// SafetyBackup is the backup of the data that was replaced, if taken.
	SafetyBackup *Result
	// SafetySkipped says why no safety backup was taken although one was
	// asked for: the database held nothing to keep.
	SafetySkipped string `json:",omitempty"`
	// FeedMark is the change feed entry that announced the restore to the
	// other devices sharing the database ("" when none do).
	FeedMark string `json:",omitempty"`
}

// Restore replaces the store's database with the backup at path. Every
// step that can fail does so before the live data changes:
//
//  1. the whole file is decrypted and verified into an encrypted temporary
//     copy (a wrong key, truncation or tampering stops here);
//  2. the copy is loaded into staging collections, their indexes are
//     rebuilt from the archive's metadata and their counts checked;
//  3. the Pauser (if any) is paused and the safety backup taken;
//  4. each staging collection is renamed over its live one, under a
//     journal in RunDir, and a failed rename rolls every rename back.
//
// A crash during step 4 leaves the journal; RecoverRestore (run by the
// next Restore and by the daemon at start) rolls back from it.
func Restore(ctx context.Context, store *mongostore.Store, path string, opts RestoreOptions) (*RestoreResult, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.TempDir == "" {
		opts.TempDir = filepath.Dir(path)
	}
	lock, err := lockRestore(opts.RunDir)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if _, err := RemoveLeftovers(opts.Logger, time.Now(), opts.TempDir, opts.RunDir); err != nil {
		opts.Logger.Warn("cannot delete what an interrupted restore left", "err", err)
	}
	if _, err := recoverJournal(ctx, store, opts.RunDir, opts.Logger); err != nil {
		return nil, err
	}

	rep := newReporter(opts.Progress, "restore")
	rep.step("verifying", 0, 0)
	vc, err := verifyToTemp(ctx, path, opts, rep)
	if err != nil {
		return nil, err
	}
	defer vc.remove()
	rep.finish()

	token, err := newToken()
	if err != nil {
		return nil, err
	}
	r := &restorer{store: store, db: store.Database(), token: token, runDir: opts.RunDir, log: opts.Logger, sum: vc.summary}
	for _, c := range vc.summary.collections {
		r.names = append(r.names, c.name)
	}
	if err := r.writeJournal(phaseStaging); err != nil {
		return nil, err
	}
	if err := r.stage(ctx, vc, rep); err != nil {
		return nil, r.abandon(ctx, fmt.Errorf("restore failed while loading the backup; the live data is unchanged: %w", err))
	}

	resume := func(bool) error { return nil }
	if opts.Pauser != nil {
		if resume, err = opts.Pauser.Pause(ctx); err != nil {
			return nil, r.abandon(ctx, fmt.Errorf("cannot pause the running service for the restore; the live data is unchanged: %w", err))
		}
	}
	res := &RestoreResult{Contents: contentsOf(vc.summary, vc.facts)}
	empty := false
	if opts.SafetyBackup != nil {
		if empty, err = holdsNothing(ctx, store); err != nil {
			opts.Logger.Warn("cannot tell whether the database holds anything; taking the safety backup", "err", err)
		}
	}
	if empty {
		res.SafetySkipped = "the memory it replaced was empty"
	} else if opts.SafetyBackup != nil {
		sb := *opts.SafetyBackup
		sb.Kind = KindSafety
		if sb.Progress == nil {
			sb.Progress = opts.Progress
		}
		if res.SafetyBackup, err = Create(ctx, store, sb); err != nil {
			err = fmt.Errorf("cannot take the safety backup, so nothing was restored; the live data is unchanged: %w", err)
			return nil, errors.Join(r.abandon(ctx, err), resume(false))
		}
	}
	status, err := r.liveStatus(ctx)
	if err != nil {
		return nil, errors.Join(r.abandon(ctx, err), resume(false))
	}
	syncRecs, err := store.SyncRecords(ctx)
	if err != nil {
		return nil, errors.Join(r.abandon(ctx, err), resume(false))
	}

	rep.step("swapping", len(r.names), 0)
	swapped := time.Now()
	if err := r.swap(ctx, rep); err != nil {
		return nil, errors.Join(err, resume(false))
	}
	// From here on the restore has happened; what is left is cleanup.
	// The restored Metadata may name index snapshots of the time of the
	// backup, this device's and every other's; no snapshot describes the
	// restored data.
	if err := store.InvalidateAllSnapshots(ctx); err != nil {
		opts.Logger.Warn("cannot withdraw the index snapshot records; the next start may use a stale index", "err", err)
		if err := store.InvalidateSnapshot(ctx); err != nil {
			opts.Logger.Warn("cannot withdraw this device's index snapshot record", "err", err)
		}
	}
	res.FeedMark = announceRestore(ctx, store, syncRecs, swapped, opts)
	r.dropReplaced(ctx)
	if status != nil {
		if _, err := r.db.Collection(mongostore.Metadata).ReplaceOne(ctx, bson.D{{Key: "_id", Value: StatusKey}}, status, options.Replace().SetUpsert(true)); err != nil {
			opts.Logger.Warn("cannot carry the backup record over the restore", "err", err)
		}
	}
	if res.SafetyBackup != nil {
		if err := recordBackup(ctx, store, res.SafetyBackup); err != nil {
			opts.Logger.Warn("cannot record the safety backup", "err", err)
		}
	}
	rep.finish()
	opts.Logger.Info("backup restored", "file", filepath.Base(path), "documents", res.Contents.Documents())
	if err := resume(true); err != nil {
		return res, fmt.Errorf("the backup was restored, but the running service did not resume: %w", err)
	}
	return res, nil
}

// announceRestore keeps sync's records current across the restore and
// tells the other daemons sharing the database (docs/SYNC.md). The change
// feed is not part of a backup and stays as it was, so the device records
// and leases that describe it and the daemons are carried over from
// before the swap, replacing those the backup brought back (a record a
// daemon wrote after the swap stays). Then, when any device shares the
// database, an entry of op restore is appended to the feed: each other
// daemon's follower meets it after every change it has already applied,
// reloads its whole index and says so in status; a
// daemon that is down meets it on its next start (its snapshot record is
// gone, and even a snapshot recorded by a daemon that had not yet seen
// the restore names a feed position before the mark). It returns the
// mark's feed key, "" when none was written.
func announceRestore(ctx context.Context, store *mongostore.Store, live []bson.Raw, swapped time.Time, opts RestoreOptions) string {
	ctx = context.WithoutCancel(ctx)
	if err := store.PutSyncRecords(ctx, live, swapped); err != nil {
		opts.Logger.Warn("cannot carry the sync device records over the restore", "err", err)
	}
	device := cmp.Or(opts.Device, store.Device())
	devices := 0
	for _, r := range live {
		if t, _ := r.Lookup("type").StringValueOK(); t == mongostore.DeviceType {
			devices++
		}
	}
	if device == "" && devices == 0 {
		return ""
	}
	if device == "" {
		device = mongostore.RestoreDevice
	}
	seq, err := store.Feed().MarkRestore(ctx, device, time.Now())
	if err != nil {
		opts.Logger.Error("cannot announce the restore in the change feed; restart the other devices' daemons with their snapshot removed", "err", err)
		return ""
	}
	opts.Logger.Info("restore announced to the other devices", "device", device, "entry", seq)
	return mongostore.FeedKey(device, seq)
}

// RecoverRestore finishes the cleanup of a restore that was interrupted
// (a crash or power loss): if its journal shows the swap had begun, every
// collection is put back as it was before the restore. It reports whether
// there was anything to recover. The daemon runs it at start, before
// serving.
func RecoverRestore(ctx context.Context, store *mongostore.Store, runDir string, logger *slog.Logger) (bool, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	lock, err := lockRestore(runDir)
	if err != nil {
		return false, err
	}
	defer lock.Release()
	return recoverJournal(ctx, store, runDir, logger)
}

func lockRestore(runDir string) (*flock.Lock, error) {
	if runDir == "" {
		return nil, errors.New("restore needs a run directory for its lock and journal")
	}
	lock, err := flock.Acquire(filepath.Join(runDir, restoreLockFile))
	var held *flock.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("another restore is running on this data root (%v)", held)
	}
	return lock, err
}

func newToken() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// verifiedCopy is the verified backup, re-encrypted to a key that exists
// only in this process, so it is never plain text on disk and nobody can
// change it unnoticed between verification and loading.
type verifiedCopy struct {
	path    string
	id      *age.X25519Identity
	summary *archiveSummary
	facts   *fileFacts
}

func (c *verifiedCopy) remove() { os.Remove(c.path) }

func verifyToTemp(ctx context.Context, path string, opts RestoreOptions, rep *reporter) (*verifiedCopy, error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(opts.TempDir, tempPattern("restore"))
	if err != nil {
		return nil, fmt.Errorf("cannot create the temporary copy for the restore: %w", err)
	}
	c := &verifiedCopy{path: tmp.Name(), id: id}
	fail := func(err error) (*verifiedCopy, error) {
		tmp.Close()
		c.remove()
		return nil, err
	}
	bw := bufio.NewWriterSize(tmp, 1<<20)
	enc, err := age.Encrypt(bw, id.Recipient())
	if err != nil {
		return fail(err)
	}
	c.summary, c.facts, err = readBackupFile(ctx, path, readOptions{keys: opts.Keys, copyTo: enc, progress: bytesProgress(rep)})
	if err != nil {
		return fail(err)
	}
	if err := enc.Close(); err != nil {
		return fail(fmt.Errorf("cannot write the temporary copy: %w", err))
	}
	if err := bw.Flush(); err != nil {
		return fail(fmt.Errorf("cannot write the temporary copy: %w", err))
	}
	if err := tmp.Close(); err != nil {
		return fail(fmt.Errorf("cannot write the temporary copy: %w", err))
	}
	return c, nil
}

// open returns the decrypted stream of the copy.
func (c *verifiedCopy) open() (io.ReadCloser, error) {
	f, err := os.Open(c.path)
	if err != nil {
		return nil, err
	}
	r, err := age.Decrypt(bufio.NewReaderSize(f, 1<<16), c.id)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot read the temporary copy: %w", err)
	}
	return readCloser{r, f}, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// Journal phases.
const (
	phaseStaging  = "staging"
	phaseSwapping = "swapping"
	phaseDropping = "dropping"
)

// journal records a restore in progress, so an interrupted one can be
// undone. It lives in a file, not the database, because the Metadata
// collection is itself being replaced.
type journal struct {
	Token    string   `json:"token"`
	Database string   `json:"database"`
	Phase    string   `json:"phase"`
	Names    []string `json:"collections"`
	// HadLive lists the collections that existed before the swap.
	HadLive []string `json:"had_live,omitempty"`
}

type restorer struct {
	store   *mongostore.Store
	db      *mongo.Database
	token   string
	runDir  string
	names   []string
	hadLive []string
	sum     *archiveSummary
	log     *slog.Logger
}

func (r *restorer) staged(name string) string   { return stagePrefix + r.token + "_" + name }
func (r *restorer) replaced(name string) string { return replacedPrefix + r.token + "_" + name }

func (r *restorer) writeJournal(phase string) error {
	return writeJournal(r.runDir, journal{Token: r.token, Database: r.db.Name(), Phase: phase, Names: r.names, HadLive: r.hadLive})
}

// abandon drops the staging collections after a failure before the swap
// and returns err (joined with any cleanup failure).
func (r *restorer) abandon(ctx context.Context, err error) error {
	ctx = context.WithoutCancel(ctx)
	var errs []error
	for _, n := range r.names {
		if e := r.db.Collection(r.staged(n)).Drop(ctx); e != nil {
			errs = append(errs, fmt.Errorf("cannot drop staging collection %s: %w", r.staged(n), e))
		}
	}
	if len(errs) == 0 {
		if e := removeJournal(r.runDir); e != nil {
			errs = append(errs, e)
		}
	}
	return errors.Join(append([]error{err}, errs...)...)
}

// stage loads the verified copy into the staging collections and rebuilds
// their indexes.
func (r *restorer) stage(ctx context.Context, vc *verifiedCopy, rep *reporter) error {
	var total int64
	for _, c := range r.sum.collections {
		total += c.docs
		if err := r.createStaging(ctx, c); err != nil {
			return err
		}
	}
	rep.step("loading", len(r.sum.collections), 0)
	rep.update(true, func(p *Progress) { p.TotalDocs = total })
	in, err := vc.open()
	if err != nil {
		return err
	}
	defer in.Close()
	ld := newLoader(ctx, r.db, r.staged, rep)
	_, _, err = readPayload(ctx, in, ld)
	if ferr := ld.finish(); err == nil {
		err = ferr
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if err != nil {
		return err
	}
	rep.step("indexing", len(r.sum.collections), 0)
	for _, c := range r.sum.collections {
		if err := r.createIndexes(ctx, c); err != nil {
			return err
		}
		rep.update(true, func(p *Progress) { p.CollectionsDone++; p.Collection = c.name })
	}
	// The embedded engine's _id lookups need an SQLite index FerretDB does
	// not make; the new tables get theirs before they go live.
	if err := r.store.Prepare(ctx, r.db.Name()); err != nil {
		return err
	}
	// The engine acknowledged every insert; counting the staging
	// collections again would cost a full scan of each on FerretDB.
	for _, c := range r.sum.collections {
		if n := ld.inserted[c.name]; n != c.docs {
			return fmt.Errorf("%s got %d documents while loading, the backup holds %d", c.name, n, c.docs)
		}
	}
	return nil
}

func (r *restorer) createStaging(ctx context.Context, c *archiveCollection) error {
	// The archive's collection options are not used: infmem's collections
	// have none, and options from a file (a capped size, a validator)
	// could change how the live collection behaves.
	cmd := bson.D{{Key: "create", Value: r.staged(c.name)}}
	if err := r.db.RunCommand(ctx, cmd).Err(); err != nil {
		return fmt.Errorf("cannot create staging collection for %s: %w", c.name, err)
	}
	return nil
}

// createIndexes gives a staging collection infmem's own indexes for its
// collection. The archive's index specifications are never sent: a
// crafted one (a TTL index, say) could later delete memories on a real
// mongod.
func (r *restorer) createIndexes(ctx context.Context, c *archiveCollection) error {
	if err := r.store.EnsureIndexesOn(ctx, c.name, r.staged(c.name)); err != nil {
		return fmt.Errorf("cannot create the indexes of %s: %w", c.name, err)
	}
	return nil
}

// liveStatus reads the live backup record, which describes the backups on
// disk and so must survive the restore.
func (r *restorer) liveStatus(ctx context.Context) (bson.Raw, error) {
	raw, err := r.db.Collection(mongostore.Metadata).FindOne(ctx, bson.D{{Key: "_id", Value: StatusKey}}).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the backup record: %w", err)
	}
	return raw, nil
}

func (r *restorer) rename(ctx context.Context, from, to string) error {
	db := r.db.Name()
	cmd := bson.D{{Key: "renameCollection", Value: db + "." + from}, {Key: "to", Value: db + "." + to}}
	if err := r.store.Client().Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
		return fmt.Errorf("cannot rename %s to %s: %w", from, to, err)
	}
	return nil
}

// swap renames each live collection aside and its staging collection into
// its place. Any failure rolls back every rename made so far.
func (r *restorer) swap(ctx context.Context, rep *reporter) error {
	live, err := r.db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return r.abandon(ctx, fmt.Errorf("cannot list collections; the live data is unchanged: %w", err))
	}
	for _, n := range r.names {
		for _, l := range live {
			if l == n {
				r.hadLive = append(r.hadLive, n)
			}
		}
	}
	if err := r.writeJournal(phaseSwapping); err != nil {
		return r.abandon(ctx, err)
	}
	// The swap must not stop half-way because the caller gave up.
	sctx := context.WithoutCancel(ctx)
	for _, n := range r.names {
		rep.update(false, func(p *Progress) { p.Collection = n })
		err := func() error {
			if slices.Contains(r.hadLive, n) {
				if err := r.rename(sctx, n, r.replaced(n)); err != nil {
					return err
				}
			}
			return r.rename(sctx, r.staged(n), n)
		}()
		if err != nil {
			rbErr := rollback(sctx, r.store, journal{Token: r.token, Names: r.names, HadLive: r.hadLive}, r.log)
			if rbErr != nil {
				return fmt.Errorf("restore failed while swapping (%w), and rolling back failed too: %w\nhint: run the restore again; it finishes the rollback from %s first", err, rbErr, filepath.Join(r.runDir, journalFile))
			}
			if jerr := removeJournal(r.runDir); jerr != nil {
				r.log.Warn("cannot remove the restore journal", "err", jerr)
			}
			return fmt.Errorf("restore failed while swapping; every collection was put back, the live data is unchanged: %w", err)
		}
		rep.update(true, func(p *Progress) { p.CollectionsDone++ })
	}
	if err := r.writeJournal(phaseDropping); err != nil {
		r.log.Warn("cannot update the restore journal", "err", err)
	}
	return nil
}

// dropReplaced removes the collections the restore replaced.
func (r *restorer) dropReplaced(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	for _, n := range r.hadLive {
		if err := r.db.Collection(r.replaced(n)).Drop(ctx); err != nil {
			r.log.Warn("cannot drop a replaced collection; the next restore drops it", "collection", r.replaced(n), "err", err)
			return
		}
	}
	if err := removeJournal(r.runDir); err != nil {
		r.log.Warn("cannot remove the restore journal", "err", err)
	}
}

// rollback puts every collection of an interrupted swap back: a live name
// that holds restored data goes back to staging, the replaced collection
// returns to its name, and the staging collections are dropped.
func rollback(ctx context.Context, store *mongostore.Store, j journal, log *slog.Logger) error {
	r := &restorer{store: store, db: store.Database(), token: j.Token, names: j.Names, hadLive: j.HadLive, log: log}
	exists, err := collectionSet(ctx, r.db)
	if err != nil {
		return err
	}
	for _, n := range j.Names {
		if exists[r.replaced(n)] {
			switch {
			case exists[n] && exists[r.staged(n)]:
				// The restored data never moved in (it is still staged):
				// an open after the interruption re-created the name
				// (bootstrap makes every collection it misses), holding
				// at most the defaults bootstrap writes, whose real
				// versions are in the replaced collection.
				made, err := store.MadeByBootstrap(ctx, n)
				if err != nil {
					return err
				}
				if !made {
					return fmt.Errorf("%s was written after the restore was interrupted, and %s holds the data from before it; neither is changed\nhint: compare the two by hand, keep one under the name %s, then start infmem again", n, r.replaced(n), n)
				}
				log.Warn("dropping a collection an open re-created during the interrupted restore", "collection", n)
				if err := r.db.Collection(n).Drop(ctx); err != nil {
					return fmt.Errorf("cannot drop %s: %w", n, err)
				}
			case exists[n]:
				if err := r.rename(ctx, n, r.staged(n)); err != nil {
					return err
				}
			}
			if err := r.rename(ctx, r.replaced(n), n); err != nil {
				return err
			}
		} else if !slices.Contains(j.HadLive, n) && exists[n] && !exists[r.staged(n)] {
			// It did not exist before the restore: what has its name is restored data.
			if err := r.rename(ctx, n, r.staged(n)); err != nil {
				return err
			}
		}
	}
	for _, n := range j.Names {
		if err := r.db.Collection(r.staged(n)).Drop(ctx); err != nil {
			return fmt.Errorf("cannot drop staging collection %s: %w", r.staged(n), err)
		}
	}
	return nil
}

func collectionSet(ctx context.Context, db *mongo.Database) (map[string]bool, error) {
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return nil, fmt.Errorf("cannot list collections: %w", err)
	}
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	return set, nil
}

// recoverJournal acts on a journal left by an interrupted restore.
func recoverJournal(ctx context.Context, store *mongostore.Store, runDir string, log *slog.Logger) (bool, error) {
	j, err := readJournal(runDir)
	if err != nil || j == nil {
		return false, err
	}
	if j.Database != store.Database().Name() {
		return false, fmt.Errorf("the restore journal %s belongs to database %s, not %s\nhint: open that database to finish the interrupted restore", filepath.Join(runDir, journalFile), j.Database, store.Database().Name())
	}
	r := &restorer{store: store, db: store.Database(), token: j.Token, names: j.Names, hadLive: j.HadLive, runDir: runDir, log: log}
	switch j.Phase {
	case phaseStaging:
		log.Warn("dropping the staging collections of an interrupted restore; the live data was never touched")
		if err := r.abandon(ctx, nil); err != nil {
			return true, err
		}
	case phaseSwapping:
		log.Warn("rolling back an interrupted restore; the data returns to what it was before the restore")
		if err := rollback(ctx, store, *j, log); err != nil {
			return true, fmt.Errorf("cannot roll back the interrupted restore: %w", err)
		}
		if err := removeJournal(runDir); err != nil {
			return true, err
		}
	case phaseDropping:
		r.dropReplaced(ctx)
	default:
		return false, fmt.Errorf("the restore journal %s has unknown phase %q", filepath.Join(runDir, journalFile), j.Phase)
	}
	return true, nil
}

func writeJournal(runDir string, j journal) error {
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(runDir, journalFile)
	f, err := os.CreateTemp(runDir, tempPattern("journal"))
	if err != nil {
		return fmt.Errorf("cannot write the restore journal: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("cannot write the restore journal: %w", err)
	}
	syncDir(runDir)
	return nil
}

func readJournal(runDir string) (*journal, error) {
	data, err := os.ReadFile(filepath.Join(runDir, journalFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the restore journal: %w", err)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil || j.Token == "" {
		return nil, fmt.Errorf("the restore journal %s is damaged\nhint: compare the collections of the database with the journal by hand before deleting it", filepath.Join(runDir, journalFile))
	}
	return &j, nil
}

func removeJournal(runDir string) error {
	err := os.Remove(filepath.Join(runDir, journalFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot remove the restore journal: %w", err)
	}
	return nil
}

// loader inserts documents into staging collections in batches, on its
// own goroutine, so decryption and parsing overlap with the inserts. It
// reports progress as the engine acknowledges: documents inserted, and a
// collection done once its last document is in.
type loader struct {
	ctx     context.Context
	db      *mongo.Database
	target  func(string) string
	rep     *reporter
	batches chan loadBatch
	done    chan struct{}
	cur     map[string]*loadBatch

	mu  sync.Mutex
	err error
	// inserted counts acknowledged inserts per collection; read it only
	// after finish.
	inserted map[string]int64
}

// loadBatch is documents to insert into one collection or, with end set
// and no documents, the mark that the collection has no more.
type loadBatch struct {
	coll  string
	docs  []any
	bytes int
	end   bool
}

// Batch limits: FerretDB inserts a batch in one SQLite transaction.
const (
	loadBatchDocs  = 1000
	loadBatchBytes = 8 << 20
)

func newLoader(ctx context.Context, db *mongo.Database, target func(string) string, rep *reporter) *loader {
	l := &loader{ctx: ctx, db: db, target: target, rep: rep, batches: make(chan loadBatch, 2), done: make(chan struct{}), cur: map[string]*loadBatch{}, inserted: map[string]int64{}}
	go func() {
		defer close(l.done)
		var total int64
		for b := range l.batches {
			if l.failed() != nil {
				continue // drain after a failure
			}
			if b.end {
				l.rep.update(true, func(p *Progress) { p.CollectionsDone++; p.Collection = b.coll })
				continue
			}
			res, err := l.db.Collection(l.target(b.coll)).InsertMany(l.ctx, b.docs, options.InsertMany().SetOrdered(true))
			if err != nil {
				l.mu.Lock()
				l.err = fmt.Errorf("cannot insert into the staging collection of %s: %w", b.coll, err)
				l.mu.Unlock()
				continue
			}
			l.inserted[b.coll] += int64(len(res.InsertedIDs))
			total += int64(len(res.InsertedIDs))
			docs := total
			l.rep.update(false, func(p *Progress) { p.Docs = docs; p.Collection = b.coll })
		}
	}()
	return l
}

func (l *loader) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// doc implements archiveSink.
func (l *loader) doc(coll string, doc []byte) error {
	b := l.cur[coll]
	if b == nil {
		b = &loadBatch{coll: coll}
		l.cur[coll] = b
	}
	b.docs = append(b.docs, bson.Raw(append([]byte(nil), doc...)))
	b.bytes += len(doc)
	if len(b.docs) >= loadBatchDocs || b.bytes >= loadBatchBytes {
		return l.flush(b)
	}
	return nil
}

// end implements archiveSink: the collection's last batch goes out, and
// after it the mark that the collection is complete.
func (l *loader) end(coll string) error {
	if b := l.cur[coll]; b != nil {
		if err := l.flush(b); err != nil {
			return err
		}
		delete(l.cur, coll)
	}
	return l.send(loadBatch{coll: coll, end: true})
}

func (l *loader) flush(b *loadBatch) error {
	if len(b.docs) == 0 {
		return l.failed()
	}
	if err := l.send(*b); err != nil {
		return err
	}
	*b = loadBatch{coll: b.coll}
	return nil
}

func (l *loader) send(b loadBatch) error {
	if err := l.failed(); err != nil {
		return err
	}
	select {
	case l.batches <- b:
		return nil
	case <-l.ctx.Done():
		return l.ctx.Err()
	}
}

// finish flushes what is left and waits for the inserts.
func (l *loader) finish() error {
	var err error
	for _, b := range l.cur {
		if err = l.flush(b); err != nil {
			break
		}
	}
	close(l.batches)
	<-l.done
	if ierr := l.failed(); ierr != nil {
		return ierr
	}
	return err
}
