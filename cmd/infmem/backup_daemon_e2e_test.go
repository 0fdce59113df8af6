package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/backup"
	"github.com/infmem/infmem/daemon"
	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/proc"
	"github.com/infmem/infmem/mongostore"
)

// envValue returns the value of key in a process environment.

// secretWords is a passphrase the tests look for where it must not be.
const secretWords = "correct-horse-battery-staple"

func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// serviceLog is the daemon's log.
func serviceLog(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "logs", "memory_service.log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func storeText(t *testing.T, c *client.Client, text string) string {
	t.Helper()
	out, err := tryCall(c, "store_memory", map[string]any{"content": text})
	if err != nil {
		t.Fatal(err)
	}
	return out["memory_id"].(string)
}

func doctorRow(t *testing.T, out, name string) doctorCheck {
	t.Helper()
	var checks []doctorCheck
	if err := json.Unmarshal([]byte(out), &checks); err != nil {
		t.Fatalf("doctor --json: %v: %s", err, out)
	}
	for _, c := range checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("doctor has no check %q: %s", name, out)
	return doctorCheck{}
}

func statusJSON(t *testing.T, out string) statusReport {
	t.Helper()
	var rep statusReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("status --json: %v: %s", err, out)
	}
	return rep
}

// With a daemon running, backup and export run in it; restore pauses it,
// restores, and the daemon then serves the restored memory; a wrong
// passphrase leaves it serving the data unchanged; a dry run pauses nothing.
func TestBackupExportRestoreWithDaemon(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	cfgPath := envValue(env, "INFMEM_CONFIG")
	idFile := filepath.Join(t.TempDir(), "id.txt")
	code, out, errs := runBin(t, env, "backup", "keygen", "-o", idFile)
	recipient := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(recipient, "age1") {
		t.Fatalf("keygen: %d %q %q", code, out, errs)
	}
	if err := os.WriteFile(cfgPath, []byte(`{"logging": {"level": "debug"}, "backup": {"recipients": ["`+recipient+`"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopDaemon(t, root, env) })
	if code, out, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %q %q", code, out, errs)
	}
	pid := daemonInfo(t, root).PID
	c := bridgeClient(t, env)
	earlier := storeText(t, c, "The spare key is under the blue flowerpot")

	// backup: made by the daemon, encrypted to the configured key.
	code, out, errs = runBin(t, env, "backup")
	if code != 0 || !strings.Contains(out, "encrypted to 1 age key") || strings.Contains(errs, "not encrypted") {
		t.Fatalf("backup: %d %q %q", code, out, errs)
	}
	path := writtenBackup(t, out)
	if !strings.HasSuffix(path, ".archive.gz.age") {
		t.Fatalf("backup file %s is not age-encrypted", path)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	if log := serviceLog(t, root); !strings.Contains(log, `msg="backup written"`) {
		t.Fatalf("the daemon did not write the backup:\n%s", log)
	}
	// What a terminal's progress bar is drawn from: the daemon's backup
	// streams its progress over the control socket.
	droot, err := dataroot.Prepare(root)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := control.EndpointsFor(droot)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := control.Dial(context.Background(), ep.Control)
	if err != nil {
		t.Fatal(err)
	}
	var steps []backup.Progress
	var viaSocket backup.Result
	err = cc.RunWithProgress(context.Background(), daemon.JobBackup, daemon.BackupJobArgs{Encryption: daemon.EncConfigured}, &viaSocket, func(raw json.RawMessage) {
		var p backup.Progress
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Errorf("progress line %s: %v", raw, err)
		}
		steps = append(steps, p)
	})
	cc.Close()
	if err != nil || viaSocket.File == "" || len(steps) == 0 || !steps[len(steps)-1].Done || steps[len(steps)-1].Op != "backup" {
		t.Fatalf("backup with progress: %v %+v %+v", err, viaSocket, steps)
	}

	// export: written by the daemon into export/.
	code, out, errs = runBin(t, env, "export")
	if code != 0 || !strings.Contains(out, "exported 1 memory and") || !strings.Contains(errs, "personal memory data") ||
		!strings.Contains(out, filepath.Join(root, "export")) {
		t.Fatalf("export: %d %q %q", code, out, errs)
	}
	if log := serviceLog(t, root); !strings.Contains(log, `msg="export written"`) {
		t.Fatal("the daemon did not write the export")
	}

	// restore: the later memory is gone, the earlier one is served.
	later := storeText(t, c, "The boat is moored at pier nine")
	code, out, errs = runBin(t, env, "restore", filepath.Base(path), "-i", idFile)
	if code != 0 || !strings.Contains(out, "restored "+filepath.Base(path)) || !strings.Contains(out, "the data it replaced is in ") {
		t.Fatalf("restore: %d %q %q", code, out, errs)
	}
	if log := serviceLog(t, root); strings.Count(log, `msg="memory paused"`) != 1 || !strings.Contains(log, "memory resuming") {
		t.Fatalf("the daemon was not paused and resumed:\n%s", log)
	}
	if got := daemonInfo(t, root).PID; got != pid || !proc.Alive(pid) {
		t.Fatalf("the daemon changed: pid %d, was %d", got, pid)
	}
	ids := indexedIDs(t, c)
	if !ids[earlier] || ids[later] || len(ids) != 1 {
		t.Fatalf("after the restore the daemon serves %v; want only %s", ids, earlier)
	}
	// The restore wrote a snapshot of the restored memory: the resumed
	// daemon starts from it, not from every memory in the database.
	if log := serviceLog(t, root); strings.Count(log, `msg="index loaded from snapshot"`) != 1 {
		t.Fatalf("the daemon did not resume from the restore's snapshot:\n%s", log)
	}
	rec, err := tryCall(c, "retrieve_memory", map[string]any{"query": "where is the boat moored"})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(resultTexts(rec), "The boat is moored at pier nine") {
		t.Fatalf("the restored-away memory is still recalled: %v", rec)
	}

	// status and doctor ask the daemon about backups.
	code, out, errs = runBin(t, env, "status", "--json")
	rep := statusJSON(t, out)
	if code != 0 || rep.Daemon.Presence != "running" || rep.Backups == nil || rep.Backups.LastBackup == nil || len(rep.Backups.Warnings) != 0 ||
		len(rep.Backups.Failing) != 0 || rep.Backups.Runs["manual"].File != viaSocket.File {
		t.Fatalf("status: %d %s %s", code, out, errs)
	}
	if code, out, _ = runBin(t, env, "status"); code != 0 || !strings.Contains(out, "last backup") || !strings.Contains(out, "manual backup") ||
		strings.Contains(out, "warning:") {
		t.Fatalf("status text: %d %s", code, out)
	}
	_, out, _ = runBin(t, env, "doctor", "--json")
	if r := doctorRow(t, out, "backups"); r.Result != checkPass {
		t.Fatalf("doctor backups: %+v", r)
	}
	if r := doctorRow(t, out, "backup config"); r.Result != checkPass {
		t.Fatalf("doctor backup config: %+v", r)
	}

	// A passphrase backup through the daemon, then a wrong passphrase.
	passFile := filepath.Join(t.TempDir(), "pass")
	os.WriteFile(passFile, []byte(secretWords+"\n"), 0o600)
	wrongFile := filepath.Join(t.TempDir(), "wrong")
	os.WriteFile(wrongFile, []byte("not-the-passphrase-at-all\n"), 0o600)
	code, out, errs = runBin(t, env, "backup", "--passphrase-file", passFile, "--json")
	var res backup.Result
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Manifest.Encryption != backup.EncryptionPassphrase {
		t.Fatalf("passphrase backup: %d %q %q", code, out, errs)
	}
	garage := storeText(t, c, "The garage door code is 4711")
	code, out, errs = runBin(t, env, "restore", res.File, "--passphrase-file", wrongFile)
	if code != exitFailure || !strings.Contains(errs, "the passphrase is wrong; nothing was changed") {
		t.Fatalf("wrong passphrase: %d %q %q", code, out, errs)
	}
	if log := serviceLog(t, root); strings.Count(log, `msg="memory paused"`) != 2 || strings.Count(log, `msg="memory opened"`) != 3 {
		t.Fatalf("the daemon was not paused and resumed around the refused restore:\n%s", log)
	}
	ids = indexedIDs(t, c)
	if !ids[earlier] || !ids[garage] || len(ids) != 2 {
		t.Fatalf("after a refused restore the daemon serves %v", ids)
	}
	if rep := statusJSON(t, func() string { _, o, _ := runBin(t, env, "status", "--json"); return o }()); rep.Daemon.State != control.StateReady {
		t.Fatalf("daemon state after a refused restore: %+v", rep.Daemon)
	}

	// A dry run verifies without pausing anything.
	code, out, errs = runBin(t, env, "restore", res.File, "--passphrase-file", passFile, "--dry-run")
	if code != 0 || !strings.Contains(out, "nothing was restored") {
		t.Fatalf("dry run: %d %q %q", code, out, errs)
	}
	log := serviceLog(t, root)
	if strings.Count(log, `msg="memory paused"`) != 2 {
		t.Fatal("a dry run paused the daemon")
	}
	for _, secret := range []string{secretWords, "not-the-passphrase-at-all"} {
		if strings.Contains(log, secret) {
			t.Fatal("a passphrase reached the service log")
		}
	}
}

// Without a daemon, status and doctor read the backup record themselves:
// unencrypted backups are warned about, a memory without a backup for more
// than two days and a failed last run fail doctor's check, and a new
// backup clears both.
func TestStatusDoctorBackupStateInProcess(t *testing.T) {
	env := isolatedEnv(t)
	writeConfig(t, env, `{"backup": {"encryption": "off"}}`)
	root := filepath.Join(t.TempDir(), "root")
	ctx := context.Background()
	withStore(t, root, func(s *mongostore.Store) {
		addMemories(t, s, "Global", 2)
		// The memory is three days old.
		_, err := s.Database().Collection(mongostore.Metadata).UpdateOne(ctx, bson.D{{Key: "scope_name", Value: "Global"}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "created_at", Value: time.Now().Add(-72 * time.Hour).UTC()}}}})
		if err != nil {
			t.Fatal(err)
		}
	})

	code, out, errs := runCLI(t, env, "status", "--data-dir", root, "--json")
	rep := statusJSON(t, out)
	if code != exitOK || rep.Backups == nil || rep.Backups.LastBackup != nil || rep.Backups.MemorySince == nil ||
		!slices.ContainsFunc(rep.Backups.Warnings, func(w string) bool { return strings.Contains(w, "not encrypted") }) {
		t.Fatalf("status: %d %s %s", code, out, errs)
	}
	if _, out, _ = runCLI(t, env, "status", "--data-dir", root); !strings.Contains(out, "warning: backups are not encrypted") {
		t.Fatalf("status text: %s", out)
	}
	_, out, _ = runCLI(t, env, "doctor", "--data-dir", root, "--json")
	if r := doctorRow(t, out, "backups"); r.Result != checkFail || !strings.Contains(r.Detail, "no backup was ever made") || !strings.Contains(r.Fix, "infmem backup") {
		t.Fatalf("doctor backups, none for 3 days: %+v", r)
	}
	if r := doctorRow(t, out, "backup config"); r.Result != checkWarn || !strings.Contains(r.Detail, "not encrypted") || r.Fix == "" {
		t.Fatalf("doctor backup config: %+v", r)
	}

	if code, out, errs := runCLI(t, env, "backup", "--data-dir", root); code != exitOK {
		t.Fatalf("backup: %d %q %q", code, out, errs)
	}
	_, out, _ = runCLI(t, env, "doctor", "--data-dir", root, "--json")
	if r := doctorRow(t, out, "backups"); r.Result != checkPass {
		t.Fatalf("doctor backups after a backup: %+v", r)
	}

	// The scheduled daily run failed after that backup.
	withStore(t, root, func(s *mongostore.Store) {
		now := time.Now().UTC()
		run := bson.D{{Key: "started_at", Value: now}, {Key: "finished_at", Value: now}, {Key: "ok", Value: false},
			{Key: "attempts", Value: 2}, {Key: "error", Value: "cannot write backup file: no space left on device"}}
		_, err := s.Database().Collection(mongostore.Metadata).UpdateOne(ctx, bson.D{{Key: "_id", Value: backup.StatusKey}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "runs.daily", Value: run}}}})
		if err != nil {
			t.Fatal(err)
		}
	})
	_, out, _ = runCLI(t, env, "doctor", "--data-dir", root, "--json")
	if r := doctorRow(t, out, "backups"); r.Result != checkFail || !strings.Contains(r.Detail, "the last daily backup failed") ||
		!strings.Contains(r.Detail, "no space left") || r.Fix == "" {
		t.Fatalf("doctor backups after a failed run: %+v", r)
	}
	_, out, _ = runCLI(t, env, "status", "--data-dir", root)
	if !strings.Contains(out, "FAILED at") || !strings.Contains(out, "after 2 attempts") || !strings.Contains(out, "warning: the last daily backup failed") {
		t.Fatalf("status after a failed run: %s", out)
	}
	if code, out, errs := runCLI(t, env, "backup", "--data-dir", root); code != exitOK {
		t.Fatalf("backup: %d %q %q", code, out, errs)
	}
	_, out, _ = runCLI(t, env, "doctor", "--data-dir", root, "--json")
	if r := doctorRow(t, out, "backups"); r.Result != checkPass {
		t.Fatalf("doctor backups after a new backup: %+v", r)
	}
}

// With a daemon on an external server, which the restore can reach beside
// it, the daemon keeps its connection and is paused only around the swap,
// then rebuilds its index from the restored data. A FerretDB in this test
// process plays the external server.
func TestRestoreWithDaemonOnExternalServer(t *testing.T) {
	server, err := dataroot.Prepare(shortRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeEmbedded, Root: server, Database: "server_only"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(ctx) })

	root := shortRoot(t)
	env := processEnv(t, root)
	uri := "mongodb://" + tcpToUnix(t, srv.URI()) + "/"
	cfg, _ := json.Marshal(map[string]any{"logging": map[string]any{"level": "debug"}, "mongo": map[string]any{"mode": "external", "uri": uri}})
	if err := os.WriteFile(envValue(env, "INFMEM_CONFIG"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopDaemon(t, root, env) })
	if code, out, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %q %q", code, out, errs)
	}
	c := bridgeClient(t, env)
	earlier := storeText(t, c, "The spare key is under the blue flowerpot")
	code, out, errs := runBin(t, env, "backup", "--no-encrypt")
	if code != 0 {
		t.Fatalf("backup: %d %q %q", code, out, errs)
	}
	path := writtenBackup(t, out)
	later := storeText(t, c, "The boat is moored at pier nine")
	if code, out, errs = runBin(t, env, "restore", path); code != 0 || !strings.Contains(out, "restored ") {
		t.Fatalf("restore: %d %q %q", code, out, errs)
	}
	log := serviceLog(t, root)
	if !strings.Contains(log, `msg="memory paused" release=false`) || !strings.Contains(log, `msg="memory resumed" reload=true`) ||
		strings.Contains(log, "memory resuming: opening the database again") {
		t.Fatalf("the daemon was not paused around the swap only:\n%s", log)
	}
	ids := indexedIDs(t, c)
	if !ids[earlier] || ids[later] || len(ids) != 1 {
		t.Fatalf("after the restore the daemon serves %v; want only %s", ids, earlier)
	}
}

// tcpToUnix forwards a loopback TCP port to the unix socket of a
// mongodb:// URI (mongo.uri must name a host) and returns its address.
func tcpToUnix(t *testing.T, uri string) string {
	t.Helper()
	host, _, _ := strings.Cut(strings.TrimPrefix(uri, "mongodb://"), "/")
	sock, err := url.PathUnescape(host)
	if err != nil || !strings.HasPrefix(sock, "/") {
		t.Fatalf("not a unix socket URI: %s (%v)", uri, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("unix", sock)
			if err != nil {
				in.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, in, out)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); io.Copy(out, in); out.Close() }()
			go func() { defer wg.Done(); io.Copy(in, out); in.Close() }()
		}
	}()
	return ln.Addr().String()
}

// TestReadOnlyCommandsKeepIndexSnapshot: status, doctor, export and backup
// run with the daemon stopped open the database themselves; they change no
// memory, so the next daemon still starts from the index snapshot. A
// restore does change memories: it withdraws that snapshot and writes one of
// the restored memory, from which the daemon after it starts (issue 24: the
// first start after a restore of 100k memories read them all, 3-6 s), and
// which holds what the restore brought back, not what the daemon's last
// snapshot held.
func TestReadOnlyCommandsKeepIndexSnapshot(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	c := bridgeClient(t, env)
	storeText(t, c, "The spare key is under the blue flowerpot")
	c.Close()
	stopDaemon(t, root, env) // clean stop: snapshot written
	for _, args := range [][]string{{"status"}, {"doctor"}, {"export"}, {"backup", "--no-encrypt"}} {
		if code, out, errs := runBin(t, env, args...); code != 0 && args[0] != "doctor" {
			t.Fatalf("%v: %d %q %q", args, code, out, errs)
		}
	}
	snapshotLoads := func() int { return strings.Count(serviceLog(t, root), `msg="index loaded from snapshot"`) }
	if code, out, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %q %q", code, out, errs)
	}
	c = bridgeClient(t, env)
	if ids := indexedIDs(t, c); len(ids) != 1 {
		t.Fatalf("daemon serves %d memories", len(ids))
	}
	c.Close()
	if n := snapshotLoads(); n != 1 {
		t.Fatalf("after read-only commands the daemon did not start from the snapshot (%d snapshot loads)", n)
	}
	indexSource := func() string {
		_, out, _ := runBin(t, env, "status", "--json")
		if rep := statusJSON(t, out); rep.Index != nil {
			return rep.Index.Source
		}
		return ""
	}
	if src := indexSource(); src != "snapshot" {
		t.Fatalf("status says the index came from %q", src)
	}
	stopDaemon(t, root, env)

	backups, _ := filepath.Glob(filepath.Join(root, "backups", "backup_*.archive.gz"))
	if len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	// A memory stored after the backup: the snapshot the daemon writes at
	// its stop holds it; the restore takes it away.
	if code, out, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %q %q", code, out, errs)
	}
	c = bridgeClient(t, env)
	later := storeText(t, c, "The boat is moored at pier nine")
	c.Close()
	stopDaemon(t, root, env)
	if n := snapshotLoads(); n != 2 {
		t.Fatalf("%d snapshot loads before the restore, want 2", n)
	}
	if code, out, errs := runBin(t, env, "restore", backups[0], "--no-safety-backup"); code != 0 {
		t.Fatalf("restore: %d %q %q", code, out, errs)
	}
	if code, out, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %q %q", code, out, errs)
	}
	c = bridgeClient(t, env)
	if ids := indexedIDs(t, c); len(ids) != 1 || ids[later] {
		t.Fatalf("daemon serves %v after the restore; want the one memory backed up", ids)
	}
	rec, err := tryCall(c, "retrieve_memory", map[string]any{"query": "where is the boat moored"})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(resultTexts(rec), "The boat is moored at pier nine") {
		t.Fatalf("the restored-away memory is still recalled: %v", rec)
	}
	if n := snapshotLoads(); n != 3 {
		t.Fatalf("the first start after the restore did not start from a snapshot (%d snapshot loads, want 3)", n)
	}
	if src := indexSource(); src != "snapshot" {
		t.Fatalf("status says the index came from %q after a restore", src)
	}
	if _, out, _ := runBin(t, env, "status"); !strings.Contains(out, "ready (loaded from the snapshot)") {
		t.Fatalf("status text: %s", out)
	}
}
