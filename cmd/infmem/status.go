package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/installer"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/version"
	"github.com/infmem/infmem/maintenance"
	"github.com/infmem/infmem/mongostore"
)

type statusOptions struct {
	common commonFlags
	json   bool
}

var statusCommand = command{
	summary: "show the daemon, the login service, the engine and what is stored",
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

	Daemon  daemonReport  `json:"daemon"`
	Service serviceReport `json:"login_service"`
	// ClaudeRegistered: Claude Desktop's config runs infmem ('infmem mcp'
	// then starts the daemon whenever Claude needs it).
	ClaudeRegistered bool `json:"claude_registered"`
	// Index and Memories come from a running daemon's in-memory index.
	Index    *control.IndexStatus  `json:"index,omitempty"`
	Memories *control.MemoryCounts `json:"memories,omitempty"`
	// Embedding is a running daemon's sentence embedder.
	Embedding *control.EmbeddingStatus `json:"embedding,omitempty"`
	// Sync is a running daemon's part in a shared database (sync.enabled).
	Sync *control.SyncStatus `json:"sync,omitempty"`
	// Backups is the backup state (the newest backup among it): the
	// daemon's when one runs and has its memory open, else read here. Its
	// warnings come from the config of whoever read it.
	Backups *backup.State `json:"backups,omitempty"`
	// Maintenance is each maintenance job's last run.
	Maintenance *maintenance.State `json:"maintenance,omitempty"`

	// ConfigError says why the config file cannot be used; the report then
	// shows what it can without it.
	ConfigError string `json:"config_error,omitempty"`
	// DataRootProblem says why the data root cannot be used (it is
	// read-only).
	DataRootProblem string `json:"data_root_problem,omitempty"`
	// EngineError says why the database could not be opened here.
	EngineError string `json:"engine_error,omitempty"`
}

// daemonReport is the daemon's part of the status.
type daemonReport struct {
	// Presence is running, absent or stale (see control.Presence).
	Presence      string     `json:"presence"`
	PID           int        `json:"pid,omitempty"`
	StartedAt     *time.Time `json:"started_at,omitempty"`
	UptimeSeconds int64      `json:"uptime_seconds,omitempty"`
	Version       string     `json:"version,omitempty"`
	Socket        string     `json:"socket,omitempty"`
	// State is the daemon's memory state (control.State*).
	State    string `json:"state,omitempty"`
	Error    string `json:"error,omitempty"`
	Sessions int    `json:"sessions"`
	// Problem says why leftovers are stale.
	Problem string `json:"problem,omitempty"`
	// Config is the daemon's record of its configuration: the file it
	// reads, what it could not apply and what waits for a restart.
	Config *control.ConfigStatus `json:"config,omitempty"`
	// UI is the daemon's web UI ('infmem ui'): where it listens, if it does.
	UI *control.UIStatus `json:"ui,omitempty"`
}

