package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/installer"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/diskfree"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/logging"
	"github.com/infmem/infmem/internal/sockdir"
	"github.com/infmem/infmem/mongostore"
)

type doctorOptions struct {
	common commonFlags
	json   bool
}

const doctorUsage = "doctor [--json] [--config FILE] [--data-dir DIR]"

var doctorCommand = command{
	summary: "check the installation and say how to fix what is wrong",
	usage:   doctorUsage,
	run: func(ctx context.Context, env *cliEnv, args []string) error {
		var opts doctorOptions
		fs := newFlagSet("doctor", env, doctorUsage)
		opts.common.register(fs)
		fs.BoolVar(&opts.json, "json", false, "print the checks as JSON")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usageErrorf("doctor takes no arguments")
		}
		return runDoctor(ctx, opts, env)
	},
}

// Check outcomes.
const (
	checkPass = "ok"
	checkWarn = "warn"
	checkFail = "FAIL"
)

// doctorCheck is one finding.
type doctorCheck struct {
	Name   string `json:"name"`
	Result string `json:"result"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Disk space thresholds on the data root's file system.
const (
	diskFailBytes = 200 << 20
	diskWarnBytes = 2 << 30
)

// doctor runs the checks in order; later ones use what earlier ones found.
type doctor struct {
	env    *cliEnv
	checks []doctorCheck
	cfg    config.Config
	src    config.Source
	root   *dataroot.Root
	// backups is the backup state read by the engine check; backupsWhy
	// says why there is none.
	backups    *backup.State
	backupsWhy string
	// readOnly is set when the data root cannot be written.
	readOnly bool
	// embedding is a running daemon's embedder, read by the engine check.
	embedding *control.EmbeddingStatus
	// syncChecked is set once the sync checks have run.
	syncChecked bool
}

func (d *doctor) add(name, result, detail, fix string) {
	d.checks = append(d.checks, doctorCheck{Name: name, Result: result, Detail: detail, Fix: fix})
}

func runDoctor(ctx context.Context, opts doctorOptions, env *cliEnv) error {
	d := &doctor{env: env, cfg: config.Defaults()}
	resolveIdentityFile(&d.cfg, env)
	d.checkConfig(opts.common)
	d.checkDataRoot(opts.common)
	if d.root != nil {
		if !d.readOnly {
			// On a read-only root the data root check says it all.
			d.checkLog()
		}
		d.checkDisk()
	}
	d.checkMongod()
	if d.root != nil {
		d.checkListeners()
		d.checkDaemonAndEngine(ctx)
	}
	d.checkModel()
	if d.root != nil {
		d.checkBackupConfig()
		d.checkBackups(time.Now())
		d.checkLoginService(ctx)
	}
	d.checkClaude()

	failed := 0
	for _, c := range d.checks {
		if c.Result == checkFail {
			failed++
		}
	}
	if opts.json {
		if err := printJSON(env.stdout, d.checks); err != nil {
			return err
		}
	} else {
		for _, c := range d.checks {
			fmt.Fprintf(env.stdout, "%-4s  %-14s %s\n", c.Result, c.Name, c.Detail)
			if c.Fix != "" {
				fmt.Fprintf(env.stdout, "      %-14s fix: %s\n", "", c.Fix)
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed; each says how to fix it", failed, len(d.checks))
	}
	return nil
}

// splitHint separates an error's "hint:" line, which becomes the fix.
func splitHint(err error) (msg, hint string) {
	msg = err.Error()
	if i := strings.Index(msg, "\nhint: "); i >= 0 {
		return msg[:i], strings.TrimSpace(msg[i+len("\nhint: "):])
	}
	if i := strings.Index(msg, "; hint: "); i >= 0 {
		return msg[:i], strings.TrimSpace(msg[i+len("; hint: "):])
	}
	return msg, ""
}

func (d *doctor) checkConfig(c commonFlags) {
	src, err := config.Locate(c.configPath, d.env.getenv, os.UserConfigDir)
	if err != nil {
		d.add("config", checkFail, err.Error(), "make the file readable, or move it away to use the defaults")
		return
	}
	d.src = src
	if src.Path == "" {
		d.add("config", checkPass, "built-in defaults (no config file)", "")
		return
	}
	cfg, err := config.ReadFile(src.Path)
	if err != nil {
		d.add("config", checkFail, firstLineOf(err.Error()), "correct the key named in "+src.Path+" (every key and its default is in config.example.json)")
		// The other checks use the defaults, on the data root the file names.
		d.cfg.DataDir, _ = dataDirOf(src.Path)
		return
	}
	resolveIdentityFile(&cfg, d.env)
	d.cfg = cfg
	d.add("config", checkPass, fmt.Sprintf("%s (%s)", src.Path, src.How), "")
}

func (d *doctor) checkDataRoot(c commonFlags) {
	dir, how, err := dataroot.Resolve(c.dataDir, d.env.getenv, d.cfg.DataDir)
	if err != nil {
		msg, hint := splitHint(err)
		d.add("data root", checkFail, msg, hint)
		return
	}
	root, err := dataroot.Prepare(dir)
	if err != nil {
		msg, hint := splitHint(err)
		if errors.Is(err, syscall.EROFS) {
			ro := &readOnlyError{root: dir, dir: dir, err: syscall.EROFS, mount: true}
			msg, hint = splitHint(ro)
		}
		if hint == "" {
			hint = "make " + dir + " a directory that you own, with mode 700, or choose another with --data-dir"
			if runtime.GOOS == "windows" {
				hint = "make " + dir + " a directory that you own, that only you (and SYSTEM) can use, or choose another with --data-dir"
			}
		}
		d.add("data root", checkFail, msg, hint)
		return
	}
	d.root = &root
	if err := dataRootWritable(dir); err != nil {
		d.readOnly = true
		msg, hint := splitHint(err)
		d.add("data root", checkFail, msg+" (chosen by "+how+")", hint)
		return
	}
	// On Windows the access lists decide; Prepare refused any that let
	// another account change a directory, this reports those that let one
	// read. Each subdirectory counts on its own: Windows lets every account
	// pass through a folder it cannot list (bypass traverse checking).
	for _, sub := range []string{"", dataroot.MongoData, dataroot.Backups, dataroot.Logs, dataroot.Export, dataroot.Run} {
		if err := dataroot.CheckAccessList(root.Path(sub)); err != nil {
			msg, hint := splitHint(err)
			d.add("data root", checkWarn, msg+" (data root chosen by "+how+")", hint)
			return
		}
	}
	fi, err := os.Stat(dir)
	if err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		d.add("data root", checkWarn, fmt.Sprintf("%s (%s) can be read by other users (mode %04o)", dir, how, fi.Mode().Perm()),
			"chmod 700 "+dir)
		return
	}
	d.add("data root", checkPass, fmt.Sprintf("%s (%s), private to you", dir, how), "")
}

func (d *doctor) checkLog() {
	path := filepath.Join(d.root.LogsDir(), logging.FileName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		d.add("service log", checkFail, err.Error(), "make "+d.root.LogsDir()+" writable by you: chmod 700 "+d.root.LogsDir())
		return
	}
	f.Close()
	d.add("service log", checkPass, path, "")
}

func (d *doctor) checkDisk() {
	space, err := diskfree.Stat(d.root.Dir)
	free := space.Free
	if err != nil {
		d.add("disk space", checkWarn, "cannot measure: "+err.Error(), "")
		return
	}
	detail := fmt.Sprintf("%s free where the data root is", humanBytes(int64(free)))
	switch {
	case free < diskFailBytes:
		d.add("disk space", checkFail, detail, "free some space: writes and backups fail when the disk is full")
	case free < diskWarnBytes:
		d.add("disk space", checkWarn, detail, "free some space soon; backups need room for a copy of the data")
	default:
		d.add("disk space", checkPass, detail, "")
	}
}

func (d *doctor) checkMongod() {
	mode := d.cfg.Mongo.Mode
	path := d.cfg.Mongo.MongodPath
	var found string
	var err error
	if path != "" {
		found, err = exec.LookPath(path)
	} else {
		found, err = exec.LookPath("mongod")
	}
	switch {
	case mode == mongostore.ModeEmbedded || mode == mongostore.ModeExternal:
		d.add("mongod", checkPass, fmt.Sprintf("not needed (mongo.mode is %s)", mode), "")
	case err == nil:
		d.add("mongod", checkPass, fmt.Sprintf("found at %s; mongo.mode %s runs it (managed engine)", found, mode), "")
	case mode == mongostore.ModeManaged || path != "":
		what := "no mongod on PATH"
		if path != "" {
			what = "mongo.mongod_path " + path + " is not an executable"
		}
		d.add("mongod", checkFail, what+" but the managed engine needs one",
			"install MongoDB's mongod, point mongo.mongod_path at it, or set mongo.mode to embedded")
	default:
		d.add("mongod", checkPass, "not found; mongo.mode auto uses the embedded engine (nothing to install)", "")
	}
}

// checkListeners says where infmem listens, as the README promises: unix
// sockets in private folders, talking only to this user's processes. The
// exception is the managed mongod on Windows (no unix socket there), or a
// data root path with a ':' (a MongoDB URI cannot name such a socket).
func (d *doctor) checkListeners() {
	ep, err := control.EndpointsFor(*d.root)
	if err != nil {
		return // the daemon check reports it
	}
	where := "unix sockets only: " + ep.MCP + ", " + ep.Control
	if runtime.GOOS == "windows" {
		where += " (the folder's access list keeps other accounts out)"
	} else {
		where += " in 0700 folders; connections from other users are refused"
	}
	mode := d.cfg.Mongo.Mode
	if mode == mongostore.ModeAuto || mode == "" {
		mode = mongostore.ModeEmbedded
		if _, err := exec.LookPath(cmp.Or(d.cfg.Mongo.MongodPath, "mongod")); err == nil {
			mode = mongostore.ModeManaged
		}
	}
	switch {
	case mode == mongostore.ModeManaged && (runtime.GOOS == "windows" || strings.Contains(d.root.RunDir(), ":")):
		why := "mongod has no unix socket on Windows"
		if runtime.GOOS != "windows" {
			why = "the data root's path has a ':', which a MongoDB URI cannot name in a socket path"
		}
		d.add("listeners", checkWarn, where+"; but the managed mongod listens on 127.0.0.1 ("+why+"), where another local account could reach it before infmem's user exists",
			"on a shared machine use mongo.mode embedded (nothing to install)")
	case mode == mongostore.ModeExternal:
		d.add("listeners", checkPass, where+"; the database is the one at mongo.uri, which infmem does not run", "")
	default:
		socks := []string{ep.MCP, ep.Control}
		if mode == mongostore.ModeEmbedded {
			for _, name := range []string{"mongo.sock", "engine.sock"} {
				if p, err := sockdir.Path(d.root.RunDir(), name); err == nil {
					socks = append(socks, p)
				}
			}
		}
		// What the files say, not what they should be.
		if loose := looseSockets(socks); len(loose) > 0 {
			d.add("listeners", checkWarn, where+"; the "+mode+" engine too; but "+strings.Join(loose, ", ")+": other users reach them as far as the peer check (which refuses them on Linux and macOS)",
				"chmod 700 the folders and 600 the sockets, or restart the daemon ('infmem restart'), which makes them so")
			return
		}
		d.add("listeners", checkPass, where+"; the "+mode+" engine too", "")
	}
}

// looseSockets names each socket that exists among paths and that other
// users could open (its mode, or its folder's, lets them).
func looseSockets(paths []string) []string {
	if runtime.GOOS == "windows" {
		return nil
	}
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if m := fi.Mode().Perm(); m&0o077 != 0 {
			out = append(out, fmt.Sprintf("%s is mode %04o", p, m))
		}
		if di, err := os.Stat(filepath.Dir(p)); err == nil && di.Mode().Perm()&0o077 != 0 {
			out = append(out, fmt.Sprintf("its folder %s is mode %04o", filepath.Dir(p), di.Mode().Perm()))
		}
	}
	return slices.Compact(out)
}

func (d *doctor) checkDaemonAndEngine(ctx context.Context) {
	ep, err := control.EndpointsFor(*d.root)
	if err != nil {
		d.add("daemon", checkFail, err.Error(), "choose a data root with a shorter path (--data-dir)")
		return
	}
	p := control.ProbeDaemon(ctx, ep)
	switch p.Presence {
	case control.Stale:
		d.add("daemon", checkWarn, "not running; a crashed daemon left "+control.InfoName+" behind ("+p.Problem+")",
			"nothing to repair by hand: 'infmem start' (or Claude's next 'infmem mcp') replaces the leftovers")
	case control.Absent:
		if d.readOnly {
			d.add("daemon", checkWarn, "not running, and it cannot start on a read-only data root", "make the data root writable (see the data root check above)")
			break
		}
		hint := "'infmem start' starts it; Claude also starts it through 'infmem mcp'"
		if !claudeRegistered(d.env) {
			hint = "'infmem start' starts it"
		}
		d.add("daemon", checkWarn, "not running", hint)
	}
	if p.Presence != control.Running {
		if d.readOnly {
			d.add("engine", checkWarn, "not checked: no database engine can open a read-only data root", "make the data root writable (see the data root check above)")
			d.backupsWhy = "the data root is read-only"
			return
		}
		d.checkEngineInProcess(ctx)
		return
	}
	conn, err := net.DialTimeout("unix", ep.MCP, 2*time.Second)
	if err != nil {
		d.add("daemon", checkFail, fmt.Sprintf("pid %d answers on its control socket, but its MCP socket %s does not: %v", p.Pong.PID, ep.MCP, err),
			"run 'infmem restart'")
		return
	}
	conn.Close()
	d.add("daemon", checkPass, fmt.Sprintf("pid %d (version %s) answers on %s", p.Pong.PID, p.Pong.Version, ep.MCP), "")
	c, err := control.Dial(ctx, ep.Control)
	if err != nil {
		d.add("engine", checkFail, err.Error(), "run 'infmem restart'")
		return
	}
	defer c.Close()
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err := c.Status(cctx)
	d.backupsWhy = "the daemon does not report it"
	if err == nil {
		d.backupsWhy = "the daemon's memory is " + st.State
		if st.State == control.StateReady {
			d.backupsWhy = "the daemon does not report backups ('infmem restart' makes it run this version)"
		}
		d.backups = st.Backups
		d.embedding = st.Embedding
	}
	if err == nil && d.cfg.Sync.Enabled {
		engine := d.cfg.Mongo.Mode
		if st.Store != nil {
			engine = st.Store.Engine
		}
		defer d.checkSyncBesideDaemon(ctx, st.Sync, engine)
	}
	if err == nil && st.Config != nil {
		d.checkDaemonConfig(st.Config)
	}
	switch {
	case err != nil:
		d.add("engine", checkFail, "the daemon does not report its status: "+err.Error(), "run 'infmem restart'; see "+ep.LogFile())
	case st.State == control.StateFailed:
		msg, hint := splitHint(errors.New(st.Error))
		if hint == "" {
			hint = "see " + ep.LogFile()
		}
		d.add("engine", checkFail, "the daemon cannot open the database: "+msg, hint)
	case st.State != control.StateReady:
		d.add("engine", checkWarn, "the daemon's memory is "+st.State, "wait a few seconds and check again")
	case st.Index != nil && st.Index.Error != "":
		d.add("engine", checkFail, "the engine answers, but the memory index failed to load: "+st.Index.Error,
			"infmem tries again by itself; if this stays, see "+ep.LogFile())
	case st.Index != nil && !st.Index.Ready:
		d.add("engine", checkPass, fmt.Sprintf("%s engine answers; index loading (%d of about %d)", st.Store.Engine, st.Index.Loaded, st.Index.Expected), "")
	default:
		engine := "the"
		if st.Store != nil {
			engine = st.Store.Engine
		}
		d.add("engine", checkPass, engine+" engine answers; index ready", "")
	}
	if err == nil && st.Index != nil && len(st.Index.OtherWriters) > 0 {
		d.add("sync", checkWarn, "sync is off, but other devices write to this database ("+strings.Join(st.Index.OtherWriters, "; ")+"): this daemon's index misses their changes, and they miss this daemon's",
			`set "sync": {"enabled": true} in config.json (and "device" if this host's name is taken) and run 'infmem restart'; see docs/SYNC.md`)
	}
	if err == nil && st.Index != nil && st.Index.Skipped > 0 {
		latest := ""
		if n := len(st.Index.SkippedRecent); n > 0 {
			latest = "; latest: " + st.Index.SkippedRecent[n-1]
		}
		d.add("documents", checkWarn, fmt.Sprintf("the index left out %d document(s) of the database that break the rules for a memory or do not decode%s", st.Index.Skipped, latest),
			"something other than infmem wrote them (another program, or a damaged or hostile database): remove them, or restore a backup; infmem status lists the latest")
	}
}

