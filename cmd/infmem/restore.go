package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"filippo.io/age"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/mongostore"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

type restoreOptions struct {
	common         commonFlags
	file           string
	identities     stringList
	passphrase     bool
	passphraseFile string
	noSafety       bool
	dryRun         bool
	json           bool
}

const restoreUsage = "restore FILE [-i IDENTITY]... [--passphrase | --passphrase-file FILE] [--no-safety-backup] [--dry-run] [--json] [--config FILE] [--data-dir DIR]"

var restoreCommand = command{
	summary: "replace the memory with a backup, after verifying it completely",
	usage:   restoreUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		if err := refusePassphraseArg(args); err != nil {
			return err
		}
		var opts restoreOptions
		fs := newFlagSet("restore", env, restoreUsage)
		opts.common.register(fs)
		fs.Var(&opts.identities, "i", "age identity file for backups encrypted to a key (repeatable; default: $"+EnvBackupIdentity+", then the file 'backup keygen' writes)")
		fs.BoolVar(&opts.passphrase, "passphrase", false, "ask for the passphrase even if the backup's header does not need one")
		fs.StringVar(&opts.passphraseFile, "passphrase-file", "", "read the passphrase from FILE (its first line); $"+EnvBackupPassphrase+" also works")
		fs.BoolVar(&opts.noSafety, "no-safety-backup", false, "do not back up the current data before replacing it")
		fs.BoolVar(&opts.dryRun, "dry-run", false, "verify the backup and list what it holds, without restoring")
		fs.BoolVar(&opts.json, "json", false, "print the result as JSON")
		files, err := parseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(files) != 1 {
			return usageErrorf("restore takes one backup file (see 'infmem backups')")
		}
		opts.file = files[0]
		return runRestore(ctx, opts, env)
	},
}

// parseInterleaved parses flags that come before or after the positional
// arguments ('restore FILE -i KEY' as well as 'restore -i KEY FILE') and
// returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runRestore(ctx context.Context, opts restoreOptions, env *cliEnv) error {
	s, err := setupUnprepared(opts.common, env, env.stderr, true)
	if err != nil {
		return err
	}
	// A data root that holds no database yet is made only once the backup
	// has verified: a refused restore into a new root leaves nothing.
	_, statErr := os.Stat(s.root.MongoDataDir())
	fresh := errors.Is(statErr, os.ErrNotExist)
	if !fresh {
		if err := s.prepare(); err != nil {
			return err
		}
	}
	path, err := resolveBackupPath(opts.file, s.root.BackupsDir())
	if err != nil {
		return err
	}
	keys, err := restoreKeys(path, opts, env)
	if err != nil {
		return explainRefusal(err, s.root.BackupsDir())
	}
	if fresh && !opts.dryRun {
		bar, endBar := progressBar(env)
		_, err := backup.Verify(ctx, path, keys, bar)
		endBar()
		if err != nil {
			return explainRefusal(err, s.root.BackupsDir())
		}
		if err := s.prepare(); err != nil {
			return err
		}
	}
	if opts.dryRun {
		bar, endBar := progressBar(env)
		c, err := backup.Verify(ctx, path, keys, bar)
		endBar()
		if err != nil {
			return explainRefusal(err, s.root.BackupsDir())
		}
		if opts.json {
			return printJSON(env.stdout, c)
		}
		printContents(env, c)
		fmt.Fprintln(env.stdout, "dry run: the backup verifies; nothing was restored")
		return nil
	}

	var safety *backup.Options
	if !opts.noSafety {
		enc, err := safetyEncryption(s.cfg.Backup, keys)
		if err != nil {
			return err
		}
		safety = &backup.Options{Dir: s.root.BackupsDir(), Encryption: enc, Logger: s.log}
	}
	ropts := backup.RestoreOptions{
		Keys: keys, RunDir: s.root.RunDir(), TempDir: s.root.BackupsDir(), SafetyBackup: safety, Logger: s.log,
	}
	if s.cfg.Sync.Enabled {
		// Other daemons sharing the database hear of the restore from this
		// device's change feed (docs/SYNC.md).
		ropts.Device = s.cfg.DeviceName()
	}
	d, err := s.runningDaemon(ctx)
	if err != nil {
		return err
	}
	var res *backup.RestoreResult
	if d != nil {
		res, err = restoreBesideDaemon(ctx, s, d, path, ropts, env)
	} else {
		res, err = restoreInProcess(ctx, s, path, ropts, env)
	}
	var notResumed *notResumedError
	if err != nil && !errors.As(err, &notResumed) {
		return explainRefusal(err, s.root.BackupsDir())
	}
	if opts.json {
		if err := printJSON(env.stdout, res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(env.stdout, "restored %s: %s\n", res.Contents.File, plural(int(res.Contents.Documents()), "document", "documents"))
		switch {
		case res.SafetyBackup != nil:
			fmt.Fprintf(env.stdout, "the data it replaced is in %s\n", res.SafetyBackup.Path)
		case res.SafetySkipped != "":
			fmt.Fprintf(env.stdout, "no safety backup was taken: %s\n", res.SafetySkipped)
		default:
			fmt.Fprintln(env.stdout, "no safety backup was taken (--no-safety-backup)")
		}
		if res.FeedMark != "" {
			fmt.Fprintf(env.stdout, "the other devices sharing the database reload their memory (change feed entry %s)\n", res.FeedMark)
		}
	}
	return err
}

