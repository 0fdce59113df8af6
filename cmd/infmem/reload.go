package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/infmem/infmem/internal/control"
)

type reloadOptions struct {
	common commonFlags
	json   bool
}

const reloadUsage = "reload [--json] [--config FILE] [--data-dir DIR]"

var reloadCommand = command{
	summary: "make the running daemon read its config again (it also notices a changed file by itself)",
	usage:   reloadUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		var opts reloadOptions
		fs := newFlagSet("reload", env, reloadUsage)
		opts.common.register(fs)
		fs.BoolVar(&opts.json, "json", false, "print the daemon's config record as JSON")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usageErrorf("reload takes no arguments")
		}
		return runReload(ctx, opts, env)
	},
}

// runReload checks the config here (setup refuses an invalid one, naming
// the key), then asks the daemon to read it again and says what it
// applied and what waits for a restart.
func runReload(ctx context.Context, opts reloadOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, env.stderr, true)
	if err != nil {
		return err
	}
	d, err := s.runningDaemon(ctx)
	if err != nil {
		return err
	}
	name := s.src.Path
	if name == "" {
		name = "the built-in defaults (no config file)"
	}
	if d == nil {
		fmt.Fprintf(env.stdout, "the daemon is not running; the config (%s) is valid, and the daemon reads it when it starts\n", name)
		return nil
	}
	c, err := control.Dial(ctx, d.ep.Control)
	if err != nil {
		return err
	}
	defer c.Close()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cs, err := c.Reload(cctx)
	if err != nil {
		if errors.Is(err, control.ErrRefused) && strings.Contains(err.Error(), "unknown operation") {
			return fmt.Errorf("the daemon (pid %d) runs an older infmem that cannot reload its config\nhint: 'infmem restart' restarts it with this version and the current config", d.pid)
		}
		return fmt.Errorf("the daemon (pid %d) did not reload: %w", d.pid, err)
	}
	if opts.json {
		if err := printJSON(env.stdout, cs); err != nil {
			return err
		}
	} else {
		printReload(env.stdout, cs, d.pid, s.src.Path)
	}
	if cs.Error != "" {
		return configError{fmt.Errorf("the daemon refused its config: %s\nhint: it runs on with its previous configuration; correct the key named, then run 'infmem reload' again", cs.Error)}
	}
	return nil
}

func printReload(w io.Writer, cs *control.ConfigStatus, pid int, ours string) {
	file := cs.Path
	if file == "" {
		file = "its built-in defaults"
	}
	if cs.Error != "" {
		fmt.Fprintf(w, "the daemon (pid %d) could not use %s and runs on with its previous configuration\n", pid, file)
		return
	}
	fmt.Fprintf(w, "the daemon (pid %d) read %s again\n", pid, file)
	switch {
	case cs.AppliedAt != nil && cs.AppliedAt.Equal(cs.LoadedAt):
		fmt.Fprintf(w, "applied now: %s\n", strings.Join(cs.Applied, ", "))
	case cs.AppliedAt != nil:
		// It noticed the changed file by itself.
		fmt.Fprintf(w, "nothing new since %s, when the daemon applied: %s\n", cs.AppliedAt.Local().Format(time.DateTime), strings.Join(cs.Applied, ", "))
	default:
		fmt.Fprintf(w, "nothing new to apply\n")
	}
	if len(cs.RestartNeeded) > 0 {
		fmt.Fprintf(w, "%s\n", restartNeededLine(cs.RestartNeeded))
	}
	if ours != "" && cs.Path != "" && !samePath(ours, cs.Path) {
		fmt.Fprintf(w, "note: the daemon reads %s, not %s, which this command found; 'infmem restart' starts it with this one\n", cs.Path, ours)
	}
}

// restartNeededLine says which changed keys wait for a restart.
func restartNeededLine(keys []string) string {
	return fmt.Sprintf("config changed since the daemon started: run 'infmem restart' to apply %s (taken only when the daemon starts)", strings.Join(keys, ", "))
}
