package daemon

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/mcptools"
	"github.com/infmem/infmem/maintenance"
)

// Attach starts a component on an open stack and returns how to stop it.
type Attach func(ctx context.Context, s *Stack) (stop func(context.Context) error, err error)

// Job runs on the open stack on behalf of a control client; its result is
// encoded as JSON.
type Job func(ctx context.Context, s *Stack, args json.RawMessage) (any, error)

// toolHooks run the MCP tools that need more than the memory engine:
// backup_memory, export_memory, optimize_memory and the maintenance runs
// get_memory_stats shows.
type toolHooks struct {
	Backup          func(ctx context.Context, s *Stack) (mcptools.BackupResult, error)
	Export          func(ctx context.Context, s *Stack, req mcptools.ExportRequest) (mcptools.ExportResult, error)
	Optimize        func(ctx context.Context, s *Stack, job string, dryRun bool) (mcptools.OptimizeResult, error)
	MaintenanceRuns func(ctx context.Context, s *Stack) (map[string]mcptools.MaintenanceRun, error)
}

// services are what a runtime runs beside the memory: the components
// attached to the open memory (the scheduler of maintenance and backups,
// the GC target), the jobs terminal commands start on the control socket,
// the tools that need more than the engine, the status sections, and
// what takes a reloaded configuration.
type services struct {
	backups     *backupService
	maintenance *maintenanceService
	attach      []Attach
	jobs        map[string]Job
	tools       toolHooks
	reconfigure []func(context.Context, config.Config) error
}

// newServices builds the services of a runtime on cfg and root.
func newServices(cfg config.Config, root dataroot.Root, oneShot bool, log *slog.Logger) *services {
	b := &backupService{cfg: cfg.Backup, dir: root.BackupsDir(), exportDir: root.ExportDir(), log: log}
	m := newMaintenanceService(cfg, root, log)
	m.oneShot = oneShot
	tools := m.tools()
	tools.Backup, tools.Export = b.backupTool, b.exportTool
	return &services{
		backups:     b,
		maintenance: m,
		attach:      []Attach{gcAttacher(cfg.Memory, log), m.attach},
		jobs: map[string]Job{
			JobBackup:         b.backupJob,
			JobExport:         b.exportJob,
			JobMaintain:       m.maintainJob,
			JobMaintenanceLog: m.logJob,
			JobImport:         importJob(cfg, log),
			JobLessons:        lessonsJob,
		},
		tools:       limitTools(tools, newToolLimits(time.Now)),
		reconfigure: []func(context.Context, config.Config) error{b.reconfigure, m.reconfigure},
	}
}

// states are the backup and maintenance sections of the status.
func (sv *services) states(ctx context.Context, st *Stack) (*backup.State, *maintenance.State, []error) {
	var errs []error
	b, err := sv.backups.state(ctx, st)
	if err != nil {
		errs = append(errs, err)
	}
	m, err := sv.maintenance.state(ctx, st)
	if err != nil {
		errs = append(errs, err)
	}
	return b, m, errs
}
