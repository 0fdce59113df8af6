package main

import (
	"context"
	"errors"
	"fmt"
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
		fs.BoolVar(&opts.verify, "verify", false, "decrypt and read each backup completely (encrypted ones need -i or a passphrase)")
		fs.Var(&opts.identities, "i", "age identity file for --verify (repeatable)")
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
	checkNeedsKey   = "needs key"   // --verify without the key for it
	checkFailed     = "FAILED"
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
	var keys backup.Keys
	if opts.verify {
		for _, f := range opts.identities {
			k, err := backup.ReadIdentityFile(f)
			if err != nil {
				return usageErrorf("%v", err)
			}
			keys.Identities = append(keys.Identities, k.Identities...)
			keys.IdentityFile = f
		}
		if opts.passphraseFile != "" || env.getenv(EnvBackupPassphrase) != "" {
			if keys.Passphrase, err = readPassphrase(env, opts.passphraseFile, false); err != nil {
				return err
			}
		}
	}
	failed := 0
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
			c, err := backup.Verify(ctx, e.Path, keys, nil)
			switch {
			case errors.Is(err, backup.ErrKeyNeeded):
				row.Check = checkNeedsKey
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
	if failed > 0 {
		return fmt.Errorf("%d of %d backups failed their check\nhint: do not rely on them; 'infmem backup' writes a new one", failed, len(rows))
	}
	return nil
}