// checkModel judges the embedding model: a running daemon's as it
// reports it, else the weights this binary would load (a build without
// embedded weights reads and hashes its weight file).
func (d *doctor) checkModel() {
	const keywordOnly = "; search ranks by keywords only"
	if es := d.embedding; es != nil {
		switch es.State {
		case control.EmbeddingFailed:
			msg, hint := splitHint(errors.New(es.Error))
			msg = strings.TrimPrefix(msg, "failed to load embedding model: ")
			d.add("model", checkFail, "the daemon's embedding model ("+es.Model+") did not load: "+msg+keywordOnly,
				strings.TrimPrefix(hint+"; then run 'infmem restart'", "; "))
		case control.EmbeddingOff:
			d.add("model", checkPass, "embedding.model is none: keyword search only, by choice", "")
		default:
			detail := "the daemon's " + es.Model + " model is " + es.State
			if es.Weights != "" {
				detail += ", weights " + es.Weights
			}
			if id, _, ok, _ := embed.Describe(es.Model); ok && id == embed.USELiteModelID {
				detail += "; kernel on this machine: " + embed.Kernel()
			}
			d.add("model", checkPass, detail, "")
		}
		return
	}
	id, _, ok, err := embed.Describe(d.cfg.Embedding.Model)
	switch {
	case err != nil:
		return // the config check has said it
	case !ok:
		d.add("model", checkPass, "embedding.model is none: keyword search only, by choice", "")
		return
	case id != embed.USELiteModelID:
		d.add("model", checkPass, "embedding.model is "+d.cfg.Embedding.Model+" (no weights to load)", "")
		return
	}
	where, err := embed.CheckWeights()
	if err != nil {
		msg, hint := splitHint(err)
		d.add("model", checkFail, msg+keywordOnly, hint)
		return
	}
	if embed.WeightsExternal() {
		where += ", size and SHA-256 as built"
	}
	d.add("model", checkPass, "USE-lite weights "+where+"; kernel: "+embed.Kernel(), "")
}

