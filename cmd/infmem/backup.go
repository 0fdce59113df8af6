package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/internal/config"
)

// EnvBackupPassphrase holds a backup passphrase for scripts; a passphrase
// is never accepted as a command-line argument, where other users of the
// machine could read it.
const EnvBackupPassphrase = "INFMEM_BACKUP_PASSPHRASE"

// EnvBackupIdentity names the default identity file: where 'backup keygen'
// writes and where 'restore' looks when no -i is given.
const EnvBackupIdentity = "INFMEM_BACKUP_IDENTITY"

type backupOptions struct {
	common         commonFlags
	passphrase     bool
	passphraseFile string
	noEncrypt      bool
	json           bool
}

const backupUsage = "backup [--passphrase | --passphrase-file FILE | --no-encrypt] [--json] [--config FILE] [--data-dir DIR]\n       infmem backup keygen [-o FILE]"

var backupCommand = command{
	summary: "write an encrypted backup of the memory into backups/ (backup keygen: make a key)",
	usage:   backupUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		if len(args) > 0 && args[0] == "keygen" {
			return keygenMain(ctx, env, args[1:])
		}
		if err := refusePassphraseArg(args); err != nil {
			return err
		}
		var opts backupOptions
		fs := newFlagSet("backup", env, backupUsage)
		opts.common.register(fs)
		fs.BoolVar(&opts.passphrase, "passphrase", false, "encrypt with a passphrase typed at a prompt (or taken from $"+EnvBackupPassphrase+")")
		fs.StringVar(&opts.passphraseFile, "passphrase-file", "", "encrypt with the passphrase in FILE (its first line)")
		fs.BoolVar(&opts.noEncrypt, "no-encrypt", false, "write an unencrypted backup (refused when backup.encryption is required)")
		fs.BoolVar(&opts.json, "json", false, "print the result as JSON")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usageErrorf("backup takes no arguments; did you mean 'infmem backup keygen'?")
		}
		return runBackup(ctx, opts, env)
	},
}

func runBackup(ctx context.Context, opts backupOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, env.stderr, true)
	if err != nil {
		return err
	}
	args, err := manualEncryption(s.cfg.Backup, opts, env)
	if err != nil {
		return err
	}
	d, err := s.runningDaemon(ctx)
	if err != nil {
		return err
	}
	var res *backup.Result
	if d != nil {
		res, err = backupViaDaemon(ctx, d, args, env)
	} else {
		res, err = backupInProcess(ctx, s, args, env)
	}
	if err != nil {
		return err
	}
	if opts.json {
		return printJSON(env.stdout, res)
	}
	fmt.Fprintf(env.stdout, "backup written: %s\n", res.Path)
	fmt.Fprintf(env.stdout, "  %s, %s, %s\n", plural(int(res.Documents()), "document", "documents"), humanBytes(res.Manifest.Size), describeEncryption(res.Manifest))
	if res.Manifest.Encryption == backup.EncryptionNone {
		fmt.Fprintf(env.stderr, "infmem: warning: this backup is not encrypted; anyone who can read the file can read your memory\nhint: run 'infmem backup keygen' and add the recipient it prints to \"backup.recipients\", or use --passphrase\n")
	}
	return nil
}

// backupInProcess opens the database itself: no daemon holds it.
func backupInProcess(ctx context.Context, s *session, args daemon.BackupJobArgs, env *cliEnv) (*backup.Result, error) {
	enc, err := args.EncryptionFor(s.cfg.Backup)
	if err != nil {
		return nil, err
	}
	store, err := s.openStoreToRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot open the database to back it up: %w", err)
	}
	defer store.Close(context.WithoutCancel(ctx))
	bar, endBar := progressBar(env)
	started := time.Now().UTC()
	res, err := backup.Create(ctx, store, backup.Options{
		Dir: s.root.BackupsDir(), Kind: backup.KindManual, Encryption: enc,
		Progress: bar, Logger: s.log,
	})
	endBar()
	daemon.RecordManualRun(ctx, store, started, res, err, s.log)
	return res, err
}