// notResumedError is a restore that succeeded while the daemon it paused
// did not resume.
type notResumedError struct{ err error }

func (e *notResumedError) Error() string {
	return fmt.Sprintf("the backup was restored, but the daemon did not resume: %v\nhint: restart it: 'infmem restart'", e.err)
}

func (e *notResumedError) Unwrap() error { return e.err }

// restoreInProcess opens the database itself: no daemon holds it.
func restoreInProcess(ctx context.Context, s *session, path string, ropts backup.RestoreOptions, env *cliEnv) (*backup.RestoreResult, error) {
	store, err := s.openStore(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot open the database for the restore: %w", err)
	}
	defer store.Close(context.WithoutCancel(ctx))
	bar, endBar := progressBar(env)
	ropts.Progress = bar
	res, err := backup.Restore(ctx, store, path, ropts)
	endBar()
	if err == nil {
		writeRestoredSnapshot(ctx, s, store)
	}
	return res, err
}

// writeRestoredSnapshot writes the index snapshot of the restored database
// (daemon.WriteIndexSnapshot), so that the daemon that opens it next, a
// new one or the one the restore paused, starts from it instead of reading
// every memory. The restore has happened whatever this does: a failure
// only costs that start the full read.
func writeRestoredSnapshot(ctx context.Context, s *session, store *mongostore.Store) {
	// The index is read as a daemon reads it at a start without a
	// snapshot, in this process, whose restore peaks at ~130-160 MB at
	// 100k memories: at the default GC target the read took it to 264 MB,
	// at 25 % to 247 MB, with the heap's soft limit too to 224 MB (issue
	// 24: a restore stays within 250 MB). The limit grows with the
	// database (the read's live heap is ~0.85 KB a memory), so that a
	// larger one is not collected without end.
	limit := int64(restoreSnapshotHeap)
	if n, err := store.Memories.EstimatedCount(ctx); err == nil {
		limit = max(limit, n<<10)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(restoreSnapshotGC))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	debug.FreeOSMemory() // the restore's own garbage first
	if _, err := daemon.WriteIndexSnapshot(ctx, s.root, s.cfg, store, s.log); err != nil {
		s.log.Warn("cannot write the index snapshot of the restored memory; the next start reads it from the database", "err", err)
	}
}

// restoreSnapshotGC is the GC target while writeRestoredSnapshot reads the
// index.
const restoreSnapshotGC = 25

// restoreSnapshotHeap is the least soft limit of the Go heap meanwhile.
const restoreSnapshotHeap = 100 << 20

