package mcptools

import (
	"context"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// BackupResult is a finished backup.
type BackupResult struct {
	File      string
	Encrypted bool
	Documents int
}

// ErrBackupNotConfigured marks a backup refused for lack of configuration
// (no recipients while encryption is required); its message says what to set.
var ErrBackupNotConfigured = errors.New("backups are not configured")

// ExportRequest selects what to export.
type ExportRequest struct {
	Scopes []string
	// Format is all, json or markdown.
	Format string
}

// ExportResult is a finished export.
type ExportResult struct {
	Dir      string
	Files    []string
	Memories int
	Notice   string
}

// MaintenanceRun is a maintenance job's last run.
type MaintenanceRun struct {
	LastRun    string   `json:"last_run" jsonschema_description:"UTC."`
	Outcome    string   `json:"outcome" jsonschema_description:"ok or failed."`
	DurationMS int64    `json:"duration_ms"`
	Warnings   []string `json:"warnings,omitempty" jsonschema_description:"What it could not do."`
}

// OptimizeResult is what maintenance did (or would do).
type OptimizeResult struct {
	Operations []string
	Counts     map[string]int
	Warnings   []string
	DryRun     bool
	// Merges lists the duplicates merged (or that would be), with texts.
	Merges []MergeGroup
}

// MergeGroup is one memory kept and the duplicates merged into it.
type MergeGroup struct {
	Scope  string         `json:"scope"`
	Kept   MergedMemory   `json:"kept"`
	Merged []MergedMemory `json:"merged"`
}

// MergedMemory names a memory of a merge by id and text.
type MergedMemory struct {
	MemoryID string `json:"memory_id"`
	Text     string `json:"text"`
}

type backupIn struct{}

type backupOut struct {
	Status     string `json:"status" jsonschema_description:"OK."`
	BackupFile string `json:"backup_file" jsonschema_description:"File name in the data root's backups folder."`
	Encrypted  bool   `json:"encrypted" jsonschema_description:"Encrypted with age."`
	Documents  int    `json:"documents" jsonschema_description:"Documents it holds."`
}

func backupMemory(d Deps) server.ServerTool {
	tool := mcp.NewTool("backup_memory",
		mcp.WithDescription("Back up the whole memory now to an encrypted archive in the data root's backups folder (backups also run nightly): when the user asks, or before a large clean-up they asked for."),
		mcp.WithInputSchema[backupIn](),
		mcp.WithOutputSchema[backupOut](),
		annotate("Back up memory", false, false, false),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "backup_memory", func(ctx context.Context, _ call, _ backupIn) (any, error) {
		res, err := d.Backup(ctx)
		if errors.Is(err, ErrBackupNotConfigured) {
			return nil, badInput("%s", err.Error())
		}
		if err != nil {
			return nil, err
		}
		return backupOut{Status: "OK", BackupFile: res.File, Encrypted: res.Encrypted, Documents: res.Documents}, nil
	})}
}

type exportIn struct {
	Scopes []string `json:"scopes,omitempty" jsonschema_description:"Only these scopes; omit for all."`
	Format string   `json:"format,omitempty" jsonschema:"enum=all,enum=json,enum=markdown" jsonschema_description:"all (default): json (one document per scope) and markdown (a readable file per scope)."`
}

type exportOut struct {
	Status    string   `json:"status" jsonschema_description:"OK."`
	Directory string   `json:"directory" jsonschema_description:"Folder written to."`
	Files     []string `json:"files"`
	Memories  int      `json:"memories" jsonschema_description:"Memories exported (not forgotten ones)."`
	Notice    string   `json:"notice" jsonschema_description:"Privacy reminder to pass on."`
}

