package backup

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/config"
)

// clock is a settable fake clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func names(entries []Entry) (out []string) {
	for _, e := range entries {
		out = append(out, e.File)
	}
	return out
}

func TestRetentionKeepsWhatItShould(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 20)
	ctx := context.Background()
	dir := env.root.BackupsDir()
	clk := &clock{t: time.Date(2025, 6, 1, 3, 0, 0, 0, time.UTC)}
	cfg := config.Defaults().Backup
	cfg.KeepDaily, cfg.KeepWeekly, cfg.Encryption = 3, 2, "off"
	job := &Job{Store: env.store, Dir: dir, Config: cfg, Now: clk.now, Logger: testLogger(t)}

	manual, err := Create(ctx, env.store, Options{Dir: dir, Now: clk.now})
	must(t, err)
	// Files retention did not make: a backup-looking file without a
	// manifest, and something else entirely.
	foreign := filepath.Join(dir, "backup_2020-01-01T00-00-00Z.archive.gz")
	must(t, os.WriteFile(foreign, []byte("mine"), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o600))

	var dailies, weeklies []string
	for day := 1; day <= 14; day++ {
		clk.add(24 * time.Hour)
		res, err := job.Run(ctx, KindDaily)
		must(t, err)
		dailies = append(dailies, res.File)
		if day%7 == 0 {
			clk.add(time.Hour)
			res, err := job.Run(ctx, KindWeekly)
			must(t, err)
			weeklies = append(weeklies, res.File)
		}
	}
	clk.add(7 * 24 * time.Hour)
	res, err := job.Run(ctx, KindWeekly)
	must(t, err)
	weeklies = append(weeklies, res.File)

	entries, err := List(dir)
	must(t, err)
	got := names(entries)
	want := []string{weeklies[2], weeklies[1], dailies[13], dailies[12], dailies[11], manual.File, "backup_2020-01-01T00-00-00Z.archive.gz"}
	if !slices.Equal(got, want) {
		t.Fatalf("kept %v\nwant %v", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal("retention deleted a file it did not create")
	}
	// Deleted backups take their manifests with them.
	des, _ := os.ReadDir(dir)
	manifests := 0
	for _, de := range des {
		if filepath.Ext(de.Name()) == ".json" {
			manifests++
		}
	}
	if manifests != 6 {
		t.Fatalf("%d manifests left, want 6", manifests)
	}
	st, err := ReadStatus(ctx, env.store)
	must(t, err)
	if r := st.Runs["weekly"]; !r.OK || !slices.Equal(r.Removed, []string{weeklies[0]}) {
		t.Fatalf("weekly run record: %+v", r)
	}
}

func TestRetentionNeverDeletesNewestGoodBackup(t *testing.T) {
	env := openTestStore(t)
	ctx := context.Background()
	dir := env.root.BackupsDir()
	clk := &clock{t: time.Date(2025, 6, 1, 3, 0, 0, 0, time.UTC)}
	var files []*Result
	for range 4 {
		clk.add(24 * time.Hour)
		res, err := Create(ctx, env.store, Options{Dir: dir, Kind: KindDaily, Now: clk.now})
		must(t, err)
		files = append(files, res)
	}
	// The two newest backups are broken (a full disk, say).
	for _, res := range files[2:] {
		data, _ := os.ReadFile(res.Path)
		must(t, os.WriteFile(res.Path, data[:len(data)/2], 0o600))
	}
	removed, err := Retention{Dir: dir, KeepDaily: 1, KeepWeekly: 1, Now: clk.now}.Apply()
	must(t, err)
	if !slices.Equal(removed, []string{files[2].File, files[0].File}) {
		t.Fatalf("removed %v", removed)
	}
	entries, _ := List(dir)
	if got := names(entries); !slices.Equal(got, []string{files[3].File, files[1].File}) {
		t.Fatalf("kept %v: the newest good backup (%s) must stay", got, files[1].File)
	}
}

func TestRetentionRemovesStaleTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2025, 6, 1, 3, 0, 0, 0, time.UTC)
	old, fresh := filepath.Join(dir, ".backup-1.tmp"), filepath.Join(dir, ".restore-2.tmp")
	other := filepath.Join(dir, ".something-3.tmp")
	for _, p := range []string{old, fresh, other} {
		must(t, os.WriteFile(p, []byte("x"), 0o600))
	}
	must(t, os.Chtimes(old, now.Add(-25*time.Hour), now.Add(-25*time.Hour)))
	must(t, os.Chtimes(other, now.Add(-25*time.Hour), now.Add(-25*time.Hour)))
	must(t, os.Chtimes(fresh, now.Add(-time.Hour), now.Add(-time.Hour)))
	if _, err := (Retention{Dir: dir, KeepDaily: 1, KeepWeekly: 1, Now: func() time.Time { return now }}).Apply(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("a day-old temporary backup file was kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh temporary file (a running restore's) was deleted")
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("a file retention did not create was deleted")
	}
}