// restoreBesideDaemon restores while a daemon serves the data root, so that
// no MCP client sees a half-restored memory. An external server can be
// reached by both processes: the restore stages the backup beside the live
// data and pauses the daemon only around the swap, after which the daemon
// rebuilds its index. The embedded engine and a managed mongod admit one
// process at a time, so the daemon is paused and closes its database first,
// and opens it again after the restore, whatever its outcome (it also does
// so by itself should this process die, when the control connection ends).
func restoreBesideDaemon(ctx context.Context, s *session, d *runningDaemon, path string, ropts backup.RestoreOptions, env *cliEnv) (*backup.RestoreResult, error) {
	c, err := control.Dial(ctx, d.ep.Control)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	st, err := c.Status(sctx)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("cannot ask the daemon (pid %d) about its database; nothing was changed: %w", d.pid, err)
	}
	engine := s.cfg.Mongo.Mode
	if st.Store != nil {
		engine = st.Store.Engine
	}
	if engine == mongostore.ModeExternal {
		// Restore pauses the daemon itself, on a connection of its own, and
		// resumes it with a reload; the pause must not release the
		// database, since resuming from a release recovers restores and
		// needs the restore lock that Restore holds until it returns.
		ropts.Pauser = control.Pauser{Control: d.ep.Control}
		return restoreInProcess(ctx, s, path, ropts, env)
	}
	if isTerminal(env.stderr) {
		fmt.Fprintf(env.stderr, "restore: pausing the daemon (pid %d); MCP clients wait until it resumes\n", d.pid)
	}
	resume, err := c.Pause(ctx, true)
	if err != nil {
		return nil, fmt.Errorf("cannot pause the daemon (pid %d) for the restore; nothing was changed: %w", d.pid, err)
	}
	// restoreInProcess has closed the store, and Restore has let go of the
	// restore lock, before the daemon opens the database again.
	res, err := restoreInProcess(ctx, s, path, ropts, env)
	if rerr := resume(true); rerr != nil {
		if err != nil {
			fmt.Fprintf(env.stderr, "infmem: warning: the daemon did not resume after the failed restore: %v\nhint: restart it: 'infmem restart'\n", rerr)
			return nil, err
		}
		return res, &notResumedError{rerr}
	}
	return res, err
}

