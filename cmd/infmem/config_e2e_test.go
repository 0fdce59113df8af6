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

	"github.com/mark3labs/mcp-go/client"
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
// how to fix it; once the file is fixed, the next call of the same
// session works: the bridge starts the daemon and hands the session over
// (issue 22: it used to say "restart Claude Desktop").
func TestMCPAnswersDespiteBadConfig(t *testing.T) {
	// Claude Desktop starts a session with initialize (which the bridge
	// replays to the daemon when it hands the session over); clients of
	// protocol 2026-07-28 with server/discover.
	for _, version := range []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, mcp.LATEST_PROTOCOL_VERSION} {
		t.Run(version, func(t *testing.T) { mcpAnswersDespiteBadConfig(t, version) })
	}
}

func mcpAnswersDespiteBadConfig(t *testing.T, version string) {
	root := shortRoot(t)
	env := processEnv(t, root)
	cfg := envValue(env, "INFMEM_CONFIG")
	t.Cleanup(func() {
		writeFile(t, cfg, `{}`) // 'infmem stop' reads it too
		stopDaemon(t, root, env)
	})
	writeFile(t, cfg, `{"mongo": {"mode": "cloud", "uri": "mongodb://me:`+testPassword+`@localhost:27017/x"}}`)
	c := bridgeClientVersion(t, env, version)
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
	for _, want := range []string{cfg, `"mongo.mode"`, `"cloud"`, "auto, embedded, managed, external", "To fix it", "without restarting Claude"} {
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
	// The same session: the fix takes effect at the next call.
	if _, err := tryCall(c, "store_memory", map[string]any{"content": "The boiler service is due in March"}); err != nil {
		t.Fatalf("store after the fix: %v", err)
	}
	out, err := tryCall(c, "retrieve_memory", map[string]any{"query": "when is the boiler service due"})
	if err != nil || !strings.Contains(strings.Join(resultTexts(out), "|"), "boiler service is due in March") {
		t.Fatalf("retrieve after the fix: %v %v", out, err)
	}
	if tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil || len(tools.Tools) < 15 {
		t.Fatalf("tools/list after the handover: %v %v", tools, err)
	}
	if info := daemonInfo(t, root); info.PID <= 0 {
		t.Fatalf("no daemon after the fix: %+v", info)
	}
}

// Issue 22, item 1: with the daemon running, a typo in config.json made
// every new Claude window answer every call "infmem cannot work right
// now", although the daemon ran on its last good configuration. Now a new
// session serves through the daemon as usual; the typo is reported in the
// server instructions and as a "warning" on every tool result (and by
// status and doctor), and goes away once the file is fixed.
func TestConfigTypoKeepsRecall(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	cfg := envValue(env, "INFMEM_CONFIG")
	t.Cleanup(func() {
		writeFile(t, cfg, `{}`) // 'infmem stop' reads it too
		stopDaemon(t, root, env)
	})
	if code, _, errs := runBin(t, env, "start"); code != 0 {
		t.Fatalf("start: %d %s", code, errs)
	}
	c := bridgeClient(t, env)
	if _, err := tryCall(c, "store_memory", map[string]any{"content": "Ann's bike lock code is 4711"}); err != nil {
		t.Fatal(err)
	}
	c.Close()

	writeFile(t, cfg, `{"dedup": {"treshold": 0.9}}`)
	c2, err := client.NewStdioMCPClient(infmemBinary(t), env, "mcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c2.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION // initialize, as Claude Desktop
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e", Version: "1"}
	ir, err := c2.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ir.Instructions, "Warning: infmem's configuration file was refused") || !strings.Contains(ir.Instructions, `"dedup.treshold"`) {
		t.Fatalf("the instructions do not warn about the refused config:\n%s", ir.Instructions)
	}
	// A client of protocol 2026-07-28 (server/discover) is told the same.
	c3, err := client.NewStdioMCPClient(infmemBinary(t), env, "mcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c3.Close() })
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	if ir, err := c3.Initialize(ctx, init); err != nil || !strings.Contains(ir.Instructions, `"dedup.treshold"`) {
		t.Fatalf("server/discover: %v; the instructions do not warn about the refused config:\n%v", err, ir)
	}
	c3.Close()
	out, err := tryCall(c2, "retrieve_memory", map[string]any{"query": "what is the bike lock code"})
	if err != nil {
		t.Fatalf("recall with a typo in the config: %v", err)
	}
	if !strings.Contains(strings.Join(resultTexts(out), "|"), "4711") {
		t.Fatalf("recall with a typo in the config misses the memory: %v", out)
	}
	if w, _ := out["warning"].(string); !strings.Contains(w, `"dedup.treshold"`) || !strings.Contains(w, "previous configuration") {
		t.Fatalf("the result carries no warning about the config: %v", out)
	}
	if _, err := tryCall(c2, "store_memory", map[string]any{"content": "The spare key is under the blue pot"}); err != nil {
		t.Fatalf("store with a typo in the config: %v", err)
	}
	if code, out, _ := runBin(t, env, "status"); code != exitConfig || !strings.Contains(out, "warning: the daemon refused its config file") {
		t.Fatalf("status with the typo: %d\n%s", code, out)
	}

	// Fixed: the warning goes (the daemon notices the file within 2 s).
	writeFile(t, cfg, `{"dedup": {"threshold": 0.9}}`)
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, err := tryCall(c2, "retrieve_memory", map[string]any{"query": "where is the spare key"})
		if err != nil {
			t.Fatal(err)
		}
		if _, warned := out["warning"]; !warned {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still warned after the fix: %v", out["warning"])
		}
		time.Sleep(200 * time.Millisecond)
	}
}
