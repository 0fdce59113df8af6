package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/internal/version"
	"github.com/infmem/infmem/maintenance"
)

type maintainOptions struct {
	common commonFlags
	job    string
	dryRun bool
	log    bool
	limit  int
	json   bool
}

const maintainUsage = "maintain [--job NAME] [--dry-run] [--log [--limit N]] [--json] [--config FILE] [--data-dir DIR]"

var maintainCommand = command{
	summary: "run memory maintenance now, or show what it did (--log)",
	usage:   maintainUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		var opts maintainOptions
		fs := newFlagSet("maintain", env, maintainUsage)
		opts.common.register(fs)
		fs.StringVar(&opts.job, "job", maintenance.JobAll, "job to run: maintenance (all), summarize, noise, dedup, prune, size, purge, compact")
		fs.BoolVar(&opts.dryRun, "dry-run", false, "report what would change without changing anything")
		fs.BoolVar(&opts.log, "log", false, "show the audit trail of past runs instead of running anything")
		fs.IntVar(&opts.limit, "limit", 20, "with --log, how many runs to show")
		fs.BoolVar(&opts.json, "json", false, "print machine-readable JSON")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usageErrorf("maintain takes no arguments")
		}
		if opts.limit < 1 {
			return usageErrorf("--limit must be at least 1")
		}
		return runMaintain(ctx, opts, env)
	},
}

func runMaintain(ctx context.Context, opts maintainOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, env.stderr, true)
	if err != nil {
		return err
	}
	d, err := s.runningDaemon(ctx)
	if err != nil {
		return err
	}
	if opts.log {
		var entries []maintenance.AuditEntry
		args := map[string]int{"limit": opts.limit}
		if d != nil {
			err = d.run(ctx, env, daemon.JobMaintenanceLog, args, &entries)
		} else {
			err = runJobInProcess(ctx, s, daemon.JobMaintenanceLog, args, &entries)
		}
		if err != nil {
			return err
		}
		return printAudit(env, entries, opts.json)
	}
	var rep maintenance.Report
	args := daemon.MaintainJobArgs{Job: opts.job, DryRun: opts.dryRun}
	if d != nil {
		err = d.run(ctx, env, daemon.JobMaintain, args, &rep)
	} else {
		err = runJobInProcess(ctx, s, daemon.JobMaintain, args, &rep)
	}
	if errors.Is(err, maintenance.ErrUnknownJob) || err != nil && strings.Contains(err.Error(), maintenance.ErrUnknownJob.Error()) {
		return usageError{err.Error()}
	}
	if err != nil && rep.Job == "" {
		return err
	}
	if perr := printReport(env, &rep, opts.json); perr != nil {
		return perr
	}
	if rep.Outcome == "failed" {
		return fmt.Errorf("maintenance %s failed: %s", rep.Job, rep.Error)
	}
	return nil
}

// runJobInProcess runs one of the daemon's jobs (job, with args) in this
// process, as the daemon would, when no daemon runs: the memory is opened
// here, no schedule starts, and out receives the result as the daemon
// would send it.
func runJobInProcess(ctx context.Context, s *session, job string, args, out any) error {
	rt := daemon.NewRuntime(daemon.Options{Config: s.cfg, Root: s.root, Version: version.String(), Logger: s.log,
		CallWait: 10 * time.Minute, OneShot: true})
	rt.Start()
	defer rt.Close(context.WithoutCancel(ctx))
	// Jobs read or write the whole index: wait for it to load.
	if err := rt.WaitLoaded(ctx); err != nil {
		return err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	res, err := rt.RunJob(ctx, job, raw)
	if res != nil {
		// The same JSON a daemon would send back.
		b, merr := json.Marshal(res)
		if merr == nil {
			merr = json.Unmarshal(b, out)
		}
		if err == nil {
			err = merr
		}
	}
	return err
}

func printReport(env *cliEnv, rep *maintenance.Report, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	w := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	what := "ran"
	if rep.DryRun {
		what = "dry run (nothing changed)"
	}
	fmt.Fprintf(w, "job\t%s, %s, %s in %v\n", rep.Job, what, rep.Outcome, rep.Duration.Round(time.Millisecond))
	if len(rep.Operations) == 0 {
		fmt.Fprintf(w, "operations\tnothing to do\n")
	}
	for i, op := range rep.Operations {
		label := ""
		if i == 0 {
			label = "operations"
		}
		fmt.Fprintf(w, "%s\t%s\n", label, op)
	}
	for _, g := range rep.Merges {
		fmt.Fprintf(w, "kept\t%s %q (%s)\n", g.Kept.ID, g.Kept.Text, g.Scope)
		for _, m := range g.Merged {
			fmt.Fprintf(w, "  merged\t%s %q\n", m.ID, m.Text)
		}
	}
	for _, warn := range rep.Warnings {
		fmt.Fprintf(w, "warning\t%s\n", warn)
	}
	if rep.Error != "" {
		fmt.Fprintf(w, "error\t%s\n", rep.Error)
	}
	return w.Flush()
}

func printAudit(env *cliEnv, entries []maintenance.AuditEntry, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(env.stdout, "no maintenance has run yet")
		return nil
	}
	for _, e := range entries {
		flag := ""
		if e.DryRun {
			flag = " (dry run)"
		}
		fmt.Fprintf(env.stdout, "%s  %s%s  %s, %s\n", e.Started.Local().Format("2006-01-02 15:04:05"), e.Job, flag, e.Outcome, e.Trigger)
		for _, op := range e.Operations {
			fmt.Fprintf(env.stdout, "    %s\n", op)
		}
		for _, c := range e.Changes {
			ids := c.IDs
			more := ""
			if len(ids) > 5 {
				ids, more = ids[:5], fmt.Sprintf(" … (%d in all)", len(c.IDs))
			}
			fmt.Fprintf(env.stdout, "    %s: %s%s\n", c.Action, strings.Join(ids, ", "), more)
		}
		for _, g := range e.Merges {
			fmt.Fprintf(env.stdout, "    kept %s %q (%s)\n", g.Kept.ID, g.Kept.Text, g.Scope)
			for _, m := range g.Merged {
				fmt.Fprintf(env.stdout, "      merged %s %q (unforget_memory undoes it)\n", m.ID, m.Text)
			}
		}
		for _, w := range e.Warnings {
			fmt.Fprintf(env.stdout, "    warning: %s\n", w)
		}
		if e.Error != "" {
			fmt.Fprintf(env.stdout, "    error: %s\n", e.Error)
		}
	}
	return nil
}