// resolveBackupPath accepts a path, or the bare name of a file in backups/.
func resolveBackupPath(arg, backupsDir string) (string, error) {
	if _, err := os.Stat(arg); err == nil {
		return arg, nil
	}
	if !strings.ContainsRune(arg, os.PathSeparator) {
		p := filepath.Join(backupsDir, arg)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", usageErrorf("no backup file %s\nhint: 'infmem backups' lists the backups in %s", arg, backupsDir)
}

// restoreKeys gathers what the backup needs, judged from its header: the
// identity files for a backup encrypted to keys, the passphrase (file,
// environment or prompt) for one encrypted with a passphrase.
func restoreKeys(path string, opts restoreOptions, env *cliEnv) (backup.Keys, error) {
	var keys backup.Keys
	for _, f := range opts.identities {
		k, err := backup.ReadIdentityFile(f)
		if err != nil {
			return keys, usageErrorf("%v", err)
		}
		keys.Identities = append(keys.Identities, k.Identities...)
		keys.IdentityFile = strings.Join(opts.identities, ", ")
	}
	mode, err := backup.EncryptionOf(path)
	if err != nil {
		return keys, err
	}
	if mode == backup.EncryptionPassphrase || opts.passphrase || opts.passphraseFile != "" {
		if keys.Passphrase, err = readPassphrase(env, opts.passphraseFile, false); err != nil {
			return keys, err
		}
	}
	if mode == backup.EncryptionRecipients && len(keys.Identities) == 0 {
		k, def, found, err := defaultIdentity(env)
		if err != nil {
			return keys, err
		}
		if !found {
			return keys, usageErrorf("%s is encrypted to an age key; give its identity file with -i FILE\nhint: it is the file 'infmem backup keygen' wrote (by default %s)", filepath.Base(path), def)
		}
		keys.Identities, keys.IdentityFile = k.Identities, k.IdentityFile
	}
	return keys, nil
}

// defaultIdentity reads the identity file 'backup keygen' writes when not
// told where ($INFMEM_BACKUP_IDENTITY, else backup-identity.txt in the
// user config directory), which restore and 'backups --verify' use when
// no -i is given. path is where it looked; found is false, with no error,
// when there is no file there.
func defaultIdentity(env *cliEnv) (keys backup.Keys, path string, found bool, err error) {
	if path, err = defaultIdentityPath(env); err != nil {
		return keys, "", false, err
	}
	if _, err := os.Stat(path); err != nil {
		return keys, path, false, nil
	}
	if keys, err = backup.ReadIdentityFile(path); err != nil {
		return keys, path, false, usageErrorf("%v", err)
	}
	return keys, path, true, nil
}

// safetyEncryption encrypts the safety backup like a scheduled one when
// recipients are configured, and otherwise with the key that decrypts the
// backup being restored, which the user evidently holds.
func safetyEncryption(cfg config.Backup, keys backup.Keys) (backup.Encryption, error) {
	// The configured recipients, else the default identity (made if need
	// be): a safety backup is never plaintext unless encryption is off.
	enc, err := backup.ConfiguredEncryption(cfg)
	if err == nil || !errors.Is(err, backup.ErrNoRecipients) {
		return enc, err
	}
	if keys.Passphrase != nil {
		return backup.Encryption{Passphrase: keys.Passphrase, ScryptWorkFactor: daemon.ScryptWorkFactor}, nil
	}
	var rs []string
	for _, id := range keys.Identities {
		if x, ok := id.(*age.X25519Identity); ok {
			rs = append(rs, x.Recipient().String())
		}
	}
	if len(rs) > 0 {
		return backup.Encryption{Recipients: rs}, nil
	}
	return backup.Encryption{}, configError{fmt.Errorf("%w\nhint: add a recipient from 'infmem backup keygen' to \"backup.recipients\", or pass --no-safety-backup", err)}
}

// explainRefusal adds what the user can do to a refused backup file.
func explainRefusal(err error, backupsDir string) error {
	var r *backup.RefusedError
	if !errors.As(err, &r) {
		return err
	}
	hint := ""
	switch {
	case errors.Is(err, backup.ErrKeyNeeded):
		hint = "give the passphrase (prompt, --passphrase-file or $" + EnvBackupPassphrase + ") or the identity file (-i) the backup was made with"
	case errors.Is(err, backup.ErrWrongPassphrase):
		hint = "use the passphrase given when this backup was made"
	case errors.Is(err, backup.ErrWrongKey):
		hint = "use the identity file whose public key was in backup.recipients when this backup was made"
	case errors.Is(err, backup.ErrTruncated), errors.Is(err, backup.ErrDamaged):
		hint = "choose another backup: 'infmem backups --verify' checks each one in " + backupsDir
	case errors.Is(err, backup.ErrEmpty), errors.Is(err, backup.ErrNotBackup):
		hint = "'infmem backups' lists the backups in " + backupsDir
	case errors.Is(err, backup.ErrNewerSchema):
		hint = "upgrade infmem, then restore again"
	}
	return fmt.Errorf("%w; nothing was changed\nhint: %s", err, hint)
}

func printContents(env *cliEnv, c *backup.Contents) {
	w := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "backup\t%s\n", c.File)
	fmt.Fprintf(w, "size\t%s, %s\n", humanBytes(c.Size), c.Encryption)
	if c.Manifest != nil {
		fmt.Fprintf(w, "made\t%s by infmem %s (%s backup, schema %d)\n", c.Manifest.CreatedAt.Local().Format(time.DateTime), c.Manifest.InfmemVersion, c.Manifest.Kind, c.Manifest.SchemaVersion)
	} else {
		fmt.Fprintf(w, "made\tunknown (no manifest beside the file)\n")
	}
	fmt.Fprintf(w, "database\t%s (server %s, %s)\n", c.Database, c.ServerVersion, c.ToolVersion)
	if !c.From.IsZero() {
		fmt.Fprintf(w, "memories\tfrom %s to %s\n", c.From.Local().Format(time.DateTime), c.To.Local().Format(time.DateTime))
	}
	for _, cc := range c.Collections {
		fmt.Fprintf(w, "  %s\t%s, %s, %s\n", cc.Name, plural(int(cc.Documents), "document", "documents"), humanBytes(cc.Bytes), plural(len(cc.Indexes), "index", "indexes"))
	}
	w.Flush()
}
