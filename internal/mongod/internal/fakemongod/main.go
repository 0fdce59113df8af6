// Command fakemongod stands in for the mongod binary only, in the tests of
// package mongod, because no mongod can be installed on the build machines.
// It is never shipped and never started by the product.
//
// It accepts exactly the command-line flags the supervisor passes to mongod
// (anything else exits 2, as mongod does for options it does not know), keeps
// mongod's lock-file contract in --dbpath, listens where mongod would
// (127.0.0.1:--port and <--unixSocketPrefix>/mongodb-<port>.sock), and serves
// the embedded engine (FerretDB v1 with the SQLite backend, in-process) behind
// a small wire-protocol front end that reproduces what mongod --auth does and
// FerretDB v1's public embedding API cannot: the localhost exception for the
// first createUser, SCRAM-SHA-256 authentication, and Unauthorized for
// unauthenticated commands. See proxy.go and scram.go.
//
// Environment variables make it misbehave for tests:
//
//	FAKEMONGOD_CRASH_ON_START=1   write the lock file, then exit 1 before listening
//	FAKEMONGOD_CRASH_AFTER_MS=N   exit 1 (leaving the lock file) N ms after it starts listening
//	FAKEMONGOD_NEVER_READY=1      hold the lock but never listen
//	FAKEMONGOD_IGNORE_SIGTERM=1   ignore SIGTERM, so only SIGKILL stops it
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

// Exit codes mongod uses for the failures this program reproduces.
const (
	exitClean      = 0
	exitCrash      = 1 // what a crash looks like to the supervisor
	exitBadOptions = 2
	exitNetError   = 48
	exitUncaught   = 100 // mongod's code for DBPathInUse, missing dbpath and unclean lock files
)

type options struct {
	dbpath           string
	port             int
	bindIP           string
	unixSocketPrefix string
	noUnixSocket     bool
	filePermissions  string
	logpath          string
	logappend        bool
	auth             bool
	localhostBypass  bool
}

// setParameters collects repeated --setParameter name=value flags and, like
// mongod, refuses parameter names it does not know.
type setParameters struct{ o *options }

func (s setParameters) String() string { return "" }

func (s setParameters) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("--setParameter %q is not name=value", v)
	}
	switch name {
	case "enableLocalhostAuthBypass":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("bad value for enableLocalhostAuthBypass: %w", err)
		}
		s.o.localhostBypass = b
	default:
		return fmt.Errorf("unknown --setParameter '%s'", name)
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func parseFlags(args []string) (*options, error) {
	o := &options{localhostBypass: true}
	fs := flag.NewFlagSet("mongod", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.dbpath, "dbpath", "", "directory for data files")
	fs.IntVar(&o.port, "port", 27017, "TCP port")
	fs.StringVar(&o.bindIP, "bind_ip", "", "comma-separated addresses to listen on")
	fs.StringVar(&o.unixSocketPrefix, "unixSocketPrefix", "/tmp", "directory for the unix socket")
	fs.BoolVar(&o.noUnixSocket, "nounixsocket", false, "disable the unix socket")
	fs.StringVar(&o.filePermissions, "filePermissions", "0700", "unix socket permissions (octal)")
	fs.StringVar(&o.logpath, "logpath", "", "log file")
	fs.BoolVar(&o.logappend, "logappend", false, "append to the log file")
	fs.BoolVar(&o.auth, "auth", false, "require authentication")
	fs.Var(setParameters{o}, "setParameter", "name=value")
	if err := fs.Parse(args); err != nil {
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
			msg = fmt.Sprintf("unrecognised option '--%s'", name)
		}
		return nil, errors.New(msg)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("too many positional options have been specified on the command line: %q", fs.Args())
	}
	if o.dbpath == "" || o.logpath == "" || o.bindIP == "" {
		return nil, errors.New("fakemongod needs --dbpath, --logpath and --bind_ip")
	}
	if _, err := strconv.ParseUint(o.filePermissions, 8, 32); err != nil {
		return nil, fmt.Errorf("bad --filePermissions %q: %w", o.filePermissions, err)
	}
	return o, nil
}

func run(args []string) int {
	o, err := parseFlags(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error parsing command line: %v\ntry 'mongod --help' for more information\n", err)
		return exitBadOptions
	}

	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if !o.logappend {
		flags |= os.O_TRUNC
	}
	logFile, err := os.OpenFile(o.logpath, flags, 0o600)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakemongod: cannot open --logpath: %v\n", err)
		return exitUncaught
	}
	defer logFile.Close()
	log := slog.New(slog.NewJSONHandler(logFile, nil)).With("component", "fakemongod", "pid", os.Getpid())
	log.Info("fakemongod starting", "args", strings.Join(args, " "))

	if st, err := os.Stat(o.dbpath); err != nil || !st.IsDir() {
		log.Error("NonExistentPath: Data directory not found", "dbpath", o.dbpath)
		return exitUncaught
	}

	lockPath := filepath.Join(o.dbpath, "mongod.lock")
	if b, err := os.ReadFile(lockPath); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		// Old mongod refused to start on a non-empty lock file; modern mongod
		// holds an flock instead. Refusing either way makes the supervisor's
		// stale-lock handling observable in tests.
		log.Error("Detected unclean shutdown - mongod.lock is not empty", "lock_pid", strings.TrimSpace(string(b)))
		return exitUncaught
	}
	if err := os.WriteFile(lockPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		log.Error("Unable to create/open the lock file", "error", err)
		return exitUncaught
	}

	if os.Getenv("FAKEMONGOD_CRASH_ON_START") == "1" {
		log.Error("simulated crash on start (FAKEMONGOD_CRASH_ON_START)")
		return exitCrash
	}

	sigs := make(chan os.Signal, 1)
	if os.Getenv("FAKEMONGOD_IGNORE_SIGTERM") == "1" {
		signal.Ignore(syscall.SIGTERM)
		signal.Notify(sigs, os.Interrupt)
		log.Info("ignoring SIGTERM (FAKEMONGOD_IGNORE_SIGTERM)")
	} else {
		signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	}

	if os.Getenv("FAKEMONGOD_NEVER_READY") == "1" {
		log.Info("never accepting connections (FAKEMONGOD_NEVER_READY)")
		sig := <-sigs
		log.Info("shutting down", "signal", sig.String())
		return cleanExit(lockPath, "", log)
	}

	code, socketPath := serve(o, log, logFile, sigs)
	if code != exitClean {
		return code
	}
	return cleanExit(lockPath, socketPath, log)
}

