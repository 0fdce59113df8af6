package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/daemon"
)

type exportOptions struct {
	common commonFlags
	format string
	scopes stringList
	json   bool
}

const exportUsage = "export [--format all|json|markdown] [--scope NAME]... [--json] [--config FILE] [--data-dir DIR]"

var exportCommand = command{
	summary: "write the memory as readable JSON and Markdown into export/ (not a backup)",
	usage:   exportUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		var opts exportOptions
		fs := newFlagSet("export", env, exportUsage)
		opts.common.register(fs)
		fs.StringVar(&opts.format, "format", "all", "all, json or markdown")
		fs.Var(&opts.scopes, "scope", "export only this scope (repeatable)")
		fs.BoolVar(&opts.json, "json", false, "print the result as JSON")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usageErrorf("export takes no arguments")
		}
		switch opts.format {
		case "both": // export_memory's name for it before
			opts.format = "all"
		case "all", "json", "markdown":
		default:
			return usageErrorf("--format %q is not one of all, json, markdown", opts.format)
		}
		return runExport(ctx, opts, env)
	},
}

func runExport(ctx context.Context, opts exportOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, env.stderr, true)
	if err != nil {
		return err
	}
	args := daemon.ExportJobArgs{Scopes: opts.scopes, Format: opts.format}
	d, err := s.runningDaemon(ctx)
	if err != nil {
		return err
	}
	var res *backup.ExportResult
	if d != nil {
		// The daemon owns the database; it writes into the same export/.
		res = &backup.ExportResult{}
		err = d.run(ctx, env, daemon.JobExport, args, res)
	} else {
		res, err = exportInProcess(ctx, s, args, env)
	}
	if err != nil {
		return err
	}
	// The notice goes to stderr so it reaches the user even when stdout is
	// piped into a script.
	fmt.Fprintf(env.stderr, "infmem: warning: %s\n", res.Notice)
	if opts.json {
		return printJSON(env.stdout, res)
	}
	fmt.Fprintf(env.stdout, "exported %s and %s in %s to %s\n", plural(res.Memories, "memory", "memories"), plural(res.Summaries, "summary", "summaries"),
		plural(res.Scopes, "scope", "scopes"), res.Dir)
	for _, f := range res.Files {
		fmt.Fprintf(env.stdout, "  %s\n", filepath.Join(res.Dir, f))
	}
	return nil
}

// exportInProcess opens the database itself: no daemon holds it.
func exportInProcess(ctx context.Context, s *session, args daemon.ExportJobArgs, env *cliEnv) (*backup.ExportResult, error) {
	store, err := s.openStoreToRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot open the database to export it: %w", err)
	}
	defer store.Close(context.WithoutCancel(ctx))
	bar, endBar := progressBar(env)
	eo := args.Options(s.root.ExportDir())
	eo.Progress = bar
	eo.Location = daemon.ExportLocation(ctx, store, s.cfg.TimeZone)
	res, err := backup.Export(ctx, store, eo)
	endBar()
	return res, err
}
