package daemon

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"runtime/debug"
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
		attach:      []Attach{gcAttach, m.attach},
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

// serverGCPercent is the garbage collector's target in a server once its
// memory index is loaded: the heap may grow to 1.25 times the live data
// instead of Go's default 2. At 100k memories the live heap is about
// 130 MB, most of it without pointers (int8 vectors, postings), so a
// collection costs little: the server's RSS drops from about 360 MB (Go's
// default) and 290 MB (50) to 255 MB, with no measurable change in store
// or retrieve CPU time (BENCHMARKS.md, issue 24). With the vectors, the
// keyword lists and the model's weights mapped outside the heap its live
// part is ~57 MB now; 20 saved another ~3.5 MB but may cost store CPU
// (BENCHMARKS.md, eighth round), so 25 stays. During the index load
// itself, which makes garbage fast, it would cost time, so the default
// applies until then. GOGC, when set, wins.
const serverGCPercent = 25

// gcAttach applies serverGCPercent once the stack's index is loaded.
func gcAttach(ctx context.Context, s *Stack) (func(context.Context) error, error) {
	if os.Getenv("GOGC") != "" {
		return nil, nil
	}
	stop := make(chan struct{})
	// Read before the goroutine starts: a resume replaces s.Memory (after
	// detaching this), possibly before the goroutine first runs.
	loaded := s.Memory.Loaded()
	go func() {
		select {
		case <-loaded:
			debug.SetGCPercent(serverGCPercent)
			// The load's garbage (every document read, decoded and
			// dropped) goes back to the system now, not over minutes.
			debug.FreeOSMemory()
		case <-stop:
		}
	}()
	return func(context.Context) error { close(stop); return nil }, nil
}
