package installer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// serviceState is how the registered service compares with the plan.
type serviceState int

const (
	serviceAbsent serviceState = iota
	serviceCurrent
	serviceStale
)

// serviceStep is the login-service half of a plan.
type serviceStep struct {
	plan    *servicePlan
	mgr     ServiceManager
	state   serviceState
	current string // the registered definition, when there is one
}

// claudeStep is the Claude Desktop half of a plan.
type claudeStep struct {
	file    fileState
	updated []byte
	changed bool
	backup  string // the backup name a dry run announces
}

func (o Options) planServiceStep(ctx context.Context) (*serviceStep, error) {
	cfg := ServiceConfig(o)
	userID := o.userID
	if o.goos == "windows" && userID == "" {
		var err error
		if userID, err = currentUserID(); err != nil {
			return nil, err
		}
	}
	plan, err := planService(o.goos, cfg, o.Home, userID)
	if err != nil {
		return nil, noServiceHint(err)
	}
	var mgr ServiceManager
	switch {
	case o.NewServiceManager != nil:
		mgr, err = o.NewServiceManager(cfg)
	case o.goos != runtime.GOOS:
		err = fmt.Errorf("%w: cannot register a %s service from %s", ErrNoServiceManager, o.goos, runtime.GOOS)
	default:
		mgr, err = newPlatformManager(ctx, cfg, plan)
	}
	if err != nil {
		return nil, noServiceHint(fmt.Errorf("login service: %w", err))
	}
	cur, installed, err := mgr.Current()
	if err != nil {
		return nil, fmt.Errorf("login service: %w", err)
	}
	s := &serviceStep{plan: plan, mgr: mgr, current: cur}
	switch {
	case !installed:
		s.state = serviceAbsent
	case plan.matches(cur):
		s.state = serviceCurrent
	default:
		s.state = serviceStale
	}
	return s, nil
}

const noServiceAdvice = "pass --no-service to leave the login service alone; Claude Desktop still works, because `infmem mcp` starts the daemon when it needs one"

func noServiceHint(err error) error {
	if !errors.Is(err, ErrNoServiceManager) {
		return err
	}
	return &hinted{err: err, hint: noServiceAdvice}
}

func (o Options) planClaudeStep(edit func([]byte) ([]byte, bool, error)) (*claudeStep, error) {
	path, err := ClaudeConfigPath(o.goos, o.Env, o.Home)
	if err != nil {
		return nil, err
	}
	file, err := readFileState(path)
	if err != nil {
		return nil, fmt.Errorf("claude desktop config: %w", err)
	}
	updated, changed, err := edit(file.data)
	if err != nil {
		if errors.Is(err, ErrMalformedConfig) {
			return nil, &hinted{
				err:  fmt.Errorf("%s: %w; the file was left unchanged", path, err),
				hint: "fix the file (or move it aside) and run the command again",
			}
		}
		return nil, fmt.Errorf("claude desktop config %s: %w", path, err)
	}
	c := &claudeStep{file: file, updated: updated, changed: changed}
	if changed && file.exists {
		c.backup = backupName(file.target, o.Now())
	}
	return c, nil
}

// Install registers infmem as the user's login service and adds it to
// Claude Desktop's config, writing what it does (or, with DryRun, would do)
// to out. Everything is checked before anything changes: a malformed Claude
// config or a missing service manager fails the whole install untouched.
// Running it again with the same options changes nothing.
func Install(ctx context.Context, opts Options, out io.Writer) (*Report, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	entry := o.claudeEntry()
	claude, err := o.planClaudeStep(func(b []byte) ([]byte, bool, error) { return MergeClaudeConfig(b, entry) })
	if err != nil {
		return nil, err
	}
	var svc *serviceStep
	if !o.NoService {
		if svc, err = o.planServiceStep(ctx); err != nil {
			return nil, err
		}
	}
	rep := &Report{DryRun: o.DryRun, DataDir: o.DataDir, ClaudeConfig: claude.file.path, ClaudeConfigChanged: claude.changed}
	if svc != nil {
		rep.ServiceKind, rep.ServiceLocation = svc.plan.kind, svc.plan.location
		rep.ServiceChanged = svc.state != serviceCurrent
	}
	p := &printer{w: out}
	if o.DryRun {
		p.line("Dry run: nothing was changed. infmem install would do the following.")
		p.blank()
		svc.describeInstall(p)
		claude.describe(p, "add infmem to it")
		p.line("Data directory %s: not touched.", o.DataDir)
		return rep, p.err
	}

	if svc != nil {
		if err := svc.install(ctx, p); err != nil {
			return rep, fmt.Errorf("%w; Claude Desktop's config was not changed", err)
		}
	} else {
		p.line("Login service: left alone (--no-service).")
	}
	if err := claude.apply(ctx, p, o, rep, "added infmem", "already registers infmem"); err != nil {
		return rep, err
	}
	p.line("Data directory: %s", o.DataDir)
	if claude.changed {
		p.line("Restart Claude Desktop to pick up the change.")
	}
	return rep, p.err
}

