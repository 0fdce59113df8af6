package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
)

func TestDefaultMinFree(t *testing.T) {
	for _, c := range []struct{ total, want uint64 }{
		{0, 256 << 20},
		{10 << 30, 256 << 20},
		{100 << 30, 1 << 30},
		{1 << 40, 2 << 30},
	} {
		if got := DefaultMinFree(c.total); got != c.want {
			t.Errorf("DefaultMinFree(%d) = %d, want %d", c.total, got, c.want)
		}
	}
}

func TestLowSpaceMessages(t *testing.T) {
	for _, c := range []struct {
		e    LowSpaceError
		want string
	}{
		{LowSpaceError{Op: "backup", Dir: "/data/backups", Free: 120 << 20, MinFree: 256 << 20},
			"backup refused: only 120 MB free on /data/backups (infmem keeps at least 256 MB free); free space or move the data root"},
		{LowSpaceError{Op: "backup", Dir: "/b", Free: 1200 << 20, MinFree: 256 << 20, Need: 1 << 30},
			"backup refused: 1.2 GB free on /b, a backup needs about 1.0 GB (the size of the last one), and infmem keeps at least 256 MB free; free space or move the data root"},
		{LowSpaceError{Op: "backup", Dir: "/b", Free: 250 << 20, MinFree: 256 << 20, Stopped: true},
			"backup stopped, and its partial file removed: only 250 MB free on /b (infmem keeps at least 256 MB free); free space or move the data root"},
		{LowSpaceError{Op: "export", Dir: "/e", Free: 250 << 20, MinFree: 256 << 20, Stopped: true},
			"export stopped, and its partial files removed: only 250 MB free on /e (infmem keeps at least 256 MB free); free space or move the data root"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
		if !errors.Is(&c.e, ErrLowSpace) {
			t.Error("not ErrLowSpace")
		}
	}
}

// fakeDisk is a file system that fills as files appear under dir: its
// free space is free0 less what was written there since it was made.
type fakeDisk struct {
	dir   string
	total uint64

	mu         sync.Mutex
	free0      uint64
	base       int64
	measures   int
	sawPartial bool // a measure found a temporary file with data in it
}

func newFakeDisk(dir string, free uint64) *fakeDisk {
	used, _ := du(dir)
	return &fakeDisk{dir: dir, total: 100 << 30, free0: free, base: used}
}

func (d *fakeDisk) setFree(free uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.free0 = free
}

func (d *fakeDisk) stat(string) (free, total uint64, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	used, partial := du(d.dir)
	d.measures++
	d.sawPartial = d.sawPartial || partial
	grown := uint64(max(used-d.base, 0))
	if grown > d.free0 {
		return 0, d.total, nil
	}
	return d.free0 - grown, d.total, nil
}

// du sums the sizes of the files under dir, and says whether one with
// data in it lies in a temporary file or folder (.tmp).
func du(dir string) (n int64, partial bool) {
	filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || !de.Type().IsRegular() {
			return nil
		}
		fi, err := de.Info()
		if err != nil {
			return nil
		}
		n += fi.Size()
		if fi.Size() > 0 && strings.Contains(p, ".tmp") {
			partial = true
		}
		return nil
	})
	return n, partial
}

// dirNames lists what dir holds (nothing when it does not exist).
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

func lowSpace(t *testing.T, err error, stopped bool) *LowSpaceError {
	t.Helper()
	var low *LowSpaceError
	if !errors.As(err, &low) || !errors.Is(err, ErrLowSpace) {
		t.Fatalf("want a LowSpaceError, got %v", err)
	}
	if low.Stopped != stopped {
		t.Fatalf("stopped = %v, want %v: %v", low.Stopped, stopped, err)
	}
	if !strings.HasSuffix(err.Error(), "; free space or move the data root") {
		t.Fatalf("the error does not say what to do: %v", err)
	}
	return low
}