// serve runs the engine and the listeners until a signal arrives. It returns
// a non-zero exit code when it could not start.
func serve(o *options, log *slog.Logger, logFile io.Writer, sigs <-chan os.Signal) (code int, socketPath string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	engineLog := slog.New(slog.NewJSONHandler(logFile, &slog.HandlerOptions{Level: slog.LevelError})).With("component", "ferretdb")
	fdb, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: "127.0.0.1:0"},
		Handler:   "sqlite",
		SQLiteURL: "file:" + filepath.ToSlash(o.dbpath) + "/",
		Logger:    engineLog,
	})
	if err != nil {
		log.Error("cannot start the storage engine", "error", err)
		return exitUncaught, ""
	}
	engineDone := make(chan struct{})
	go func() {
		defer close(engineDone)
		if err := fdb.Run(ctx); err != nil {
			log.Error("storage engine stopped", "error", err)
		}
	}()
	u, err := url.Parse(fdb.MongoDBURI())
	if err != nil {
		log.Error("cannot read the storage engine address", "error", err)
		return exitUncaught, ""
	}

	users, err := loadUsers(filepath.Join(o.dbpath, "fakemongod-users.json"))
	if err != nil {
		log.Error("cannot read users", "error", err)
		return exitUncaught, ""
	}
	p := &proxy{backend: u.Host, auth: o.auth, localhostBypass: o.localhostBypass, users: users, log: log}

	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for _, ip := range strings.Split(o.bindIP, ",") {
		ip = strings.TrimSpace(ip)
		network, addr := "tcp", net.JoinHostPort(ip, strconv.Itoa(o.port))
		if strings.HasPrefix(ip, "/") {
			// As mongod: a full path in --bind_ip is a unix domain socket.
			network, addr = "unix", ip
			_ = os.Remove(ip)
		}
		l, err := net.Listen(network, addr)
		if err != nil {
			log.Error("Failed to set up listener", "error", err)
			return exitNetError, ""
		}
		listeners = append(listeners, l)
	}
	if !o.noUnixSocket {
		socketPath = filepath.Join(o.unixSocketPrefix, fmt.Sprintf("mongodb-%d.sock", o.port))
		_ = os.Remove(socketPath) // mongod replaces a socket file left by a crash
		l, err := net.Listen("unix", socketPath)
		if err != nil {
			log.Error("Failed to set up listener", "error", err)
			return exitNetError, ""
		}
		perm, _ := strconv.ParseUint(o.filePermissions, 8, 32)
		if err := os.Chmod(socketPath, os.FileMode(perm)); err != nil {
			log.Error("Failed to chmod socket file", "error", err)
			return exitNetError, ""
		}
		listeners = append(listeners, l)
	}
	for _, l := range listeners {
		go p.serve(l)
	}
	log.Info("Waiting for connections", "port", o.port, "socket", socketPath)

	var crash <-chan time.Time
	if v := os.Getenv("FAKEMONGOD_CRASH_AFTER_MS"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil {
			log.Error("bad FAKEMONGOD_CRASH_AFTER_MS", "value", v)
			return exitBadOptions, ""
		}
		crash = time.After(time.Duration(ms) * time.Millisecond)
	}

	select {
	case <-crash:
		log.Error("simulated crash (FAKEMONGOD_CRASH_AFTER_MS)")
		os.Exit(exitCrash) // like a real crash: no cleanup, lock file left behind
	case sig := <-sigs:
		log.Info("shutting down", "signal", sig.String())
	}
	for _, l := range listeners {
		l.Close()
	}
	listeners = nil
	p.closeAll()
	cancel()
	<-engineDone
	return exitClean, socketPath
}

// cleanExit does what mongod does on a clean shutdown: it removes its socket
// and truncates (not deletes) mongod.lock, which tells the next start that
// no recovery is needed.
func cleanExit(lockPath, socketPath string, log *slog.Logger) int {
	if socketPath != "" {
		_ = os.Remove(socketPath)
	}
	if err := os.Truncate(lockPath, 0); err != nil {
		log.Error("cannot truncate the lock file", "error", err)
		return exitUncaught
	}
	log.Info("now exiting")
	return exitClean
}
