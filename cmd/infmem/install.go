package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/installer"
	"github.com/infmem/infmem/internal/bridge"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/proc"
)

type installOptions struct {
	common    commonFlags
	dryRun    bool
	noService bool
}

const (
	installUsage   = "install [--dry-run] [--no-service] [--config FILE] [--data-dir DIR]"
	uninstallUsage = "uninstall [--dry-run] [--no-service] [--config FILE] [--data-dir DIR]"
)

var installCommand = command{
	summary: "register the login service and add infmem to Claude Desktop's config",
	usage:   installUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		opts, err := parseInstallFlags("install", installUsage, env, args)
		if err != nil {
			return err
		}
		return runInstall(ctx, opts, env, false)
	},
}

var uninstallCommand = command{
	summary: "remove the login service and infmem's entry in Claude Desktop's config (the data stays)",
	usage:   uninstallUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		opts, err := parseInstallFlags("uninstall", uninstallUsage, env, args)
		if err != nil {
			return err
		}
		return runInstall(ctx, opts, env, true)
	},
}

func parseInstallFlags(name, usage string, env *cliEnv, args []string) (installOptions, error) {
	var opts installOptions
	fs := newFlagSet(name, env, usage)
	opts.common.register(fs)
	fs.BoolVar(&opts.dryRun, "dry-run", false, "print what would change, and change nothing")
	fs.BoolVar(&opts.noService, "no-service", false, "leave the login service alone; only edit Claude Desktop's config")
	if err := parseFlags(fs, args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, usageErrorf("%s takes no arguments", name)
	}
	return opts, nil
}

// installTarget resolves what install and uninstall act on, without
// creating anything (a dry run changes nothing).
func installTarget(c commonFlags, env *cliEnv) (installer.Options, error) {
	src, err := config.Locate(c.configPath, env.getenv, os.UserConfigDir)
	if err != nil {
		return installer.Options{}, configError{err}
	}
	cfg := config.Defaults()
	if src.Path != "" {
		if cfg, err = config.ReadFile(src.Path); err != nil {
			return installer.Options{}, configError{err}
		}
	}
	dir, _, err := dataroot.Resolve(c.dataDir, env.getenv, cfg.DataDir)
	if err != nil {
		return installer.Options{}, configError{err}
	}
	def, _ := dataroot.Default(env.getenv)
	opts := installer.Options{DataDir: dir, DefaultDataDir: def, Env: env.getenv}
	// A config found at the default location is found there again by the
	// service and by Claude's 'infmem mcp'; one named explicitly is passed on.
	if src.How == "--config" || src.How == config.EnvConfig {
		opts.ConfigFile = src.Path
	}
	return opts, nil
}

func runInstall(ctx context.Context, opts installOptions, env *cliEnv, uninstall bool) error {
	target, err := installTarget(opts.common, env)
	if err != nil {
		return err
	}
	target.DryRun, target.NoService = opts.dryRun, opts.noService
	apply := func() error {
		if uninstall {
			_, err := installer.Uninstall(ctx, target, env.stdout)
			return err
		}
		_, err := installer.Install(ctx, target, env.stdout)
		return err
	}
	err = apply()
	// A machine without a per-user service manager (a container, a
	// server without a systemd user instance) still gets a working
	// install: Claude Desktop's entry, and a daemon started now ('infmem
	// mcp' starts one too whenever Claude needs it).
	fellBack := false
	if errors.Is(err, installer.ErrNoServiceManager) && !opts.noService {
		then := "; 'infmem mcp' starts the daemon whenever Claude needs it"
		if uninstall {
			then = ""
		}
		fmt.Fprintf(env.stdout, "Skipping the login service: %s.\nGoing on with Claude Desktop's entry only (as with --no-service)%s.\n",
			strings.TrimPrefix(err.Error(), "login service: "), then)
		target.NoService, fellBack = true, true
		err = apply()
	}
	switch {
	case err != nil || opts.dryRun:
	case uninstall:
		err = stopDaemonIfRunning(ctx, target.DataDir, env)
	case fellBack:
		err = runStart(ctx, startStopOptions{common: opts.common, wait: 30 * time.Second}, env)
	case !opts.noService:
		noteRunningDaemon(ctx, target.DataDir, env)
	}
	if err != nil {
		if hint := installer.Hint(err); hint != "" {
			return fmt.Errorf("%w\nhint: %s", err, hint)
		}
		return err
	}
	if uninstall {
		printKept(opts.common, env, opts.dryRun)
	}
	if !uninstall && !opts.dryRun {
		return ensureBackupKey(opts.common, env)
	}
	return nil
}

