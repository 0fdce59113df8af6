package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/mongostore"
)

func osGetenv(k string) string { return os.Getenv(k) }

// commonFlags are accepted by every subcommand that touches data.
type commonFlags struct {
	configPath string
	dataDir    string
	logLevel   string
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.configPath, "config", "", "config file (default: $INFMEM_CONFIG, then <user config dir>/infmem/config.json)")
	fs.StringVar(&c.dataDir, "data-dir", "", "data root (default: $INFMEM_DATA_DIR, then the config's data_dir, then the OS default)")
	fs.StringVar(&c.logLevel, "log-level", "", "debug, info, warn or error (default: the config's logging.level)")
}

// newFlagSet makes a flag set that reports errors instead of exiting.
// parseFlags prints its usage when asked for -h, and turns a bad flag into
// one usage error, printed once by report.
func newFlagSet(name string, env *cliEnv, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package prints the error and the usage itself when a flag is
	// wrong; parseFlags says it instead, so nothing is printed twice.
	fs.SetOutput(&flagOutput{stderr: env.stderr, name: name, usage: usage})
	fs.Usage = func() {}
	return fs
}

// flagOutput is a flag set's output: it swallows what the flag package
// prints and remembers where and what parseFlags prints instead.
type flagOutput struct {
	stderr io.Writer
	name   string
	usage  string
}

func (flagOutput) Write(p []byte) (int, error) { return len(p), nil }

// parseFlags parses args and turns flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil {
		return nil
	}
	out, ok := fs.Output().(*flagOutput)
	if err == flag.ErrHelp {
		if ok {
			fmt.Fprintf(out.stderr, "Usage: infmem %s\n\n", out.usage)
			fs.SetOutput(out.stderr)
			fs.PrintDefaults()
			fs.SetOutput(out)
		}
		return errHelpShown
	}
	if !ok {
		return usageError{err.Error()}
	}
	cmd, _, _ := strings.Cut(out.name, " ")
	return usageErrorf("%v\nusage: infmem %s\nhint: 'infmem help %s' lists its flags", err, out.usage, cmd)
}

// session is the resolved configuration and data root of one invocation.
type session struct {
	cfg    config.Config
	src    config.Source
	root   dataroot.Root
	rootBy string
	log    *slog.Logger
}

// setup loads the config, resolves and prepares the data root, and builds
// the logger. Every failure here is a configError. terminalCommand lowers
// the default log level to warn for commands a person runs and reads.
func setup(c commonFlags, env *cliEnv, logTo io.Writer, terminalCommand bool) (*session, error) {
	s, err := setupUnprepared(c, env, logTo, terminalCommand)
	if err != nil {
		return nil, err
	}
	return s, s.prepare()
}

// setupUnprepared is setup without creating the data root: its root is
// where the data root is, which prepare makes ready.
func setupUnprepared(c commonFlags, env *cliEnv, logTo io.Writer, terminalCommand bool) (*session, error) {
	cfg, src, err := loadConfig(c, env)
	if err != nil {
		return nil, err
	}
	dir, how, err := dataroot.Resolve(c.dataDir, env.getenv, cfg.DataDir)
	if err != nil {
		return nil, configError{err}
	}
	root := dataroot.Root{Dir: dir}
	level := cfg.Logging.Level
	if c.logLevel == "" && terminalCommand {
		// A terminal command reports its outcome itself; its log shows only trouble.
		level = "warn"
	}
	return &session{cfg: cfg, src: src, root: root, rootBy: how, log: newLogger(logTo, level)}, nil
}

// prepare creates the data root and its folders if need be (private to
// the user) and refuses one others can write.
func (s *session) prepare() error {
	root, err := dataroot.Prepare(s.root.Dir)
	if err != nil {
		return configError{fmt.Errorf("%w (data root chosen by %s)", err, s.rootBy)}
	}
	s.root = root
	return nil
}

// loadConfig locates and reads the configuration (--config, $INFMEM_CONFIG,
// the default location, else the built-in defaults) and applies
// --log-level. A config problem is a configError; a bad --log-level a
// usage error.
func loadConfig(c commonFlags, env *cliEnv) (config.Config, config.Source, error) {
	src, err := config.Locate(c.configPath, env.getenv, os.UserConfigDir)
	if err != nil {
		return config.Config{}, src, configError{err}
	}
	cfg := config.Defaults()
	if src.Path != "" {
		if cfg, err = config.ReadFile(src.Path); err != nil {
			return config.Config{}, src, configError{err}
		}
	}
	resolveIdentityFile(&cfg, env)
	if c.logLevel != "" {
		cfg.Logging.Level = c.logLevel
		if err := cfg.Validate(); err != nil {
			return config.Config{}, src, usageErrorf("--log-level %q is not one of debug, info, warn, error", c.logLevel)
		}
	}
	return cfg, src, nil
}

