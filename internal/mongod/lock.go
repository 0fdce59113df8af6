package mongod

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrDBPathInUse means a live mongod already owns the data directory.
var ErrDBPathInUse = errors.New("another mongod owns the data directory")

// clearStaleLock runs before every spawn. mongod writes its pid into
// mongod.lock and empties it on a clean shutdown, so a non-empty file means
// either a mongod is running on this dbpath or one crashed. A crash leaves a
// lock that is removed here; mongod then recovers from its journal. A live
// mongod is never touched: two mongods on one dbpath would corrupt it.
func (s *Supervisor) clearStaleLock() error {
	path := filepath.Join(s.dbPath, "mongod.lock")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	text := strings.TrimSpace(string(b))
	if text == "" {
		return nil
	}
	pid, perr := strconv.Atoi(text)
	if perr == nil && pid > 0 && pid != os.Getpid() && processAlive(pid) {
		name, known := processName(pid)
		if !known || s.isMongodName(name) {
			what := "a mongod"
			if known {
				what = name
			}
			return fmt.Errorf("%w: process %d (%s) holds %s; "+
				"hint: stop that mongod first, or give infmem another data directory; "+
				"if no mongod is running, delete the lock file", ErrDBPathInUse, pid, what, path)
		}
		s.log.Info("mongod.lock names a live process that is not mongod; its pid was reused", "pid", pid, "process", name)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove stale %s: %w", path, err)
	}
	s.log.Warn("removed a stale mongod.lock left by a crash; mongod will run journal recovery", "lock_pid", text, "path", path)
	return nil
}

// isMongodName decides whether an executable name belongs to a mongod: the
// usual name, or the name of the binary this supervisor was configured with.
func (s *Supervisor) isMongodName(name string) bool {
	trim := func(n string) string { return strings.TrimSuffix(strings.ToLower(filepath.Base(n)), ".exe") }
	n := trim(name)
	return n == "mongod" || n == trim(s.cfg.Binary)
}
