package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/importer"
	"github.com/infmem/infmem/scopes"
)

type importOptions struct {
	common commonFlags
	path   string
	format string
	scope  string
	dryRun bool
	json   bool
}

const importUsage = "import PATH [--format auto|memory-jsonl|claude-code|markdown|mcp-memory-service|chatgpt|claude-ai|infmem-json] [--scope NAME] [--dry-run] [--json] [--config FILE] [--data-dir DIR]"

var importCommand = command{
	summary: "bring memories from another tool: memory.jsonl, CLAUDE.md, notes, ChatGPT or Claude.ai exports, …",
	usage:   importUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		var opts importOptions
		fs := newFlagSet("import", env, importUsage)
		opts.common.register(fs)
		fs.StringVar(&opts.format, "format", "auto", "what PATH holds: auto, memory-jsonl (the MCP memory server's knowledge graph), claude-code (CLAUDE.md and Claude Code memory folders), markdown (a folder of notes), mcp-memory-service (its sqlite_vec.db), chatgpt or claude-ai (their data exports' conversations.json), infmem-json (infmem's own export)")
		fs.StringVar(&opts.scope, "scope", "", "put everything into this scope (created if missing); default: the scopes an infmem export names, else the default scope")
		fs.BoolVar(&opts.dryRun, "dry-run", false, "check the input and show what would be added per scope, without changing anything")
		fs.BoolVar(&opts.json, "json", false, "print the result as JSON")
		paths, err := parseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(paths) != 1 {
			return usageErrorf("import takes one file or folder to import\nusage: infmem %s", importUsage)
		}
		if _, err := importer.ParseFormat(opts.format); err != nil {
			return usageErrorf("--%v", err)
		}
		if opts.scope != "" {
			if err := scopes.ValidateName(opts.scope); err != nil {
				return usageErrorf("--scope: %v", err)
			}
		}
		opts.path = paths[0]
		return runImport(ctx, opts, env)
	},
}

func runImport(ctx context.Context, opts importOptions, env *cliEnv) error {
	path, err := filepath.Abs(opts.path)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("cannot import %s: %w", opts.path, unwrapPathErr(err))
	}
	s, err := setup(opts.common, env, env.stderr, true)
	if err != nil {
		return err
	}
	args := daemon.ImportJobArgs{Path: path, Format: opts.format, Scope: opts.scope, DryRun: opts.dryRun}
	d, err := s.runningDaemon(ctx)
	if err != nil {
		return err
	}
	var rep importer.Report
	if d != nil {
		// The daemon owns the database: it reads the input and stores it.
		err = d.run(ctx, env, daemon.JobImport, args, &rep)
	} else {
		err = importInProcess(ctx, s, args, env, &rep)
	}
	if err != nil {
		return err
	}
	if opts.json {
		return printJSON(env.stdout, &rep)
	}
	return printImport(env, &rep)
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// importInProcess runs the daemon's import job in this process when no
// daemon runs (runJobInProcess), with a progress bar on a terminal.
func importInProcess(ctx context.Context, s *session, args daemon.ImportJobArgs, env *cliEnv, out *importer.Report) error {
	bar, endBar := progressBar(env)
	defer endBar()
	if bar != nil {
		ctx = control.WithProgress(ctx, func(v any) {
			if p, ok := v.(backup.Progress); ok {
				bar(p)
			}
		})
	}
	if err := runJobInProcess(ctx, s, daemon.JobImport, args, out); err != nil {
		// The job's name prefixes its errors, as the daemon's do not.
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), daemon.JobImport+": "))
	}
	return nil
}

// listedPerScope is how many items of each scope a dry run shows.
const listedPerScope = 5

// printListed shows the first items of each scope of a dry run's list.
func printListed(w io.Writer, title string, items []importer.Listed) {
	if len(items) == 0 {
		return
	}
	byScope := map[string][]importer.Listed{}
	var order []string
	for _, l := range items {
		if byScope[l.Scope] == nil {
			order = append(order, l.Scope)
		}
		byScope[l.Scope] = append(byScope[l.Scope], l)
	}
	fmt.Fprintf(w, "%s (the first %d of each scope; --json lists all):\n", title, listedPerScope)
	for _, sc := range order {
		ls := byScope[sc]
		fmt.Fprintf(w, "  %s\n", sc)
		for _, l := range ls[:min(len(ls), listedPerScope)] {
			line := "    - " + oneLine(l.Text, 100)
			if l.MemoryID != "" {
				line += " (memory " + l.MemoryID + ")"
			}
			fmt.Fprintln(w, line)
		}
		if more := len(ls) - listedPerScope; more > 0 {
			fmt.Fprintf(w, "    … and %d more\n", more)
		}
	}
}

// oneLine is text on one line, cut to n characters.
func oneLine(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > n {
		return string(r[:n]) + "…"
	}
	return text
}

func printImport(env *cliEnv, rep *importer.Report) error {
	w := env.stdout
	what := fmt.Sprintf("%s (%s", rep.Path, rep.Format)
	if rep.From != "" {
		what += ", " + rep.From
	}
	what += ")"
	if rep.DryRun {
		fmt.Fprintf(w, "dry run, nothing changed: %s\n", what)
	} else {
		fmt.Fprintf(w, "imported %s in %s\n", what, (time.Duration(rep.Seconds * float64(time.Second))).Round(time.Millisecond))
	}
	added := "added"
	if rep.DryRun {
		added = "to add"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  scope\t%s\talready imported\talready present\n", added)
	newScope := false
	for _, sc := range rep.Scopes {
		name := sc.Scope
		if sc.Created {
			name += " *"
			newScope = true
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\n", name, sc.Added, sc.AlreadyImported, sc.AlreadyPresent)
	}
	if len(rep.Scopes) > 1 {
		fmt.Fprintf(tw, "  total\t%d\t%d\t%d\n", rep.Added, rep.AlreadyImported, rep.AlreadyPresent)
	}
	tw.Flush()
	if newScope {
		if rep.DryRun {
			fmt.Fprintln(w, "  * a new scope, to be created")
		} else {
			fmt.Fprintln(w, "  * a new scope, created")
		}
	}
	if rep.AlreadyPresent > 0 {
		if rep.DryRun {
			fmt.Fprintln(w, "already present: a memory of that scope, or an item earlier in the input, has the same text; one is kept")
		} else {
			fmt.Fprintln(w, "already present: a memory of that scope has the same text; one is kept")
		}
	}
	if rep.DryRun {
		printListed(w, "would add", rep.ToAdd)
		printListed(w, "already stored, not added again", rep.Stored)
	}
	if rep.Skipped > 0 {
		fmt.Fprintf(w, "skipped %d with nothing to import (empty, system or tool messages, deleted or superseded rows, index lines)\n", rep.Skipped)
	}
	if rep.Split > 0 {
		if rep.Split == 1 {
			fmt.Fprintln(w, "1 item longer than memory.max_content_bytes is stored in parts")
		} else {
			fmt.Fprintf(w, "%d items longer than memory.max_content_bytes are stored in parts\n", rep.Split)
		}
	}
	if rep.Archived > 0 {
		fmt.Fprintf(w, "%d archived again, as they were in the export\n", rep.Archived)
	}
	if len(rep.Profile) > 0 {
		verb := "filled in"
		if rep.DryRun {
			verb = "would fill in"
		}
		fmt.Fprintf(w, "profile: %s %s (nothing already set is replaced)\n", verb, strings.Join(rep.Profile, ", "))
	}
	for _, warn := range rep.Warnings {
		fmt.Fprintf(env.stderr, "infmem: warning: %s\n", warn)
	}
	return nil
}
