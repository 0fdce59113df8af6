package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runCLI runs infmem in-process with a private environment.
func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}
	if len(args) == 0 {
		printUsage(e.stderr)
		return exitUsage, out.String(), errb.String()
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		return run(context.Background(), args, e.stdin, e.stdout, e.stderr), out.String(), errb.String()
	}
	code = report(e.stderr, cmd.run(context.Background(), e, args[1:]))
	return code, out.String(), errb.String()
}

// isolatedEnv points the config lookup at an empty directory so the
// developer's own config never leaks into a test.
func isolatedEnv(t *testing.T) map[string]string {
	cfg := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(cfg, []byte("{}"), 0o600)
	// Backups are encrypted by default to an identity made on first use:
	// keep it in the test's own directory.
	return map[string]string{"INFMEM_CONFIG": cfg, EnvBackupIdentity: filepath.Join(filepath.Dir(cfg), "backup-identity.txt")}
}

func TestUsageAndUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), nil, nil, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "Commands:") {
		t.Fatalf("no args: %d %q", code, errb.String())
	}
	errb.Reset()
	if code := run(context.Background(), []string{"frobnicate"}, nil, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), `infmem: unknown command "frobnicate"`) {
		t.Fatalf("unknown: %d %q", code, errb.String())
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, nil, "version")
	if code != exitOK || !strings.HasPrefix(out, "infmem ") {
		t.Fatalf("%d %q", code, out)
	}
	if code, _, errs := runCLI(t, nil, "version", "extra"); code != exitUsage || !strings.Contains(errs, "takes no arguments") {
		t.Fatalf("%d %q", code, errs)
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := runCLI(t, nil, "help", "status")
	if code != exitOK || !strings.Contains(out, "--data-dir") && !strings.Contains(out, "-data-dir") {
		t.Fatalf("%d %q", code, out)
	}
	if code, _, errs := runCLI(t, nil, "help", "nope"); code != exitUsage || !strings.Contains(errs, "unknown command") {
		t.Fatalf("%d %q", code, errs)
	}
	if code, _, _ := runCLI(t, nil, "status", "--no-such-flag"); code != exitUsage {
		t.Fatalf("bad flag: %d", code)
	}
}

func TestStatusOnFreshRoot(t *testing.T) {
	env := isolatedEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	code, out, errs := runCLI(t, env, "status", "--data-dir", root, "--json")
	if code != exitOK {
		t.Fatalf("%d %s", code, errs)
	}
	var rep statusReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Engine != "embedded" || rep.DataRoot != root || rep.DataRootFrom != "--data-dir" || rep.SchemaVersion != 1 ||
		rep.Collections["UserProfile"] != 1 || rep.Collections["ConversationHistory"] != 0 {
		t.Fatalf("report: %+v", rep)
	}
	if strings.Contains(errs, "level=INFO") {
		t.Fatalf("terminal command logged at info: %s", errs)
	}
	// INFMEM_DATA_DIR selects the root when no flag is given.
	env["INFMEM_DATA_DIR"] = root
	if code, out, errs = runCLI(t, env, "status"); code != exitOK || !strings.Contains(out, root+" (INFMEM_DATA_DIR)") {
		t.Fatalf("%d %s %s", code, out, errs)
	}
}

func TestStatusRejectsBadConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	os.WriteFile(cfg, []byte(`{"mongo": {"mode": "cloud"}}`), 0o600)
	code, _, errs := runCLI(t, map[string]string{}, "status", "--config", cfg, "--data-dir", filepath.Join(dir, "root"))
	if code != exitConfig || !strings.Contains(errs, cfg) || !strings.Contains(errs, `"mongo.mode"`) {
		t.Fatalf("%d %q", code, errs)
	}
	code, _, errs = runCLI(t, map[string]string{}, "status", "--config", filepath.Join(dir, "missing.json"))
	if code != exitConfig || !strings.Contains(errs, "missing.json") {
		t.Fatalf("missing config: %d %q", code, errs)
	}
}

func TestStatusRejectsSharedRoot(t *testing.T) {
	root := t.TempDir()
	os.Chmod(root, 0o777)
	code, _, errs := runCLI(t, isolatedEnv(t), "status", "--data-dir", root)
	if code != exitConfig || !strings.Contains(errs, "writable by group or others") || !strings.Contains(errs, "hint: chmod 700") {
		t.Fatalf("%d %q", code, errs)
	}
}

func TestBadLogLevel(t *testing.T) {
	code, _, errs := runCLI(t, isolatedEnv(t), "status", "--log-level", "loud", "--data-dir", filepath.Join(t.TempDir(), "r"))
	if code != exitUsage || !strings.Contains(errs, "--log-level") {
		t.Fatalf("%d %q", code, errs)
	}
}

// A bad flag is reported once, with the command's usage line, not by the
// flag package and again by infmem; -h still prints every flag.
func TestBadFlagReportedOnce(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"status", "--no-such-flag"}, strings.NewReader(""), &out, &errb)
	if code != exitUsage || strings.Count(errb.String(), "flag provided but not defined: -no-such-flag") != 1 ||
		!strings.HasPrefix(errb.String(), "infmem: flag provided") || !strings.Contains(errb.String(), "usage: infmem status [--json]") ||
		strings.Contains(errb.String(), "-data-dir string") {
		t.Fatalf("bad flag: %d\n%s", code, errb.String())
	}
	errb.Reset()
	code = run(context.Background(), []string{"maintain", "--limit", "many"}, strings.NewReader(""), &out, &errb)
	if code != exitUsage || strings.Count(errb.String(), `invalid value "many" for flag -limit`) != 1 {
		t.Fatalf("bad value: %d\n%s", code, errb.String())
	}
	errb.Reset()
	code = run(context.Background(), []string{"status", "-h"}, strings.NewReader(""), &out, &errb)
	if code != exitOK || strings.Count(errb.String(), "Usage: infmem status") != 1 || !strings.Contains(errb.String(), "-data-dir") {
		t.Fatalf("-h: %d\n%s", code, errb.String())
	}
}

