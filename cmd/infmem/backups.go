package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/infmem/infmem/backup"
)

type backupsOptions struct {
	common         commonFlags
	verify         bool
	identities     stringList
	passphraseFile string
	json           bool
}

const backupsUsage = "backups [--verify [-i IDENTITY]... [--passphrase-file FILE]] [--json] [--config FILE] [--data-dir DIR]"

var backupsCommand = command{
	summary: "list the backups with their date, size, encryption and whether they check out",
	usage:   backupsUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		if err := refusePassphraseArg(args); err != nil {
			return err
		}
		var opts backupsOptions
		fs := newFlagSet("backups", env, backupsUsage)
		opts.common.register(fs)
		fs.BoolVar(&opts.verify, "verify", false, "decrypt and read each backup completely (encrypted ones need their identity file or passphrase)")
		fs.Var(&opts.identities, "i", "age identity file for --verify (repeatable; default: $"+EnvBackupIdentity+", then the file 'backup keygen' writes)")
		fs.StringVar(&opts.passphraseFile, "passphrase-file", "", "passphrase for --verify, first line of FILE ($"+EnvBackupPassphrase+" also works)")
		fs.BoolVar(&opts.json, "json", false, "print machine-readable JSON")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usageErrorf("backups takes no arguments")
		}
		return runBackups(ctx, opts, env)
	},
}

// backupListing is one line of the listing.
type backupListing struct {
	File       string           `json:"file"`
	Path       string           `json:"path"`
	CreatedAt  time.Time        `json:"created_at"`
	Size       int64            `json:"size"`
	Kind       string           `json:"kind"`
	Encryption string           `json:"encryption"`
	Documents  int64            `json:"documents"`
	Check      string           `json:"check"`
	Problem    string           `json:"problem,omitempty"`
	Manifest   *backup.Manifest `json:"manifest,omitempty"`
}

// Check outcomes.
const (
	checkOK         = "ok"          // size and checksum match the manifest
	checkVerified   = "verified"    // decrypted and read completely
	checkNoManifest = "no manifest" // nothing to compare with
	checkNeedsKey   = "needs key"   // --verify without the identity for it
	// --verify of a passphrase backup without a passphrase.
	checkNeedsPassphrase = "needs passphrase"
	// --verify with a key that does not open the file: the key is wrong,
	// the file is not shown to be damaged.
	checkWrongPassphrase = "wrong passphrase"
	checkWrongKey        = "wrong key"
	checkFailed          = "FAILED" // damaged or truncated
)

func runBackups(ctx context.Context, opts backupsOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, env.stderr, true)
	if err != nil {
		return err
	}
	entries, err := backup.List(s.root.BackupsDir())
	if err != nil {
		return err
	}
	var keys verifyKeys
	if opts.verify {
		if keys, err = verifyKeysFor(entries, opts, env); err != nil {
			return err
		}
	}
	failed, unopened := 0, 0
	var rows []backupListing
	for i := range entries {
		e := &entries[i]
		row := backupListing{File: e.File, Path: e.Path, CreatedAt: e.CreatedAt, Size: e.Size, Kind: string(e.Kind()),
			Encryption: e.Encryption(), Manifest: e.Manifest}
		if e.Manifest != nil {
			for _, n := range e.Manifest.Collections {
				row.Documents += n
			}
		}
		err := e.Check()
		switch {
		case errors.Is(err, backup.ErrNoManifest):
			row.Check = checkNoManifest
		case err != nil:
			row.Check, row.Problem = checkFailed, err.Error()
		default:
			row.Check = checkOK
		}
		if opts.verify && row.Check != checkFailed {
			intact := row.Check == checkOK
			c, err := backup.Verify(ctx, e.Path, keys.Keys, nil)
			switch {
			case errors.Is(err, backup.ErrKeyNeeded):
				row.Check, row.Problem = checkNeedsKey, keys.needed(e)
				if mode, _ := backup.EncryptionOf(e.Path); mode == backup.EncryptionPassphrase {
					row.Check = checkNeedsPassphrase
				}
			case errors.Is(err, backup.ErrWrongPassphrase):
				row.Check, row.Problem = checkWrongPassphrase, keys.wrongPassphrase(intact)
				unopened++
			case errors.Is(err, backup.ErrWrongKey):
				row.Check, row.Problem = checkWrongKey, keys.wrongKey(e, intact)
				unopened++
			case err != nil:
				row.Check, row.Problem = checkFailed, err.Error()
			default:
				row.Check, row.Encryption, row.Documents = checkVerified, c.Encryption, c.Documents()
			}
		}
		if row.Check == checkFailed {
			failed++
		}
		rows = append(rows, row)
	}
	if opts.json {
		if rows == nil {
			rows = []backupListing{}
		}
		if err := printJSON(env.stdout, rows); err != nil {
			return err
		}
	} else if len(rows) == 0 {
		fmt.Fprintf(env.stdout, "no backups in %s\n", s.root.BackupsDir())
	} else {
		w := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "DATE\tFILE\tKIND\tSIZE\tENCRYPTION\tDOCUMENTS\tCHECK")
		for _, r := range rows {
			kind, docs := r.Kind, fmt.Sprint(r.Documents)
			if kind == "" {
				kind, docs = "-", "-"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.CreatedAt.Local().Format(time.DateTime), r.File, kind,
				humanBytes(r.Size), r.Encryption, docs, r.Check)
		}
		w.Flush()
		for _, r := range rows {
			if r.Problem != "" {
				fmt.Fprintf(env.stdout, "%s: %s\n", r.File, r.Problem)
			}
		}
	}
	// A key that does not open a backup says nothing about the backup:
	// it is reported apart from damage, and never as a reason to distrust it.
	var msg []string
	if failed > 0 {
		msg = append(msg, fmt.Sprintf("%d of %s failed their check", failed, plural(len(rows), "backup", "backups")),
			"hint: do not rely on them; 'infmem backup' writes a new one")
	}
	if unopened > 0 {
		what := fmt.Sprintf("wrong passphrase or key: %d of %s could not be verified, because the key given does not open them; that does not make them damaged", unopened, plural(len(rows), "backup", "backups"))
		if failed > 0 {
			what = fmt.Sprintf("%d more could not be verified: wrong passphrase or key (the key given does not open them; that does not make them damaged)", unopened)
		}
		msg = append(msg, what,
			"hint: for backups encrypted to an age key pass -i IDENTITY (the file 'infmem backup keygen' wrote); for passphrase backups set $"+EnvBackupPassphrase+" or --passphrase-file to the passphrase they were made with")
	}
	if len(msg) > 0 {
		return errors.New(strings.Join(msg, "\n"))
	}
	return nil
}

