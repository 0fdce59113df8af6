package main

import (
	"context"
	"time"

	"github.com/infmem/infmem/internal/mcpserve"
	"github.com/infmem/infmem/internal/mcptools"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/version"
	"github.com/infmem/infmem/scopes"
)

type mcpOptions struct {
	common commonFlags
}

var mcpCommand = command{
	summary: "serve MCP over stdio (what Claude Desktop launches)",
	usage:   "mcp [--config FILE] [--data-dir DIR] [--log-level LEVEL]",
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		var opts mcpOptions
		fs := newFlagSet("mcp", env, "mcp [--config FILE] [--data-dir DIR] [--log-level LEVEL]")
		opts.common.register(fs)
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usageErrorf("mcp takes no arguments")
		}
		return runMCP(ctx, opts, env)
	},
}

// runMCP serves MCP on stdin/stdout in this process. stdout carries only
// the protocol; logs go to stderr.
func runMCP(ctx context.Context, opts mcpOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, env.stderr, false)
	if err != nil {
		return err
	}
	store, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer store.Close(context.WithoutCancel(ctx))
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: s.cfg.Scopes.AutoCreate})
	if err != nil {
		return err
	}
	eng := memory.New(store, reg, memory.Options{
		MaxContentBytes: s.cfg.Memory.MaxContentBytes,
		DefaultScope:    s.cfg.Scopes.Default,
		Location:        s.location(),
		Logger:          s.log,
	})
	eng.Start(ctx)
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		eng.Close(cctx)
	}()
	srv := mcptools.NewServer(mcptools.Deps{
		Engine: mcptools.Ready(eng),
		Logger: s.log,
		Redact: redactor(store.URI(), store.RedactedURI()),
	}, version.String())
	s.log.Info("serving MCP on stdio", "data_root", s.root.Dir, "engine", store.Engine)
	return mcpserve.Serve(ctx, srv, env.stdin, env.stdout, mcpserve.Options{Logger: s.log})
}