// checkDaemonConfig judges the daemon's record of its configuration: a
// file it refused fails, changes that wait for a restart warn.
func (d *doctor) checkDaemonConfig(cs *control.ConfigStatus) {
	file := cs.Path
	if file == "" {
		file = "the built-in defaults"
	}
	switch {
	case cs.Error != "":
		msg, hint := splitHint(errors.New(cs.Error))
		fix := "correct the key named; the daemon reads the file again when it changes ('infmem reload' makes it read it now)"
		if hint != "" {
			fix = hint + "; " + fix
		}
		d.add("daemon config", checkFail, "the daemon refused its config file and runs on with its previous configuration: "+firstLineOf(msg), fix)
	case len(cs.RestartNeeded) > 0:
		d.add("daemon config", checkWarn, "config changed since the daemon started: "+takesEffect(cs.RestartNeeded)+" only when the daemon starts",
			"run 'infmem restart'")
	default:
		d.add("daemon config", checkPass, "the daemon runs with "+file+" as it is now", "")
	}
}

// checkEngineInProcess opens the database here, since no daemon holds it.
func (d *doctor) checkEngineInProcess(ctx context.Context) {
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	store, err := mongostore.Open(octx, mongostore.Options{
		Mode: d.cfg.Mongo.Mode, URI: d.cfg.Mongo.URI, MongodPath: d.cfg.Mongo.MongodPath,
		Root: *d.root, Database: d.cfg.Database, KeepIndexSnapshot: true,
	})
	if err != nil {
		msg, hint := splitHint(err)
		if hint == "" {
			hint = "fix mongo.mode / mongo.uri in the config"
		}
		d.add("engine", checkFail, "cannot open the database: "+firstLineOf(msg), hint)
		return
	}
	defer store.Close(context.WithoutCancel(ctx))
	if err := store.Ping(octx); err != nil {
		d.add("engine", checkFail, "the database does not answer: "+err.Error(), "see "+filepath.Join(d.root.LogsDir(), logging.FileName))
		return
	}
	d.add("engine", checkPass, fmt.Sprintf("%s engine opens and answers (%s)", store.Engine, store.Reason), "")
	if d.backups, err = backup.ReadState(octx, store, d.cfg.Backup); err != nil {
		d.backupsWhy = err.Error()
	}
	if d.cfg.Sync.Enabled {
		d.checkSync(gatherSync(octx, store, nil))
	}
}

