package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/webui"
	"github.com/infmem/infmem/maintenance"
)

// uiState is the daemon's local web UI (package webui), built on first
// use; it listens only between a control client's ui request and
// webui.DefaultIdleTimeout without a request.
type uiState struct {
	mu  sync.Mutex
	srv *webui.Server
}

// server is the UI server, nil before the first ui request.
func (u *uiState) server() *webui.Server {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.srv
}

// webUI is the daemon's UI server; its engine calls wait for the memory
// as tool calls do (Runtime.memoryFor).
func (d *Daemon) webUI() *webui.Server {
	d.ui.mu.Lock()
	defer d.ui.mu.Unlock()
	if d.ui.srv == nil {
		d.ui.srv = webui.New(webui.Options{Memory: d.rt.memoryFor, Logger: d.log, Redact: d.rt.redact, Version: d.opts.Version,
			Audit: d.rt.uiAudit, Maintain: d.rt.uiMaintain, Backup: d.rt.uiBackup, BackupSetup: d.rt.uiBackupSetup,
			LaunchDir: d.opts.Root.RunDir()})
	}
	return d.ui.srv
}

// The UI's maintenance and backups views run the daemon's own jobs, as the
// terminal commands do (RunJob: maintain, maintenance-log, backup).

func (r *Runtime) uiAudit(ctx context.Context, limit int) ([]maintenance.AuditEntry, error) {
	out, err := r.runJobJSON(ctx, JobMaintenanceLog, map[string]int{"limit": limit})
	if err != nil {
		return nil, err
	}
	entries, _ := out.([]maintenance.AuditEntry)
	return entries, nil
}

func (r *Runtime) uiMaintain(ctx context.Context, job string, dryRun bool) (*maintenance.Report, error) {
	out, err := r.runJobJSON(ctx, JobMaintain, MaintainJobArgs{Job: job, DryRun: dryRun})
	if err != nil {
		return nil, err
	}
	rep, _ := out.(*maintenance.Report)
	return rep, nil
}

// uiBackup makes a manual backup encrypted as configured (the page never
// handles a passphrase), reporting its progress.
func (r *Runtime) uiBackup(ctx context.Context, progress func(backup.Progress)) (*backup.Result, error) {
	ctx = control.WithProgress(ctx, func(v any) {
		if p, ok := v.(backup.Progress); ok {
			progress(p)
		}
	})
	out, err := r.runJobJSON(ctx, JobBackup, BackupJobArgs{Encryption: EncConfigured})
	if err != nil {
		return nil, err
	}
	res, _ := out.(*backup.Result)
	if res == nil {
		return nil, errors.New("the backup job returned no result")
	}
	return res, nil
}

// uiBackupSetup is where backups go and how they are encrypted: the
// identity file's path, never its contents.
func (r *Runtime) uiBackupSetup(ctx context.Context) (webui.BackupSetup, error) {
	b := r.svc.backups
	cfg := b.config()
	out := webui.BackupSetup{Dir: b.dir, Encryption: cfg.Encryption, Recipients: len(cfg.Recipients), IdentityFile: cfg.IdentityFile}
	out.State = backup.ConfigState(cfg)
	// While the memory is not open, what the configuration says.
	r.Do(ctx, func(st *Stack) error {
		if s, err := b.state(ctx, st); err == nil {
			out.State = s
		}
		return nil
	})
	return out, nil
}

func (r *Runtime) runJobJSON(ctx context.Context, job string, args any) (any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	return r.RunJob(ctx, job, raw)
}

// OpenUI implements control.UIHandler: it starts the UI when it is not
// listening and returns a URL that opens it once.
func (h controlHandler) OpenUI(ctx context.Context) (*control.UIInfo, error) {
	d := h.d
	d.mu.Lock()
	stopping := d.stopping
	d.mu.Unlock()
	if stopping {
		return nil, ErrStopped
	}
	srv := d.webUI()
	l, err := srv.OpenLaunch()
	if err != nil {
		return nil, err
	}
	return &control.UIInfo{URL: l.URL, Addr: srv.Addr(), LaunchFile: l.File, IdleTimeout: webui.DefaultIdleTimeout}, nil
}

// uiStatus says whether the UI listens, for status.
func (d *Daemon) uiStatus() *control.UIStatus {
	srv := d.ui.server()
	if srv == nil {
		return &control.UIStatus{}
	}
	return &control.UIStatus{Addr: srv.Addr()}
}

// closeUI stops the UI's listener; shutdown calls it once no control
// request can open it again.
func (d *Daemon) closeUI() {
	if srv := d.ui.server(); srv != nil {
		if err := srv.Close(); err != nil {
			d.log.Warn("the UI did not close cleanly", "err", err)
		}
	}
}
