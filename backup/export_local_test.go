package backup

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
)

// An export gives every time in the user's zone, with its offset, beside
// UTC: in memory.json as local_time, in the Markdown headings (issue 26.4).
func TestExportLocalTimes(t *testing.T) {
	env := openTestStore(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	if err := env.store.Memories.Insert(ctx, &mongostore.Memory{ID: bson.NewObjectID(), Text: "Dinner with Sam", Scope: "Global",
		Source: "note", Timestamp: at, CreatedAt: at, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	la, _ := time.LoadLocation("America/Los_Angeles")
	res, err := Export(ctx, env.store, ExportOptions{Dir: env.root.ExportDir(), Location: la, Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(res.Dir, "memory.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TimeZone string `json:"time_zone"`
		Scopes   []struct {
			Memories []struct {
				Timestamp time.Time `json:"timestamp"`
				LocalTime string    `json:"local_time"`
			} `json:"memories"`
		} `json:"scopes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.TimeZone != "America/Los_Angeles" || len(doc.Scopes) != 1 || len(doc.Scopes[0].Memories) != 1 ||
		doc.Scopes[0].Memories[0].LocalTime != "2026-11-19T18:00:00-08:00" || !doc.Scopes[0].Memories[0].Timestamp.Equal(at) {
		t.Fatalf("memory.json: %s", data)
	}
	md, err := os.ReadFile(filepath.Join(res.Dir, "Global.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "### 2026-11-19 18:00 PST (UTC-08:00) · 2026-11-20 02:00 UTC · note") ||
		!strings.Contains(string(md), "Times are in America/Los_Angeles") {
		t.Fatalf("Global.md:\n%s", md)
	}
}
