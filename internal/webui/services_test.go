package webui

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/summarize"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/maintenance"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// services stands up what the daemon gives the UI besides the engine, for
// real: an engine with the USE-lite embedder (dedup needs embeddings), the
// maintenance scheduler with every job on the same store, and backups made
// by backup.Create into a temporary folder, encrypted to an identity file
// made on first use, as the daemon's manual backups are.
type services struct {
	eng      *memory.Engine
	store    *mongostore.Store
	sched    *maintenance.Scheduler
	dir      string
	identity string
	cfg      config.Config
}

func newServices(t *testing.T) *services {
	t.Helper()
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	emb, err := embed.NewUSELite()
	if err != nil {
		t.Fatal(err)
	}
	eng := memory.New(store, reg, memory.Options{Embedder: emb, Location: time.UTC, Logger: testenv.Logger(t)})
	eng.Start(ctx)
	t.Cleanup(func() { eng.Close(context.Background()) })
	dir := t.TempDir()
	sv := &services{eng: eng, store: store, dir: filepath.Join(dir, "backups"), identity: filepath.Join(dir, "keys", "backup-identity.txt"), cfg: config.Defaults()}
	sv.cfg.Backup.IdentityFile = sv.identity
	sv.sched = maintenance.NewScheduler(store, maintenance.Options{Logger: testenv.Logger(t), Location: time.UTC})
	maintenance.Register(sv.sched, &maintenance.Env{Engine: eng, Store: store, Config: sv.cfg, Log: testenv.Logger(t),
		Summarizer: summarize.NewExtractive(emb, summarize.ExtractiveOptions{}),
		Pause:      func(time.Duration) time.Duration { return 0 },
	}, nil)
	return sv
}

// options are the hooks daemon/ui.go gives, on these services.
func (sv *services) options() Options {
	return Options{
		Audit: func(ctx context.Context, limit int) ([]maintenance.AuditEntry, error) {
			return maintenance.Audit(ctx, sv.store, limit)
		},
		Maintain: func(ctx context.Context, job string, dryRun bool) (*maintenance.Report, error) {
			return sv.sched.RunNow(ctx, job, dryRun)
		},
		Backup: func(ctx context.Context, progress func(backup.Progress)) (*backup.Result, error) {
			enc, err := backup.ConfiguredEncryption(sv.cfg.Backup)
			if err != nil {
				return nil, err
			}
			return backup.Create(ctx, sv.store, backup.Options{Dir: sv.dir, Kind: backup.KindManual, Encryption: enc, Progress: progress})
		},
		BackupSetup: func(ctx context.Context) (BackupSetup, error) {
			st, err := backup.ReadState(ctx, sv.store, sv.cfg.Backup)
			return BackupSetup{Dir: sv.dir, Encryption: sv.cfg.Backup.Encryption, IdentityFile: sv.identity, State: st}, err
		},
	}
}