// resolveIdentityFile fills in the default backup identity when the config
// names none (see config.Backup.IdentityFile).
func resolveIdentityFile(cfg *config.Config, env *cliEnv) {
	if cfg.Backup.IdentityFile != "" {
		return
	}
	if p, err := defaultIdentityPath(env); err == nil {
		cfg.Backup.IdentityFile = p
	}
}

// configStamp identifies the version of the configuration loadConfig
// would read now: the file's path, size and modification time.
func configStamp(c commonFlags, env *cliEnv) string {
	src, err := config.Locate(c.configPath, env.getenv, os.UserConfigDir)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	if src.Path == "" {
		return src.How
	}
	fi, err := os.Stat(src.Path)
	if err != nil {
		return src.Path + ": " + err.Error()
	}
	return fmt.Sprintf("%s %d %d", src.Path, fi.Size(), fi.ModTime().UnixNano())
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(strings.ToUpper(level)))
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}

// openStore starts or reaches the configured engine, for a command that
// may change memories (a restore).
func (s *session) openStore(ctx context.Context) (*mongostore.Store, error) {
	return mongostore.Open(ctx, s.storeOptions(false))
}

// openStoreToRead is openStore for a command that changes no memory (a
// backup, an export, status): the daemon's index snapshot stays usable.
func (s *session) openStoreToRead(ctx context.Context) (*mongostore.Store, error) {
	return mongostore.Open(ctx, s.storeOptions(true))
}

func (s *session) storeOptions(readOnly bool) mongostore.Options {
	return mongostore.Options{
		Mode:              s.cfg.Mongo.Mode,
		URI:               s.cfg.Mongo.URI,
		MongodPath:        s.cfg.Mongo.MongodPath,
		Root:              s.root,
		Database:          s.cfg.Database,
		KeepIndexSnapshot: readOnly,
		Logger:            s.log,
	}
}

// runningDaemon is the daemon that serves a data root, as a terminal
// command sees it.
type runningDaemon struct {
	ep  control.Endpoints
	pid int
}

// runningDaemon returns the daemon serving the session's data root when one
// answers, and nil when none does: the command then does the work itself.
func (s *session) runningDaemon(ctx context.Context) (*runningDaemon, error) {
	ep, err := control.EndpointsFor(s.root)
	if err != nil {
		return nil, err
	}
	p := control.ProbeDaemon(ctx, ep)
	if p.Presence != control.Running {
		return nil, nil
	}
	return &runningDaemon{ep: ep, pid: p.Pong.PID}, nil
}

// run runs a job in the daemon and decodes its result into out. What the
// daemon refuses comes back as the error it gave, hint lines included.
func (d *runningDaemon) run(ctx context.Context, env *cliEnv, job string, args, out any) error {
	c, err := control.Dial(ctx, d.ep.Control)
	if err != nil {
		return err
	}
	defer c.Close()
	var progress func(json.RawMessage)
	if isTerminal(env.stderr) {
		fmt.Fprintf(env.stderr, "%s: running in the daemon (pid %d)\n", job, d.pid)
		// Backup and export report backup.Progress; other jobs report none.
		bar, endBar := progressBar(env)
		defer endBar()
		progress = func(raw json.RawMessage) {
			var p backup.Progress
			if json.Unmarshal(raw, &p) == nil {
				bar(p)
			}
		}
	}
	// Leaving (Ctrl-C) closes the connection, which cancels the job.
	err = c.RunWithProgress(ctx, job, args, out, progress)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil && !errors.Is(err, control.ErrRefused) {
		return fmt.Errorf("%s interrupted; the daemon (pid %d) stopped it", job, d.pid)
	}
	if !errors.Is(err, control.ErrRefused) {
		return fmt.Errorf("the daemon (pid %d) did not finish the %s: %w\nhint: see %s", d.pid, job, err, d.ep.LogFile())
	}
	msg := strings.TrimPrefix(err.Error(), control.ErrRefused.Error()+" "+control.OpRun+": ")
	if rest, ok := strings.CutPrefix(msg, job+": "); ok {
		return errors.New(rest)
	}
	// A daemon that does not know the job is older than this command.
	return fmt.Errorf("%s\nhint: restart the daemon so it runs this version of infmem: 'infmem restart'", msg)
}

// redactor replaces a secret-bearing connection string in error text.
func redactor(uri, redacted string) func(string) string {
	return func(s string) string {
		if uri == "" || uri == redacted {
			return s
		}
		return strings.ReplaceAll(s, uri, redacted)
	}
}
