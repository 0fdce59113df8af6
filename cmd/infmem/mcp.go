package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/internal/bridge"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/mcpserve"
	"github.com/infmem/infmem/internal/mcptools"
	"github.com/infmem/infmem/internal/memory"
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
//
// A config file that does not load never takes recall away: when a daemon
// already serves the data root (on its last good configuration), the
// bridge serves through it all the same, and the daemon warns the client
// (server instructions, a "warning" on every tool result). When infmem
// cannot start — a config typo and no daemon, an unusable data root, a
// daemon that will not run — it still answers MCP (unless a person runs it
// in a terminal): initialize and tools/list as usual, and every tool call
// with an isError result that names the problem and its fix, so that the
// model can tell the user instead of Claude showing "Connection closed".
// It looks again at each call, and once the problem is gone the same
// session goes on through the daemon (see relayUntilAvailable).
func runMCP(ctx context.Context, opts mcpOptions, env *cliEnv) error {
	s, prob := mcpPreflight(opts.common, env)
	if prob != nil {
		if !opts.inProcess {
			if conn := dialRunningDaemon(ctx, opts.common, env); conn != nil {
				fmt.Fprintf(env.stderr, "infmem: %s\nhint: %s\ninfmem: serving through the running daemon all the same (it runs on with its last good configuration and warns the client)\n", prob.what, prob.fix)
				return pipeToDaemon(ctx, conn, env.stdin, env.stdout, "")
			}
		}
		return serveUnavailable(ctx, env, prob, func() (net.Conn, *mcpProblem) {
			return mcpRecheck(ctx, opts, env)
		})
	}
	ep, err := control.EndpointsFor(s.root)
	if err != nil {
		return serveUnavailable(ctx, env, &mcpProblem{err: err, what: err.Error(),
			fix: "choose a data root with a shorter path with --data-dir or $INFMEM_DATA_DIR"}, nil)
	}
	if opts.inProcess {
		return runMCPInProcess(ctx, s, ep, env)
	}
	conn, prob := connectDaemon(ctx, s, ep, opts.wait)
	if prob != nil {
		if ctx.Err() != nil {
			return prob.err
		}
		return serveUnavailable(ctx, env, prob, nil)
	}
	return pipeToDaemon(ctx, conn, env.stdin, env.stdout, ep.LogFile())
}

// connectDaemon reaches the data root's daemon, starting it when none
// answers; it says what went wrong when it cannot.
func connectDaemon(ctx context.Context, s *session, ep control.Endpoints, wait time.Duration) (net.Conn, *mcpProblem) {
	conn, err := bridge.Connect(ctx, bridge.Options{
		Endpoints: ep,
		Daemon:    func() *exec.Cmd { return daemonCommandFor(s) },
		Timeout:   wait,
		Logger:    s.log,
	})
	if err != nil {
		msg, hint := splitHint(err)
		if hint == "" {
			hint = "see " + ep.LogFile()
		}
		return nil, &mcpProblem{err: err, what: "the infmem daemon could not be started: " + msg,
			fix: hint + "; 'infmem doctor' in a terminal checks the installation"}
	}
	return conn, nil
}

// pipeToDaemon copies in to the daemon and its answers to out (bridge.Pipe).
func pipeToDaemon(ctx context.Context, conn net.Conn, in io.Reader, out io.Writer, logFile string) error {
	if err := bridge.Pipe(ctx, conn, in, out); err != nil {
		if logFile == "" {
			return fmt.Errorf("%w\nhint: the next 'infmem mcp' starts a new daemon", err)
		}
		return fmt.Errorf("%w\nhint: the next 'infmem mcp' starts a new daemon; see %s for what happened", err, logFile)
	}
	return nil
}

// mcpProblem is why infmem cannot serve MCP: what is wrong and how to fix
// it, in words for the user. err is the error behind it.
type mcpProblem struct {
	err       error
	what, fix string
}

// mcpPreflight loads the config and prepares the data root as setup does,
// and checks that the data root can be written; it says what is wrong
// when something is.
func mcpPreflight(c commonFlags, env *cliEnv) (*session, *mcpProblem) {
	_, src, err := loadConfig(c, env)
	if err != nil {
		msg, hint := splitHint(err)
		p := &mcpProblem{err: err, what: "the infmem configuration is invalid: " + msg}
		var ue usageError
		switch {
		case errors.As(err, &ue):
			p.what = "infmem was started with a bad argument: " + msg
			p.fix = "correct mcpServers.infmem.args in Claude Desktop's claude_desktop_config.json, or run 'infmem install' to rewrite the entry"
		case src.Path != "":
			p.fix = "correct the key named in " + src.Path + " (config.example.json lists every key, its default and what it means), or move the file away to use the defaults"
			if hint != "" {
				p.fix = hint + "; then check the rest of " + src.Path
			}
		default:
			p.fix = "make the config file readable, or move it away to use the defaults"
		}
		return nil, p
	}
	s, err := setup(c, env, env.stderr, false)
	if err == nil {
		if rerr := dataRootWritable(s.root.Dir); rerr != nil {
			err = configError{rerr}
		}
	}
	if err != nil {
		msg, hint := splitHint(err)
		if hint == "" {
			hint = "make the data root a directory you own, with mode 700, or choose another with --data-dir or $INFMEM_DATA_DIR"
		}
		return nil, &mcpProblem{err: err, what: "infmem cannot use its data directory: " + msg, fix: hint}
	}
	return s, nil
}