// A misspelt command name gets a suggestion; a name like no command gets
// none.
func TestUnknownCommandSuggestions(t *testing.T) {
	for _, c := range []struct{ typed, want string }{
		{"stauts", `did you mean status?`},
		{"statsu", `did you mean status?`},
		{"mpc", `did you mean mcp?`},
		{"doctr", `did you mean doctor?`},
		{"restor", `did you mean restore?`},
		{"stat", `did you mean start or status?`},
		{"Status", `did you mean status?`},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{c.typed}, strings.NewReader(""), &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), fmt.Sprintf("unknown command %q; %s", c.typed, c.want)) {
			t.Errorf("%s: %d %q", c.typed, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"frobnicate"}, strings.NewReader(""), &out, &errb); code != exitUsage || strings.Contains(errb.String(), "did you mean") {
		t.Errorf("frobnicate: %d %q", code, errb.String())
	}
	if code, _, errs := runCLI(t, nil, "help", "stauts"); code != exitUsage || !strings.Contains(errs, "did you mean status?") {
		t.Errorf("help stauts: %d %q", code, errs)
	}
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// checkSnakeCase fails for every JSON object key in v, at any depth, that
// is not snake_case.
func checkSnakeCase(t *testing.T, where string, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !snakeCase.MatchString(k) {
				t.Errorf("%s: key %q is not snake_case", where, k)
			}
			checkSnakeCase(t, where+"."+k, e)
		}
	case []any:
		for _, e := range x {
			checkSnakeCase(t, where+"[]", e)
		}
	}
}

// maintain --json, maintain --log --json and the maintenance section of
// status --json use snake_case keys only.
func TestMaintenanceJSONIsSnakeCase(t *testing.T) {
	env := isolatedEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	code, out, errs := runCLI(t, env, "maintain", "--job", "compact", "--json", "--data-dir", root)
	if code != exitOK {
		t.Fatalf("maintain: %d %s %s", code, out, errs)
	}
	var rep any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	checkSnakeCase(t, "maintain --json", rep)

	code, out, errs = runCLI(t, env, "maintain", "--log", "--json", "--data-dir", root)
	if code != exitOK {
		t.Fatalf("maintain --log: %d %s %s", code, out, errs)
	}
	var entries []map[string]any
	if err := json.Unmarshal([]byte(out), &entries); err != nil || len(entries) == 0 {
		t.Fatalf("%v: %s", err, out)
	}
	if entries[0]["id"] == nil || entries[0]["job"] != "compact" || entries[0]["dry_run"] != false {
		t.Fatalf("audit entry: %v", entries[0])
	}
	checkSnakeCase(t, "maintain --log --json", entries)

	code, out, errs = runCLI(t, env, "status", "--json", "--data-dir", root)
	if code != exitOK {
		t.Fatalf("status: %d %s %s", code, out, errs)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	m, _ := st["maintenance"].(map[string]any)
	runs, _ := m["runs"].(map[string]any)
	compact, _ := runs["compact"].(map[string]any)
	if compact["outcome"] != "ok" || compact["last_run"] == nil {
		t.Fatalf("status maintenance: %v", m)
	}
	checkSnakeCase(t, "status --json maintenance", m)
}

// TestDoctorSaysWhereInfmemListens: doctor names infmem's sockets and says
// nothing listens on a network address with the embedded engine; with a
// managed mongod on a data root whose path has a ':' (mongod then falls
// back to 127.0.0.1) it warns and says what to do (issue 13).
func TestDoctorSaysWhereInfmemListens(t *testing.T) {
	env := isolatedEnv(t)
	check := func(root string) doctorCheck {
		t.Helper()
		_, out, _ := runCLI(t, env, "doctor", "--data-dir", root, "--json")
		var checks []doctorCheck
		if err := json.Unmarshal([]byte(out), &checks); err != nil {
			t.Fatalf("doctor --json: %v %s", err, out)
		}
		for _, c := range checks {
			if c.Name == "listeners" {
				return c
			}
		}
		t.Fatalf("no listeners check: %s", out)
		return doctorCheck{}
	}
	if c := check(filepath.Join(t.TempDir(), "r")); c.Result != checkPass || !strings.Contains(c.Detail, "unix sockets only") || !strings.Contains(c.Detail, "embedded engine too") {
		t.Fatalf("embedded: %+v", c)
	}
	cfg := filepath.Join(t.TempDir(), "managed.json")
	os.WriteFile(cfg, []byte(`{"mongo": {"mode": "managed", "mongod_path": "/bin/true"}}`), 0o600)
	env["INFMEM_CONFIG"] = cfg
	if c := check(filepath.Join(t.TempDir(), "a:b")); c.Result != checkWarn || !strings.Contains(c.Detail, "127.0.0.1") || !strings.Contains(c.Fix, "embedded") {
		t.Fatalf("managed with a ':' in the path: %+v", c)
	}
}