// checkBackupConfig judges the backup settings: encryption off, or no
// recipient for scheduled backups, is a warning; scheduled backups that
// are bound to fail (encryption required without a recipient) fail.
func (d *doctor) checkBackupConfig() {
	cfg := d.cfg.Backup
	warnings := backup.ConfigWarnings(cfg)
	if len(warnings) == 0 {
		d.add("backup config", checkPass, "scheduled backups encrypted to "+plural(len(cfg.Recipients), "age key", "age keys"), "")
		return
	}
	fix := "run 'infmem backup keygen', keep the identity file it writes safe, and put the recipient it prints in \"backup.recipients\""
	result := checkWarn
	switch {
	case cfg.Encryption == "off":
		fix = "remove \"backup.encryption\": \"off\" from the config so backups are encrypted"
	case len(cfg.Recipients) == 0 && cfg.IdentityFile != "":
		fix = "copy " + cfg.IdentityFile + " somewhere safe away from this machine (a password manager, another disk)"
		if strings.Contains(strings.Join(warnings, " "), "scheduled backups fail") {
			result = checkFail
		}
	case !cfg.Enabled && len(cfg.Recipients) > 0:
		fix = "set \"backup.enabled\" to true"
	case len(cfg.Recipients) == 0 && cfg.Enabled:
		result = checkFail
	}
	d.add("backup config", result, strings.Join(warnings, "; "), fix)
}