// backupViaDaemon asks the daemon, which owns the database, to make the
// backup. A passphrase travels over the control socket, which only this
// user can open; the daemon neither logs nor keeps it.
func backupViaDaemon(ctx context.Context, d *runningDaemon, args daemon.BackupJobArgs, env *cliEnv) (*backup.Result, error) {
	var res backup.Result
	if err := d.run(ctx, env, daemon.JobBackup, args, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// manualEncryption decides how a backup made from the terminal is
// encrypted: an explicit passphrase wins, then the configured recipients;
// when encryption is required and there are none, a passphrase is asked for.
func manualEncryption(cfg config.Backup, opts backupOptions, env *cliEnv) (daemon.BackupJobArgs, error) {
	explicit := opts.passphrase || opts.passphraseFile != "" || env.getenv(EnvBackupPassphrase) != ""
	if opts.noEncrypt {
		if opts.passphrase || opts.passphraseFile != "" {
			return daemon.BackupJobArgs{}, usageErrorf("--no-encrypt cannot be combined with --passphrase or --passphrase-file")
		}
		if cfg.Encryption == "required" {
			return daemon.BackupJobArgs{}, usageErrorf("--no-encrypt is refused: the config sets backup.encryption to required")
		}
		return daemon.BackupJobArgs{Encryption: daemon.EncNone}, nil
	}
	if explicit {
		p, err := readPassphraseText(env, opts.passphraseFile, true)
		if err != nil {
			return daemon.BackupJobArgs{}, err
		}
		return daemon.BackupJobArgs{Encryption: daemon.EncPassphrase, Passphrase: p}, nil
	}
	_, err := backup.ConfiguredEncryption(cfg)
	if errors.Is(err, backup.ErrNoRecipients) {
		if !isTerminal(env.stdin) {
			return daemon.BackupJobArgs{}, usageErrorf("backup.encryption is required, no recipients are configured, and there is no terminal to ask for a passphrase\nhint: use --passphrase-file FILE or $%s, or add a recipient from 'infmem backup keygen' to \"backup.recipients\"", EnvBackupPassphrase)
		}
		p, err := readPassphraseText(env, "", true)
		if err != nil {
			return daemon.BackupJobArgs{}, err
		}
		return daemon.BackupJobArgs{Encryption: daemon.EncPassphrase, Passphrase: p}, nil
	}
	if err != nil {
		return daemon.BackupJobArgs{}, err
	}
	return daemon.BackupJobArgs{Encryption: daemon.EncConfigured}, nil
}

// readPassphrase takes the passphrase from file, then $INFMEM_BACKUP_PASSPHRASE,
// then a prompt without echo on the terminal (twice when confirm is set).
func readPassphrase(env *cliEnv, file string, confirm bool) (*backup.Passphrase, error) {
	text, err := readPassphraseText(env, file, confirm)
	if err != nil {
		return nil, err
	}
	return backup.NewPassphrase(string(text))
}

// readPassphraseText is readPassphrase for a passphrase that goes to the
// daemon; it is never empty.
func readPassphraseText(env *cliEnv, file string, confirm bool) (daemon.WirePassphrase, error) {
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return "", usageErrorf("cannot read --passphrase-file: %v", err)
		}
		line, _, _ := strings.Cut(string(data), "\n")
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			return "", usageErrorf("--passphrase-file %s: the first line is empty", file)
		}
		if fi, err := os.Stat(file); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
			fmt.Fprintf(env.stderr, "infmem: warning: the passphrase file %s is readable by other users (mode %04o)\nhint: chmod 600 %s\n", file, fi.Mode().Perm(), file)
		}
		return daemon.WirePassphrase(line), nil
	}
	if v := env.getenv(EnvBackupPassphrase); v != "" {
		return daemon.WirePassphrase(v), nil
	}
	if !isTerminal(env.stdin) {
		return "", usageErrorf("a passphrase is needed and there is no terminal to ask for it\nhint: use --passphrase-file FILE or set $%s", EnvBackupPassphrase)
	}
	fd := int(env.stdin.(*os.File).Fd())
	fmt.Fprint(env.stderr, "Backup passphrase: ")
	first, err := term.ReadPassword(fd)
	fmt.Fprintln(env.stderr)
	if err != nil {
		return "", fmt.Errorf("cannot read the passphrase: %w", err)
	}
	if confirm {
		fmt.Fprint(env.stderr, "Again, to confirm: ")
		second, err := term.ReadPassword(fd)
		fmt.Fprintln(env.stderr)
		if err != nil {
			return "", fmt.Errorf("cannot read the passphrase: %w", err)
		}
		if string(first) != string(second) {
			return "", usageErrorf("the two passphrases differ")
		}
	}
	if len(first) == 0 {
		return "", usageErrorf("the passphrase is empty")
	}
	return daemon.WirePassphrase(first), nil
}

// refusePassphraseArg stops '--passphrase=SECRET' before the flag package
// echoes the value back in its error.
func refusePassphraseArg(args []string) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--passphrase=") || strings.HasPrefix(a, "-passphrase=") {
			return usageErrorf("--passphrase takes no value: a passphrase on the command line is visible to other users of this machine\nhint: type it at the prompt, or use --passphrase-file FILE or $%s", EnvBackupPassphrase)
		}
	}
	return nil
}