// A backup keeps a floor of free space: refused before it writes when
// the disk is already below it (measured for real) or would be by the
// size of the last backup, and stopped part-way when its own writing
// reaches it. Either way nothing is left in backups/.
func TestBackupKeepsFreeSpaceFloor(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 20)
	ctx := context.Background()
	// Four megabytes that do not compress: the backup reaches its file in
	// several 1 MiB writes.
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 4 {
		blob := make([]byte, 1<<20)
		for j := range blob {
			blob[j] = byte(rng.Uint32())
		}
		if _, err := env.store.Database().Collection(mongostore.Metadata).InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("space_test_%d", i)}, {Key: "blob", Value: blob}}); err != nil {
			t.Fatal(err)
		}
	}
	dir := env.root.BackupsDir()
	const floor = 1 << 20

	// Refused at once on the real disk, whose free space is far below
	// this floor.
	_, err := Create(ctx, env.store, Options{Dir: dir, Logger: testLogger(t), Space: Space{MinFree: 1 << 62}})
	low := lowSpace(t, err, false)
	if low.Dir != dir || low.Free == 0 || !strings.HasPrefix(err.Error(), "backup refused: only ") {
		t.Fatalf("refusal: %+v: %v", low, err)
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Fatalf("a refused backup left %v in backups/", got)
	}

	// How big a backup is.
	ref, err := Create(ctx, env.store, Options{Dir: t.TempDir(), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	size := uint64(ref.Manifest.Size)
	if size < 3<<20 {
		t.Fatalf("the backup is too small (%d bytes) for the file to see several writes", size)
	}

	// Room for half a backup: it starts, and is stopped when its file
	// has reached the floor.
	disk := newFakeDisk(dir, floor+size/2)
	_, err = Create(ctx, env.store, Options{Dir: dir, Logger: testLogger(t), Space: Space{MinFree: floor, Stat: disk.stat, CheckEvery: 1}})
	low = lowSpace(t, err, true)
	if low.Free < floor || low.Free > floor+size/2 || !strings.HasPrefix(err.Error(), "backup stopped, and its partial file removed: only ") {
		t.Fatalf("stopped: %+v: %v", low, err)
	}
	if !disk.sawPartial || disk.measures < 3 {
		t.Fatalf("the backup was not stopped part-way (measures %d, partial file seen %v)", disk.measures, disk.sawPartial)
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Fatalf("a stopped backup left %v in backups/", got)
	}

	// With room it is made; the next one is then expected to be as big,
	// and refused before it writes when that would cross the floor.
	disk.setFree(floor + 2*size)
	res, err := Create(ctx, env.store, Options{Dir: dir, Logger: testLogger(t), Space: Space{MinFree: floor, Stat: disk.stat}})
	if err != nil {
		t.Fatal(err)
	}
	before := dirNames(t, dir)
	disk = newFakeDisk(dir, floor+size/2)
	_, err = Create(ctx, env.store, Options{Dir: dir, Logger: testLogger(t), Space: Space{MinFree: floor, Stat: disk.stat}})
	low = lowSpace(t, err, false)
	if low.Need != uint64(res.Manifest.Size) || !strings.Contains(err.Error(), "a backup needs about") || disk.measures != 1 {
		t.Fatalf("estimate: %+v (measures %d): %v", low, disk.measures, err)
	}
	if after := dirNames(t, dir); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Fatalf("a refused backup changed backups/: %v, then %v", before, after)
	}
}

// An export keeps the floor the same way, and leaves no partial folder.
// (Markdown here: a file per scope, so some are written before the floor
// is reached; memory.json is encoded whole and goes in one write.)
func TestExportKeepsFreeSpaceFloor(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 400)
	ctx := context.Background()
	dir := env.root.ExportDir()
	const floor = 1 << 20

	_, err := Export(ctx, env.store, ExportOptions{Dir: dir, Space: Space{MinFree: 1 << 62}})
	if lowSpace(t, err, false); !strings.HasPrefix(err.Error(), "export refused: only ") {
		t.Fatal(err)
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Fatalf("a refused export left %v", got)
	}

	ref, err := Export(ctx, env.store, ExportOptions{Dir: t.TempDir(), Markdown: true})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := du(ref.Dir)
	size := uint64(n)
	if size < 40<<10 {
		t.Fatalf("the export is too small (%d bytes) for several writes", size)
	}

	disk := newFakeDisk(dir, floor+size/2)
	_, err = Export(ctx, env.store, ExportOptions{Dir: dir, Markdown: true, Space: Space{MinFree: floor, Stat: disk.stat, CheckEvery: 1}})
	if lowSpace(t, err, true); !strings.HasPrefix(err.Error(), "export stopped, and its partial files removed: only ") {
		t.Fatal(err)
	}
	if !disk.sawPartial {
		t.Fatal("the export was not stopped part-way")
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Fatalf("a stopped export left %v", got)
	}

	disk.setFree(floor + 2*size)
	if _, err := Export(ctx, env.store, ExportOptions{Dir: dir, Markdown: true, Space: Space{MinFree: floor, Stat: disk.stat, CheckEvery: 1}}); err != nil {
		t.Fatalf("with room: %v", err)
	}
}

// Free space that cannot be measured refuses nothing.
func TestUnmeasurableSpaceRefusesNothing(t *testing.T) {
	g := Space{MinFree: 1 << 62, CheckEvery: 1, Stat: func(string) (uint64, uint64, error) {
		return 0, 0, errors.New("not supported")
	}}.guard("backup", t.TempDir())
	if err := g.before(1 << 40); err != nil {
		t.Fatal(err)
	}
	if _, err := g.writer(io.Discard).Write(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
}

// A temporary file a killed backup left is never taken for a backup:
// the listing (infmem backups, status, retention) leaves it out, and a
// restore of it, named by hand, is refused before anything is touched.
func TestLeftoverTemporaryFileIsNotABackup(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 50)
	ctx := context.Background()
	dir := env.root.BackupsDir()
	res, err := Create(ctx, env.store, Options{Dir: dir, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(dir, ".backup-123456.tmp")
	must(t, os.WriteFile(partial, data[:len(data)/2], 0o600))
	entries, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].File != res.File {
		t.Fatalf("listing: %+v", entries)
	}
	_, err = Verify(ctx, partial, Keys{}, nil)
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("verify of a partial temporary file: %v", err)
	}
	before := takeSnapshot(t, env.store)
	_, err = Restore(ctx, env.store, partial, RestoreOptions{RunDir: env.root.RunDir(), TempDir: dir, Logger: testLogger(t)})
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("restore of a partial temporary file: %v", err)
	}
	if d := before.diff(takeSnapshot(t, env.store)); d != "" {
		t.Fatalf("a refused restore changed the data: %s", d)
	}
}
