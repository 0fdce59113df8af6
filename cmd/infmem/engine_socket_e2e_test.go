//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 22, item 8: doctor said the embedded engine refused other users
// while its socket was 0755 (0777 under umask 000). Now the sockets are
// 0600, and doctor reads what the files say: loosened by hand, it warns
// and names them.
func TestDoctorTellsTheTruthAboutSockets(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	if code, _, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %s", code, errs)
	}
	c := bridgeClient(t, env)
	if _, err := tryCall(c, "list_memories", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(root, "run", "mongo.sock")
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v %v; want mode 0600", sock, fi, err)
	}
	_, out, _ := runBin(t, env, "doctor", "--json")
	if r := doctorRow(t, out, "listeners"); r.Result != checkPass || !strings.Contains(r.Detail, "embedded engine too") {
		t.Fatalf("doctor listeners: %+v", r)
	}
	os.Chmod(filepath.Join(root, "run"), 0o755)
	os.Chmod(sock, 0o777)
	_, out, _ = runBin(t, env, "doctor", "--json")
	if r := doctorRow(t, out, "listeners"); r.Result != checkWarn || !strings.Contains(r.Detail, sock+" is mode 0777") || !strings.Contains(r.Detail, "run is mode 0755") {
		t.Fatalf("doctor listeners with the sockets loosened: %+v", r)
	}
	os.Chmod(filepath.Join(root, "run"), 0o700)
}
