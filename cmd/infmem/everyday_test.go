package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
)

// 'infmem export' without a daemon gives local times in the profile's
// time zone beside UTC (issue 26.4).
func TestExportCommandLocalTimes(t *testing.T) {
	env := isolatedEnv(t)
	root := filepath.Join(t.TempDir(), "root")
	withStore(t, root, func(s *mongostore.Store) {
		addMemories(t, s, "Global", 1)
		if err := s.Profiles.Update(context.Background(), mongostore.DefaultUserID,
			bson.D{{Key: "$set", Value: bson.D{{Key: "preferences.time_zone", Value: "Europe/Paris"}}}}); err != nil {
			t.Fatal(err)
		}
	})
	code, _, errs := runCLI(t, env, "export", "--data-dir", root, "--format", "markdown")
	if code != exitOK {
		t.Fatalf("%d %s", code, errs)
	}
	md, _ := filepath.Glob(filepath.Join(root, "export", "*", "Global.md"))
	if len(md) != 1 {
		t.Fatalf("exported %v", md)
	}
	data, _ := os.ReadFile(md[0])
	if !strings.Contains(string(data), "### 2025-05-01 12:00 CEST (UTC+02:00) · 2025-05-01 10:00 UTC") {
		t.Fatalf("Global.md:\n%s", data)
	}
}