// checkBackups fails when the last backup run failed and none was made
// since, or when backups are enabled and none was made for longer than
// the schedule allows (two days with a daily backup).
func (d *doctor) checkBackups(now time.Time) {
	b := d.backups
	logFile := filepath.Join(d.root.LogsDir(), logging.FileName)
	if b == nil {
		why := d.backupsWhy
		if why == "" {
			why = "the database could not be opened"
		}
		d.add("backups", checkWarn, "cannot read the backup record: "+why, "")
		return
	}
	last := "none yet"
	if lb := b.LastBackup; lb != nil {
		last = fmt.Sprintf("%s (%s, %s)", lb.At.Local().Format(time.DateTime), lb.Kind, encryptionWords(lb.Encryption))
	}
	if len(b.Failing) > 0 {
		kind := b.Failing[0]
		r := b.Runs[kind]
		msg, hint := splitHint(errors.New(r.Error))
		if hint == "" {
			hint = "see " + logFile + " for why; once fixed, 'infmem backup' makes one now"
		}
		d.add("backups", checkFail, fmt.Sprintf("the last %s backup failed at %s: %s; last good backup: %s",
			kind, r.FinishedAt.Local().Format(time.DateTime), firstLineOf(msg), last), hint)
		return
	}
	if late, since := b.Overdue(now); late {
		detail := fmt.Sprintf("no backup for %s: the last was made %s", roundDays(now.Sub(since)), since.Local().Format(time.DateTime))
		if b.LastBackup == nil {
			detail = fmt.Sprintf("no backup was ever made, and the memory exists since %s", since.Local().Format(time.DateTime))
		}
		d.add("backups", checkFail, detail,
			"'infmem backup' makes one now; scheduled backups run only while the daemon runs ('infmem install' starts it at login)")
		return
	}
	if !b.Enabled {
		d.add("backups", checkWarn, "scheduled backups are disabled; last backup: "+last, "set \"backup.enabled\" to true in the config")
		return
	}
	d.add("backups", checkPass, "last backup: "+last, "")
}