// printKept says what uninstall leaves, and where: the program, its
// config and the backup key (besides the data directory, which the
// installer names).
func printKept(c commonFlags, env *cliEnv, dryRun bool) {
	var kept []string
	if self, err := os.Executable(); err == nil {
		kept = append(kept, "the program: "+self)
	}
	if src, err := config.Locate(c.configPath, env.getenv, os.UserConfigDir); err == nil && src.Path != "" {
		kept = append(kept, "its config: "+src.Path)
	}
	if cfg, _, err := loadConfig(c, env); err == nil && cfg.Backup.IdentityFile != "" {
		if _, err := os.Stat(cfg.Backup.IdentityFile); err == nil {
			kept = append(kept, "the backup key: "+cfg.Backup.IdentityFile+" (backups cannot be restored without it)")
		}
	}
	if len(kept) == 0 {
		return
	}
	head := "Also kept (delete them yourself to remove infmem completely):"
	if dryRun {
		head = "It would also keep (delete them yourself to remove infmem completely):"
	}
	fmt.Fprintln(env.stdout, head)
	for _, k := range kept {
		fmt.Fprintln(env.stdout, "  "+k)
	}
}

// ensureBackupKey makes the identity backups are encrypted to when the
// config names no recipients (backups are encrypted out of the box) and
// tells the user to keep a copy of it elsewhere.
func ensureBackupKey(c commonFlags, env *cliEnv) error {
	cfg, _, err := loadConfig(c, env)
	if err != nil {
		return err
	}
	enc, err := backup.ConfiguredEncryption(cfg.Backup)
	switch {
	case err != nil:
		return err
	case enc.IdentityFile == "":
		return nil // recipients configured, or encryption off by choice
	}
	made := "Backups are encrypted to the key in"
	if enc.NewIdentity {
		made = "Made the key backups are encrypted to:"
	}
	fmt.Fprintf(env.stdout, "%s %s\nKeep a copy of that file away from this machine: a backup cannot be restored without it.\n", made, enc.IdentityFile)
	return nil
}

// noteRunningDaemon explains why a daemon that 'infmem mcp' started keeps
// serving after the login service was started: the root's lock admits one
// daemon, and the service's exits quietly while another holds it.
func noteRunningDaemon(ctx context.Context, dir string, env *cliEnv) {
	ep, err := control.EndpointsFor(dataroot.Root{Dir: dir})
	if err != nil {
		return
	}
	ls, err := installer.OpenLoginService(ctx, installer.Options{DataDir: dir, Env: env.getenv})
	if err != nil {
		return
	}
	if running, err := ls.Running(); err != nil || running {
		return // the service's own daemon is the one serving, or we cannot tell
	}
	if p := control.ProbeDaemon(ctx, ep); p.Presence == control.Running && p.Pong.PID > 0 {
		fmt.Fprintf(env.stdout, "Note: the daemon already running (pid %d) keeps serving; the login service runs it from the next login, or at once after 'infmem restart'.\n", p.Pong.PID)
	}
}

// stopDaemonIfRunning stops a daemon that 'infmem mcp' started, which the
// login service's removal does not reach.
func stopDaemonIfRunning(ctx context.Context, dir string, env *cliEnv) error {
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	ep, err := control.EndpointsFor(dataroot.Root{Dir: dir})
	if err != nil {
		return err
	}
	p := control.ProbeDaemon(ctx, ep)
	if p.Presence != control.Running {
		return nil
	}
	if err := shutdownDaemon(ctx, ep, p.Pong.PID); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Stopped the running daemon (pid %d).\n", p.Pong.PID)
	return nil
}

