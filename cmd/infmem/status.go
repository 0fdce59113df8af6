package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/infmem/infmem/internal/version"
	"github.com/infmem/infmem/mongostore"
)

type statusOptions struct {
	common commonFlags
	json   bool
}

var statusCommand = command{
	summary: "show the engine, data root and what is stored",
	usage:   "status [--json] [--config FILE] [--data-dir DIR]",
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		var opts statusOptions
		fs := newFlagSet("status", env, "status [--json] [--config FILE] [--data-dir DIR]")
		opts.common.register(fs)
		fs.BoolVar(&opts.json, "json", false, "print machine-readable JSON")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usageErrorf("status takes no arguments")
		}
		return runStatus(ctx, opts, env)
	},
}

// statusReport is what status prints.
type statusReport struct {
	Version       string           `json:"version"`
	DataRoot      string           `json:"data_root"`
	DataRootFrom  string           `json:"data_root_from"`
	Config        string           `json:"config"`
	Engine        string           `json:"engine"`
	EngineReason  string           `json:"engine_reason"`
	URI           string           `json:"uri"`
	Database      string           `json:"database"`
	SchemaVersion int              `json:"schema_version"`
	Collections   map[string]int64 `json:"collections"`
	DataSizeBytes int64            `json:"data_size_bytes"`
}

func runStatus(ctx context.Context, opts statusOptions, env *cliEnv) error {
	s, err := setup(opts.common, env, env.stderr, true)
	if err != nil {
		return err
	}
	store, err := s.openStore(ctx)
	if err != nil {
		return err
	}
	defer store.Close(context.WithoutCancel(ctx))

	rep := statusReport{
		Version: version.String(), DataRoot: s.root.Dir, DataRootFrom: s.rootBy,
		Config: s.src.How, Engine: store.Engine, EngineReason: store.Reason,
		URI: store.RedactedURI(), Database: s.cfg.Database, Collections: map[string]int64{},
	}
	if s.src.Path != "" {
		rep.Config = s.src.Path
	}
	if rep.SchemaVersion, err = store.SchemaVersionStored(ctx); err != nil {
		return err
	}
	for _, name := range mongostore.CollectionNames {
		n, err := store.Database().Collection(name).EstimatedDocumentCount(ctx)
		if err != nil {
			return fmt.Errorf("cannot count %s: %w", name, err)
		}
		rep.Collections[name] = n
	}
	if rep.DataSizeBytes, _, err = store.DBStats(ctx); err != nil {
		return err
	}
	if opts.json {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	w := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "version\t%s\n", rep.Version)
	fmt.Fprintf(w, "data root\t%s (%s)\n", rep.DataRoot, rep.DataRootFrom)
	fmt.Fprintf(w, "config\t%s\n", rep.Config)
	fmt.Fprintf(w, "engine\t%s (%s)\n", rep.Engine, rep.EngineReason)
	fmt.Fprintf(w, "database\t%s at %s, schema version %d, %.1f MB\n", rep.Database, rep.URI, rep.SchemaVersion, float64(rep.DataSizeBytes)/(1<<20))
	for _, name := range mongostore.CollectionNames {
		fmt.Fprintf(w, "  %s\t%d\n", name, rep.Collections[name])
	}
	return w.Flush()
}
