package backup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/infmem/infmem/internal/diskfree"
)

// ErrLowSpace marks a backup or export refused, or stopped part-way, to
// keep free space on the file system it writes to; errors.As gives the
// *LowSpaceError with the numbers.
var ErrLowSpace = errors.New("not enough free disk space")

// Free-space floor. A backup or export never leaves less than
// DefaultMinFree free on its file system: 1 % of the file system's size,
// at least minFreeLow (256 MiB) and at most minFreeHigh (2 GiB). The live
// database usually shares that file system and must keep room to take new
// memories; a loop of backup or export requests must not take it. The cap
// keeps a large disk with gigabytes free from refusing backups, which are
// the user's safety net (doctor warns from 2 GiB and fails under 200 MiB).
const (
	minFreeLow  = 256 << 20
	minFreeHigh = 2 << 30
	// checkEvery is how many bytes a backup or export writes between two
	// measures of the free space.
	checkEvery = 4 << 20
)

// DefaultMinFree is the free space a backup or export keeps on a file
// system of total bytes.
func DefaultMinFree(total uint64) uint64 {
	return max(uint64(minFreeLow), min(total/100, uint64(minFreeHigh)))
}

// Space sets the free-space floor a backup or export keeps on the file
// system it writes to. Its zero value is the default: DefaultMinFree,
// measured by the operating system.
type Space struct {
	// MinFree is the free space to keep; zero means DefaultMinFree of the
	// file system's size.
	MinFree uint64
	// Stat measures the file system holding dir: the bytes this user may
	// still write, and its size. Nil asks the operating system.
	Stat func(dir string) (free, total uint64, err error)
	// CheckEvery is how many bytes may be written between two measures;
	// zero means 4 MiB. The floor can be overshot by about this much.
	CheckEvery int64
}

func statDisk(dir string) (free, total uint64, err error) {
	s, err := diskfree.Stat(dir)
	return s.Free, s.Total, err
}

// LowSpaceError says a backup or export was refused or stopped because
// the free space on its file system would fall below the floor.
type LowSpaceError struct {
	// Op is "backup" or "export".
	Op string
	// Dir is the directory it writes to.
	Dir string
	// Free is the free space measured; MinFree the floor kept.
	Free, MinFree uint64
	// Need is what the write was expected to take (the last backup's
	// size), when that decided the refusal.
	Need uint64
	// Stopped says the write had started; what it wrote was removed.
	Stopped bool
}

func (e *LowSpaceError) Error() string {
	head := e.Op + " refused"
	if e.Stopped {
		head = e.Op + " stopped, and its partial files removed"
		if e.Op == "backup" {
			head = "backup stopped, and its partial file removed"
		}
	}
	const fix = "; free space or move the data root"
	if e.Need > 0 && e.Free >= e.MinFree {
		return fmt.Sprintf("%s: %s free on %s, a backup needs about %s (the size of the last one), and infmem keeps at least %s free%s",
			head, formatBytes(e.Free), e.Dir, formatBytes(e.Need), formatBytes(e.MinFree), fix)
	}
	return fmt.Sprintf("%s: only %s free on %s (infmem keeps at least %s free)%s",
		head, formatBytes(e.Free), e.Dir, formatBytes(e.MinFree), fix)
}

func (e *LowSpaceError) Unwrap() error { return ErrLowSpace }

// formatBytes writes n as people read disk sizes.
func formatBytes(n uint64) string {
	switch {
	case n >= 1<<40:
		return fmt.Sprintf("%.1f TB", float64(n)/(1<<40))
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// spaceGuard keeps the floor for one backup or export writing into dir.
// Its writers fail, and keep failing, once a measure finds the floor
// would be crossed; failed returns why.
type spaceGuard struct {
	op, dir string
	minFree uint64
	stat    func(string) (uint64, uint64, error)
	every   int64

	mu      sync.Mutex
	written int64 // since the last measure
	err     error
}

func (s Space) guard(op, dir string) *spaceGuard {
	g := &spaceGuard{op: op, dir: dir, minFree: s.MinFree, stat: s.Stat, every: s.CheckEvery}
	if g.stat == nil {
		g.stat = statDisk
	}
	if g.every <= 0 {
		g.every = checkEvery
	}
	return g
}

// check refuses when writing need more bytes would leave less than the
// floor free. Free space that cannot be measured refuses nothing: a
// backup is worth more than the floor.
func (g *spaceGuard) check(need uint64, stopped bool) error {
	free, total, err := g.stat(existingDir(g.dir))
	if err != nil {
		return nil
	}
	floor := g.minFree
	if floor == 0 {
		floor = DefaultMinFree(total)
	}
	if free >= floor && free-floor >= need {
		return nil
	}
	e := &LowSpaceError{Op: g.op, Dir: g.dir, Free: free, MinFree: floor, Stopped: stopped}
	if free >= floor && !stopped {
		e.Need = need
	}
	return e
}

// before is the check before anything is written.
func (g *spaceGuard) before(need uint64) error {
	err := g.check(need, false)
	if err != nil {
		g.mu.Lock()
		g.err = err
		g.mu.Unlock()
	}
	return err
}

// failed is the error that stopped the write, if the guard stopped it.
func (g *spaceGuard) failed() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// writer measures the free space every CheckEvery bytes written to w and
// fails before a write that would cross the floor.
func (g *spaceGuard) writer(w io.Writer) io.Writer { return guardedWriter{g, w} }

type guardedWriter struct {
	g *spaceGuard
	w io.Writer
}

func (gw guardedWriter) Write(p []byte) (int, error) {
	g := gw.g
	g.mu.Lock()
	if g.err == nil {
		g.written += int64(len(p))
		if g.written >= g.every {
			g.written = 0
			g.err = g.check(uint64(len(p)), true)
		}
	}
	err := g.err
	g.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return gw.w.Write(p)
}

// existingDir is dir or its nearest ancestor that exists: the file system
// a directory not yet made will be on.
func existingDir(dir string) string {
	for {
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// lastBackupSize is the size of the newest backup in dir that has a
// manifest: about what the next one will take. Zero when there is none.
func lastBackupSize(dir string) uint64 {
	entries, err := List(dir)
	if err != nil {
		return 0
	}
	for _, e := range entries {
		if e.Manifest != nil && e.Manifest.Size > 0 {
			return uint64(e.Manifest.Size)
		}
	}
	return 0
}
