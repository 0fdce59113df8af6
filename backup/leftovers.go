package backup

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/infmem/infmem/internal/proc"
)

// tempPattern is the os.CreateTemp / os.MkdirTemp pattern of a temporary
// file or folder of kind (backup, manifest, restore, export, journal) this
// process writes. The pid in the name tells a leftover of a process that
// no longer runs (killed mid-write) from one being written now, so it can
// be removed at once rather than after a day.
func tempPattern(kind string) string { return fmt.Sprintf(".%s-%d-*.tmp", kind, os.Getpid()) }

// leftoverName matches the temporary names infmem writes; the pid is
// absent from names written before it was added.
var leftoverName = regexp.MustCompile(`^\.(?:backup|manifest|restore|export|journal)-(?:(\d+)-)?[^/]*\.tmp$`)

// staleAfter is the age at which a leftover without a pid in its name is
// removed.
const staleAfter = 24 * time.Hour

// RemoveLeftovers deletes the temporary files and folders a process killed
// mid-write left in dirs (backups, export, run): at once when the process
// its name names no longer runs, else (an older name) once it is a day
// old. It returns how many it removed.
func RemoveLeftovers(log *slog.Logger, now time.Time, dirs ...string) (int, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	removed := 0
	var errs []error
	for _, dir := range dirs {
		des, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("cannot list %s: %w", dir, err))
			continue
		}
		for _, de := range des {
			m := leftoverName.FindStringSubmatch(de.Name())
			if m == nil || de.Type()&os.ModeSymlink != 0 {
				continue
			}
			if m[1] != "" {
				pid, err := strconv.Atoi(m[1])
				if err != nil || pid == os.Getpid() || proc.Alive(pid) {
					continue
				}
			} else {
				fi, err := de.Info()
				if err != nil || now.Sub(fi.ModTime()) < staleAfter {
					continue
				}
			}
			p := filepath.Join(dir, de.Name())
			if err := os.RemoveAll(p); err != nil {
				errs = append(errs, fmt.Errorf("cannot delete leftover %s: %w", p, err))
				continue
			}
			removed++
			log.Info("deleted what an interrupted backup, restore or export left behind", "path", p)
		}
	}
	return removed, errors.Join(errs...)
}
