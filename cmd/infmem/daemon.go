package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/kardianos/service"
	"golang.org/x/term"

	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/installer"
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
	var console io.Writer
	if service.Interactive() && writerIsTerminal(env.stderr) {
		console = env.stderr
	}
	lg, err := logging.Open(logging.Options{
		Path:    filepath.Join(s.root.LogsDir(), logging.FileName),
		Level:   s.cfg.Logging.Level,
		Console: console,
	})
	if err != nil {
		return configError{fmt.Errorf("cannot open the service log in %s: %w", s.root.LogsDir(), err)}
	}
	defer lg.Close()
	log := lg.Logger

	dopts := daemon.Options{Config: s.cfg, Root: s.root, Version: version.String(), Logger: log}
	newServices(s, log).apply(&dopts)
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

func writerIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
