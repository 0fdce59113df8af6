package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/kardianos/service"
	"golang.org/x/term"

	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/installer"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/logging"
	"github.com/infmem/infmem/internal/version"
)

type daemonOptions struct {
	common commonFlags
}

const daemonUsage = "daemon [--config FILE] [--data-dir DIR] [--log-level LEVEL]"

var daemonCommand = command{
	summary: "run the memory service (the login service runs it; 'infmem mcp' starts it when needed)",
	usage:   daemonUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		var opts daemonOptions
		fs := newFlagSet("daemon", env, daemonUsage)
		opts.common.register(fs)
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usageErrorf("daemon takes no arguments")
		}
		return runDaemon(ctx, opts, env)
	},
}

// runDaemon runs the daemon until SIGINT/SIGTERM, a service-manager stop or
// a control client's stop request. It logs to logs/memory_service.log, and
// to stderr too when a person watches it in a terminal.
func runDaemon(ctx context.Context, opts daemonOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, io.Discard, false)
	if err != nil {
		return err
	}
	if err := dataRootWritable(s.root.Dir); err != nil {
		return configError{err}
	}
	var console io.Writer
	if service.Interactive() && writerIsTerminal(env.stderr) {
		console = env.stderr
	}
	// The file takes every record; level, which a config reload may
	// change, decides which are written.
	lg, err := logging.Open(logging.Options{
		Path:    filepath.Join(s.root.LogsDir(), logging.FileName),
		Level:   "debug",
		Console: console,
	})
	if err != nil {
		return configError{fmt.Errorf("cannot open the service log in %s: %w", s.root.LogsDir(), err)}
	}
	defer lg.Close()
	level := new(slog.LevelVar)
	if l, err := logging.ParseLevel(s.cfg.Logging.Level); err == nil {
		level.Set(l)
	}
	log := slog.New(levelHandler{lg.Logger.Handler(), level})

	dopts := daemon.Options{Config: s.cfg, Root: s.root, Version: version.String(), Logger: log, LogLevel: level,
		ConfigSource: configSource(opts.common, env, s), ShutdownTimeout: stopDeadline - 2*time.Second}
	dopts.Config.DataDir = s.root.Dir
	d, err := daemon.Open(dopts)
	var running *daemon.RunningError
	if errors.As(err, &running) {
		// Not a failure: a daemon serves this root, which is what was
		// wanted. Exiting 0 also keeps systemd and launchd, which restart
		// a daemon that fails, from starting this one over and over.
		log.Info("another daemon serves this data root; exiting", "pid", running.PID)
		fmt.Fprintf(env.stderr, "infmem: %v; exiting\n", running)
		return nil
	}
	if err != nil {
		log.Error("daemon cannot start", "err", err)
		return err
	}
	log.Info("daemon starting", "config", s.src.How, "data_root_from", s.rootBy, "interactive", service.Interactive())
	defer stopWithin(ctx, d, log)()

	// A Windows Scheduled Task runs the daemon as an ordinary program, where
	// kardianos/service would wait for Ctrl-C only; run it directly there.
	if runtime.GOOS == "windows" && service.Interactive() {
		return d.Run(ctx)
	}
	cfg := installer.ServiceConfig(installer.Options{DataDir: s.root.Dir, ConfigFile: s.src.Path})
	cfg.Option["RunWait"] = func() {
		select {
		case <-ctx.Done():
		case <-d.Requested():
		}
	}
	svc, err := service.New(d, cfg)
	if err != nil {
		log.Debug("no service manager; running directly", "err", err)
		return d.Run(ctx)
	}
	return svc.Run()
}

// stopDeadline bounds a stop, whatever runs.
const stopDeadline = 10 * time.Second

// stopWithin makes sure that once a stop is asked for (SIGTERM, SIGINT,
// 'infmem stop'), the process ends within stopDeadline: the graceful stop
// has stopDeadline-2s for everything; should something still hold it
// (work that does not heed cancellation), the process exits anyway, which
// is as safe as a crash: every acknowledged write is synced and the next
// start recovers (the fault tests' kill -9). Call the returned function
// when the daemon has stopped.
func stopWithin(ctx context.Context, d *daemon.Daemon, log *slog.Logger) (stopped func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-d.Requested():
		case <-done:
			return
		}
		select {
		case <-done:
		case <-time.After(stopDeadline):
			log.Error("the daemon did not stop within its deadline; exiting now (the next start recovers as after a crash)", "deadline", stopDeadline)
			os.Exit(exitFailure)
		}
	}()
	return func() { close(done) }
}

// configSource is how the daemon reads its configuration again: as this
// command read it (the same --config, $INFMEM_CONFIG and --log-level),
// with data_dir replaced by the data root it resolves to, so that a change
// of data_dir that --data-dir or $INFMEM_DATA_DIR overrides is no change.
func configSource(c commonFlags, env *cliEnv, s *session) *daemon.ConfigSource {
	return &daemon.ConfigSource{
		Path: s.src.Path,
		Load: func() (config.Config, string, error) {
			cfg, src, err := loadConfig(c, env)
			if err != nil {
				return config.Config{}, src.Path, err
			}
			dir, _, err := dataroot.Resolve(c.dataDir, env.getenv, cfg.DataDir)
			if err != nil {
				return config.Config{}, src.Path, err
			}
			cfg.DataDir = dir
			return cfg, src.Path, nil
		},
		Stamp: func() string { return configStamp(c, env) },
	}
}

// levelHandler writes the records at or above a level that can change.
type levelHandler struct {
	h     slog.Handler
	level *slog.LevelVar
}

func (l levelHandler) Enabled(ctx context.Context, lv slog.Level) bool {
	return lv >= l.level.Level() && l.h.Enabled(ctx, lv)
}
func (l levelHandler) Handle(ctx context.Context, r slog.Record) error { return l.h.Handle(ctx, r) }
func (l levelHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return levelHandler{l.h.WithAttrs(a), l.level}
}
func (l levelHandler) WithGroup(name string) slog.Handler {
	return levelHandler{l.h.WithGroup(name), l.level}
}

func writerIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