// encryptionWords says a backup's encryption mode in words.
func encryptionWords(mode string) string {
	switch mode {
	case backup.EncryptionRecipients:
		return "encrypted to age keys"
	case backup.EncryptionPassphrase:
		return "encrypted with a passphrase"
	case backup.EncryptionNone:
		return "not encrypted"
	}
	return mode
}

// roundDays says how long d is in days.
func roundDays(d time.Duration) string {
	n := int(d.Hours() / 24)
	if n == 1 {
		return "1 day"
	}
	return fmt.Sprintf("%d days", n)
}

func (d *doctor) checkLoginService(ctx context.Context) {
	def, _ := dataroot.Default(d.env.getenv)
	opts := installer.Options{DataDir: d.root.Dir, DefaultDataDir: def, Env: d.env.getenv}
	if d.src.How == "--config" || d.src.How == config.EnvConfig {
		opts.ConfigFile = d.src.Path
	}
	ls, err := installer.OpenLoginService(ctx, opts)
	switch {
	case errors.Is(err, installer.ErrNoServiceManager):
		hint := "none needed: Claude starts the daemon through 'infmem mcp'"
		if !claudeRegistered(d.env) {
			hint = "'infmem install' registers infmem with Claude Desktop, which then starts the daemon through 'infmem mcp'"
			if !d.readOnly {
				hint += "; 'infmem start' starts it now"
			}
		}
		d.add("login service", checkWarn, "unavailable: "+firstLineOf(strings.TrimPrefix(err.Error(), "login service: ")), hint)
	case err != nil:
		d.add("login service", checkWarn, "cannot inspect: "+err.Error(), "")
	case !ls.Installed():
		d.add("login service", checkWarn, "not installed", "'infmem install' registers it so the daemon starts at login")
	case !ls.Current():
		d.add("login service", checkWarn, ls.Kind+" "+ls.Location+" is registered for another binary, data root or config", "'infmem install' updates it")
	default:
		d.add("login service", checkPass, ls.Kind+" "+ls.Location, "")
	}
}

