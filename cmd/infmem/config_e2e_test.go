package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

const testPassword = "hunter2-secret"

// writeFile replaces a config file, moving its modification time on so
// that a change within the file system's timestamp resolution is seen.
func writeFile(t *testing.T, path, body string) {
	t.Helper()
	old, _ := os.Stat(path)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if old != nil {
		next := old.ModTime().Add(time.Second)
		if now := time.Now(); now.After(next) {
			next = now
		}
		os.Chtimes(path, next, next)
	}
}

// The story of issue 12: 'infmem backup keygen' says to add the recipient
// to the config; the running daemon then encrypts its backups to it and
// status stops warning, without a restart. Keys that need one are named;
// a broken file is refused and reported while the daemon runs on; SIGHUP
// reloads too. No output carries the database password.
func TestDaemonReloadsConfig(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	cfg := envValue(env, "INFMEM_CONFIG")
	t.Cleanup(func() { stopDaemon(t, root, env) })
	if code, _, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %s", code, errs)
	}
	pid := daemonInfo(t, root).PID
	code, out, errs := runBin(t, env, "backup", "keygen", "-o", filepath.Join(t.TempDir(), "id.txt"))
	recipient := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(recipient, "age1") || !strings.Contains(errs, `"recipients": ["`+recipient) {
		t.Fatalf("keygen: %d %q %q", code, out, errs)
	}
	// Before the edit backups are encrypted to the identity made on first
	// use; status names it and asks for a copy elsewhere.
	if _, out, _ := runBin(t, env, "status"); !strings.Contains(out, "backup-identity.txt") || !strings.Contains(out, "off this machine") {
		t.Fatalf("status before the edit does not name the backup identity:\n%s", out)
	}

	// The user adds the recipient, makes backups daily every second (to
	// see one soon), and also changes the engine, which needs a restart.
	writeFile(t, cfg, `{"logging": {"level": "debug"}, "mongo": {"mode": "embedded", "uri": "mongodb://me:`+testPassword+`@localhost:27017/x"},
		"backup": {"recipients": ["`+recipient+`"], "daily_schedule": "@every 1s", "weekly_schedule": "off"}}`)
	code, out, errs = runBin(t, env, "reload")
	if code != 0 || !strings.Contains(out, "backup.recipients") || !strings.Contains(out, "backup.daily_schedule") ||
		!strings.Contains(out, "config changed since the daemon started: run 'infmem restart' to apply mongo.mode, mongo.uri") {
		t.Fatalf("reload: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = runBin(t, env, "status")
	if code != 0 || strings.Contains(out, "backup-identity.txt") || !strings.Contains(out, "config changed since the daemon started: run 'infmem restart'") {
		t.Fatalf("status after the reload: %d\n%s\n%s", code, out, errs)
	}
	_, out, _ = runBin(t, env, "status", "--json")
	rep := statusJSON(t, out)
	if rep.Daemon.PID != pid || rep.Daemon.Config == nil || rep.Daemon.Config.Path != cfg || !slices.Equal(rep.Daemon.Config.RestartNeeded, []string{"mongo.mode", "mongo.uri"}) ||
		rep.Backups == nil || len(rep.Backups.Warnings) != 0 {
		t.Fatalf("status --json: %+v %+v", rep.Daemon, rep.Backups)
	}
	// The daemon's scheduled backups are encrypted to the new recipient.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if enc, _ := filepath.Glob(filepath.Join(root, "backups", "backup_*.age")); len(enc) > 0 {
			break
		}
		if time.Now().After(deadline) {
			plain, _ := filepath.Glob(filepath.Join(root, "backups", "backup_*"))
			t.Fatalf("no encrypted scheduled backup after the reload; backups: %v", plain)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, out, errs := runBin(t, env, "backup"); code != 0 || !strings.Contains(out, "encrypted to 1 age key") {
		t.Fatalf("manual backup through the daemon: %d %s %s", code, out, errs)
	}
	code, out, _ = runBin(t, env, "doctor", "--json")
	if row := doctorRow(t, out, "daemon config"); row.Result != checkWarn || row.Fix != "run 'infmem restart'" || !strings.Contains(row.Detail, "mongo.mode") {
		t.Fatalf("doctor daemon config: %+v", row)
	}

	// The restart status and doctor ask for: the new daemon runs with the
	// file as it is, and nothing waits.
	code, out, errs = runBin(t, env, "restart")
	if code != 0 || !strings.Contains(out, "stopped the daemon (pid ") || !strings.Contains(out, "started the daemon") {
		t.Fatalf("restart: %d\n%s\n%s", code, out, errs)
	}
	if pid2 := daemonInfo(t, root).PID; pid2 == pid {
		t.Fatal("restart kept the same daemon")
	} else {
		pid = pid2
	}
	_, out, _ = runBin(t, env, "status", "--json")
	if rep := statusJSON(t, out); rep.Daemon.Config == nil || len(rep.Daemon.Config.RestartNeeded) != 0 || rep.Daemon.Config.Error != "" {
		t.Fatalf("status after the restart: %+v", rep.Daemon.Config)
	}

	// A typo: the daemon runs on with what it had, and says why.
	writeFile(t, cfg, `{"backup": {"recipients": ["age1typo"], "daily_schedule": "off"}}`)
	code, out, errs = runBin(t, env, "status")
	if code != exitConfig || !strings.Contains(out, "running, pid") || !strings.Contains(out, "INVALID") ||
		!strings.Contains(out, "warning: the daemon refused its config file") || !strings.Contains(out, `"backup.recipients[0]"`) ||
		!strings.Contains(errs, cfg) || !strings.Contains(errs, `"backup.recipients[0]"`) {
		t.Fatalf("status with a broken config: %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = runBin(t, env, "doctor", "--json")
	if row := doctorRow(t, out, "daemon config"); code != exitFailure || row.Result != checkFail || !strings.Contains(row.Detail, "runs on with its previous configuration") {
		t.Fatalf("doctor with a broken config: %d %+v", code, row)
	}
	if !strings.Contains(serviceLog(t, root), `msg="configuration refused; the daemon runs on with its previous one"`) {
		t.Fatal("the refused config is not in the service log")
	}
	if code, _, errs := runBin(t, env, "reload"); code != exitConfig || !strings.Contains(errs, `"backup.recipients[0]"`) {
		t.Fatalf("reload of a broken config: %d %s", code, errs)
	}

	// Fixed, and SIGHUP: the daemon takes it, and nothing waits.
	writeFile(t, cfg, `{"logging": {"level": "debug"}, "mongo": {"mode": "embedded", "uri": "mongodb://me:`+testPassword+`@localhost:27017/x"},
		"backup": {"recipients": ["`+recipient+`"], "daily_schedule": "off"}}`)
	proc, _ := os.FindProcess(pid)
	if err := proc.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(30 * time.Second)
	for !strings.Contains(serviceLog(t, root), "reason=SIGHUP") {
		if time.Now().After(deadline) {
			t.Fatal("SIGHUP did not reload the config")
		}
		time.Sleep(50 * time.Millisecond)
	}
	code, out, errs = runBin(t, env, "status")
	if code != 0 || strings.Contains(out, "warning: config changed") || strings.Contains(out, "refused") || daemonInfo(t, root).PID != pid {
		t.Fatalf("status after the fix: %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(serviceLog(t, root), testPassword) {
		t.Fatal("the service log holds the database password")
	}
}

// One typo in the config used to make 'infmem mcp' exit before initialize,
// and Claude showed only "Connection closed". Now it answers initialize
// and lists its tools, and every tool call says what is wrong, where, and
// how to fix it; once the file is fixed, calls say to restart the client.
func TestMCPAnswersDespiteBadConfig(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	cfg := envValue(env, "INFMEM_CONFIG")
	writeFile(t, cfg, `{"mongo": {"mode": "cloud", "uri": "mongodb://me:`+testPassword+`@localhost:27017/x"}}`)
	c := bridgeClient(t, env)
	tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) < 15 {
		t.Fatalf("tools/list: %v %v", tools, err)
	}
	callText := func(name string, args map[string]any) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := res.Content[0].(mcp.TextContent).Text
		if !res.IsError {
			t.Fatalf("%s succeeded with a broken config: %s", name, text)
		}
		if strings.Contains(text, testPassword) {
			t.Fatalf("%s: the tool result holds the database password: %s", name, text)
		}
		return text
	}
	text := callText("store_memory", map[string]any{"content": "remember this"})
	for _, want := range []string{cfg, `"mongo.mode"`, `"cloud"`, "auto, embedded, managed, external", "To fix it", "restart Claude Desktop"} {
		if !strings.Contains(text, want) {
			t.Fatalf("store_memory's answer lacks %q: %s", want, text)
		}
	}
	if text := callText("backup_memory", nil); !strings.Contains(text, `"mongo.mode"`) {
		t.Fatalf("backup_memory: %s", text)
	}
	if _, err := os.Stat(filepath.Join(root, "run", "daemon.json")); !os.IsNotExist(err) {
		t.Fatalf("a daemon was started on a broken config: %v", err)
	}
	writeFile(t, cfg, `{}`)
	if text := callText("retrieve_memory", map[string]any{"query": "anything"}); !strings.Contains(text, "fixed now") || !strings.Contains(text, "restart Claude Desktop") {
		t.Fatalf("after the fix: %s", text)
	}
}
