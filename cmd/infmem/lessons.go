package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/infmem/infmem/daemon"
)

type lessonsOptions struct {
	common  commonFlags
	json    bool
	confirm string
}

const lessonsUsage = "lessons [confirm ID] [--json] [--config FILE] [--data-dir DIR]"

// lessonsCommand shows the lessons models proposed and confirms one: a
// lesson is applied in later sessions only once the user confirmed it
// (issue 22; internal/memory/lessons.go).
var lessonsCommand = command{
	summary: "list the lessons Claude proposed, and confirm one so later sessions apply it",
	usage:   lessonsUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		var opts lessonsOptions
		fs := newFlagSet("lessons", env, lessonsUsage)
		opts.common.register(fs)
		fs.BoolVar(&opts.json, "json", false, "print the result as JSON")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		switch rest := fs.Args(); {
		case len(rest) == 0:
		case len(rest) == 2 && rest[0] == "confirm":
			opts.confirm = rest[1]
		default:
			return usageErrorf("usage: infmem %s", lessonsUsage)
		}
		return runLessons(ctx, opts, env)
	},
}

func runLessons(ctx context.Context, opts lessonsOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, env.stderr, true)
	if err != nil {
		return err
	}
	args := daemon.LessonsJobArgs{Confirm: opts.confirm}
	d, err := s.runningDaemon(ctx)
	if err != nil {
		return err
	}
	var res daemon.LessonsResult
	if d != nil {
		err = d.run(ctx, env, daemon.JobLessons, args, &res)
	} else if err = runJobInProcess(ctx, s, daemon.JobLessons, args, &res); err != nil {
		err = fmt.Errorf("%s", strings.TrimPrefix(err.Error(), daemon.JobLessons+": "))
	}
	if err != nil {
		return err
	}
	if opts.json {
		return printJSON(env.stdout, &res)
	}
	w := env.stdout
	if c := res.Confirmed; c != nil {
		if res.Already {
			fmt.Fprintf(w, "%s was already a confirmed lesson: %q\n", c.ID, oneLine(c.Text, 100))
		} else {
			fmt.Fprintf(w, "confirmed %s: later sessions apply it: %q\n", c.ID, oneLine(c.Text, 100))
		}
	}
	if len(res.Proposed) == 0 {
		fmt.Fprintln(w, "no proposed lessons wait for confirmation")
		return nil
	}
	fmt.Fprintf(w, "%d proposed lesson(s), not applied until you confirm them ('infmem lessons confirm ID'):\n", len(res.Proposed))
	for _, l := range res.Proposed {
		origin := l.Origin
		if origin == "" {
			origin = "origin unknown"
		}
		fmt.Fprintf(w, "  %s  %s, scope %q, %s\n      %q\n", l.ID, l.Stored, l.Scope, origin, oneLine(l.Text, 200))
	}
	return nil
}