// checkClaude reads Claude Desktop's config and checks that its infmem
// entry runs this binary on this data root.
func (d *doctor) checkClaude() {
	home, _ := os.UserHomeDir()
	path, err := installer.ClaudeConfigPath(runtime.GOOS, d.env.getenv, home)
	if err != nil {
		d.add("claude config", checkFail, err.Error(), "")
		return
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		d.add("claude config", checkFail, path+" does not exist", "run 'infmem install' (after installing Claude Desktop)")
		return
	}
	if err != nil {
		d.add("claude config", checkFail, err.Error(), "make "+path+" readable")
		return
	}
	entry, err := readClaudeEntry(raw)
	if err != nil {
		d.add("claude config", checkFail, path+" is not valid JSON: "+err.Error(), "repair the file (or move it aside), then run 'infmem install'")
		return
	}
	if entry == nil {
		d.add("claude config", checkFail, path+" has no mcpServers.infmem entry", "run 'infmem install' (or 'infmem install --no-service')")
		return
	}
	self, err := os.Executable()
	if err == nil && !samePath(entry.Command, self) {
		d.add("claude config", checkFail, fmt.Sprintf("Claude runs %s, not this binary %s", entry.Command, self), "run 'infmem install' with this binary to point Claude at it")
		return
	}
	if len(entry.Args) == 0 || entry.Args[0] != "mcp" {
		d.add("claude config", checkFail, fmt.Sprintf("Claude runs infmem with arguments %q instead of mcp", entry.Args), "run 'infmem install'")
		return
	}
	if d.root != nil {
		want := d.root.Dir
		got := ""
		if i := slices.Index(entry.Args, "--data-dir"); i >= 0 && i+1 < len(entry.Args) {
			got = entry.Args[i+1]
		} else if def, err := dataroot.Default(d.env.getenv); err == nil {
			got = def
		}
		if !samePath(got, want) {
			d.add("claude config", checkFail, fmt.Sprintf("Claude's infmem uses the data root %s, not %s", got, want), "run 'infmem install' with the data root you want Claude to use")
			return
		}
	}
	d.add("claude config", checkPass, path+" runs this binary on this data root", "")
}

type claudeEntry struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// takesEffect is "time_zone takes effect", "time_zone and data_dir take
// effect", "a, b and c take effect".
func takesEffect(keys []string) string {
	switch len(keys) {
	case 0:
		return "nothing takes effect"
	case 1:
		return keys[0] + " takes effect"
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " and " + keys[len(keys)-1] + " take effect"
}

// claudeRegistered reports whether Claude Desktop's config has an infmem
// entry, through which Claude starts the daemon ('infmem mcp').
func claudeRegistered(env *cliEnv) bool {
	home, _ := os.UserHomeDir()
	path, err := installer.ClaudeConfigPath(runtime.GOOS, env.getenv, home)
	if err != nil {
		return false
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	entry, err := readClaudeEntry(raw)
	return err == nil && entry != nil
}

// readClaudeEntry returns mcpServers.infmem, or nil when there is none.
func readClaudeEntry(raw []byte) (*claudeEntry, error) {
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")), &doc); err != nil {
		return nil, err
	}
	e, ok := doc.MCPServers[installer.ClaudeServerName]
	if !ok {
		return nil, nil
	}
	var entry claudeEntry
	if err := json.Unmarshal(e, &entry); err != nil {
		return nil, err
	}
	return &entry, nil
}

func samePath(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 == nil && err2 == nil {
		return ra == rb
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
