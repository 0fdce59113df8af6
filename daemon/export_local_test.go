package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infmem/infmem/backup"
)

// An export the daemon writes gives local times in the profile's time
// zone, beside UTC (issue 26.4).
func TestExportInProfileZone(t *testing.T) {
	root := testRoot(t)
	d := startDaemon(t, testOptions(t, root))
	c := connect(t, d)
	callOK(t, c, "update_user_profile", map[string]any{"set_preferences": map[string]any{"time_zone": "Asia/Tokyo"}})
	callOK(t, c, "store_memory", map[string]any{"content": "a fact", "metadata": map[string]any{"timestamp": "2026-11-20T02:00:00Z"}})
	var exp backup.ExportResult
	if err := dialControl(t, d).Run(context.Background(), JobExport, ExportJobArgs{Format: "json"}, &exp); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(exp.Dir, "memory.json"))
	if err != nil || !strings.Contains(string(data), `"local_time": "2026-11-20T11:00:00+09:00"`) || !strings.Contains(string(data), `"time_zone": "Asia/Tokyo"`) {
		t.Fatalf("memory.json: %s %v", data, err)
	}
}
