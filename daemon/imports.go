package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/importer"
)

// JobImport imports memories from another tool's files; its arguments are
// ImportJobArgs and its result an *importer.Report. Progress comes as
// backup.Progress (Op "import"), which terminals already draw.
const JobImport = "import"

// ImportJobArgs are the arguments of the import job.
type ImportJobArgs struct {
	// Path is the file or folder to import, absolute: the daemon does not
	// share the terminal's working directory.
	Path string `json:"path"`
	// Format is one of importer.Formats, or auto (or empty).
	Format string `json:"format,omitempty"`
	// Scope puts everything into this scope (see importer.Options.Scope).
	Scope  string `json:"scope,omitempty"`
	DryRun bool   `json:"dry_run,omitempty"`
}

// importJob builds the import job on cfg: the engine's size limit and
// default scope are the configuration's. Imports run one at a time, so
// two never record the same items at once.
func importJob(cfg config.Config, log *slog.Logger) Job {
	// One at a time; one waiting gives up when its client leaves.
	one := make(chan struct{}, 1)
	return func(ctx context.Context, s *Stack, raw json.RawMessage) (any, error) {
		var args ImportJobArgs
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("the import request is malformed: %w", err)
		}
		if !filepath.IsAbs(args.Path) {
			return nil, fmt.Errorf("the import path %q is not absolute", args.Path)
		}
		format, err := importer.ParseFormat(args.Format)
		if err != nil {
			return nil, err
		}
		select {
		case one <- struct{}{}:
			defer func() { <-one }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		// Reading and checking the input needs no memory; storing it needs
		// the index loaded. Both stop when ctx ends.
		in, err := importer.ReadContext(ctx, args.Path, format)
		if err != nil {
			return nil, err
		}
		select {
		case <-s.Memory.Loaded():
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		rep, err := importer.Run(ctx, importer.Target{Memory: s.Memory, Store: s.Store}, in, importer.Options{
			Scope: args.Scope, DefaultScope: cfg.Scopes.Default, MaxContentBytes: cfg.Memory.MaxContentBytes, DryRun: args.DryRun, Logger: log,
			Progress: func(p importer.Progress) {
				control.ReportProgress(ctx, backup.Progress{Op: "import", Step: p.Step, Docs: int64(p.Done), TotalDocs: int64(p.Total), Done: p.Final})
			},
		})
		if err != nil {
			return nil, err
		}
		return rep, nil
	}
}
