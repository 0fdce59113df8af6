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
	"time"

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

// newFlagSet makes a flag set that reports errors instead of exiting and
// prints its usage to stderr.
func newFlagSet(name string, env *cliEnv, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "Usage: infmem %s\n\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and turns flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return errHelpShown
		}
		return usageError{err.Error()}
	}
	return nil
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
	src, err := config.Locate(c.configPath, env.getenv, os.UserConfigDir)
	if err != nil {
		return nil, configError{err}
	}
	cfg := config.Defaults()
	if src.Path != "" {
		if cfg, err = config.ReadFile(src.Path); err != nil {
			return nil, configError{err}
		}
	}
	if c.logLevel != "" {
		cfg.Logging.Level = c.logLevel
		if err := cfg.Validate(); err != nil {
			return nil, usageErrorf("--log-level %q is not one of debug, info, warn, error", c.logLevel)
		}
	}
	dir, how, err := dataroot.Resolve(c.dataDir, env.getenv, cfg.DataDir)
	if err != nil {
		return nil, configError{err}
	}
	root, err := dataroot.Prepare(dir)
	if err != nil {
		return nil, configError{fmt.Errorf("%w (data root chosen by %s)", err, how)}
	}
	level := cfg.Logging.Level
	if c.logLevel == "" && terminalCommand {
		// A terminal command reports its outcome itself; its log shows only trouble.
		level = "warn"
	}
	return &session{cfg: cfg, src: src, root: root, rootBy: how, log: newLogger(logTo, level)}, nil
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
	return fmt.Errorf("%s\nhint: restart the daemon so it runs this version of infmem: 'infmem stop', then 'infmem start'", msg)
}

// location is the user's time zone: the config's time_zone, else the system's.
func (s *session) location() *time.Location {
	if s.cfg.TimeZone == "" {
		return time.Local
	}
	loc, err := time.LoadLocation(s.cfg.TimeZone)
	if err != nil {
		return time.Local
	}
	return loc
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