type startStopOptions struct {
	common commonFlags
	wait   time.Duration
}

func parseStartStop(name string, env *cliEnv, args []string) (startStopOptions, error) {
	var opts startStopOptions
	usage := name + " [--wait DURATION] [--config FILE] [--data-dir DIR]"
	fs := newFlagSet(name, env, usage)
	opts.common.register(fs)
	fs.DurationVar(&opts.wait, "wait", 30*time.Second, "how long to wait for the daemon")
	if err := parseFlags(fs, args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		return opts, usageErrorf("%s takes no arguments", name)
	}
	return opts, nil
}

var startCommand = command{
	summary: "start the daemon (through the login service when it is installed)",
	usage:   "start [--wait DURATION] [--config FILE] [--data-dir DIR]",
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		opts, err := parseStartStop("start", env, args)
		if err != nil {
			return err
		}
		return runStart(ctx, opts, env)
	},
}

var stopCommand = command{
	summary: "stop the daemon gracefully (Claude's next 'infmem mcp' starts it again)",
	usage:   "stop [--wait DURATION] [--config FILE] [--data-dir DIR]",
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		opts, err := parseStartStop("stop", env, args)
		if err != nil {
			return err
		}
		return runStop(ctx, opts, env)
	},
}

func runStart(ctx context.Context, opts startStopOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, env.stderr, true)
	if err != nil {
		return err
	}
	ep, err := control.EndpointsFor(s.root)
	if err != nil {
		return err
	}
	if p := control.ProbeDaemon(ctx, ep); p.Presence == control.Running {
		// Started by someone else (Claude's 'infmem mcp'): its database
		// may still be opening, or failing to (it retries).
		if err := waitForMemory(ctx, ep, opts.wait, env.stderr); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "the daemon is already running (pid %d)\n", p.Pong.PID)
		return nil
	}
	how := "started the daemon"
	if ls, err := loginService(ctx, s, env); err == nil && ls.Installed() && ls.Current() {
		if err := ls.Start(); err != nil {
			return fmt.Errorf("cannot start the login service: %w", err)
		}
		how = "started the login service " + ls.Location
		p, err := waitForDaemon(ctx, ep, opts.wait, true)
		if err != nil {
			return err
		}
		if err := waitForMemory(ctx, ep, opts.wait, env.stderr); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "%s; the daemon runs as pid %d\n", how, p.Pong.PID)
		return nil
	}
	conn, err := bridge.Connect(ctx, bridge.Options{
		Endpoints: ep, Timeout: opts.wait, Logger: s.log,
		Daemon: func() *exec.Cmd { return daemonCommandFor(s) },
	})
	if err != nil {
		return err
	}
	conn.Close()
	p, err := waitForDaemon(ctx, ep, opts.wait, true)
	if err != nil {
		return err
	}
	if err := waitForMemory(ctx, ep, opts.wait, env.stderr); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "%s (pid %d); it runs until 'infmem stop' or logout\n", how, p.Pong.PID)
	return nil
}

