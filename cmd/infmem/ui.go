package main

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/infmem/infmem/internal/control"
)

type uiOptions struct {
	common    commonFlags
	wait      time.Duration
	noBrowser bool
}

const uiUsage = "ui [--no-browser] [--wait DURATION] [--config FILE] [--data-dir DIR]"

var uiCommand = command{
	summary: "open a page in your browser to see, search and fix your memory",
	usage:   uiUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		var opts uiOptions
		fs := newFlagSet("ui", env, uiUsage)
		opts.common.register(fs)
		fs.DurationVar(&opts.wait, "wait", 30*time.Second, "how long to wait for the daemon when it has to start")
		fs.BoolVar(&opts.noBrowser, "no-browser", false, "print the link without opening a browser")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usageErrorf("ui takes no arguments\nusage: infmem %s", uiUsage)
		}
		return runUI(ctx, opts, env)
	},
}

// runUI asks the daemon (started if none runs) for its UI, prints the
// link and opens it in the default browser when it can. The link carries
// a secret that works once: it goes to stdout, for the user who asked,
// and nowhere else; the browser is opened on the daemon's private launch
// file (run/ui-launch-*.html), which leads to the link.
func runUI(ctx context.Context, opts uiOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, env.stderr, true)
	if err != nil {
		return err
	}
	ep, err := control.EndpointsFor(s.root)
	if err != nil {
		return err
	}
	if p := control.ProbeDaemon(ctx, ep); p.Presence != control.Running {
		// The page is served by the daemon: start it as 'infmem start'
		// does, saying so on stderr.
		quiet := *env
		quiet.stdout = env.stderr
		if err := runStart(ctx, startStopOptions{common: opts.common, wait: opts.wait}, &quiet); err != nil {
			return err
		}
	}
	c, err := control.Dial(ctx, ep.Control)
	if err != nil {
		return err
	}
	defer c.Close()
	info, err := c.UI(ctx)
	if err != nil {
		if strings.Contains(err.Error(), "unknown operation") {
			return fmt.Errorf("the running daemon has no web UI\nhint: restart it so it runs this version of infmem: 'infmem restart'")
		}
		return fmt.Errorf("cannot open the UI: %w", err)
	}
	fmt.Fprintln(env.stdout, info.URL)
	fmt.Fprintf(env.stderr, "infmem: the link opens the page once; the page closes after %v unused ('infmem ui' opens it again)\n", info.IdleTimeout)
	if opts.noBrowser || env.getenv("INFMEM_NO_BROWSER") != "" {
		return nil
	}
	if info.LaunchFile == "" {
		// An older daemon: the link itself would be on the opener's command
		// line, where other users can read it.
		fmt.Fprintln(env.stderr, "infmem: not opening a browser: the running daemon is older than this command; open the link above in yours, or run 'infmem restart' first")
		return nil
	}
	// The browser is opened on the launch file, never on the link: a
	// command line is readable by every user of the machine.
	if err := openBrowser(info.LaunchFile); err != nil {
		fmt.Fprintf(env.stderr, "infmem: cannot open a browser (%v); open the link above in yours\n", err)
	}
	return nil
}

// openBrowser hands url (a file's path) to the system's opener. It waits
// a moment for the opener to fail, never for the browser.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(3 * time.Second):
		return nil
	}
}
