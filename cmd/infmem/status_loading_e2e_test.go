//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/infmem/infmem/internal/control"
)

// A daemon whose index is still loading answers status at once and says
// so: exit code 0, the memory open (state ready), the index loading (ready
// false, no error), "index loading" in the text; doctor's engine row
// passes ("index loading"). statusAndDoctorClean, which the fault tests
// run right after a restart, waits for the load to end: it used to read
// status once, so a load slower than the restart (after a SIGTERM or a
// crash, at load 30+) failed TestFaultHostileImports with "status after
// the fault" and the index not ready. The load is held at a fault point
// (-tags faultpoints, INFMEM_FAULTHOLD) for as long as the test looks,
// so this needs no load to show it.
func TestStatusWhileTheIndexLoads(t *testing.T) {
	bin := faultpointBinary(t)
	root, env := faultRoot(t, faultConfig)
	hold := filepath.Join(t.TempDir(), "hold")
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Registered after faultRoot's cleanup, so it runs first: the load
	// goes on before the daemon is stopped.
	t.Cleanup(func() { os.Remove(hold) })
	held := append(slices.Clone(env), "INFMEM_FAULTHOLD=index-load="+hold)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "start")
	cmd.Env = held
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("start: %v %s %s", err, out.String(), errb.String())
	}
	servingPID(t, root, 0)

	// Until the memory is open the daemon says it is starting; then the
	// index loads, and stays loading while the hold is there.
	var rep statusReport
	pollUntil(t, 2*time.Minute, "status to report the index loading", func() bool {
		code, out, errs := runBin(t, env, "status", "--json")
		rep = statusJSON(t, out)
		if code != 0 || rep.Daemon.Presence != "running" || rep.Daemon.Error != "" || rep.EngineError != "" {
			t.Fatalf("status while the daemon starts: %d %s %s", code, out, errs)
		}
		if rep.Daemon.State == control.StateStarting {
			time.Sleep(20 * time.Millisecond)
			return false
		}
		return true
	})
	if rep.Daemon.State != control.StateReady || rep.Index == nil || rep.Index.Ready || rep.Index.Error != "" || rep.Memories != nil {
		t.Fatalf("status while the index loads: %+v index %+v", rep.Daemon, rep.Index)
	}
	code, text, errs := runBin(t, env, "status")
	if code != 0 || !regexp.MustCompile(`(?m)^index\s+loading, \d+ of about \d+$`).MatchString(text) {
		t.Fatalf("status (text) while the index loads: %d\n%s\n%s", code, text, errs)
	}
	_, doctorOut, _ := runBin(t, env, "doctor", "--json")
	if r := doctorRow(t, doctorOut, "engine"); r.Result != checkPass || !strings.Contains(r.Detail, "index loading") {
		t.Fatalf("doctor engine while the index loads: %+v", r)
	}

	// The helper the fault tests use waits for the load to end instead
	// of reading status once. (The hold ends a moment after it starts
	// polling; on a slower machine it may see the load over at its first
	// look, which passes too: this shows the waiting, never a time limit.)
	go func() {
		time.Sleep(time.Second)
		os.Remove(hold)
	}()
	if got := statusAndDoctorClean(t, env); got.Index == nil || !got.Index.Ready || got.Memories == nil {
		t.Fatalf("after the load: %+v %+v", got.Index, got.Memories)
	}
}
