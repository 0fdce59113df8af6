//go:build linux

package main

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/sockdir"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

// TestFaultBadDocumentsInSharedDatabase (issue 22, item 5): two daemons
// with sync on share one database; something else writes to it a memory
// that does not decode ("text": 5) and a hostile one (10 MB of text, 300
// tags, importance 7, scope ALL, year-3000 dates), each announced by a
// feed entry of a forged device whose name sorts first. Both daemons go on
// applying each other's changes within 2 s, neither indexes or serves the
// bad documents, status names them and doctor warns; a restart of B loads
// its index.
func TestFaultBadDocumentsInSharedDatabase(t *testing.T) {
	rootA, rootB, envA, envB, cA, cB := syncDaemons(t)
	ctx := testenv.Context(t)
	sock, err := sockdir.Path(filepath.Join(rootA, "run"), "mongo.sock")
	if err != nil {
		t.Fatal(err)
	}
	intruder, err := mongostore.Open(ctx, mongostore.Options{Mode: mongostore.ModeExternal, URI: "mongodb://" + url.QueryEscape(sock) + "/claude_memory",
		Root: testenv.Root(t), Database: "claude_memory", Device: "0", Logger: testenv.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer intruder.Close(context.Background())
	undecodable, hostile := bson.NewObjectID(), bson.NewObjectID()
	now := time.Now().UTC()
	y3000 := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	tags := make([]string, 300)
	for i := range tags {
		tags[i] = "t" + strings.Repeat("q", i%30)
	}
	raw := intruder.Memories.Raw()
	if _, err := raw.InsertOne(ctx, bson.D{{Key: "_id", Value: undecodable}, {Key: "text", Value: 5}, {Key: "scope", Value: "global"}, {Key: "timestamp", Value: now}}); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.InsertOne(ctx, bson.D{{Key: "_id", Value: hostile}, {Key: "text", Value: "qxosprey " + strings.Repeat("z ", 5<<20)},
		{Key: "scope", Value: "ALL"}, {Key: "tags", Value: tags}, {Key: "importance", Value: 7.0}, {Key: "source", Value: "conversation"},
		{Key: "timestamp", Value: y3000}, {Key: "created_at", Value: y3000}, {Key: "updated_at", Value: y3000}, {Key: "device", Value: "alpha"}}); err != nil {
		t.Fatal(err)
	}
	feed := intruder.Feed()
	for i, id := range []bson.ObjectID{undecodable, hostile} {
		if err := feed.Append(ctx, &mongostore.FeedEntry{Device: "0", Seq: int64(i + 1), MemoryID: id, Kind: "memory", Op: "insert", At: now}); err != nil {
			t.Fatal(err)
		}
	}
	if err := feed.SetDevice(ctx, "0", bson.D{{Key: "first", Value: int64(1)}, {Key: "head", Value: int64(2)}}); err != nil {
		t.Fatal(err)
	}

	// Each daemon still sees the other's new memory.
	onB := storeText(t, cB, "The osprey nest on the mast qxospreyb")
	if _, ok := findsWithin(cA, "qxospreyb", onB, false, 20*time.Second); !ok {
		t.Fatal("A does not apply B's store past the bad documents")
	}
	onA := storeText(t, cA, "The osprey chicks fledged qxospreya")
	if _, ok := findsWithin(cB, "qxospreya", onA, false, 20*time.Second); !ok {
		t.Fatal("B does not apply A's store past the bad documents")
	}
	for name, env := range map[string][]string{"A": envA, "B": envB} {
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, out, _ := runBin(t, env, "status", "--json")
			rep := statusJSON(t, out)
			if rep.Index != nil && rep.Index.Skipped == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s's status does not name the 2 bad documents: %s", name, out)
			}
			time.Sleep(100 * time.Millisecond)
		}
		_, out, _ := runBin(t, env, "doctor")
		if !strings.Contains(out, "break the rules for a memory") {
			t.Fatalf("%s's doctor does not warn: %s", name, out)
		}
	}
	for name, c := range map[string]*client.Client{"A": cA, "B": cB} {
		out, err := tryCall(c, "retrieve_memory", map[string]any{"query": "qxosprey", "top_k": 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range out["results"].([]any) {
			if id := r.(map[string]any)["memory_id"]; id == hostile.Hex() || id == undecodable.Hex() {
				t.Fatalf("%s serves the bad document %s", name, id)
			}
		}
	}

	// B restarts without a snapshot of its own to lean on: a full load.
	stopDaemon(t, rootB, envB)
	cB2 := bridgeClient(t, envB)
	if _, ok := findsWithin(cB2, "qxospreya", onA, false, 10*time.Second); !ok {
		t.Fatal("B's next start does not serve")
	}
}