// Uninstall removes infmem from Claude Desktop's config and removes the login
// service. The data directory is left in place and reported. A malformed
// Claude config fails the whole uninstall untouched; otherwise both halves
// are attempted and their errors joined.
func Uninstall(ctx context.Context, opts Options, out io.Writer) (*Report, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	claude, err := o.planClaudeStep(RemoveFromClaudeConfig)
	if err != nil {
		return nil, err
	}
	var svc *serviceStep
	if !o.NoService {
		if svc, err = o.planServiceStep(ctx); err != nil {
			return nil, err
		}
	}
	rep := &Report{DryRun: o.DryRun, DataDir: o.DataDir, ClaudeConfig: claude.file.path, ClaudeConfigChanged: claude.changed}
	if svc != nil {
		rep.ServiceKind, rep.ServiceLocation = svc.plan.kind, svc.plan.location
		rep.ServiceChanged = svc.state != serviceAbsent
	}
	p := &printer{w: out}
	if o.DryRun {
		p.line("Dry run: nothing was changed. infmem uninstall would do the following.")
		p.blank()
		claude.describe(p, "remove infmem from it")
		svc.describeUninstall(p)
		p.line("Data directory %s: kept; delete it yourself to erase all memories.", o.DataDir)
		return rep, p.err
	}

	var errs []error
	if err := claude.apply(ctx, p, o, rep, "removed infmem", "does not register infmem"); err != nil {
		errs = append(errs, err)
	}
	if svc != nil {
		if err := svc.uninstall(ctx, p); err != nil {
			errs = append(errs, err)
		}
	} else {
		p.line("Login service: left alone (--no-service).")
	}
	p.line("Data directory %s was kept; delete it yourself to erase all memories.", o.DataDir)
	if claude.changed {
		p.line("Restart Claude Desktop to pick up the change.")
	}
	errs = append(errs, p.err)
	return rep, errors.Join(errs...)
}

func (c *claudeStep) apply(ctx context.Context, p *printer, o Options, rep *Report, did, already string) error {
	if !c.changed {
		p.line("Claude Desktop config %s: %s.", c.file.path, already)
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	backup, err := replaceFile(c.file, c.updated, o.Now())
	if err != nil {
		return fmt.Errorf("claude desktop config: %w", err)
	}
	rep.Backup = backup
	if backup == "" {
		p.line("Claude Desktop config %s: created; %s.", c.file.path, did)
	} else {
		p.line("Claude Desktop config %s: %s; the previous version is saved as %s.", c.file.path, did, backup)
	}
	return nil
}

func (s *serviceStep) install(ctx context.Context, p *printer) error {
	kind, loc := s.plan.kind, s.plan.location
	if s.state == serviceCurrent {
		p.line("Login service: %s %s is already up to date.", kind, loc)
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	verb := "registered"
	if s.state == serviceStale {
		verb = "replaced the outdated"
		_ = s.mgr.Stop() // it may not be running; Uninstall reports real trouble
		if err := s.mgr.Uninstall(); err != nil {
			// A half-written definition (an empty file from a failed render)
			// cannot be disabled; removing the file is all that is left to do.
			if !s.plan.file {
				return fmt.Errorf("login service: remove the outdated %s: %w", kind, err)
			}
			if rmErr := os.Remove(loc); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
				return fmt.Errorf("login service: remove the outdated %s: %w", kind, errors.Join(err, rmErr))
			}
		}
	}
	for _, dir := range s.plan.mkdirs {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("login service: create %s: %w", dir, err)
		}
	}
	if err := s.mgr.Install(); err != nil {
		s.removeOwnLeftover()
		return &hinted{
			err:  fmt.Errorf("login service: register the %s: %w", kind, err),
			hint: noServiceAdvice,
		}
	}
	cur, installed, err := s.mgr.Current()
	switch {
	case err != nil:
		return fmt.Errorf("login service: check the registration: %w", err)
	case !installed:
		return fmt.Errorf("login service: the service manager reported success but %s is not registered", loc)
	case s.plan.file && strings.TrimSpace(cur) == "":
		// kardianos/service creates the file before rendering into it.
		s.removeOwnLeftover()
		return fmt.Errorf("login service: kardianos/service wrote an empty %s (its template failed to render); the file was removed", loc)
	case !s.plan.matches(cur):
		p.line("Note: the registered %s differs from what infmem expected; it was kept as written by the service manager.", kind)
	}
	if err := s.mgr.Start(); err != nil {
		return fmt.Errorf("login service: %s %s, but starting it failed: %w", verb, loc, err)
	}
	p.line("Login service: %s %s %s and started it.", verb, kind, loc)
	return nil
}

