package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
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
		"import":   importCommand,
		"lessons":  lessonsCommand,
		"ui":       uiCommand,

		"daemon":    daemonCommand,
		"install":   installCommand,
		"uninstall": uninstallCommand,
		"start":     startCommand,
		"stop":      stopCommand,
		"doctor":    doctorCommand,
		"reload":    reloadCommand,
		"restart":   restartCommand,
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
		return report(stderr, unknownCommand(name))
	}
	return report(stderr, cmd.run(ctx, env, rest))
}

// unknownCommand is the usage error for a command name infmem does not
// have; it suggests the commands the name is a likely misspelling of.
func unknownCommand(name string) error {
	if s := suggest(name); len(s) > 0 {
		return usageErrorf("unknown command %q; did you mean %s?\nhint: run 'infmem help' for the list", name, strings.Join(s, " or "))
	}
	return usageErrorf("unknown command %q; run 'infmem help' for the list", name)
}

// suggest returns the command names close to name: at most one edit away
// (a letter added, dropped, changed, or two neighbours swapped), or two
// for names of five letters or more, or that name abbreviates; the
// closest ones only.
func suggest(name string) []string {
	name = strings.ToLower(name)
	best := map[int][]string{}
	for n := range commands() {
		d := editDistance(name, n)
		if len(name) >= 3 && strings.HasPrefix(n, name) {
			d = min(d, 1)
		}
		limit := 1
		if len(n) >= 5 {
			limit = 2
		}
		if d <= limit {
			best[d] = append(best[d], n)
		}
	}
	for d := 0; d <= 2; d++ {
		if len(best[d]) > 0 {
			sort.Strings(best[d])
			return best[d]
		}
	}
	return nil
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
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
