package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
)

// command is one subcommand: its one-line summary, its usage text, and its
// entry point, which parses its own flags.
type command struct {
	summary string
	usage   string
	run     func(ctx context.Context, env *cliEnv, args []string) error
}

// cliEnv is what every subcommand may touch of the outside world.
type cliEnv struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

func commands() map[string]command {
	return map[string]command{
		"help":     helpCommand(),
		"mcp":      mcpCommand,
		"maintain": maintainCommand,
		"status":   statusCommand,
		"version":  versionCommand,
		"backup":   backupCommand,
		"backups":  backupsCommand,
		"restore":  restoreCommand,
		"export":   exportCommand,

		"daemon":    daemonCommand,
		"install":   installCommand,
		"uninstall": uninstallCommand,
		"start":     startCommand,
		"stop":      stopCommand,
		"doctor":    doctorCommand,
	}
}

// run dispatches args to a subcommand and turns its outcome into an exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &cliEnv{stdin: stdin, stdout: stdout, stderr: stderr, getenv: osGetenv}
	if len(args) == 0 {
		printUsage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	cmd, ok := commands()[name]
	if !ok {
		return report(stderr, usageErrorf("unknown command %q; run 'infmem help' for the list", name))
	}
	return report(stderr, cmd.run(ctx, env, rest))
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, "infmem: long-term memory for Claude and other MCP clients, kept on this machine\n\nUsage: infmem <command> [flags]\n\nCommands:\n")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprint(w, "\nRun 'infmem help <command>' for a command's flags.\n")
}

var errHelpShown = errors.New("help shown")