// removeOwnLeftover deletes a definition file after a failed install, so a
// retry does not stop at "already exists"; only an empty file or our own
// content is removed.
func (s *serviceStep) removeOwnLeftover() {
	if !s.plan.file {
		return
	}
	b, err := os.ReadFile(s.plan.location)
	if err == nil && (len(bytes.TrimSpace(b)) == 0 || string(b) == s.plan.content) {
		os.Remove(s.plan.location)
	}
}

func (s *serviceStep) uninstall(ctx context.Context, p *printer) error {
	kind, loc := s.plan.kind, s.plan.location
	if s.state == serviceAbsent {
		p.line("Login service: no %s %s; nothing to remove.", kind, loc)
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_ = s.mgr.Stop() // it may not be running
	if err := s.mgr.Uninstall(); err != nil {
		return fmt.Errorf("login service: remove the %s %s: %w", kind, loc, err)
	}
	if _, installed, err := s.mgr.Current(); err != nil || installed {
		return fmt.Errorf("login service: %s %s is still registered after removal (%v)", kind, loc, err)
	}
	p.line("Login service: stopped and removed %s %s.", kind, loc)
	return nil
}

// printer writes the plan or progress, remembering the first write error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}

func (p *printer) blank() { p.line("") }

// block prints text indented by prefix, one line at a time.
func (p *printer) block(prefix, text string) {
	for _, l := range strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n") {
		p.line("%s%s", prefix, strings.TrimRight(l, "\r\n"))
	}
}

func (p *printer) commands(steps []planStep) {
	for _, s := range steps {
		if s.command {
			p.line("  run: %s", s.text)
		} else {
			p.line("  %s", s.text)
		}
	}
}

func (s *serviceStep) describeInstall(p *printer) {
	if s == nil {
		p.line("Login service: left alone (--no-service).")
		p.blank()
		return
	}
	kind, loc := s.plan.kind, s.plan.location
	switch s.state {
	case serviceCurrent:
		p.line("Login service: %s %s is already up to date; nothing to do.", kind, loc)
		p.blank()
		return
	case serviceStale:
		p.line("Login service: replace the outdated %s %s:", kind, loc)
		p.commands(s.plan.stop)
		p.commands(s.plan.uninstall)
	default:
		p.line("Login service: register a %s:", kind)
	}
	for _, d := range s.plan.mkdirs {
		p.line("  create directory %s", d)
	}
	switch {
	case s.state == serviceStale && s.plan.file:
		p.line("  write %s, changed as follows:", loc)
		p.block("    ", unifiedDiff(loc, loc+" (new)", s.current, s.plan.content))
	case s.plan.file:
		p.line("  write %s:", loc)
		p.block("    ", s.plan.content)
	default:
		p.line("  register task %s with this definition:", loc)
		p.block("    ", s.plan.content)
	}
	p.commands(s.plan.install)
	p.commands(s.plan.start)
	p.blank()
}

func (s *serviceStep) describeUninstall(p *printer) {
	if s == nil {
		p.line("Login service: left alone (--no-service).")
		p.blank()
		return
	}
	kind, loc := s.plan.kind, s.plan.location
	if s.state == serviceAbsent {
		p.line("Login service: no %s %s; nothing to remove.", kind, loc)
		p.blank()
		return
	}
	p.line("Login service: stop and remove the %s %s:", kind, loc)
	p.commands(s.plan.stop)
	p.commands(s.plan.uninstall)
	p.blank()
}

func (c *claudeStep) describe(p *printer, what string) {
	f := c.file
	switch {
	case !c.changed:
		p.line("Claude Desktop config %s: nothing to do.", f.path)
	case !f.exists:
		p.line("Claude Desktop config %s: create it (mode 0600) to %s:", f.path, what)
		p.block("    ", string(c.updated))
	default:
		p.line("Claude Desktop config %s: %s.", f.path, what)
		if f.target != f.path {
			p.line("  it is a link to %s, which is the file edited", f.target)
		}
		p.line("  save the current version as %s", c.backup)
		p.line("  change it as follows:")
		name := filepath.Base(f.path)
		p.block("    ", unifiedDiff(name, name+" (new)", string(f.data), string(c.updated)))
	}
	p.blank()
}