// waitForMemory waits (at most wait) until the daemon has opened its
// database. A daemon that cannot open it yet keeps retrying by itself (a
// database another process holds for a moment, a server not up yet), so
// this waits on, saying why on progress each time the reason changes; it
// fails with the reason and the log only when the time is up, or when the
// daemon stops or exits first.
func waitForMemory(ctx context.Context, ep control.Endpoints, wait time.Duration, progress io.Writer) error {
	c, err := control.Dial(ctx, ep.Control)
	if err != nil {
		return err
	}
	defer c.Close()
	deadline := time.Now().Add(wait)
	reason := "" // why the daemon's last attempt failed
	for {
		st, err := c.Status(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if p := control.ProbeDaemon(ctx, ep); p.Presence != control.Running {
				return memoryNotOpened("the daemon exited before it opened the database", reason, ep)
			}
			return fmt.Errorf("cannot get the daemon's status: %w\nhint: see %s", err, ep.LogFile())
		}
		switch st.State {
		case control.StateReady:
			return nil
		case control.StateFailed:
			if r := firstLineOf(st.Error); r != reason {
				reason = r
				fmt.Fprintf(progress, "infmem: the daemon cannot open the database yet: %s\ninfmem: it keeps retrying; waiting for it (at most %v more)\n",
					reason, max(time.Until(deadline), 0).Round(time.Second))
			}
		case control.StateStopping:
			return memoryNotOpened("the daemon is shutting down before it opened the database", reason, ep)
		}
		if time.Now().After(deadline) {
			if st.State == control.StateFailed {
				return fmt.Errorf("the daemon runs but cannot open the database: %s\nhint: it keeps retrying by itself: once the cause is gone it opens the database (details in %s); 'infmem status' tells when", reason, ep.LogFile())
			}
			return fmt.Errorf("the daemon runs but its database is still %s after %v\nhint: see %s", st.State, wait, ep.LogFile())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// memoryNotOpened is the error of a daemon that ended before its database
// opened: what happened, the last reason it gave, and its log.
func memoryNotOpened(what, reason string, ep control.Endpoints) error {
	if reason != "" {
		what += ": " + reason
	}
	return fmt.Errorf("%s\nhint: fix the cause, then 'infmem start'; details in %s", what, ep.LogFile())
}

func runStop(ctx context.Context, opts startStopOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, env.stderr, true)
	if err != nil {
		return err
	}
	ep, err := control.EndpointsFor(s.root)
	if err != nil {
		return err
	}
	p := control.ProbeDaemon(ctx, ep)
	if p.Presence != control.Running {
		fmt.Fprintln(env.stdout, "the daemon is not running")
		return nil
	}
	pid := p.Pong.PID
	// A daemon run by the login service is stopped through its manager, so
	// that the manager does not count it as failed and restart it.
	if ls, err := loginService(ctx, s, env); err == nil && ls.Installed() {
		if running, err := ls.Running(); err == nil && running {
			if err := ls.Stop(); err != nil {
				return fmt.Errorf("cannot stop the login service: %w", err)
			}
		}
	}
	if err := shutdownDaemonWithin(ctx, ep, pid, opts.wait); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "stopped the daemon (pid %d)\n", pid)
	return nil
}

func shutdownDaemon(ctx context.Context, ep control.Endpoints, pid int) error {
	return shutdownDaemonWithin(ctx, ep, pid, 30*time.Second)
}

// shutdownDaemonWithin asks the daemon to stop, unless it is already
// going, and waits until its process is gone.
func shutdownDaemonWithin(ctx context.Context, ep control.Endpoints, pid int, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	c, err := control.Dial(ctx, ep.Control)
	if err == nil {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = c.Shutdown(cctx)
		cancel()
		c.Close()
	}
	// A daemon already on its way out (stopped by its service manager) has
	// closed its sockets; only one that still answers has refused.
	if err != nil && control.ProbeDaemon(ctx, ep).Presence == control.Running {
		return fmt.Errorf("cannot ask the daemon to stop: %w", err)
	}
	for proc.Alive(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the daemon (pid %d) is still stopping after %v\nhint: see %s", pid, wait, ep.LogFile())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// waitForDaemon polls until a daemon answers (up) or none does (down).
func waitForDaemon(ctx context.Context, ep control.Endpoints, wait time.Duration, up bool) (control.Probe, error) {
	deadline := time.Now().Add(wait)
	for {
		p := control.ProbeDaemon(ctx, ep)
		if (p.Presence == control.Running) == up {
			return p, nil
		}
		if time.Now().After(deadline) {
			return p, fmt.Errorf("the daemon did not answer within %v\nhint: see %s", wait, ep.LogFile())
		}
		select {
		case <-ctx.Done():
			return p, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
