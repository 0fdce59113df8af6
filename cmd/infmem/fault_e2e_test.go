//go:build linux

package main

// The fault matrix: end-to-end tests with real infmem processes, each
// asserting that no acknowledged write is lost and that the next start is
// clean. Every test has its own data root and config. Linux only: the
// faults are made with kill -9, a tmpfs or RLIMIT_FSIZE, and /proc.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"golang.org/x/sys/unix"

	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/embed"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/proc"
	"github.com/infmem/infmem/mongostore"
)

// faultConfig is the config of most fault tests: the weight-free hash
// embedder keeps stores and daemon starts cheap under -race; the faults do
// not depend on the model (the 4-client burst runs the default one).
const faultConfig = `{"logging": {"level": "debug"}, "embedding": {"model": "hash"}}`

// faultRoot is a fresh data root with its own environment and config; its
// daemon, if one runs at the end, is stopped.
func faultRoot(t *testing.T, cfg string) (root string, env []string) {
	t.Helper()
	root = shortRoot(t)
	env = processEnv(t, root)
	if cfg != "" {
		if err := os.WriteFile(envValue(env, "INFMEM_CONFIG"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { stopDaemon(t, root, env) })
	return root, env
}

// killNine sends SIGKILL to pid (kill -9) and waits until it is gone.
func killNine(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("kill -9 %d: %v", pid, err)
	}
	pollUntil(t, 30*time.Second, fmt.Sprintf("pid %d to die", pid), func() bool { return !proc.Alive(pid) })
}

// servingPID is the pid daemon.json names once it names a live daemon
// other than not: a new daemon answers on its socket a moment before it
// writes daemon.json.
func servingPID(t *testing.T, root string, not int) int {
	t.Helper()
	ep, err := control.EndpointsFor(dataroot.Root{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	pollUntil(t, 30*time.Second, "daemon.json to name the serving daemon", func() bool {
		info, err := control.ReadInfo(ep.Info)
		if err != nil {
			return false
		}
		pid = info.PID
		return pid != not && proc.Alive(pid)
	})
	return pid
}

// pollUntil polls cond every few milliseconds.
func pollUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// bgProcess is an infmem process started in the background.
type bgProcess struct {
	cmd      *exec.Cmd
	exited   chan struct{}
	code     int // after exited: the exit code, or minus the signal
	out, err bytes.Buffer
}

// startInfmem starts the infmem binary in the background; it is killed at the
// end of the test if still running.
func startInfmem(t *testing.T, env []string, args ...string) *bgProcess {
	t.Helper()
	p := &bgProcess{cmd: exec.Command(infmemBinary(t), args...), exited: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.exited)
		err := p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		if ee, ok := err.(*exec.ExitError); ok && !ee.Exited() {
			p.code = -int(ee.Sys().(syscall.WaitStatus).Signal())
		}
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// wait waits for the process to end and returns its exit code and output.
func (p *bgProcess) wait(t *testing.T) (code int, stdout, stderr string) {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(2 * time.Minute):
		t.Fatalf("infmem %v did not end", p.cmd.Args[1:])
	}
	return p.code, p.out.String(), p.err.String()
}

func (p *bgProcess) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// callOnce calls a tool once (no retry while loading, unlike tryCall) and
// tells an isError result apart from a failed call.
func callOnce(c *client.Client, name string, args map[string]any) (out map[string]any, toolErr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, "", err
	}
	text := res.Content[0].(mcp.TextContent).Text
	if res.IsError {
		return nil, text, nil
	}
	err = json.Unmarshal([]byte(text), &out)
	return out, "", err
}

// servedMemories pages through list_memories with args and returns id → text.
func servedMemories(t *testing.T, c *client.Client, args map[string]any) map[string]string {
	t.Helper()
	seen := map[string]string{}
	for offset := 0; ; {
		a := map[string]any{"scope": "ALL", "limit": 100, "offset": offset}
		for k, v := range args {
			a[k] = v
		}
		out, err := tryCall(c, "list_memories", a)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out["memories"].([]any) {
			m := m.(map[string]any)
			seen[m["memory_id"].(string)] = m["text"].(string)
		}
		next, ok := out["next_offset"].(float64)
		if !ok || next == 0 {
			return seen
		}
		offset = int(next)
	}
}

// dbMemories reads every memory id and text from the database itself, with
// no daemon running.
func dbMemories(t *testing.T, root string) map[string]string {
	t.Helper()
	got := map[string]string{}
	withStore(t, root, func(s *mongostore.Store) {
		err := s.Memories.Iterate(context.Background(), 1000, func(batch []mongostore.Memory) error {
			for _, m := range batch {
				got[m.ID.Hex()] = m.Text
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	return got
}

// dbCollections lists the database's collections, with no daemon running.
func dbCollections(t *testing.T, root string) []string {
	t.Helper()
	var names []string
	withStore(t, root, func(s *mongostore.Store) {
		var err error
		if names, err = s.Database().ListCollectionNames(context.Background(), bson.D{}); err != nil {
			t.Fatal(err)
		}
	})
	slices.Sort(names)
	return names
}

// checkNoRestoreLeftovers: no staging or replaced collection, no restore
// journal.
func checkNoRestoreLeftovers(t *testing.T, root string) {
	t.Helper()
	for _, n := range dbCollections(t, root) {
		if strings.HasPrefix(n, "_infmem_") {
			t.Errorf("restore collection %s left behind (collections: %v)", n, dbCollections(t, root))
		}
	}
	if _, err := os.Stat(filepath.Join(root, "run", "restore-journal.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("restore journal left behind: %v", err)
	}
}

// mustContainAll fails unless every acknowledged id is in got with its text.
func mustContainAll(t *testing.T, where string, got, acked map[string]string) {
	t.Helper()
	missing := 0
	for id, text := range acked {
		if g, ok := got[id]; !ok || g != text {
			if missing < 5 {
				t.Errorf("%s: acknowledged memory %s (%q) is missing (got %q)", where, id, text, g)
			}
			missing++
		}
	}
	if missing > 0 {
		t.Fatalf("%s: %d of %d acknowledged memories missing", where, missing, len(acked))
	}
}

// statusAndDoctorClean checks that status and doctor find a running daemon with a
// ready index and nothing wrong with the data root, the engine or the log.
// It returns the status report.
func statusAndDoctorClean(t *testing.T, env []string) statusReport {
	t.Helper()
	// A daemon just started may still be loading its index (after a
	// crash, all of it: a minute and more under -race at load 30): wait
	// until status says it is ready, or says anything is wrong.
	var code int
	var out, errs string
	var rep statusReport
	pollUntil(t, 3*time.Minute, "status to report the index ready (or a fault)", func() bool {
		code, out, errs = runBin(t, env, "status", "--json")
		rep = statusJSON(t, out)
		loading := rep.Daemon.State == control.StateStarting && rep.Daemon.Error == "" ||
			rep.Index != nil && !rep.Index.Ready && rep.Index.Error == ""
		if code != 0 || rep.Daemon.Presence != "running" || rep.EngineError != "" || rep.DataRootProblem != "" || !loading {
			return true
		}
		time.Sleep(100 * time.Millisecond)
		return false
	})
	_, doctorOut, _ := runBin(t, env, "doctor", "--json")
	if code != 0 || rep.Daemon.Presence != "running" || rep.Index == nil || !rep.Index.Ready || rep.EngineError != "" || rep.DataRootProblem != "" {
		t.Fatalf("status after the fault: %d %s %s\nthe service log's end:\n%s", code, out, errs, logTail(envValue(env, "INFMEM_DATA_DIR"), 40))
	}
	for _, name := range []string{"data root", "service log", "daemon", "engine"} {
		if r := doctorRow(t, doctorOut, name); r.Result != checkPass {
			t.Fatalf("doctor %s after the fault: %+v", name, r)
		}
	}
	return rep
}

// logTail is the last n lines of root's service log (for a failure's
// message: what the daemon did says why status was not clean).
func logTail(root string, n int) string {
	b, err := os.ReadFile(filepath.Join(root, "logs", "memory_service.log"))
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// uniqueWord is a word no other memory holds, so a keyword search for it
// finds exactly its memory.
func uniqueWord(i, j int) string {
	const letters = "bcdfghjklmnpqrstvwxz"
	n := i*100000 + j
	w := []byte("qx")
	for k := 0; k < 5; k++ {
		w = append(w, letters[n%len(letters)])
		n /= len(letters)
	}
	return string(w)
}

// retrievable checks that retrieve_memory finds the memory id by its text.
func retrievable(t *testing.T, c *client.Client, id, query string) {
	t.Helper()
	out, err := tryCall(c, "retrieve_memory", map[string]any{"query": query, "top_k": 5, "filter": map[string]any{"scope": "ALL"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out["results"].([]any) {
		if r.(map[string]any)["memory_id"] == id {
			return
		}
	}
	t.Fatalf("retrieve_memory(%q) does not find acknowledged memory %s: %v", query, id, out["results"])
}

// storer stores memories through one client, each with its own text and
// the storer's tag, and records which were acknowledged.
type storer struct {
	name string
	tag  string

	mu        sync.Mutex
	acked     map[string]string // id → text
	attempted map[string]bool   // every text sent
	failures  []string          // isError texts and call errors, in order
	done      chan struct{}
}

func newStorer(name string) *storer {
	return &storer{name: name, tag: name, acked: map[string]string{}, attempted: map[string]bool{}, done: make(chan struct{})}
}

// run stores until stop closes or a store is not acknowledged.
func (w *storer) run(c *client.Client, index int, stop <-chan struct{}) {
	defer close(w.done)
	for j := 0; ; j++ {
		select {
		case <-stop:
			return
		default:
		}
		if !w.storeOne(c, index, j) {
			return
		}
	}
}

// storeOne stores the j-th memory; false means it was not acknowledged.
// Only the daemon's "try again" answers (still loading, paused for a
// restore: CallWait ran out before the memory was back) are tried again, as
// Claude would: the daemon refuses those stores before doing anything.
func (w *storer) storeOne(c *client.Client, index, j int) bool {
	text := fmt.Sprintf("%s wrote note %d, codeword %s", w.name, j, uniqueWord(index, j))
	w.mu.Lock()
	w.attempted[text] = true
	w.mu.Unlock()
	var out map[string]any
	var toolErr string
	var err error
	for {
		out, toolErr, err = callOnce(c, "store_memory", map[string]any{"content": text, "metadata": map[string]any{"tags": []any{w.tag}}})
		if !strings.Contains(toolErr, "still loading") && !strings.Contains(toolErr, "paused while a backup is restored") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err != nil:
		w.failures = append(w.failures, "call failed: "+err.Error())
		return false
	case toolErr != "":
		w.failures = append(w.failures, toolErr)
		return false
	case out["status"] != "OK" || out["memory_id"] == nil:
		w.failures = append(w.failures, fmt.Sprintf("unexpected answer %v", out))
		return false
	}
	w.acked[out["memory_id"].(string)] = text
	return true
}

func (w *storer) ackedCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked)
}

func (w *storer) snapshot() (acked map[string]string, attempted map[string]bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.acked), maps.Clone(w.attempted)
}

// mergeTexts is the union of id → text maps.
func mergeTexts(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

// sameMemories fails unless got and want hold the same ids.
func sameMemories(t *testing.T, where string, got, want map[string]string) {
	t.Helper()
	var extra, missing []string
	for id := range got {
		if _, ok := want[id]; !ok {
			extra = append(extra, id+" "+got[id])
		}
	}
	for id := range want {
		if _, ok := got[id]; !ok {
			missing = append(missing, id+" "+want[id])
		}
	}
	if len(extra)+len(missing) > 0 {
		t.Fatalf("%s: %d extra (%.3q), %d missing (%.3q)", where, len(extra), extra, len(missing), missing)
	}
}

// 1. kill -9 of the daemon during a write burst of four clients, each its
// own `infmem mcp` process as Claude windows run it. The burst goes into
// the index change journal (the daemon started from a snapshot); the next
// daemon replays it, and every acknowledged store is listed, counted per
// client, retrievable, and in the database.
func TestFaultKillDaemonDuringFourClientBurst(t *testing.T) {
	const clients, perClientBeforeKill = 4, 25
	root, env := faultRoot(t, "") // the default embedding model
	// A clean stop first, so the daemon that is killed started from an
	// index snapshot and journals the burst.
	warm := bridgeClient(t, env)
	warmID := storeText(t, warm, "written before the burst, codeword qxwarmup")
	warm.Close()
	stopDaemon(t, root, env)

	cs := make([]*client.Client, clients)
	var wg sync.WaitGroup
	for i := range cs {
		wg.Go(func() { cs[i] = bridgeClient(t, env) })
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	pid := servingPID(t, root, 0)
	ws := make([]*storer, clients)
	stop := make(chan struct{})
	for i := range ws {
		ws[i] = newStorer(fmt.Sprintf("client%d", i))
		go ws[i].run(cs[i], i, stop)
	}
	pollUntil(t, 2*time.Minute, "every client to have stores acknowledged", func() bool {
		for _, w := range ws {
			if w.ackedCount() < perClientBeforeKill {
				return false
			}
		}
		return true
	})
	killNine(t, pid)
	for _, w := range ws {
		select {
		case <-w.done:
		case <-time.After(time.Minute):
			close(stop)
			t.Fatal("stores went on after the daemon was killed")
		}
	}
	close(stop)
	total := 0
	for _, w := range ws {
		if len(w.failures) == 0 {
			t.Fatalf("%s: no store failed, yet the daemon was killed", w.name)
		}
		total += w.ackedCount()
	}
	t.Logf("kill -9 of pid %d after %d acknowledged stores (%v per client)", pid, total,
		[]int{ws[0].ackedCount(), ws[1].ackedCount(), ws[2].ackedCount(), ws[3].ackedCount()})

	// The next `infmem mcp` starts a new daemon, which replays the journal.
	c := bridgeClient(t, env)
	if again := servingPID(t, root, pid); again == pid {
		t.Fatalf("no new daemon: pid %d", again)
	}
	served := map[string]string{}
	for _, w := range ws {
		acked, attempted := w.snapshot()
		got := servedMemories(t, c, map[string]any{"tags": []any{w.tag}})
		mustContainAll(t, w.name+" after kill -9", got, acked)
		// A store in flight at the kill may have reached the database
		// unacknowledged; each client had at most one in flight.
		if len(got) > len(acked)+1 {
			t.Fatalf("%s: %d memories listed, %d acknowledged: more than the one store in flight", w.name, len(got), len(acked))
		}
		for id, text := range got {
			if !attempted[text] {
				t.Fatalf("%s: listed memory %s holds %q, which the client never sent", w.name, id, text)
			}
		}
		ids := make([]string, 0, len(acked))
		for id := range acked {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range []string{ids[0], ids[len(ids)/2], ids[len(ids)-1]} {
			retrievable(t, c, id, uniqueWordOf(acked[id]))
		}
		served = mergeTexts(served, got)
	}
	retrievable(t, c, warmID, "qxwarmup")
	rep := statusAndDoctorClean(t, env)
	if rep.Index.Source != "snapshot" {
		t.Errorf("the daemon after the crash loaded its index from the %q, want the snapshot and its journal", rep.Index.Source)
	}
	line := lastLogLine(t, root, `msg="index loaded from snapshot"`)
	if !strings.Contains(line, "journaled_changes=") || strings.Contains(line, "journaled_changes=0 ") {
		t.Errorf("the restart did not replay the change journal: %s", line)
	}
	t.Log(line)
	c.Close()
	stopDaemon(t, root, env)
	// What the index served is what the database holds.
	db := dbMemories(t, root)
	delete(db, warmID)
	sameMemories(t, "database vs index after kill -9", db, served)
}

// lastLogLine is the last line of the service log that contains s.
func lastLogLine(t *testing.T, root, s string) string {
	t.Helper()
	log := serviceLog(t, root)
	i := strings.LastIndex(log, s)
	if i < 0 {
		t.Fatalf("the service log has no %s", s)
	}
	start := strings.LastIndexByte(log[:i], '\n') + 1
	line, _, _ := strings.Cut(log[start:], "\n")
	return line
}

// 5. A second daemon started on the data root while the first serves a
// write burst: every second daemon (started directly, several at once,
// through a symlink to the root, or as `infmem mcp --in-process`) exits
// naming the first, which loses no acknowledged write; the database
// holds exactly what it served.
func TestFaultSecondDaemonDuringWrites(t *testing.T) {
	root, env := faultRoot(t, faultConfig)
	if code, out, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %q %q", code, out, errs)
	}
	pid := servingPID(t, root, 0)
	ws := []*storer{newStorer("first"), newStorer("second")}
	stop := make(chan struct{})
	for i, w := range ws {
		c := bridgeClient(t, env)
		go w.run(c, i, stop)
	}
	pollUntil(t, time.Minute, "the burst to start", func() bool { return ws[0].ackedCount() >= 5 && ws[1].ackedCount() >= 5 })

	link := filepath.Join(filepath.Dir(root), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	linkEnv := processEnv(t, link)
	naming := fmt.Sprintf("another infmem daemon (pid %d) already serves ", pid)
	var wg sync.WaitGroup
	for k := range 4 {
		wg.Go(func() {
			e := env
			if k == 3 {
				e = linkEnv
			}
			code, out, errs := runBin(t, e, "daemon")
			if code != 0 || !strings.Contains(errs, naming) {
				t.Errorf("second daemon %d: exit %d, stdout %q, stderr %q; want it to name pid %d", k, code, out, errs, pid)
			}
		})
	}
	wg.Go(func() {
		code, _, errs := runBin(t, env, "mcp", "--in-process")
		if code != exitFailure || !strings.Contains(errs, fmt.Sprintf("pid %d", pid)) {
			t.Errorf("--in-process beside the daemon: %d %q", code, errs)
		}
	})
	wg.Wait()
	time.Sleep(200 * time.Millisecond) // writes go on after the attempts
	close(stop)
	for _, w := range ws {
		<-w.done
		if len(w.failures) > 0 {
			t.Fatalf("%s: a store failed while second daemons were refused: %v", w.name, w.failures)
		}
	}
	if got := servingPID(t, root, 0); got != pid || !proc.Alive(pid) {
		t.Fatalf("the first daemon changed: pid %d, was %d", got, pid)
	}
	if k := strings.Count(serviceLog(t, root), `msg="daemon serving"`); k != 1 {
		t.Fatalf("%d daemons served the root, want 1", k)
	}
	a0, _ := ws[0].snapshot()
	a1, _ := ws[1].snapshot()
	acked := mergeTexts(a0, a1)
	c := bridgeClient(t, env)
	served := servedMemories(t, c, nil)
	sameMemories(t, "served after the refused daemons", served, acked)
	statusAndDoctorClean(t, env)
	c.Close()
	stopDaemon(t, root, env)
	sameMemories(t, "database after the refused daemons", dbMemories(t, root), acked)
	t.Logf("%d acknowledged stores during 5 refused starts, all present", len(acked))
}

// copyRegularFiles copies the regular files and directories under src to dst.
func copyRegularFiles(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o700)
		case !d.Type().IsRegular():
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// 4. A damaged index snapshot or change journal, found at the next start
// after a crash: the daemon either loads everything from the database or
// uses the snapshot and ignores a torn journal tail, never serves a stale
// index; every memory, edit and forget is there; status says where the
// index came from.
func TestFaultDamagedIndexSnapshotAndJournal(t *testing.T) {
	// The template: 30 memories snapshotted at a clean stop, then (from
	// the snapshot) 10 more, an edit and a forget, journaled, and kill -9.
	tmplRoot, tmplEnv := faultRoot(t, faultConfig)
	c := bridgeClient(t, tmplEnv)
	ids := make([]string, 0, 40)
	for j := range 30 {
		ids = append(ids, storeText(t, c, fmt.Sprintf("snapshotted note %d, codeword %s", j, uniqueWord(7, j))))
	}
	c.Close()
	stopDaemon(t, tmplRoot, tmplEnv)
	c = bridgeClient(t, tmplEnv)
	for j := 30; j < 40; j++ {
		ids = append(ids, storeText(t, c, fmt.Sprintf("journaled note %d, codeword %s", j, uniqueWord(7, j))))
	}
	edited := "snapshotted note 3 was edited after the snapshot, codeword qxedited"
	if _, err := tryCall(c, "update_memory", map[string]any{"memory_id": ids[3], "content": edited}); err != nil {
		t.Fatal(err)
	}
	if _, err := tryCall(c, "delete_memory", map[string]any{"target": map[string]any{"memory_id": ids[5]}}); err != nil {
		t.Fatal(err)
	}
	want := servedMemories(t, c, nil)
	if len(want) != 39 || want[ids[3]] != edited {
		t.Fatalf("before the crash the daemon serves %d memories: %v", len(want), want)
	}
	killNine(t, servingPID(t, tmplRoot, 0))
	jr, err := os.ReadFile(filepath.Join(tmplRoot, "mongo_data", memory.SnapshotFile+".journal"))
	if err != nil {
		t.Fatal(err)
	}
	// Header: magic (8 bytes), version, token length, token, CRC-32C.
	header := 8 + 1 + 1 + int(jr[9]) + 4
	if len(jr) < header+3*(4+12+4) {
		t.Fatalf("the journal holds %d bytes: the template has too few journaled changes", len(jr))
	}

	// Damages, each made to one file while no daemon runs.
	flip := func(at func(size int) int) func(*testing.T, string) {
		return func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b[at(len(b))] ^= 0x5a
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	truncate := func(to func(size int) int) func(*testing.T, string) {
		return func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, int64(to(int(fi.Size())))); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendBytes := func(b []byte) func(*testing.T, string) {
		return func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(b); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	remove := func(t *testing.T, path string) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
	// A torn append, as a crash leaves it: a record's count and part of
	// its id (the change it announced never reached the database).
	torn := binary.LittleEndian.AppendUint32(nil, 1)
	torn = append(torn, 0xde, 0xad, 0xbe, 0xef, 0x01)
	const snapFile, journalFile = memory.SnapshotFile, memory.SnapshotFile + ".journal"
	cases := []struct {
		name   string
		file   string // in mongo_data/
		damage func(t *testing.T, path string)
		source string // where the index must come from
	}{
		{"snapshot_byte_flipped", snapFile, flip(func(n int) int { return n / 2 }), "database"},
		{"snapshot_truncated", snapFile, truncate(func(n int) int { return n / 3 }), "database"},
		{"snapshot_empty", snapFile, truncate(func(int) int { return 0 }), "database"},
		{"journal_byte_flipped", journalFile, flip(func(int) int { return header + 4 + 5 }), "database"},
		{"journal_truncated_in_header", journalFile, truncate(func(int) int { return header / 2 }), "database"},
		{"journal_missing", journalFile, remove, "database"},
		{"journal_torn_tail", journalFile, appendBytes(torn), "snapshot"},
		{"journal_zero_filled_tail", journalFile, appendBytes(make([]byte, 24)), "snapshot"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root, env := faultRoot(t, faultConfig)
			copyRegularFiles(t, filepath.Join(tmplRoot, "mongo_data"), filepath.Join(root, "mongo_data"))
			tc.damage(t, filepath.Join(root, "mongo_data", tc.file))
			c := bridgeClient(t, env)
			got := servedMemories(t, c, nil)
			if len(got) != len(want) || got[ids[3]] != edited {
				t.Errorf("served %d memories, want %d; edited memory: %q", len(got), len(want), got[ids[3]])
			}
			sameMemories(t, "served after the damage", got, want)
			if _, ok := got[ids[5]]; ok {
				t.Fatal("the forgotten memory is served again")
			}
			retrievable(t, c, ids[3], "qxedited")
			retrievable(t, c, ids[39], uniqueWord(7, 39))
			retrievable(t, c, ids[0], uniqueWord(7, 0))
			rep := statusAndDoctorClean(t, env)
			if rep.Index.Source != tc.source {
				t.Errorf("status: index loaded from the %q, want the %s", rep.Index.Source, tc.source)
			}
			_, out, _ := runBin(t, env, "status")
			if !strings.Contains(out, "ready (loaded from the "+tc.source+")") {
				t.Errorf("status text does not say where the index came from:\n%s", out)
			}
			if tc.source == "database" {
				t.Log(lastLogLine(t, root, `msg="index snapshot not used; loading from the database"`))
			} else {
				t.Log(lastLogLine(t, root, `msg="index loaded from snapshot"`))
			}
			// The next start after a clean stop uses a sound snapshot again.
			c.Close()
			stopDaemon(t, root, env)
			c = bridgeClient(t, env)
			sameMemories(t, "served after a clean restart", servedMemories(t, c, nil), want)
			if rep := statusAndDoctorClean(t, env); rep.Index.Source != "snapshot" {
				t.Errorf("after a clean restart the index came from the %q", rep.Index.Source)
			}
		})
	}
}

// seedData is a data root whose backup takes seconds under -race: memories
// with their 512-dimension embeddings as the default model stores them
// (about 2 KB each that barely compress), and a plaintext backup of it in
// its backups/.
type seedData struct {
	root     string
	memories map[string]string // id → text
	backup   string            // file name in backups/
}

const seedMemories, seedWords, seedDim = 1200, 60, 512

// seededConfig runs without embeddings: the daemon then neither reads the
// seeded vectors at start nor embeds anything in the background, which
// would cost seconds under -race without changing any fault.
const seededConfig = `{"logging": {"level": "debug"}, "embedding": {"model": "none"}}`

func makeSeedData(t *testing.T) seedData {
	t.Helper()
	root, env := faultRoot(t, seededConfig)
	words := strings.Fields("apple river stone cloud lantern harbor violet meadow copper falcon quiet amber canyon willow ember orchid glacier saffron tundra velvet prism maple cobalt thistle juniper basalt cedar")
	rng := rand.New(rand.NewPCG(1, 2))
	mems := map[string]string{}
	withStore(t, root, func(s *mongostore.Store) {
		ctx := context.Background()
		now := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
		var batch []*mongostore.Memory
		var vecs []*mongostore.IndexEntry
		for i := range seedMemories {
			var b strings.Builder
			fmt.Fprintf(&b, "seeded memory %d, codeword %s:", i, uniqueWord(9, i))
			for range seedWords {
				fmt.Fprintf(&b, " %s%d", words[rng.IntN(len(words))], rng.IntN(1000))
			}
			m := &mongostore.Memory{ID: bson.NewObjectID(), Text: b.String(), Scope: "Global", Tags: []string{"seeded"}, Source: "note",
				Importance: 0.5, Timestamp: now, CreatedAt: now, UpdatedAt: now}
			mems[m.ID.Hex()] = m.Text
			vec := make([]byte, 0, 4*seedDim)
			for range seedDim {
				vec = binary.LittleEndian.AppendUint32(vec, math.Float32bits(float32(rng.NormFloat64()/math.Sqrt(seedDim))))
			}
			vecs = append(vecs, &mongostore.IndexEntry{ID: m.ID, SourceCollection: mongostore.ConversationHistory, SourceID: m.ID, Scope: m.Scope,
				Model: embed.USELiteModelID, Dim: seedDim, Embedding: vec, Encoding: "f32", Metadata: mongostore.IndexMeta{Timestamp: now, Tags: m.Tags}, CreatedAt: now})
			if batch = append(batch, m); len(batch) == 200 || i == seedMemories-1 {
				if err := s.Memories.InsertMany(ctx, batch); err != nil {
					t.Fatal(err)
				}
				if err := s.Index.InsertMany(ctx, vecs); err != nil {
					t.Fatal(err)
				}
				batch, vecs = nil, nil
			}
		}
	})
	code, out, errs := runBin(t, env, "backup", "--no-encrypt")
	if code != 0 {
		t.Fatalf("backup of the seeded root: %d %q %q", code, out, errs)
	}
	return seedData{root: root, memories: mems, backup: filepath.Base(writtenBackup(t, out))}
}

// copySeeded makes a new data root holding the seeded database and, with
// withBackup, its backup.
func copySeeded(t *testing.T, sd seedData, withBackup bool) (root string, env []string) {
	t.Helper()
	root, env = faultRoot(t, seededConfig)
	copyRegularFiles(t, filepath.Join(sd.root, "mongo_data"), filepath.Join(root, "mongo_data"))
	if withBackup {
		for _, f := range []string{sd.backup, strings.TrimSuffix(sd.backup, ".archive.gz") + ".manifest.json"} {
			b, err := os.ReadFile(filepath.Join(sd.root, "backups", f))
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Join(root, "backups"), 0o700)
			if err := os.WriteFile(filepath.Join(root, "backups", f), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root, env
}

// writeAfterBackup writes what the backup does not hold, with no daemon
// running: memories and a marker in Metadata. A restore replaces both or
// neither.
func writeAfterBackup(t *testing.T, root string, n int) map[string]string {
	t.Helper()
	mems := map[string]string{}
	withStore(t, root, func(s *mongostore.Store) {
		now := time.Now().UTC().Truncate(time.Millisecond)
		for i := range n {
			m := &mongostore.Memory{ID: bson.NewObjectID(), Text: fmt.Sprintf("written after the backup %d, codeword %s", i, uniqueWord(8, i)),
				Scope: "Global", Tags: []string{"after-backup"}, Source: "note", Importance: 0.5, Timestamp: now, CreatedAt: now, UpdatedAt: now}
			if err := s.Memories.Insert(context.Background(), m); err != nil {
				t.Fatal(err)
			}
			mems[m.ID.Hex()] = m.Text
		}
		if _, err := s.Database().Collection(mongostore.Metadata).InsertOne(context.Background(), bson.D{{Key: "_id", Value: "fault-test-marker"}}); err != nil {
			t.Fatal(err)
		}
	})
	return mems
}

// hasLiveMarker says whether Metadata holds writeAfterBackup's marker.
func hasLiveMarker(t *testing.T, root string) (found bool) {
	t.Helper()
	withStore(t, root, func(s *mongostore.Store) {
		n, err := s.Database().Collection(mongostore.Metadata).CountDocuments(context.Background(), bson.D{{Key: "_id", Value: "fault-test-marker"}})
		if err != nil {
			t.Fatal(err)
		}
		found = n == 1
	})
	return found
}

// waitForGrowingFile waits until a file matching pattern in dir has at least
// minSize bytes, while p runs, and returns its path.
func waitForGrowingFile(t *testing.T, p *bgProcess, dir, pattern string, minSize int64) string {
	t.Helper()
	for {
		matches, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.Size() >= minSize {
				return m
			}
		}
		if !p.running() {
			code, out, errs := p.wait(t)
			t.Fatalf("infmem %v ended (%d %q %q) before %s had %d bytes: the seeded data is too small to catch it at work",
				p.cmd.Args[1:], code, out, errs, pattern, minSize)
		}
		time.Sleep(time.Millisecond)
	}
}

// killDuringBackup kills a daemon with -9 while `infmem backup` has it
// write a backup, then checks that no partial backup is listed or
// accepted, the next backup works and no acknowledged write is lost. It
// returns false, having checked nothing, when the backup finished before
// the kill.
func killDuringBackup(t *testing.T, sd seedData, seededN int) bool {
	t.Helper()
	root, env := copySeeded(t, sd, false)
	c := bridgeClient(t, env)
	if _, err := tryCall(c, "get_memory_stats", nil); err != nil { // waits for the index
		t.Fatal(err)
	}
	pid := servingPID(t, root, 0)
	w := newStorer("backup-writer")
	stop := make(chan struct{})
	go w.run(c, 1, stop)
	pollUntil(t, time.Minute, "stores before the backup", func() bool { return w.ackedCount() >= 3 })
	bk := startInfmem(t, env, "backup")
	partial := waitForGrowingFile(t, bk, filepath.Join(root, "backups"), ".backup-*.tmp", 1)
	killNine(t, pid)
	code, out, errs := bk.wait(t)
	if code == 0 {
		writtenBackup(t, out) // it says which
		<-w.done
		close(stop)
		return false
	}
	if strings.Contains(out, "backup written") {
		t.Fatalf("infmem backup failed (%d) but says it wrote a backup: %q %q", code, out, errs)
	}
	t.Logf("daemon killed with %s on disk; infmem backup says: %s", filepath.Base(partial), userMessage(errs))
	<-w.done
	close(stop)
	checkNoPartialBackup(t, env, root)

	c2 := bridgeClient(t, env)
	acked, _ := w.snapshot()
	served := checkServed(t, c2, seededN, nil, map[string]map[string]string{w.tag: acked})
	code, out, errs = runBin(t, env, "backup")
	if code != 0 {
		t.Fatalf("the next backup: %d %q %q", code, out, errs)
	}
	checkNoPartialBackup(t, env, root, filepath.Base(writtenBackup(t, out)))
	checkNoLeftovers(t, root)
	if rows := backupRows(t, env); rows[0].Manifest.Collections[mongostore.ConversationHistory] != int64(seededN+len(served)) {
		t.Fatalf("the next backup holds %v, the daemon serves %d memories", rows[0].Manifest.Collections, seededN+len(served))
	}
	statusAndDoctorClean(t, env)
	return true
}

// restorePhase is the phase in the restore journal, or "".
func restorePhase(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "run", "restore-journal.json"))
	if err != nil {
		return ""
	}
	var j struct {
		Phase string `json:"phase"`
	}
	json.Unmarshal(b, &j)
	return j.Phase
}

// backupRows is `infmem backups --json`.
func backupRows(t *testing.T, env []string) []backupListing {
	t.Helper()
	code, out, errs := runBin(t, env, "backups", "--json")
	var rows []backupListing
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil {
		t.Fatalf("backups --json: %d %q %q", code, out, errs)
	}
	return rows
}

// checkNoPartialBackup: `infmem backups` lists only want (file names),
// each checking out; any temporary file a killed process left is
// neither listed nor accepted by restore.
func checkNoPartialBackup(t *testing.T, env []string, root string, want ...string) {
	t.Helper()
	var got []string
	for _, r := range backupRows(t, env) {
		got = append(got, r.File)
		if r.Check != checkOK {
			t.Errorf("backups lists %s as %s: %s", r.File, r.Check, r.Problem)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("backups lists %v, want %v", got, want)
	}
	leftovers, _ := filepath.Glob(filepath.Join(root, "backups", ".*.tmp"))
	for _, f := range leftovers {
		code, out, errs := runBin(t, env, "restore", f, "--dry-run")
		if code == 0 {
			t.Fatalf("restore accepts the partial file %s: %q", f, out)
		}
		t.Logf("left by the killed process: %s; restore refuses it: %s", filepath.Base(f), userMessage(errs))
	}
}

// checkNoLeftovers: once a daemon has started or another backup has run,
// nothing a killed backup or restore wrote is left in backups/: the
// writer's pid is in each temporary name, and that process is gone.
func checkNoLeftovers(t *testing.T, root string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(root, "backups", ".*.tmp")); len(left) > 0 {
		t.Fatalf("what a killed process wrote is still there: %v", left)
	}
}

// userMessage is the line of a command's stderr that speaks to the user
// (the others are log lines).
func userMessage(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "infmem: ") {
			return l
		}
	}
	return firstLineOf(stderr)
}

// servedTotal is how many live memories the daemon serves.
func servedTotal(t *testing.T, c *client.Client) int {
	t.Helper()
	out, err := tryCall(c, "list_memories", map[string]any{"scope": "ALL", "limit": 1})
	if err != nil {
		t.Fatal(err)
	}
	return int(out["total"].(float64))
}

// checkServed checks what a daemon serves after a fault: the seeded
// memories (by count), and, by tag, exactly the memories of each group in
// exact (none missing, none extra) and at least those in acked, at most
// one more (a store in flight when the fault struck). It returns what the
// tags listed.
func checkServed(t *testing.T, c *client.Client, base int, exact map[string]map[string]string, acked map[string]map[string]string) map[string]string {
	t.Helper()
	all := map[string]string{}
	n := base
	for tag, want := range exact {
		got := servedMemories(t, c, map[string]any{"tags": []any{tag}})
		sameMemories(t, "memories tagged "+tag, got, want)
		n += len(got)
		all = mergeTexts(all, got)
	}
	for tag, want := range acked {
		got := servedMemories(t, c, map[string]any{"tags": []any{tag}})
		mustContainAll(t, "memories tagged "+tag, got, want)
		if len(got) > len(want)+1 {
			t.Fatalf("%d memories tagged %s served, %d acknowledged", len(got), tag, len(want))
		}
		n += len(got)
		all = mergeTexts(all, got)
	}
	if got := servedTotal(t, c); got != n {
		t.Fatalf("the daemon serves %d memories, want %d", got, n)
	}
	return all
}

// 2. kill -9 during a backup and during a restore, on a data root whose
// backup takes seconds. Afterwards no partial backup is listed or
// accepted, the next backup works, the live data is either the old data or
// the restored data entirely, no staging collection is left, and no
// acknowledged write is lost.
func TestFaultKillDuringBackupAndRestore(t *testing.T) {
	start := time.Now()
	sd := makeSeedData(t)
	t.Logf("seeded %d memories and backed them up in %v", len(sd.memories), time.Since(start).Round(time.Millisecond))
	seededN := len(sd.memories)

	t.Run("daemon_killed_during_backup", func(t *testing.T) {
		// The kill lands once the backup's file has its first bytes. On
		// a loaded machine this test's poll can be starved until the
		// backup has finished; that attempt proves nothing, so it is
		// tried again on a fresh copy, and three such attempts fail.
		for attempt := 1; ; attempt++ {
			if killDuringBackup(t, sd, seededN) {
				return
			}
			if attempt == 3 {
				t.Fatalf("the backup finished before its daemon was killed in %d attempts", attempt)
			}
			t.Logf("attempt %d: the backup finished before its daemon was killed; trying again", attempt)
		}
	})

	t.Run("backup_process_killed", func(t *testing.T) {
		root, env := copySeeded(t, sd, false)
		bk := startInfmem(t, env, "backup", "--no-encrypt")
		partial := waitForGrowingFile(t, bk, filepath.Join(root, "backups"), ".backup-*.tmp", 1)
		bk.cmd.Process.Kill()
		if code, _, _ := bk.wait(t); code != -int(syscall.SIGKILL) {
			t.Fatalf("infmem backup ended with %d, not by kill -9", code)
		}
		t.Logf("backup killed with %s on disk", filepath.Base(partial))
		checkNoPartialBackup(t, env, root)
		code, out, errs := runBin(t, env, "backup", "--no-encrypt")
		if code != 0 {
			t.Fatalf("the next backup: %d %q %q", code, out, errs)
		}
		checkNoPartialBackup(t, env, root, filepath.Base(writtenBackup(t, out)))
		checkNoLeftovers(t, root)
		c := bridgeClient(t, env)
		checkServed(t, c, seededN, nil, nil)
		retrievable(t, c, lowestID(sd.memories), uniqueWordOf(sd.memories[lowestID(sd.memories)]))
		statusAndDoctorClean(t, env)
	})

	// The disk fills up while an in-process backup writes: a file size
	// limit set once its temporary file exists makes its first write of
	// data fail, as ENOSPC would.
	t.Run("backup_process_hits_full_disk", func(t *testing.T) {
		root, env := copySeeded(t, sd, false)
		bk := startInfmem(t, env, "backup", "--no-encrypt")
		waitForGrowingFile(t, bk, filepath.Join(root, "backups"), ".backup-*.tmp", 0)
		limitFileSize(t, bk.cmd.Process.Pid, 256<<10)
		code, out, errs := bk.wait(t)
		if code != exitFailure || !strings.Contains(errs, "file too large") {
			t.Fatalf("backup on the full disk: %d %q %q", code, out, errs)
		}
		t.Logf("backup on the full disk: %s", userMessage(errs))
		checkNoPartialBackup(t, env, root)
		if tmp, _ := filepath.Glob(filepath.Join(root, "backups", ".*.tmp")); len(tmp) > 0 {
			t.Fatalf("the failed backup left %v", tmp)
		}
		code, out, errs = runBin(t, env, "backup", "--no-encrypt")
		if code != 0 {
			t.Fatalf("the next backup: %d %q %q", code, out, errs)
		}
		checkNoPartialBackup(t, env, root, filepath.Base(writtenBackup(t, out)))
		sameMemories(t, "database after the failed backup", dbMemories(t, root), sd.memories)
	})

	t.Run("restore_killed_beside_daemon", func(t *testing.T) {
		root, env := copySeeded(t, sd, true)
		after := writeAfterBackup(t, root, 5)
		c := bridgeClient(t, env)
		if _, err := tryCall(c, "get_memory_stats", nil); err != nil {
			t.Fatal(err)
		}
		pid := servingPID(t, root, 0)
		w := newStorer("restore-writer")
		stop := make(chan struct{})
		go w.run(bridgeClient(t, env), 2, stop)
		pollUntil(t, time.Minute, "stores before the restore", func() bool { return w.ackedCount() >= 3 })
		rs := startInfmem(t, env, "restore", sd.backup)
		pollUntil(t, time.Minute, "the restore to load the backup", func() bool {
			if !rs.running() {
				code, out, errs := rs.wait(t)
				t.Fatalf("restore ended before it could be killed: %d %q %q", code, out, errs)
			}
			return restorePhase(root) == "staging"
		})
		time.Sleep(50 * time.Millisecond) // into the loading
		rs.cmd.Process.Kill()
		rs.wait(t)
		t.Log("restore killed while it loaded the backup")
		// The daemon resumes by itself when the restore's control
		// connection ends, and the writer's held stores go through.
		n := w.ackedCount()
		pollUntil(t, time.Minute, "stores after the killed restore", func() bool {
			select {
			case <-w.done:
				t.Fatalf("a store failed: %v", w.failures)
			default:
			}
			return w.ackedCount() >= n+3
		})
		close(stop)
		<-w.done
		if got := servingPID(t, root, 0); got != pid {
			t.Fatalf("the daemon changed: pid %d, was %d", got, pid)
		}
		acked, _ := w.snapshot()
		served := checkServed(t, c, seededN, map[string]map[string]string{"after-backup": after}, map[string]map[string]string{w.tag: acked})
		if !strings.Contains(serviceLog(t, root), "dropping the staging collections of an interrupted restore") {
			t.Error("the daemon did not say it cleaned up the interrupted restore")
		}
		statusAndDoctorClean(t, env)
		c.Close()
		stopDaemon(t, root, env)
		checkNoRestoreLeftovers(t, root)
		sameMemories(t, "database after the killed restore", dbMemories(t, root), mergeTexts(sd.memories, served))
		if !hasLiveMarker(t, root) {
			t.Fatal("Metadata lost the live marker: a mix of old and restored data")
		}
		// The next restore goes through, and gives exactly the backup.
		if code, out, errs := runBin(t, env, "restore", sd.backup, "--no-safety-backup"); code != 0 {
			t.Fatalf("the next restore: %d %q %q", code, out, errs)
		}
		sameMemories(t, "database after the next restore", dbMemories(t, root), sd.memories)
		if hasLiveMarker(t, root) {
			t.Fatal("Metadata kept the live marker over a complete restore")
		}
		checkNoRestoreLeftovers(t, root)
	})

	// killedRestore runs a restore with no daemon on a copy of the seeded
	// root (with writeAfterBackup's data) and kills it once at(root) says
	// so; killed is false when the restore finished first.
	killedRestore := func(t *testing.T, args []string, at func(root string) bool) (root string, env []string, after map[string]string, killed bool) {
		root, env = copySeeded(t, sd, true)
		after = writeAfterBackup(t, root, 5)
		rs := startInfmem(t, env, append([]string{"restore", sd.backup}, args...)...)
		for rs.running() && !at(root) {
			time.Sleep(time.Millisecond)
		}
		rs.cmd.Process.Kill()
		code, out, errs := rs.wait(t)
		switch code {
		case -int(syscall.SIGKILL):
			return root, env, after, true
		case 0:
			return root, env, after, false
		}
		t.Fatalf("restore failed before it could be killed: %d %q %q", code, out, errs)
		return
	}

	// afterKilledRestore starts a daemon and checks it serves the old data
	// (with what was written after the backup) or, when the restore was
	// complete, exactly the backup; never a mix.
	afterKilledRestore := func(t *testing.T, root string, env []string, after map[string]string, old bool, logged string) {
		t.Helper()
		if code, out, errs := runBin(t, env, "start"); code != 0 {
			t.Fatalf("start after the killed restore: %d %q %q", code, out, errs)
		}
		c := bridgeClient(t, env)
		checkNoLeftovers(t, root)
		if !old {
			after = map[string]string{}
		}
		checkServed(t, c, seededN, map[string]map[string]string{"after-backup": after}, nil)
		if old && !strings.Contains(serviceLog(t, root), logged) {
			t.Errorf("the daemon did not log %q", logged)
		}
		statusAndDoctorClean(t, env)
		c.Close()
		stopDaemon(t, root, env)
		checkNoRestoreLeftovers(t, root)
		if hasLiveMarker(t, root) != old {
			t.Fatalf("Metadata marker present: %v, old memories present: %v: a mix of old and restored data", !old, old)
		}
	}

	t.Run("restore_killed_during_safety_backup", func(t *testing.T) {
		root, env, after, killed := killedRestore(t, nil, func(root string) bool {
			m, _ := filepath.Glob(filepath.Join(root, "backups", ".backup-*.tmp"))
			return len(m) > 0 && restorePhase(root) == "staging"
		})
		if !killed {
			t.Fatal("the restore finished before its safety backup could be caught")
		}
		checkNoPartialBackup(t, env, root, sd.backup)
		afterKilledRestore(t, root, env, after, true, "dropping the staging collections of an interrupted restore")
	})

	t.Run("restore_killed_during_swap", func(t *testing.T) {
		root, env, after, killed := killedRestore(t, []string{"--no-safety-backup"}, func(root string) bool {
			return restorePhase(root) == "swapping"
		})
		// The swap is short; when the poll misses it the restore is
		// complete, and must be entirely.
		t.Logf("killed during the swap: %v", killed)
		afterKilledRestore(t, root, env, after, killed, "rolling back an interrupted restore")
	})
}

// lowestID is the smallest id of m, a sample that is the same every run.
func lowestID(m map[string]string) string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids[0]
}

// uniqueWordOf is the word after "codeword " in text: its uniqueWord.
func uniqueWordOf(text string) string {
	_, after, _ := strings.Cut(text, "codeword ")
	return strings.TrimRight(strings.Fields(after)[0], ":,")
}

// fillDisk writes to path until the file system is full; it returns how
// many bytes it wrote.
func fillDisk(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n int64
	for _, chunk := range []int{1 << 20, 4096, 1} {
		buf := bytes.Repeat([]byte{0xa5}, chunk)
		for {
			k, err := f.Write(buf)
			n += int64(k)
			if err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("filling the disk: %v", err)
				}
				break
			}
		}
	}
	return n
}

// limitFileSize sets the soft RLIMIT_FSIZE of pid: a write at or past
// limit bytes into any file fails with EFBIG (and SIGXFSZ, which Go
// ignores), as on a full disk. RLIM_INFINITY lifts it.
func limitFileSize(t *testing.T, pid int, limit uint64) {
	t.Helper()
	var old unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, nil, &old); err != nil {
		t.Fatalf("prlimit %d: %v", pid, err)
	}
	lim := unix.Rlimit{Cur: min(limit, old.Max), Max: old.Max}
	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &lim, nil); err != nil {
		t.Fatalf("prlimit %d: %v", pid, err)
	}
}

// 3. The disk fills up under a running daemon: on a small tmpfs filled to
// the last byte, and with a file size limit (RLIMIT_FSIZE) on the daemon,
// which makes every write past it fail as on a full disk. A store that
// cannot be persisted answers isError, never an acknowledgement, and is not
// served; reads go on; a backup fails and leaves no partial file; once
// there is room again the daemon takes writes without a restart, and after
// one every acknowledged write is there, in the index and the database.
func TestFaultDiskFull(t *testing.T) {
	run := func(t *testing.T, root string, env []string, full, free func(pid int), backupWorksAfter bool) {
		c := bridgeClient(t, env)
		pid := servingPID(t, root, 0)
		before := newStorer("before-full")
		for j := range 5 {
			if !before.storeOne(c, 1, j) {
				t.Fatalf("store before the disk filled: %v", before.failures)
			}
		}
		// A burst of stores from a second client; the disk fills up under it.
		var mu sync.Mutex
		acked := map[string]string{}
		refused := 0
		var firstRefusal, protocolError string
		var callErr error
		stop, stopped := make(chan struct{}), make(chan struct{})
		burst := bridgeClient(t, env)
		go func() {
			defer close(stopped)
			for j := 0; ; j++ {
				select {
				case <-stop:
					return
				default:
				}
				text := fmt.Sprintf("stored while the disk fills %d, codeword %s", j, uniqueWord(2, j))
				out, toolErr, err := callOnce(burst, "store_memory", map[string]any{"content": text, "metadata": map[string]any{"tags": []any{"burst"}}})
				mu.Lock()
				switch {
				case err != nil && strings.Contains(err.Error(), "store_memory failed"):
					// The daemon answered, with a JSON-RPC error instead of
					// an isError result.
					refused++
					if protocolError == "" {
						protocolError = err.Error()
					}
				case err != nil:
					callErr = err
					mu.Unlock()
					return
				case toolErr != "":
					if refused++; firstRefusal == "" {
						firstRefusal = toolErr
					}
				default:
					acked[out["memory_id"].(string)] = text
				}
				mu.Unlock()
			}
		}()
		counts := func() (int, int) {
			mu.Lock()
			defer mu.Unlock()
			if callErr != nil {
				t.Fatalf("a store while the disk filled: the call failed: %v", callErr)
			}
			return len(acked), refused
		}
		pollUntil(t, time.Minute, "stores before the disk fills", func() bool { n, _ := counts(); return n >= 5 })
		full(pid)
		last := time.Now()
		pollUntil(t, time.Minute, "stores refused on the full disk", func() bool {
			if time.Since(last) > 50*time.Millisecond {
				// A failed write can free some room (a dropped index
				// snapshot): fill it again.
				full(pid)
				last = time.Now()
			}
			_, r := counts()
			return r >= 5
		})
		close(stop)
		<-stopped
		if protocolError != "" {
			// The model never sees a JSON-RPC error; a tool's failure is an
			// isError result that says what happened.
			t.Errorf("a store on the full disk is answered with a protocol error, not an isError result: %s", protocolError)
		} else if !strings.Contains(firstRefusal, "disk holding infmem's data is full") {
			t.Errorf("a store on the full disk does not say the disk is full: %s", firstRefusal)
		} else {
			t.Logf("a store on the full disk: %s", firstRefusal)
		}
		t.Logf("stores while the disk filled: %d acknowledged, %d refused", len(acked), refused)
		ackedBefore, _ := before.snapshot()
		// Reads go on.
		id := lowestID(ackedBefore)
		retrievable(t, c, id, uniqueWordOf(ackedBefore[id]))
		// A backup fails, leaving nothing behind.
		code, out, errs := runBin(t, env, "backup")
		if code == 0 {
			t.Fatalf("a backup on the full disk succeeded: %q", out)
		}
		t.Logf("backup on the full disk: %s", userMessage(errs))
		checkNoPartialBackup(t, env, root)
		if tmp, _ := filepath.Glob(filepath.Join(root, "backups", ".*.tmp")); len(tmp) > 0 {
			t.Fatalf("the failed backup left %v", tmp)
		}
		if !proc.Alive(pid) {
			t.Fatal("the daemon died on the full disk")
		}
		sameMemories(t, "served on the full disk", servedMemories(t, c, nil), mergeTexts(ackedBefore, acked))

		free(pid)
		after := newStorer("after-free")
		for j := range 5 {
			if !after.storeOne(c, 3, j) {
				t.Fatalf("store once there is room again: %v", after.failures)
			}
		}
		ackedAfter, _ := after.snapshot()
		want := mergeTexts(ackedBefore, acked, ackedAfter)
		if backupWorksAfter {
			code, out, errs := runBin(t, env, "backup")
			if code != 0 {
				t.Fatalf("backup once there is room again: %d %q %q", code, out, errs)
			}
			checkNoPartialBackup(t, env, root, filepath.Base(writtenBackup(t, out)))
		}
		sameMemories(t, "served once there is room again", servedMemories(t, c, nil), want)
		c.Close()
		stopDaemon(t, root, env)
		c = bridgeClient(t, env)
		sameMemories(t, "served after a restart", servedMemories(t, c, nil), want)
		retrievable(t, c, lowestID(ackedAfter), uniqueWordOf(ackedAfter[lowestID(ackedAfter)]))
		statusAndDoctorClean(t, env)
		c.Close()
		stopDaemon(t, root, env)
		sameMemories(t, "database after the full disk", dbMemories(t, root), want)
	}

	t.Run("small_filesystem", func(t *testing.T) {
		dir, err := os.MkdirTemp("", "imf")
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=48m,mode=0700"); err != nil {
			os.Remove(dir)
			t.Skipf("cannot mount a small tmpfs here (%v); file_size_limit makes the disk full instead", err)
		}
		t.Cleanup(func() {
			if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
				t.Errorf("umount %s: %v", dir, err)
			}
			os.Remove(dir)
		})
		root := filepath.Join(dir, "root")
		env := processEnv(t, root)
		if err := os.WriteFile(envValue(env, "INFMEM_CONFIG"), []byte(faultConfig), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stopDaemon(t, root, env) })
		filler := filepath.Join(dir, "filler")
		// Backups keep 256 MB free, more than this file system holds: they
		// are refused even with room for writes.
		run(t, root, env, func(int) { fillDisk(t, filler) }, func(int) { os.Remove(filler) }, false)
	})

	t.Run("file_size_limit", func(t *testing.T) {
		root, env := faultRoot(t, faultConfig)
		run(t, root, env, func(pid int) { limitFileSize(t, pid, 1) }, func(pid int) { limitFileSize(t, pid, unix.RLIM_INFINITY) }, true)
	})
}
