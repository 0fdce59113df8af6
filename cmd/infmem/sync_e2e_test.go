//go:build unix

package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/infmem/infmem/internal/sockdir"
)

// syncDaemons starts two real daemons sharing one database, as two
// machines would share a replica set: A on the embedded engine, B in
// external mode through A's engine socket, each with its own data root,
// config and device name.
func syncDaemons(t *testing.T) (rootA, rootB string, envA, envB []string, cA, cB *client.Client) {
	t.Helper()
	rootA, envA = faultRoot(t, `{"logging": {"level": "debug"}, "embedding": {"model": "hash"}, "mongo": {"mode": "embedded"}, "sync": {"enabled": true, "device": "alpha"}}`)
	cA = bridgeClient(t, envA)
	if _, err := tryCall(cA, "list_memories", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	sock, err := sockdir.Path(filepath.Join(rootA, "run"), "mongo.sock")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("A's engine socket: %v", err)
	}
	uri := "mongodb://" + url.QueryEscape(sock) + "/claude_memory"
	rootB, envB = faultRoot(t, fmt.Sprintf(`{"logging": {"level": "debug"}, "embedding": {"model": "hash"}, "mongo": {"mode": "external", "uri": %q}, "sync": {"enabled": true, "device": "beta"}}`, uri))
	cB = bridgeClient(t, envB)
	if _, err := tryCall(cB, "list_memories", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	// B stops before A: its database lives in A.
	t.Cleanup(func() { stopDaemon(t, rootB, envB) })
	return
}

// findsWithin polls retrieve_memory on c for word until id is (or, with
// gone, is no longer) among the results, for at most d.
func findsWithin(c *client.Client, word, id string, gone bool, d time.Duration) (time.Duration, bool) {
	start := time.Now()
	for {
		out, err := tryCall(c, "retrieve_memory", map[string]any{"query": word, "top_k": 5})
		found := false
		if err == nil {
			for _, r := range out["results"].([]any) {
				if r.(map[string]any)["memory_id"] == id {
					found = true
				}
			}
		}
		if err == nil && found != gone {
			return time.Since(start), true
		}
		if time.Since(start) > d {
			return time.Since(start), false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type syncWriter struct {
	mu    sync.Mutex
	acked map[string]string // id → unique word
}

func (w *syncWriter) add(id, word string) { w.mu.Lock(); w.acked[id] = word; w.mu.Unlock() }

func (w *syncWriter) copy() map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]string, len(w.acked))
	for k, v := range w.acked {
		out[k] = v
	}
	return out
}

// storeBurst stores n memories with unique words through c.
func storeBurst(t *testing.T, c *client.Client, side, n int, w *syncWriter) error {
	for j := range n {
		word := uniqueWord(side, j)
		out, err := tryCall(c, "store_memory", map[string]any{"content": fmt.Sprintf("note %s from side %d", word, side)})
		if err != nil {
			return err
		}
		w.add(out["memory_id"].(string), word)
	}
	return nil
}

// TestTwoDaemonsShareOneDatabase is issue 17's test: two daemons write at
// once; each finds the other's stores, edits and forgets within 2 s; a
// kill -9 of B mid-burst loses nothing acknowledged; one of them holds the
// maintenance lease.
func TestTwoDaemonsShareOneDatabase(t *testing.T) {
	rootA, rootB, envA, envB, cA, cB := syncDaemons(t)
	_ = rootA
	const n = 200
	wa, wb := &syncWriter{acked: map[string]string{}}, &syncWriter{acked: map[string]string{}}
	var wg sync.WaitGroup
	var errA, errB error
	wg.Go(func() { errA = storeBurst(t, cA, 1, n, wa) })
	wg.Go(func() { errB = storeBurst(t, cB, 2, n, wb) })
	wg.Wait()
	if errA != nil || errB != nil {
		t.Fatalf("bursts: %v, %v", errA, errB)
	}
	ackA, ackB := wa.copy(), wb.copy()
	// Each side finds the other's last stores within 2 s, and all of them.
	check := func(c *client.Client, acked map[string]string, what string) {
		var worst time.Duration
		i := 0
		for id, word := range acked {
			if i++; i > 40 {
				break
			}
			took, ok := findsWithin(c, word, id, false, 2*time.Second)
			if !ok {
				t.Fatalf("%s: %s (%s) not found within 2 s", what, id, word)
			}
			worst = max(worst, took)
		}
		t.Logf("%s: found within %v at worst", what, worst)
	}
	check(cB, ackA, "B finds A's stores")
	check(cA, ackB, "A finds B's stores")
	idsOnB, idsOnA := indexedIDs(t, cB), indexedIDs(t, cA)
	for id := range ackA {
		if !idsOnB[id] {
			t.Fatalf("B lacks A's %s", id)
		}
	}
	for id := range ackB {
		if !idsOnA[id] {
			t.Fatalf("A lacks B's %s", id)
		}
	}

	// Both sides edit and forget at once: A edits and forgets some of
	// B's memories, B some of A's.
	pick := func(m map[string]string, k int) (ids []string) {
		for id := range m {
			if len(ids) == k {
				break
			}
			ids = append(ids, id)
		}
		return
	}
	forgetA, forgetB := pick(ackB, 20), pick(ackA, 20)
	editOnA := pick(ackB, 40)[20:]
	editOnB := pick(ackA, 40)[20:]
	edit := func(c *client.Client, ids []string, acked map[string]string, tag string) error {
		for _, id := range ids {
			text := fmt.Sprintf("note %s edited %s", acked[id], tag)
			if _, err := tryCall(c, "update_memory", map[string]any{"memory_id": id, "content": text}); err != nil {
				return err
			}
		}
		return nil
	}
	forget := func(c *client.Client, ids []string) error {
		for _, id := range ids {
			if _, err := tryCall(c, "delete_memory", map[string]any{"target": map[string]any{"memory_id": id}}); err != nil {
				return err
			}
		}
		return nil
	}
	wg.Go(func() { errA = edit(cA, editOnA, ackB, "qxonalpha") })
	wg.Go(func() { errB = edit(cB, editOnB, ackA, "qxonbeta") })
	wg.Wait()
	if errA != nil || errB != nil {
		t.Fatalf("edits: %v, %v", errA, errB)
	}
	wg.Go(func() { errA = forget(cA, forgetA) })
	wg.Go(func() { errB = forget(cB, forgetB) })
	wg.Wait()
	if errA != nil || errB != nil {
		t.Fatalf("forgets: %v, %v", errA, errB)
	}
	for _, id := range editOnA {
		if _, ok := findsWithin(cB, "qxonalpha "+ackB[id], id, false, 2*time.Second); !ok {
			t.Fatalf("B does not see A's edit of %s within 2 s", id)
		}
	}
	for _, id := range editOnB {
		if _, ok := findsWithin(cA, "qxonbeta "+ackA[id], id, false, 2*time.Second); !ok {
			t.Fatalf("A does not see B's edit of %s within 2 s", id)
		}
	}
	for _, id := range forgetA {
		for _, c := range []*client.Client{cA, cB} {
			if _, ok := findsWithin(c, ackB[id], id, true, 2*time.Second); !ok {
				t.Fatalf("forgotten %s still found after 2 s", id)
			}
		}
	}
	for _, id := range forgetB {
		for _, c := range []*client.Client{cA, cB} {
			if _, ok := findsWithin(c, ackA[id], id, true, 2*time.Second); !ok {
				t.Fatalf("forgotten %s still found after 2 s", id)
			}
		}
	}

	// Exactly one daemon runs scheduled maintenance, and both say which.
	stA, stB := statusAndDoctorClean(t, envA), statusAndDoctorClean(t, envB)
	if stA.Sync == nil || stB.Sync == nil {
		t.Fatal("status shows no sync section")
	}
	pollUntil(t, 30*time.Second, "a lease holder", func() bool {
		stA, stB = statusAndDoctorClean(t, envA), statusAndDoctorClean(t, envB)
		return stA.Sync.LeaseHolder != "" && stA.Sync.LeaseHolder == stB.Sync.LeaseHolder
	})
	if stA.Sync.HoldsLease == stB.Sync.HoldsLease {
		t.Fatalf("lease held by A %v, by B %v: want exactly one", stA.Sync.HoldsLease, stB.Sync.HoldsLease)
	}
	t.Logf("A: %+v", *stA.Sync)
	t.Logf("B: %+v", *stB.Sync)

	// kill -9 of B in the middle of a burst loses nothing acknowledged:
	// A has every acknowledged store, and so has the restarted B.
	wk := &syncWriter{acked: map[string]string{}}
	pid := daemonInfo(t, rootB).PID
	done := make(chan struct{})
	go func() { defer close(done); storeBurst(t, cB, 3, n, wk) }()
	pollUntil(t, time.Minute, "40 stores on B", func() bool { return len(wk.copy()) >= 40 })
	killNine(t, pid)
	<-done
	acked := wk.copy()
	cB2 := bridgeClient(t, envB)
	for id, word := range acked {
		if _, ok := findsWithin(cA, word, id, false, 2*time.Second); !ok {
			t.Fatalf("A lacks %s, acknowledged by B before kill -9", id)
		}
	}
	onB := indexedIDs(t, cB2)
	for id := range acked {
		if !onB[id] {
			t.Fatalf("restarted B lacks its own acknowledged %s", id)
		}
	}
	t.Logf("%d stores acknowledged by B before kill -9: all on both sides", len(acked))
}
