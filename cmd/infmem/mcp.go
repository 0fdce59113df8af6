package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/internal/bridge"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/mcpserve"
	"github.com/infmem/infmem/internal/version"
)

type mcpOptions struct {
	common    commonFlags
	inProcess bool
	wait      time.Duration
}

const mcpUsage = "mcp [--in-process] [--wait DURATION] [--config FILE] [--data-dir DIR] [--log-level LEVEL]"

var mcpCommand = command{
	summary: "serve MCP over stdio (what Claude Desktop launches): a bridge to the daemon, started if needed",
	usage:   mcpUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		var opts mcpOptions
		fs := newFlagSet("mcp", env, mcpUsage)
		opts.common.register(fs)
		fs.BoolVar(&opts.inProcess, "in-process", false, "serve from this process without a daemon (for debugging); refused while a daemon owns the data root")
		fs.DurationVar(&opts.wait, "wait", 10*time.Second, "how long to wait for a daemon this command starts to answer")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usageErrorf("mcp takes no arguments")
		}
		return runMCP(ctx, opts, env)
	},
}

// runMCP connects stdin/stdout to the data root's daemon, starting the
// daemon when none answers. stdout carries only the protocol; the bridge's
// own log goes to stderr (Claude Desktop keeps it in its MCP log).
func runMCP(ctx context.Context, opts mcpOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, env.stderr, false)
	if err != nil {
		return err
	}
	ep, err := control.EndpointsFor(s.root)
	if err != nil {
		return err
	}
	if opts.inProcess {
		return runMCPInProcess(ctx, s, ep, env)
	}
	conn, err := bridge.Connect(ctx, bridge.Options{
		Endpoints: ep,
		Daemon:    func() *exec.Cmd { return daemonCommandFor(s) },
		Timeout:   opts.wait,
		Logger:    s.log,
	})
	if err != nil {
		return err
	}
	if err := bridge.Pipe(ctx, conn, env.stdin, env.stdout); err != nil {
		return fmt.Errorf("%w\nhint: the next 'infmem mcp' starts a new daemon; see %s for what happened", err, ep.LogFile())
	}
	return nil
}

// daemonCommandFor is `infmem daemon` for the same data root and config
// as this invocation.
func daemonCommandFor(s *session) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	args := []string{"daemon", "--data-dir", s.root.Dir}
	if s.src.Path != "" {
		args = append(args, "--config", s.src.Path)
	}
	return exec.Command(exe, args...)
}

// runMCPInProcess serves MCP on stdio from this process, holding the data
// root's daemon lock so that no daemon starts beside it.
func runMCPInProcess(ctx context.Context, s *session, ep control.Endpoints, env *cliEnv) error {
	lock, err := daemon.Lock(ep)
	var running *daemon.RunningError
	if errors.As(err, &running) {
		return fmt.Errorf("--in-process refused: %w\nhint: drop --in-process to talk to that daemon, or stop it first with 'infmem stop'", err)
	}
	if err != nil {
		return err
	}
	defer lock.Release()
	dopts := daemon.Options{Config: s.cfg, Root: s.root, Version: version.String(), Logger: s.log}
	newServices(s, s.log).apply(&dopts)
	rt := daemon.NewRuntime(dopts)
	rt.Start()
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
		defer cancel()
		rt.Close(cctx)
	}()
	s.log.Info("serving MCP on stdio in-process", "data_root", s.root.Dir)
	return rt.Serve(ctx, env.stdin, env.stdout, mcpserve.Options{Logger: s.log})
}