// waitTask polls a task until it ends, as the page does.
func (b *browserish) waitTask(id string) taskOut {
	b.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		var t taskOut
		b.getJSON("/api/tasks/"+id, &t)
		if t.State != "running" {
			return t
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatalf("task %s did not end", id)
	return taskOut{}
}

type trail struct {
	Runs []runOut `json:"runs"`
}

// find is the first item of the trail of kind, with its run.
func (tr trail) find(kind string) (runOut, itemOut, bool) {
	for _, r := range tr.Runs {
		for _, it := range r.Items {
			if it.Kind == kind {
				return r, it, true
			}
		}
	}
	return runOut{}, itemOut{}, false
}

// The maintenance view shows what a run changed, and its Undo puts it
// back through the engine: a merge (both memories live again, the kept
// one's tags and importance back) and an archive (back and pinned).
func TestMaintenanceTrailAndUndo(t *testing.T) {
	sv := newServices(t)
	ctx := testenv.Context(t)
	keep := store(t, sv.eng, "My sister Alice lives in Porto", "Family", "family")
	high := 0.9
	dupRes, err := sv.eng.Store(ctx, memory.StoreRequest{Content: "My sister Alice lives in Porto.", Scope: "Family", Tags: []string{"alice"}, Importance: &high})
	if err != nil || dupRes.DuplicateOf != "" {
		t.Fatalf("setup: %+v %v", dupRes, err)
	}
	dup := dupRes.ID
	// dup-a is kept: the most used wins.
	if _, err := sv.eng.Search(ctx, memory.SearchRequest{Query: "sister Alice Porto", Tags: []string{"family"}, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-72 * time.Hour)
	ack, err := sv.eng.Store(ctx, memory.StoreRequest{Content: "thanks!", Timestamp: old})
	if err != nil {
		t.Fatal(err)
	}

	s, _ := uiServer(t, sv.eng, sv.options())
	link, _ := s.Open()
	b := launch(t, link)
	var tr trail
	tr = trail{}
	b.getJSON("/api/maintenance", &tr)
	if len(tr.Runs) != 0 {
		t.Fatalf("runs before any: %+v", tr.Runs)
	}
	// Run now: dedup, then noise, as tasks the page polls.
	for _, job := range []string{"dedup", "noise"} {
		var started taskOut
		b.postJSON("/api/maintenance/run", map[string]any{"job": job}, &started)
		if started.State != "running" || started.ID == "" {
			t.Fatalf("run %s: %+v", job, started)
		}
		if done := b.waitTask(started.ID); done.State != "done" {
			t.Fatalf("run %s: %+v", job, done)
		}
	}
	if code, _ := b.do(http.MethodPost, "/api/maintenance/run", map[string]any{"job": "everything"}, nil); code != http.StatusBadRequest {
		t.Errorf("unknown job: %d", code)
	}
	if m, _ := sv.eng.Get(ctx, dup); m.ForgottenAt == nil || m.MergedInto != keep {
		t.Fatalf("dedup did not merge: %+v", m)
	}
	tr = trail{}
	b.getJSON("/api/maintenance", &tr)
	run, merge, ok := tr.find("merge")
	if !ok || merge.Undo == "" || merge.Kept == nil || merge.Kept.ID != keep || len(merge.Memories) != 1 || merge.Memories[0].State != "merged" {
		t.Fatalf("the trail shows no undoable merge: %+v", tr.Runs)
	}
	b.postJSON("/api/maintenance/undo", map[string]any{"run": run.ID, "item": merge.Key}, nil)
	k, _ := sv.eng.Get(ctx, keep)
	d, _ := sv.eng.Get(ctx, dup)
	if d.ForgottenAt != nil || k.ForgottenAt != nil || !slices.Equal(k.Tags, []string{"family"}) || k.Importance != 0.5 {
		t.Fatalf("after undo: kept %v %v %v; merged forgotten %v", k.ForgottenAt, k.Tags, k.Importance, d.ForgottenAt)
	}
	if res, _ := sv.eng.List(ctx, memory.ListRequest{Scope: "Family"}); res.Total != 2 {
		t.Fatalf("after undo %d memories in Family, want 2", res.Total)
	}
	tr = trail{}
	b.getJSON("/api/maintenance", &tr)
	if _, merge, _ = tr.find("merge"); !merge.Undone || merge.Undo != "" {
		t.Fatalf("after undo the merge still offers an undo: %+v", merge)
	}

	_, arch, ok := tr.find("archive")
	if !ok || arch.Undo == "" || arch.Count != 1 || arch.Memories[0].ID != ack.ID {
		t.Fatalf("no undoable archive: %+v", tr.Runs)
	}
	run, _, _ = tr.find("archive")
	var undo struct {
		Restored []string `json:"restored"`
	}
	b.postJSON("/api/maintenance/undo", map[string]any{"run": run.ID, "item": arch.Key}, &undo)
	if m, _ := sv.eng.Get(ctx, ack.ID); m.Archived || !m.Pinned || len(undo.Restored) != 1 {
		t.Fatalf("after undoing the archive: archived %v pinned %v (%v)", m.Archived, m.Pinned, undo)
	}
	// The page names a run and an item, never memories.
	if code, _ := b.do(http.MethodPost, "/api/maintenance/undo", map[string]any{"run": run.ID, "item": "c99"}, nil); code != http.StatusBadRequest {
		t.Errorf("unknown item: %d", code)
	}
	if code, _ := b.do(http.MethodPost, "/api/maintenance/undo", map[string]any{"run": run.ID, "item": arch.Key, "ids": []string{keep}}, nil); code != http.StatusBadRequest {
		t.Errorf("ids in an undo: %d", code)
	}

	// Searching from the page is not a use (the most used memory stays
	// the one Claude recalled).
	var res struct {
		Results []memoryOut `json:"results"`
	}
	for range 3 {
		b.getJSON("/api/search?q=Alice+Porto", &res)
	}
	used, _ := sv.eng.List(ctx, memory.ListRequest{Scope: "Family", Sort: "most_used", Limit: 2})
	if len(res.Results) == 0 || len(used.Memories) != 2 || used.Memories[0].ID != keep {
		t.Fatalf("the page's searches counted as use: most used %v", used.Memories)
	}
}

// The backups view lists backups with where the key is (its path, never
// its contents); "back up now" runs with progress; verify reads a backup
// completely with the identity file, and finds a damaged one.
func TestBackupsView(t *testing.T) {
	sv := newServices(t)
	store(t, sv.eng, "The Apollo launch deadline is June 12", "Work")
	s, logs := uiServer(t, sv.eng, sv.options())
	link, _ := s.Open()
	b := launch(t, link)
	type view struct {
		Dir        string         `json:"dir"`
		Encryption string         `json:"encryption"`
		Identity   map[string]any `json:"identity"`
		Backups    []backupOut    `json:"backups"`
	}
	var v view
	v = view{}
	b.getJSON("/api/backups", &v)
	if v.Dir != sv.dir || v.Encryption != "identity" || v.Identity["path"] != sv.identity || v.Identity["exists"] != false || len(v.Backups) != 0 {
		t.Fatalf("backups before any: %+v", v)
	}
	var started taskOut
	b.postJSON("/api/backups/now", map[string]any{}, &started)
	if code, _ := b.do(http.MethodPost, "/api/backups/now", map[string]any{}, nil); code != http.StatusConflict && code != http.StatusOK {
		t.Errorf("second backup while one runs: %d", code)
	}
	done := b.waitTask(started.ID)
	if done.State != "done" {
		t.Fatalf("backup: %+v", done)
	}
	// The second request may have started after the first ended: wait
	// for whatever runs.
	if r := s.runningTask("backup"); r != nil {
		b.waitTask(r.ID)
	}
	code, body := b.do(http.MethodGet, "/api/backups", nil, nil)
	if code != http.StatusOK {
		t.Fatalf("backups: %d %s", code, body)
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Backups) == 0 || v.Backups[0].Encryption != "x25519" || v.Backups[0].Documents == 0 || v.Identity["exists"] != true {
		t.Fatalf("after a backup: %+v", v)
	}
	key, err := os.ReadFile(sv.identity)
	if err != nil || !strings.Contains(string(key), "AGE-SECRET-KEY-") {
		t.Fatalf("identity file: %v", err)
	}
	file := v.Backups[0].File
	verify := func() verifyOut {
		var st taskOut
		b.postJSON("/api/backups/verify", map[string]any{"file": file}, &st)
		end := b.waitTask(st.ID)
		raw, _ := json.Marshal(end.Result)
		var out verifyOut
		json.Unmarshal(raw, &out)
		return out
	}
	if got := verify(); got.Status != "verified" || got.Documents == 0 {
		t.Fatalf("verify: %+v", got)
	}
	v = view{}
	b.getJSON("/api/backups", &v)
	if v.Backups[0].Verify == nil || v.Backups[0].Verify.Status != "verified" {
		t.Fatalf("the listing does not show the verification: %+v", v.Backups[0])
	}
	// Damage one byte: verify says so.
	path := filepath.Join(sv.dir, file)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0xff
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := verify(); got.Status != "failed" || got.Problem == "" {
		t.Fatalf("verify of a damaged backup: %+v", got)
	}
	if code, _ := b.do(http.MethodPost, "/api/backups/verify", map[string]any{"file": "../" + file}, nil); code != http.StatusBadRequest {
		t.Errorf("a path as a backup name: %d", code)
	}
	// The key never leaves its file.
	for _, p := range []string{"/api/backups", "/api/tasks/" + started.ID} {
		_, body := b.do(http.MethodGet, p, nil, nil)
		if strings.Contains(string(body), "AGE-SECRET-KEY") {
			t.Fatalf("%s shows the identity's secret key", p)
		}
	}
	if strings.Contains(logs.String(), "AGE-SECRET-KEY") {
		t.Fatal("the identity's secret key is in the log")
	}
}

// Without the daemon's services the views say so (501), and nothing else
// breaks.
func TestServicesMissing(t *testing.T) {
	s, _ := uiServer(t, engine(t), Options{})
	link, _ := s.Open()
	b := launch(t, link)
	for _, c := range []struct{ method, path string }{{"GET", "/api/maintenance"}, {"GET", "/api/backups"}, {"POST", "/api/backups/now"}, {"POST", "/api/maintenance/run"}} {
		var body any
		if c.method == "POST" {
			body = map[string]any{}
		}
		if code, out := b.do(c.method, c.path, body, nil); code != http.StatusNotImplemented {
			t.Errorf("%s %s: %d %s", c.method, c.path, code, out)
		}
	}
}
