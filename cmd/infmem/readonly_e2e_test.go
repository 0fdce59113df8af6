//go:build unix

package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// asOtherUser makes infmem processes run as an ordinary user when the
// tests run as root, who writes through permission bits: nobody (65534)
// then owns the data root, and runs a copy of the binary it can reach.
type asOtherUser struct {
	bin  string
	cred *syscall.Credential
}

func newAsOtherUser(t *testing.T) asOtherUser {
	t.Helper()
	if os.Getuid() != 0 {
		return asOtherUser{bin: infmemBinary(t)}
	}
	dir := publicDir(t)
	bin := filepath.Join(dir, "infmem")
	data, err := os.ReadFile(infmemBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return asOtherUser{bin: bin, cred: &syscall.Credential{Uid: 65534, Gid: 65534}}
}

func (u asOtherUser) run(t *testing.T, env []string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, u.bin, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	if u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		t.Fatalf("infmem %v: %v", args, err)
	}
	return 0, out.String(), errb.String()
}

// publicDir is a fresh directory anyone may enter (t.TempDir's parent
// is private to the test's user).
func publicDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "imro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	return dir
}

// setTreeMode sets every directory under root to dirMode and every file
// to dirMode without the execute bits.
func setTreeMode(root string, dirMode fs.FileMode) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			os.Chmod(p, dirMode)
		} else if d.Type().IsRegular() {
			os.Chmod(p, dirMode&0o666)
		}
		return nil
	})
}

// On a read-only data root, status prints what it can and says the root
// is read-only; doctor says so and what to do, instead of asking for
// chmod 700 on logs/ and blaming mongo.mode; 'infmem mcp' tells the model.
func TestReadOnlyDataRoot(t *testing.T) {
	u := newAsOtherUser(t)
	root := filepath.Join(publicDir(t), "root")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	if u.cred != nil {
		os.Chown(root, int(u.cred.Uid), int(u.cred.Gid))
	}
	home := publicDir(t)
	cfg := filepath.Join(home, "config.json")
	os.WriteFile(cfg, []byte(`{"logging": {"level": "debug"}}`), 0o644)
	env := withRaceLog([]string{"INFMEM_DATA_DIR=" + root, "INFMEM_CONFIG=" + cfg, "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")})

	// A first status makes the data root and its database.
	if code, out, errs := u.run(t, env, "", "status"); code != 0 {
		t.Fatalf("status on a fresh root: %d\n%s\n%s", code, out, errs)
	}
	setTreeMode(root, 0o500)
	t.Cleanup(func() { setTreeMode(root, 0o700) })

	code, out, errs := u.run(t, env, "", "status")
	if code != exitConfig || !strings.Contains(out, "version") || !strings.Contains(out, root+" (INFMEM_DATA_DIR), READ-ONLY") ||
		!strings.Contains(out, "daemon") || !strings.Contains(errs, "the data root "+root+" is read-only") ||
		!strings.Contains(errs, "hint: give yourself write access again: chmod -R u+w "+root) {
		t.Fatalf("status on a read-only root: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = u.run(t, env, "", "doctor")
	if code != exitFailure || !strings.Contains(out, "FAIL  data root") || !strings.Contains(out, "is read-only") ||
		!strings.Contains(out, "chmod -R u+w "+root) || strings.Contains(out, "chmod 700 "+filepath.Join(root, "logs")) ||
		strings.Contains(out, "fix mongo.mode") || strings.Contains(out, "'infmem start' starts it") {
		t.Fatalf("doctor on a read-only root: %d\n%s\n%s", code, out, errs)
	}

	// Claude's 'infmem mcp' answers, and its tool calls say why not.
	code, out, errs = u.run(t, env, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"store_memory","arguments":{"content":"x"}}}`+"\n", "mcp")
	if code != 0 || !strings.Contains(out, `"id":1`) || !strings.Contains(out, `"isError":true`) || !strings.Contains(out, "is read-only") {
		t.Fatalf("mcp on a read-only root: %d\n%s\n%s", code, out, errs)
	}
}
