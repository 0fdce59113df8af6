package daemon

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
)

// ConfigSource is where a daemon reads its configuration again: when its
// file changes (checked every Poll, and whenever status is asked for), on
// SIGHUP, and when a control client asks (`infmem reload`).
type ConfigSource struct {
	// Path is the file Options.Config was read from ("" for the built-in
	// defaults).
	Path string
	// Load reads and validates the configuration the way the daemon was
	// started with it (the same lookup and command-line overrides), and
	// says which file it read ("" for the built-in defaults).
	Load func() (cfg config.Config, path string, err error)
	// Stamp identifies the configuration's current version cheaply, such
	// as the file's path, size and modification time: a change makes the
	// daemon read it again.
	Stamp func() string
	// Poll is how often Stamp is compared (default 2 s; negative: only on
	// SIGHUP, status and reload requests).
	Poll time.Duration
}

const defaultConfigPoll = 2 * time.Second

// initConfig records the configuration the daemon starts with.
func (d *Daemon) initConfig() {
	if d.opts.ConfigSource == nil {
		return
	}
	src := *d.opts.ConfigSource
	if src.Poll == 0 {
		src.Poll = defaultConfigPoll
	}
	d.opts.ConfigSource = &src
	now := time.Now().UTC()
	d.cfgState = control.ConfigStatus{Path: src.Path, LoadedAt: now, StartedAt: now}
	d.stamp = src.Stamp()
	d.stopWatch = make(chan struct{})
	// A session that starts right after the file broke is told at once.
	refresh := func() { d.reloadIfChanged(context.Background()) }
	d.rt.onInitialize.Store(&refresh)
}

// watchConfig reloads the configuration on SIGHUP and when its file
// changes, until the daemon stops. It starts watching for SIGHUP before
// it returns, and does the rest in the background.
func (d *Daemon) watchConfig() {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	d.loops.Add(1)
	go func() {
		defer d.loops.Done()
		defer signal.Stop(hup)
		d.watchLoop(hup)
	}()
}

func (d *Daemon) watchLoop(hup <-chan os.Signal) {
	src := d.opts.ConfigSource
	var tick <-chan time.Time
	if src.Poll > 0 {
		t := time.NewTicker(src.Poll)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-d.stopWatch:
			return
		case <-hup:
			d.Reload(context.Background(), "SIGHUP")
		case <-tick:
			d.reloadIfChanged(context.Background())
		}
	}
}

// reloadIfChanged reloads when the configuration's stamp changed.
func (d *Daemon) reloadIfChanged(ctx context.Context) {
	src := d.opts.ConfigSource
	if src == nil {
		return
	}
	d.reloadMu.Lock()
	changed := src.Stamp() != d.stamp
	d.reloadMu.Unlock()
	if changed {
		d.Reload(ctx, "the config file changed")
	}
}

// Reload reads the configuration again and applies what can change while
// the daemon runs (config.Live): backup recipients and schedules,
// maintenance settings and schedule, the log level. Keys that need a
// restart are recorded, not applied, and reported by status. A
// configuration that does not load is logged and recorded, and the daemon
// runs on with the one it had. why says what asked for the reload (for
// the log). The result is the daemon's record afterwards.
func (d *Daemon) Reload(ctx context.Context, why string) control.ConfigStatus {
	src := d.opts.ConfigSource
	if src == nil {
		return control.ConfigStatus{Error: "this daemon cannot reload its configuration"}
	}
	d.reloadMu.Lock()
	defer d.reloadMu.Unlock()
	d.stamp = src.Stamp()
	cfg, path, err := src.Load()
	now := time.Now().UTC()
	if err != nil {
		msg := d.rt.redact(err.Error())
		d.setConfigState(func(s *control.ConfigStatus) { s.Error, s.ErrorAt = msg, &now })
		d.log.Error("configuration refused; the daemon runs on with its previous one", "reason", why, "err", msg)
		return d.ConfigStatus()
	}
	applied, restart, rerr := d.rt.Reconfigure(ctx, cfg)
	d.setConfigState(func(s *control.ConfigStatus) {
		s.Path, s.LoadedAt, s.RestartNeeded = path, now, restart
		s.Reloads++
		s.Error, s.ErrorAt = "", nil
		if len(applied) > 0 {
			s.Applied, s.AppliedAt = applied, &now
		}
		if rerr != nil {
			s.Error, s.ErrorAt = "the configuration was read, but not all of it applied: "+d.rt.redact(rerr.Error()), &now
		}
	})
	switch {
	case rerr != nil:
		d.log.Error("configuration reloaded, but not all of it applied", "reason", why, "path", path, "applied", applied, "err", d.rt.redact(rerr.Error()))
	case len(applied) > 0:
		d.log.Info("configuration reloaded", "reason", why, "path", path, "applied", applied)
	default:
		d.log.Info("configuration read again; nothing to apply", "reason", why, "path", path)
	}
	if len(restart) > 0 {
		d.log.Warn("configuration changes that take effect only after a restart ('infmem restart')", "keys", restart)
	}
	return d.ConfigStatus()
}

func (d *Daemon) setConfigState(fn func(*control.ConfigStatus)) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	fn(&d.cfgState)
	d.rt.SetConfigProblem(d.cfgState.Error)
}

// ConfigStatus is the daemon's record of its configuration.
func (d *Daemon) ConfigStatus() control.ConfigStatus {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	s := d.cfgState
	s.Applied = append([]string(nil), s.Applied...)
	s.RestartNeeded = append([]string(nil), s.RestartNeeded...)
	return s
}