func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

func describeEncryption(m backup.Manifest) string {
	switch m.Encryption {
	case backup.EncryptionRecipients:
		if len(m.Recipients) == 1 {
			return "encrypted to 1 age key"
		}
		return fmt.Sprintf("encrypted to %d age keys", len(m.Recipients))
	case backup.EncryptionPassphrase:
		return "encrypted with a passphrase"
	}
	return "NOT encrypted"
}

// --- keygen ---

type keygenOptions struct {
	out string
}

func keygenMain(ctx context.Context, env *cliEnv, args []string) error {
	var opts keygenOptions
	fs := newFlagSet("backup keygen", env, "backup keygen [-o FILE]")
	fs.StringVar(&opts.out, "o", "", "identity file to write (default: $"+EnvBackupIdentity+", then <user config dir>/infmem/backup-identity.txt)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("backup keygen takes no arguments")
	}
	return runKeygen(ctx, opts, env)
}

func runKeygen(_ context.Context, opts keygenOptions, env *cliEnv) error {
	path := opts.out
	if path == "" {
		var err error
		if path, err = defaultIdentityPath(env); err != nil {
			return err
		}
	}
	recipient, err := backup.GenerateIdentity(path, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "identity written to %s\n", path)
	fmt.Fprintf(env.stderr, "Keep a copy of it somewhere safe and away from the backups: backups encrypted to it cannot be restored without it.\n")
	fmt.Fprintf(env.stderr, "Put its public key in the config so scheduled backups are encrypted to it:\n  \"backup\": {\"recipients\": [%q]}\n", recipient)
	fmt.Fprintln(env.stdout, recipient)
	return nil
}

func defaultIdentityPath(env *cliEnv) (string, error) {
	if p := env.getenv(EnvBackupIdentity); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", usageErrorf("cannot find the user config directory (%v), where the backup identity file is kept by default\nhint: name the identity file with -o for 'backup keygen' and -i for 'restore' and 'backups --verify', or set $%s to its path", err, EnvBackupIdentity)
	}
	return filepath.Join(dir, "infmem", "backup-identity.txt"), nil
}

// --- output helpers shared by backup, restore, backups and export ---

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// plural is "1 memory", "2 memories".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// progressBar draws progress on stderr when it is a terminal, and nothing
// otherwise (a pipe, a log file, a test). end finishes a line left open by
// a step that failed, so an error message starts on a line of its own.
func progressBar(env *cliEnv) (report func(backup.Progress), end func()) {
	if !isTerminal(env.stderr) {
		return nil, func() {}
	}
	w := bufio.NewWriter(env.stderr)
	open := false
	report = func(p backup.Progress) {
		fmt.Fprintf(w, "\r\033[K%s", progressLine(p))
		open = !p.Done
		if p.Done {
			fmt.Fprintln(w)
		}
		w.Flush()
	}
	end = func() {
		if open {
			fmt.Fprintln(w)
			w.Flush()
			open = false
		}
	}
	return report, end
}

func progressLine(p backup.Progress) string {
	const width = 24
	frac := -1.0
	var detail []string
	switch {
	case p.TotalBytes > 0:
		frac = float64(p.Bytes) / float64(p.TotalBytes)
		detail = append(detail, humanBytes(p.Bytes)+" of "+humanBytes(p.TotalBytes))
	case p.TotalDocs > 0:
		frac = float64(p.Docs) / float64(p.TotalDocs)
		detail = append(detail, fmt.Sprintf("%d of %d documents", p.Docs, p.TotalDocs))
	case p.Collections > 0:
		frac = float64(p.CollectionsDone) / float64(p.Collections)
	}
	if p.TotalDocs == 0 && p.Docs > 0 {
		detail = append(detail, plural(int(p.Docs), "document", "documents"))
	}
	if p.Collections > 0 {
		detail = append(detail, fmt.Sprintf("%d/%d collections", p.CollectionsDone, p.Collections))
	}
	if p.TotalBytes == 0 && p.Bytes > 0 {
		detail = append(detail, humanBytes(p.Bytes))
	}
	if p.Done {
		frac = 1
	}
	bar := ""
	if frac >= 0 {
		frac = min(max(frac, 0), 1)
		n := int(frac * width)
		bar = fmt.Sprintf(" [%s%s] %3d%%", strings.Repeat("#", n), strings.Repeat(".", width-n), int(frac*100))
	}
	return fmt.Sprintf("%s: %-9s%s  %s", p.Op, p.Step, bar, strings.Join(detail, ", "))
}
