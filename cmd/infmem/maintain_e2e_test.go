package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdminToolsAndMaintainThroughDaemon drives backup_memory,
// export_memory and optimize_memory over MCP, and 'infmem maintain', all
// served by a real daemon.
func TestAdminToolsAndMaintainThroughDaemon(t *testing.T) {
	root := shortRoot(t)
	env := processEnv(t, root)
	t.Cleanup(func() { stopDaemon(t, root, env) })
	c := bridgeClient(t, env)

	for _, text := range []string{"thanks!", "My sister Alice lives in Porto", "The boat is moored at pier 7", "My sister Alice lives in Porto.",
		"Dentist appointment on December 2 at 9:30.", "Dentist appointment on January 14 at 11:00."} {
		storeText(t, c, text)
	}
	// The dry run names what it would merge, with the texts; the dentist
	// appointments are different facts and never merged.
	opt := callJSON(t, c, "optimize_memory", map[string]any{"dry_run": true, "job": "dedup"})
	merges, _ := opt["merges"].([]any)
	if opt["status"] != "OK" || opt["dry_run"] != true || len(merges) != 1 || !strings.Contains(fmt.Sprint(merges[0]), "My sister Alice lives in Porto") ||
		strings.Contains(fmt.Sprint(merges), "Dentist") {
		t.Fatalf("optimize_memory dry run: %v", opt)
	}
	if code, out, errs := runBin(t, env, "maintain", "--job", "dedup", "--dry-run"); code != 0 || !strings.Contains(out, "kept") || !strings.Contains(out, "merged") ||
		!strings.Contains(out, `"My sister Alice lives in Porto`) || strings.Contains(out, "Dentist") {
		t.Fatalf("maintain --dry-run: %d %s %s", code, out, errs)
	}
	opt = callJSON(t, c, "optimize_memory", map[string]any{"dry_run": true})
	if opt["status"] != "OK" || opt["dry_run"] != true {
		t.Fatalf("optimize_memory dry run: %v", opt)
	}
	opt = callJSON(t, c, "optimize_memory", map[string]any{"job": "compact"})
	if ops, _ := opt["operations"].([]any); len(ops) == 0 || !strings.Contains(ops[0].(string), "compacted_db") {
		t.Fatalf("optimize_memory compact: %v", opt)
	}
	if r, err := tryCall(c, "optimize_memory", map[string]any{"job": "defragment"}); err == nil || !strings.Contains(err.Error(), "no such maintenance job") {
		t.Fatalf("unknown job: %v %v", r, err)
	}

	b := callJSON(t, c, "backup_memory", nil)
	file, _ := b["backup_file"].(string)
	if b["status"] != "OK" || file == "" || b["documents"].(float64) < 3 {
		t.Fatalf("backup_memory: %v", b)
	}
	if _, err := os.Stat(filepath.Join(root, "backups", file)); err != nil {
		t.Fatalf("backup file: %v", err)
	}

	ex := callJSON(t, c, "export_memory", map[string]any{"format": "json"})
	dir, _ := ex["directory"].(string)
	if ex["memories"].(float64) < 3 || dir == "" || !strings.Contains(ex["notice"].(string), "") {
		t.Fatalf("export_memory: %v", ex)
	}
	data, err := os.ReadFile(filepath.Join(dir, "memory.json"))
	if err != nil || !strings.Contains(string(data), "pier 7") {
		t.Fatalf("export file: %v", err)
	}

	// The terminal command runs in the daemon and sees the same trail.
	code, out, errs := runBin(t, env, "maintain", "--job", "noise", "--json")
	if code != 0 {
		t.Fatalf("maintain: %d %s %s", code, out, errs)
	}
	var rep struct {
		Job     string `json:"job"`
		Outcome string `json:"outcome"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Job != "noise" || rep.Outcome != "ok" {
		t.Fatalf("maintain report: %s %v", out, err)
	}
	if !strings.Contains(serviceLog(t, root), `job=noise`) {
		t.Fatal("the maintain job did not run in the daemon")
	}
	code, out, _ = runBin(t, env, "maintain", "--log")
	if code != 0 || !strings.Contains(out, "noise") || !strings.Contains(out, "compact") || !strings.Contains(out, "(dry run)") ||
		!strings.Contains(out, `merged`) || !strings.Contains(out, `"My sister Alice lives in Porto`) {
		t.Fatalf("maintain --log: %d %s", code, out)
	}
	code, out, _ = runBin(t, env, "status", "--json")
	if code != 0 || !strings.Contains(out, `"maintenance"`) || !strings.Contains(out, `"noise"`) {
		t.Fatalf("status lacks maintenance: %s", out)
	}
	code, out, _ = runBin(t, env, "status")
	if code != 0 || !strings.Contains(out, "noise: ok at") {
		t.Fatalf("status text lacks the noise run: %s", out)
	}
	st := callJSON(t, c, "get_memory_stats", nil)["stats"].(map[string]any)
	if m, _ := st["maintenance"].(map[string]any); m["compact"] == nil || m["noise"] == nil {
		t.Fatalf("get_memory_stats lacks maintenance runs: %v", st)
	}
	if code, _, errs := runBin(t, env, "maintain", "--job", "bogus"); code != exitUsage || !strings.Contains(errs, "no such maintenance job") {
		t.Fatalf("bad job: %d %s", code, errs)
	}
}