// verifyKeys are the keys 'backups --verify' decrypts with, and where they
// came from, for messages (never the secrets themselves).
type verifyKeys struct {
	backup.Keys
	// identitySource names the identity files; passSource says where the
	// passphrase came from. Each is empty when there is none.
	identitySource, passSource string
	// defaultIdentity is where the default identity file was looked for
	// when no -i was given.
	defaultIdentity string
}

// verifyKeysFor gathers the keys for --verify: the identity files given
// with -i or, without -i, the default identity file that restore also
// uses when an encrypted backup may need it; and the passphrase from
// --passphrase-file or the environment.
func verifyKeysFor(entries []backup.Entry, opts backupsOptions, env *cliEnv) (verifyKeys, error) {
	var keys verifyKeys
	for _, f := range opts.identities {
		k, err := backup.ReadIdentityFile(f)
		if err != nil {
			return keys, usageErrorf("%v", err)
		}
		keys.Identities = append(keys.Identities, k.Identities...)
	}
	if len(opts.identities) > 0 {
		keys.IdentityFile = strings.Join(opts.identities, ", ")
		keys.identitySource = keys.IdentityFile
	} else if slices.ContainsFunc(entries, func(e backup.Entry) bool {
		return e.Encrypted && e.Encryption() != backup.EncryptionPassphrase
	}) {
		k, path, found, err := defaultIdentity(env)
		if err != nil {
			return keys, err
		}
		keys.defaultIdentity = path
		if found {
			keys.Identities, keys.IdentityFile = k.Identities, k.IdentityFile
			keys.identitySource = path
		}
	}
	if opts.passphraseFile != "" || env.getenv(EnvBackupPassphrase) != "" {
		var err error
		if keys.Passphrase, err = readPassphrase(env, opts.passphraseFile, false); err != nil {
			return keys, err
		}
		keys.passSource = "$" + EnvBackupPassphrase
		if opts.passphraseFile != "" {
			keys.passSource = "--passphrase-file " + opts.passphraseFile
		}
	}
	return keys, nil
}

// needed says what to give for a backup that needs a key and got none.
func (k verifyKeys) needed(e *backup.Entry) string {
	if mode, _ := backup.EncryptionOf(e.Path); mode == backup.EncryptionPassphrase {
		return "encrypted with a passphrase; to verify it, set $" + EnvBackupPassphrase + " or pass --passphrase-file FILE"
	}
	where := ""
	if k.defaultIdentity != "" {
		where = " (there is none at " + k.defaultIdentity + ", where 'infmem backup keygen' writes it)"
	}
	return "encrypted to an age key; to verify it, pass -i IDENTITY with its identity file" + where
}

// wrongPassphrase explains a backup the passphrase given does not open.
func (k verifyKeys) wrongPassphrase(intact bool) string {
	return "wrong passphrase: the passphrase from " + k.passSource + " does not open it" + fileState(intact) +
		"; set $" + EnvBackupPassphrase + " or --passphrase-file to the passphrase it was made with"
}

// wrongKey explains a backup that no identity given opens.
func (k verifyKeys) wrongKey(e *backup.Entry, intact bool) string {
	to := "other age keys"
	if e.Manifest != nil && len(e.Manifest.Recipients) > 0 {
		to = strings.Join(e.Manifest.Recipients, ", ")
	}
	return "wrong key: it was encrypted to " + to + ", and no identity in " + k.identitySource + " matches" + fileState(intact) +
		"; pass -i IDENTITY with the identity file of that key"
}

// fileState says what is known of a file a key did not open.
func fileState(intact bool) string {
	if intact {
		return "; the file itself is intact (it matches its manifest)"
	}
	return " (it has no manifest, so a damaged header cannot be told apart)"
}