func exportMemory(d Deps) server.ServerTool {
	tool := mcp.NewTool("export_memory",
		mcp.WithDescription("Export the memory readably (JSON and Markdown, a file per scope, with the user profile) into the data root's export folder, for the user to read or take elsewhere. Not a backup (see backup_memory). Tell the user the files are unencrypted personal data."),
		mcp.WithInputSchema[exportIn](),
		mcp.WithOutputSchema[exportOut](),
		annotate("Export memory", false, false, false),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "export_memory", func(ctx context.Context, _ call, in exportIn) (any, error) {
		format := strings.ToLower(strings.TrimSpace(in.Format))
		switch format {
		case "", "both": // both: the name before all
			format = "all"
		case "all", "json", "markdown":
		default:
			return nil, badInput("format %q is not all, json or markdown", in.Format)
		}
		res, err := d.Export(ctx, ExportRequest{Scopes: in.Scopes, Format: format})
		if err != nil {
			return nil, err
		}
		if res.Files == nil {
			res.Files = []string{}
		}
		return exportOut{Status: "OK", Directory: res.Dir, Files: res.Files, Memories: res.Memories, Notice: res.Notice}, nil
	})}
}

type optimizeIn struct {
	Job    string `json:"job,omitempty" jsonschema:"enum=maintenance,enum=summarize,enum=dedup,enum=noise,enum=prune,enum=size,enum=purge,enum=compact" jsonschema_description:"maintenance (default: every job), summarize (condense old conversations, archive their messages), dedup (merge near-duplicates), noise (archive old acknowledgements), prune (archive unused memories, per retention.mode), size (enforce size limits), purge (delete long-forgotten memories a backup holds), compact (compact the database, repair the index)."`
	DryRun bool   `json:"dry_run,omitempty" jsonschema_description:"Report what would change without changing anything."`
}

type optimizeOut struct {
	Status     string         `json:"status" jsonschema_description:"OK."`
	Operations []string       `json:"operations" jsonschema_description:"What was done, e.g. merged_2_duplicate_entries_undo_with_unforget_memory."`
	Counts     map[string]int `json:"counts" jsonschema_description:"The numbers behind the operations."`
	Warnings   []string       `json:"warnings" jsonschema_description:"What could not be done, and why."`
	DryRun     bool           `json:"dry_run" jsonschema_description:"Nothing was changed."`
	Merges     []MergeGroup   `json:"merges,omitempty" jsonschema_description:"Duplicates merged (or to be) into the one kept; unforget_memory undoes a merge."`
	Kind       string         `json:"kind,omitempty" jsonschema_description:"recalled_memory when it carries memory text."`
	Notice     string         `json:"notice,omitempty"`
}

func optimizeMemory(d Deps) server.ServerTool {
	tool := mcp.NewTool("optimize_memory",
		mcp.WithDescription("Run maintenance now (it also runs nightly): summarize old conversations and archive their messages, merge duplicates, archive noise and unused memories, purge long-forgotten ones a backup holds, compact. Archived and merged memories stay recoverable. Use it when the user asks to clean up or optimize their memory; dry_run shows what would change."),
		mcp.WithInputSchema[optimizeIn](),
		mcp.WithOutputSchema[optimizeOut](),
		annotate("Optimize memory", false, true, false),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "optimize_memory", func(ctx context.Context, _ call, in optimizeIn) (any, error) {
		job := strings.TrimSpace(in.Job)
		if job == "" {
			job = "maintenance"
		}
		res, err := d.Optimize(ctx, job, in.DryRun)
		if err != nil {
			return nil, err
		}
		out := optimizeOut{Status: "OK", Operations: res.Operations, Counts: res.Counts, Warnings: res.Warnings, DryRun: res.DryRun, Merges: res.Merges}
		out.Kind, out.Notice = labelled(len(out.Merges) > 0)
		if out.Operations == nil {
			out.Operations = []string{}
		}
		if out.Counts == nil {
			out.Counts = map[string]int{}
		}
		if out.Warnings == nil {
			out.Warnings = []string{}
		}
		return out, nil
	})}
}