// serviceReport is the login service's part of the status.
type serviceReport struct {
	// State is running, stopped, installed (running unknown), outdated
	// (registered for another binary, root or config), not installed, or
	// unavailable (no service manager).
	State    string `json:"state"`
	Kind     string `json:"kind,omitempty"`
	Location string `json:"location,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

func runStatus(ctx context.Context, opts statusOptions, env *cliEnv) error {
	s, cfgErr, err := statusSession(opts.common, env)
	if err != nil {
		return err
	}
	ep, err := control.EndpointsFor(s.root)
	if err != nil {
		return err
	}
	rep := statusReport{
		Version: version.String(), DataRoot: s.root.Dir, DataRootFrom: s.rootBy,
		Config: s.src.How, Database: s.cfg.Database, Collections: map[string]int64{},
	}
	if s.src.Path != "" {
		rep.Config = s.src.Path
	}
	// What cannot be shown is said, and makes the exit code, after the
	// rest is printed.
	var problems []error
	if cfgErr != nil {
		rep.ConfigError = cfgErr.Error()
		problems = append(problems, cfgErr)
	}
	if roErr := dataRootWritable(s.root.Dir); roErr != nil {
		rep.DataRootProblem = roErr.Error()
		problems = append(problems, roErr)
	}
	rep.Service = loginServiceReport(ctx, s, env)
	rep.ClaudeRegistered = claudeRegistered(env)

	probe := control.ProbeDaemon(ctx, ep)
	rep.Daemon.Presence = string(probe.Presence)
	if probe.Presence == control.Stale {
		rep.Daemon.Problem = probe.Problem
	}
	var engineErr, daemonErr error
	switch {
	case probe.Presence == control.Running:
		if err := fillFromDaemon(ctx, &rep, ep); err != nil {
			// The report is still printed (--json callers always get
			// JSON), saying why the daemon's part is missing.
			rep.Daemon.Problem = err.Error()
			daemonErr = err
		}
		if rep.Backups == nil && cfgErr == nil {
			// The daemon's memory is not open: the configuration can
			// still be judged.
			rep.Backups = backup.ConfigState(s.cfg.Backup)
		}
	case len(problems) > 0:
		// Without a usable config or a writable data root, the database
		// is not opened here: the config names the engine, and every
		// engine writes to the data root. The backups can still be read.
		if entries, err := backup.List(s.root.BackupsDir()); err == nil && len(entries) > 0 {
			e := entries[0]
			kind := string(e.Kind())
			if kind == "" {
				kind = "no manifest"
			}
			if rep.Backups == nil {
				rep.Backups = &backup.State{}
			}
			rep.Backups.LastBackup = &backup.StateBackup{File: e.File, Kind: kind, At: e.CreatedAt, Size: e.Size}
		}
	default:
		if engineErr = fillInProcess(ctx, &rep, s); engineErr != nil {
			redact := redactor(s.cfg.Mongo.URI, mongostore.RedactURI(s.cfg.Mongo.URI))
			engineErr = errors.New(redact(engineErr.Error()))
			rep.EngineError = engineErr.Error()
		}
	}
	if opts.json {
		if err := printJSON(env.stdout, rep); err != nil {
			return err
		}
	} else if err := printStatus(env.stdout, &rep, ep); err != nil {
		return err
	}
	if len(problems) > 0 {
		return configError{errors.Join(problems...)}
	}
	if engineErr != nil {
		return fmt.Errorf("cannot open the database: %w", engineErr)
	}
	return daemonErr
}

// statusSession is setup for status, which shows what it can even when
// the config file is invalid: it then uses the built-in defaults on the
// data root that --data-dir, $INFMEM_DATA_DIR or the file's data_dir
// names, if that exists, and returns the config's problem as cfgErr.
func statusSession(c commonFlags, env *cliEnv) (s *session, cfgErr, err error) {
	s, err = setup(c, env, env.stderr, true)
	if err == nil {
		return s, nil, nil
	}
	_, src, lerr := loadConfig(c, env)
	var ce configError
	if lerr == nil || !errors.As(lerr, &ce) {
		return nil, nil, err
	}
	cfg := config.Defaults()
	var known bool
	cfg.DataDir, known = dataDirOf(src.Path)
	dir, how, rerr := dataroot.Resolve(c.dataDir, env.getenv, cfg.DataDir)
	if rerr != nil || !known && how != "--data-dir" && how != dataroot.EnvDataDir {
		// Which data root the file would choose is not known.
		return nil, nil, err
	}
	if _, serr := os.Stat(dir); serr != nil {
		// Nothing there to show; creating a data root on a guess is wrong.
		return nil, nil, err
	}
	root, perr := dataroot.Prepare(dir)
	if perr != nil {
		return nil, nil, err
	}
	return &session{cfg: cfg, src: src, root: root, rootBy: how, log: newLogger(env.stderr, "warn")}, lerr, nil
}

// dataDirOf reads data_dir from a config file that does not validate;
// known is false when the file is not a readable JSON object, so that
// which data root it chooses cannot be told.
func dataDirOf(path string) (dir string, known bool) {
	if path == "" {
		return "", true
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(raw, &doc) != nil {
		return "", false
	}
	v, ok := doc["data_dir"]
	if !ok {
		return "", true
	}
	if json.Unmarshal(v, &dir) != nil {
		return "", false
	}
	return dir, true
}

// fillFromDaemon asks the running daemon, which owns the database.
func fillFromDaemon(ctx context.Context, rep *statusReport, ep control.Endpoints) error {
	c, err := control.Dial(ctx, ep.Control)
	if err != nil {
		return err
	}
	defer c.Close()
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err := c.Status(cctx)
	if err != nil {
		return fmt.Errorf("cannot get the daemon's status: %w", err)
	}
	started := st.StartedAt
	rep.Daemon = daemonReport{Presence: string(control.Running), PID: st.PID, StartedAt: &started,
		UptimeSeconds: int64(time.Since(st.StartedAt).Seconds()), Version: st.Version, Socket: st.Socket,
		State: st.State, Error: st.Error, Sessions: st.Sessions, Config: st.Config, UI: st.UI}
	if st.Store != nil {
		fillStore(rep, st.Store)
	}
	rep.Index, rep.Memories, rep.Backups, rep.Maintenance = st.Index, st.Memories, st.Backups, st.Maintenance
	rep.Embedding = st.Embedding
	rep.Sync = st.Sync
	return nil
}

// fillInProcess opens the database itself: no daemon holds it.
func fillInProcess(ctx context.Context, rep *statusReport, s *session) error {
	store, err := s.openStoreToRead(ctx)
	if err != nil {
		return err
	}
	defer store.Close(context.WithoutCancel(ctx))
	ss, err := daemon.ReadStoreStatus(ctx, store, s.cfg.Database)
	if err != nil {
		return err
	}
	fillStore(rep, ss)
	if rep.Backups, err = backup.ReadState(ctx, store, s.cfg.Backup); err != nil {
		// The rest of the status still holds; the config can be judged.
		s.log.Warn("cannot read the backup record", "err", err)
		rep.Backups = backup.ConfigState(s.cfg.Backup)
	}
	if rep.Maintenance, err = maintenance.ReadState(ctx, store, s.cfg.Maintenance.Schedule, ""); err != nil {
		s.log.Warn("cannot read the maintenance record", "err", err)
	}
	return nil
}

func fillStore(rep *statusReport, ss *control.StoreStatus) {
	rep.Engine, rep.EngineReason, rep.URI = ss.Engine, ss.EngineReason, ss.URI
	rep.SchemaVersion, rep.Collections, rep.DataSizeBytes = ss.SchemaVersion, ss.Collections, ss.DataSizeBytes
}

// loginService looks up the login service as 'infmem install' would
// register it for this data root and config.
func loginService(ctx context.Context, s *session, env *cliEnv) (*installer.LoginService, error) {
	def, _ := dataroot.Default(env.getenv)
	opts := installer.Options{DataDir: s.root.Dir, DefaultDataDir: def, Env: env.getenv}
	if s.src.How == "--config" || s.src.How == config.EnvConfig {
		opts.ConfigFile = s.src.Path
	}
	return installer.OpenLoginService(ctx, opts)
}

func loginServiceReport(ctx context.Context, s *session, env *cliEnv) serviceReport {
	ls, err := loginService(ctx, s, env)
	if err != nil {
		if errors.Is(err, installer.ErrNoServiceManager) {
			return serviceReport{State: "unavailable", Detail: strings.TrimPrefix(err.Error(), "login service: ")}
		}
		return serviceReport{State: "unknown", Detail: err.Error()}
	}
	r := serviceReport{Kind: ls.Kind, Location: ls.Location}
	switch {
	case !ls.Installed():
		r.State = "not installed"
		return r
	case !ls.Current():
		r.State = "outdated"
		r.Detail = "registered for another binary, data root or config; 'infmem install' updates it"
		return r
	}
	running, err := ls.Running()
	switch {
	case err != nil:
		r.State, r.Detail = "installed", err.Error()
	case running:
		r.State = "running"
	default:
		r.State = "stopped"
	}
	return r
}

func printStatus(out io.Writer, rep *statusReport, ep control.Endpoints) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "version\t%s\n", rep.Version)
	if rep.DataRootProblem != "" {
		fmt.Fprintf(w, "data root\t%s (%s), READ-ONLY (see below)\n", rep.DataRoot, rep.DataRootFrom)
	} else {
		fmt.Fprintf(w, "data root\t%s (%s)\n", rep.DataRoot, rep.DataRootFrom)
	}
	if rep.ConfigError != "" {
		fmt.Fprintf(w, "config\t%s, INVALID (see below); shown with the defaults\n", rep.Config)
	} else {
		fmt.Fprintf(w, "config\t%s\n", rep.Config)
	}
	d := rep.Daemon
	switch control.Presence(d.Presence) {
	case control.Running:
		if d.Problem != "" {
			// The daemon answered the probe but not the status request.
			fmt.Fprintf(w, "daemon\trunning, but its status cannot be read: %s\n", firstLineOf(d.Problem))
			break
		}
		fmt.Fprintf(w, "daemon\trunning, pid %d, up %s, %d MCP sessions, memory %s\n", d.PID,
			(time.Duration(d.UptimeSeconds) * time.Second).String(), d.Sessions, d.State)
		if d.Error != "" {
			fmt.Fprintf(w, "\t%s\n", firstLineOf(d.Error))
		}
		if cs := d.Config; cs != nil {
			file := cs.Path
			if file == "" {
				file = "the built-in defaults"
			}
			fmt.Fprintf(w, "daemon config\t%s, read %s\n", file, cs.LoadedAt.Local().Format(time.DateTime))
		}
		if d.UI != nil && d.UI.Addr != "" {
			fmt.Fprintf(w, "web UI\tlistening on %s until 15 minutes unused ('infmem ui' opens it)\n", d.UI.Addr)
		} else {
			fmt.Fprintf(w, "web UI\tnot open ('infmem ui' opens it in your browser)\n")
		}
	case control.Stale:
		fmt.Fprintf(w, "daemon\tnot running; leftovers of a crashed daemon (%s), replaced when the next one starts\n", d.Problem)
	default:
		if rep.DataRootProblem != "" {
			fmt.Fprintf(w, "daemon\tnot running; it cannot start until the data root is writable\n")
			break
		}
		if rep.ClaudeRegistered {
			fmt.Fprintf(w, "daemon\tnot running (Claude starts it through 'infmem mcp'; 'infmem start' starts it now)\n")
		} else {
			fmt.Fprintf(w, "daemon\tnot running ('infmem start' starts it; 'infmem install' registers infmem with Claude Desktop)\n")
		}
	}
	sv := rep.Service
	switch sv.State {
	case "unavailable", "unknown":
		fmt.Fprintf(w, "login service\t%s: %s\n", sv.State, firstLineOf(sv.Detail))
	case "not installed":
		fmt.Fprintf(w, "login service\tnot installed ('infmem install' registers it)\n")
	default:
		fmt.Fprintf(w, "login service\t%s %s: %s\n", sv.Kind, sv.Location, sv.State)
	}
	switch {
	case rep.Engine == "" && rep.EngineError != "":
		fmt.Fprintf(w, "engine\tcannot be opened (see below)\n")
	case rep.Engine == "" && d.Presence != string(control.Running) && (rep.DataRootProblem != "" || rep.ConfigError != ""):
		fmt.Fprintf(w, "engine\tnot opened (see below)\n")
	case rep.Engine == "":
		fmt.Fprintf(w, "engine\tnot open yet (daemon state %s)\n", d.State)
	default:
		fmt.Fprintf(w, "engine\t%s (%s)\n", rep.Engine, rep.EngineReason)
		fmt.Fprintf(w, "database\t%s at %s, schema version %d, %.1f MB\n", rep.Database, rep.URI, rep.SchemaVersion, float64(rep.DataSizeBytes)/(1<<20))
	}
	if m := rep.Memories; m != nil {
		fmt.Fprintf(w, "memories\t%d live in %s, %s, %s in /memories, %d forgotten, %d archived\n", m.Total, plural(len(m.Scopes), "scope", "scopes"),
			plural(int(m.Summaries), "summary", "summaries"), plural(int(m.Files), "file", "files"), m.Forgotten, m.Archived)
	}
	if ix := rep.Index; ix != nil {
		switch {
		case ix.Ready && ix.Source != "":
			fmt.Fprintf(w, "index\tready (loaded from the %s)\n", ix.Source)
		case ix.Ready:
			fmt.Fprintf(w, "index\tready\n")
		case ix.Error != "":
			fmt.Fprintf(w, "index\tFAILED to load (trying again by itself): %s\n", ix.Error)
		default:
			fmt.Fprintf(w, "index\tloading, %d of about %d\n", ix.Loaded, ix.Expected)
		}
		if len(ix.OtherWriters) > 0 {
			fmt.Fprintf(w, "\tMISSES CHANGES: sync is off, but other devices write to this database: %s; set \"sync\": {\"enabled\": true} in config.json and restart (docs/SYNC.md)\n", strings.Join(ix.OtherWriters, "; "))
		}
		if ix.Skipped > 0 {
			fmt.Fprintf(w, "\tleft out %s of the database that break the rules for a memory; latest:\n", plural(int(ix.Skipped), "document", "documents"))
			for _, s := range ix.SkippedRecent {
				fmt.Fprintf(w, "\t  %s\n", s)
			}
		}
	}
	if sy := rep.Sync; sy != nil {
		printSync(w, sy)
	}
	if es := rep.Embedding; es != nil {
		switch es.State {
		case control.EmbeddingOff:
			fmt.Fprintf(w, "embedding	none (embedding.model is %q): keyword search only\n", es.Model)
		case control.EmbeddingFailed:
			fmt.Fprintf(w, "embedding	%s FAILED to load: search ranks by keywords only (see below)\n", es.Model)
		default:
			weights := ""
			if es.Weights != "" {
				weights = ", weights " + es.Weights
			}
			fmt.Fprintf(w, "embedding	%s %s%s\n", es.Model, es.State, weights)
		}
	}
	if rep.Engine != "" {
		for _, name := range mongostore.CollectionNames {
			fmt.Fprintf(w, "  %s\t%d\n", name, rep.Collections[name])
		}
	}
	if b := rep.Backups; b != nil && b.LastBackup != nil {
		fmt.Fprintf(w, "last backup\t%s (%s, %s)\n", b.LastBackup.At.Local().Format(time.DateTime), b.LastBackup.Kind, b.LastBackup.File)
	} else if rep.Engine != "" {
		fmt.Fprintf(w, "last backup\tnone recorded\n")
	}
	if b := rep.Backups; b != nil {
		printBackupRuns(w, b)
	}
	printMaintenance(w, rep.Maintenance, rep.Engine != "")
	if err := w.Flush(); err != nil {
		return err
	}
	if d.Presence == string(control.Running) && d.State == control.StateFailed {
		fmt.Fprintf(out, "hint: the daemon cannot open the database; see %s\n", ep.LogFile())
	}
	if es := rep.Embedding; es != nil && es.State == control.EmbeddingFailed {
		msg, hint := splitHint(errors.New(es.Error))
		fmt.Fprintf(out, "warning: %s; search ranks by keywords only until the daemon restarts with a model that loads (memories stored meanwhile are embedded then)\n", msg)
		if hint != "" {
			fmt.Fprintf(out, "hint: %s\n", hint)
		}
	}
	if cs := d.Config; cs != nil {
		printConfigWarnings(out, cs)
	}
	if b := rep.Backups; b != nil {
		printBackupWarnings(out, b, ep)
	}
	return nil
}

// printConfigWarnings says what the daemon could not do with its config
// file: a file it refused, changes that wait for a restart.
func printConfigWarnings(out io.Writer, cs *control.ConfigStatus) {
	if cs.Error != "" {
		at := ""
		if cs.ErrorAt != nil {
			at = " at " + cs.ErrorAt.Local().Format(time.DateTime)
		}
		msg, hint := splitHint(errors.New(cs.Error))
		fmt.Fprintf(out, "warning: the daemon refused its config file%s and runs on with its previous configuration: %s\n", at, firstLineOf(msg))
		if hint != "" {
			fmt.Fprintf(out, "hint: %s\n", hint)
		}
		fmt.Fprintf(out, "hint: correct the key named; the daemon reads the file again when it changes ('infmem reload' makes it read it now)\n")
	}
	if len(cs.RestartNeeded) > 0 {
		fmt.Fprintf(out, "warning: %s\n", restartNeededLine(cs.RestartNeeded))
	}
}

// printBackupRuns adds a line for the last run of each backup schedule and
// the last manual backup a daemon made.
func printBackupRuns(w io.Writer, b *backup.State) {
	if !b.Enabled {
		fmt.Fprintf(w, "scheduled backups\tdisabled\n")
	} else if len(b.Scheduled) == 0 {
		fmt.Fprintf(w, "scheduled backups\tenabled, but both schedules are off\n")
	}
	for _, kind := range backup.RunKinds {
		r, ok := b.Runs[kind]
		if !ok {
			continue
		}
		at := r.FinishedAt.Local().Format(time.DateTime)
		switch {
		case r.OK && r.RetentionError != "":
			fmt.Fprintf(w, "%s backup\tok at %s (%s); retention failed: %s\n", kind, at, r.File, firstLineOf(r.RetentionError))
		case r.OK:
			fmt.Fprintf(w, "%s backup\tok at %s (%s)\n", kind, at, r.File)
		case r.Attempts > 1:
			fmt.Fprintf(w, "%s backup\tFAILED at %s after %d attempts: %s\n", kind, at, r.Attempts, firstLineOf(r.Error))
		default:
			fmt.Fprintf(w, "%s backup\tFAILED at %s: %s\n", kind, at, firstLineOf(r.Error))
		}
	}
}

// printBackupWarnings says what is wrong with backups, below the table.
func printBackupWarnings(out io.Writer, b *backup.State, ep control.Endpoints) {
	for _, kind := range b.Failing {
		fmt.Fprintf(out, "warning: the last %s backup failed and none was made since\nhint: see %s; 'infmem backup' makes one now\n", kind, ep.LogFile())
	}
	for _, w := range b.Warnings {
		fmt.Fprintf(out, "warning: %s\n", w)
	}
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// printMaintenance prints each maintenance job's last run and warnings.
func printMaintenance(w io.Writer, m *maintenance.State, open bool) {
	if m == nil || len(m.Runs) == 0 {
		if open {
			fmt.Fprintf(w, "maintenance\tno run recorded\n")
		}
		return
	}
	names := make([]string, 0, len(m.Runs))
	for n := range m.Runs {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		r := m.Runs[n]
		label := ""
		if i == 0 {
			label = "maintenance"
		}
		line := fmt.Sprintf("%s: %s at %s, %v", n, r.Outcome, r.LastRun.Local().Format(time.DateTime), r.Duration.Round(time.Millisecond))
		if n == m.Running {
			line += " (running now)"
		}
		fmt.Fprintf(w, "%s\t%s\n", label, line)
		if r.Error != "" {
			fmt.Fprintf(w, "\t  error: %s\n", r.Error)
		}
		for _, warn := range r.Warnings {
			fmt.Fprintf(w, "\t  warning: %s\n", warn)
		}
	}
}

// printSync prints the sync rows: this device, how far it has read the
// others' changes, and who runs scheduled maintenance and backups.
func printSync(w io.Writer, sy *control.SyncStatus) {
	devs := make([]string, 0, len(sy.Position))
	for d := range sy.Position {
		devs = append(devs, d)
	}
	sort.Strings(devs)
	var parts []string
	for _, d := range devs {
		p := fmt.Sprintf("%s at %d", d, sy.Position[d])
		if b := sy.Behind[d]; b > 0 {
			p += fmt.Sprintf(" (%d behind)", b)
		}
		parts = append(parts, p)
	}
	others := "no other device yet"
	if len(parts) > 0 {
		others = "read " + strings.Join(parts, ", ")
	}
	fmt.Fprintf(w, "sync	device %s; its next change is feed entry %d; %s\n", sy.Device, sy.FeedNext, others)
	if sy.FeedPending {
		fmt.Fprintf(w, "\tone change is not yet announced to the other devices (retrying)\n")
	}
	if sy.Error != "" {
		fmt.Fprintf(w, "\tcannot read the change feed: %s\n", sy.Error)
	}
	if sy.Reloads > 0 {
		fmt.Fprintf(w, "\treloaded the whole index %s; last at %s: %s\n", plural(int(sy.Reloads), "time", "times"), sy.ReloadAt.Local().Format(time.DateTime), sy.ReloadReason)
	}
	switch {
	case sy.FollowMode == "":
	case strings.HasPrefix(sy.FollowMode, "change stream") && !sy.Streaming:
		fmt.Fprintf(w, "\thears of changes by feed polling until its %s reopens: %s\n", sy.FollowMode, sy.StreamError)
	case sy.StreamError != "" && !sy.Streaming:
		fmt.Fprintf(w, "\thears of changes by %s (%s)\n", sy.FollowMode, sy.StreamError)
	default:
		fmt.Fprintf(w, "\thears of changes by %s\n", sy.FollowMode)
	}
	if sy.StreamFallbacks > 0 {
		fmt.Fprintf(w, "\tthe change stream could not resume %s and caught up from the change feed\n", plural(int(sy.StreamFallbacks), "time", "times"))
	}
	if sy.DeviceConflict != "" {
		fmt.Fprintf(w, "\tWARNING: %s; give each machine its own sync.device\n", sy.DeviceConflict)
	}
	switch {
	case sy.HoldsLease:
		fmt.Fprintf(w, "maintainer\tthis device runs scheduled maintenance and backups (lease until %s)\n", sy.LeaseExpiresAt.Local().Format(time.TimeOnly))
	case sy.LeaseHolder != "":
		fmt.Fprintf(w, "maintainer\t%s runs scheduled maintenance and backups (lease until %s)\n", sy.LeaseHolder, sy.LeaseExpiresAt.Local().Format(time.TimeOnly))
	default:
		fmt.Fprintf(w, "maintainer\tnone yet\n")
	}
	if sy.LeaseError != "" {
		fmt.Fprintf(w, "\tcannot take or renew the maintenance lease: %s\n", sy.LeaseError)
	}
}