// serveUnavailable answers MCP on stdio while infmem cannot work: the
// usual tools are listed (Claude calls only listed tools), and each call
// answers with an isError result that explains the problem. recheck, when
// set, looks again before each call: it returns a connection to the
// daemon once infmem can serve, and the session goes on through it
// (relayUntilAvailable); else the problem as it is now (nil when it is
// gone but this session cannot switch over: the client must reconnect).
func serveUnavailable(ctx context.Context, env *cliEnv, prob *mcpProblem, recheck func() (net.Conn, *mcpProblem)) error {
	if isTerminal(env.stdin) {
		// A person runs it: there is no client to tell.
		return prob.err
	}
	// Claude Desktop keeps stderr in its MCP log.
	again := "until the client restarts infmem"
	if recheck != nil {
		again = "until it is fixed (looked at again on each call)"
	}
	fmt.Fprintf(env.stderr, "infmem: %s\nhint: %s\ninfmem: answering every MCP tool call with this problem %s\n", prob.what, prob.fix, again)
	var current atomic.Pointer[mcpProblem]
	current.Store(prob)
	message := func(tool string) string {
		p := current.Load()
		if p == nil {
			return fmt.Sprintf("%s: infmem could not start when this session began (%s). That is fixed now: ask the user to restart Claude Desktop (or reconnect the infmem MCP server in its settings) so that infmem starts; nothing was stored or recalled.", tool, prob.what)
		}
		if recheck == nil {
			return fmt.Sprintf("%s: infmem cannot work right now, so nothing was stored or recalled. Tell the user: %s. To fix it: %s; then restart Claude Desktop (or reconnect the infmem MCP server in its settings).", tool, p.what, p.fix)
		}
		return fmt.Sprintf("%s: infmem cannot work right now, so nothing was stored or recalled. Tell the user: %s. To fix it: %s. infmem looks again at every call, so once it is fixed the next call works, without restarting Claude.", tool, p.what, p.fix)
	}
	unavailable := errors.New(prob.what)
	deps := mcptools.Deps{
		Memory: func(context.Context) (*memory.Engine, func(), error) { return nil, nil, unavailable },
		// Set so that their tools are listed too; the middleware answers.
		Backup: func(context.Context) (mcptools.BackupResult, error) { return mcptools.BackupResult{}, unavailable },
		Export: func(context.Context, mcptools.ExportRequest) (mcptools.ExportResult, error) {
			return mcptools.ExportResult{}, unavailable
		},
		Optimize: func(context.Context, string, bool) (mcptools.OptimizeResult, error) {
			return mcptools.OptimizeResult{}, unavailable
		},
	}
	srv := server.NewMCPServer("infmem", version.String(),
		server.WithToolCapabilities(false),
		server.WithPromptCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithInstructions(mcptools.Instructions+"\n\nRight now infmem cannot work: "+prob.what+". Every tool answers with this problem and how to fix it; tell the user when you call one."),
		server.WithRecovery(),
		// Prompts and resources are listed as usual; getting or reading
		// one answers with the problem, as the tools do.
		server.WithPromptHandlerMiddleware(func(server.PromptHandlerFunc) server.PromptHandlerFunc {
			return func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return nil, errors.New(message("prompt " + req.Params.Name))
			}
		}),
		server.WithResourceHandlerMiddleware(func(server.ResourceHandlerFunc) server.ResourceHandlerFunc {
			return func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return nil, errors.New(message(req.Params.URI))
			}
		}),
	)
	srv.AddTools(mcptools.Tools(deps)...)
	srv.AddPrompts(mcptools.Prompts(deps)...)
	srv.AddResources(mcptools.Resources(deps)...)
	srv.AddResourceTemplates(mcptools.ResourceTemplates(deps)...)
	srv.Use(func(server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError(message(req.Params.Name)), nil
		}
	})
	log := newLogger(env.stderr, "warn")
	if recheck == nil {
		return mcpserve.Serve(ctx, srv, env.stdin, env.stdout, mcpserve.Options{Logger: log})
	}
	return relayUntilAvailable(ctx, env, srv, log, func() (net.Conn, bool) {
		conn, p := recheck()
		if conn != nil {
			return conn, true
		}
		current.Store(p)
		return nil, false
	})
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
	rt := daemon.NewRuntime(daemon.Options{Config: s.cfg, Root: s.root, Version: version.String(), Logger: s.log})
	rt.Start()
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
		defer cancel()
		rt.Close(cctx)
	}()
	s.log.Info("serving MCP on stdio in-process", "data_root", s.root.Dir)
	return rt.Serve(ctx, env.stdin, env.stdout, mcpserve.Options{Logger: s.log})
}
