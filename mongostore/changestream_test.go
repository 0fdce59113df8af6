package mongostore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestFeedPipelineMatches runs the change stream pipeline's stages as an
// ordinary aggregation over documents shaped like change events, on every
// engine: what a follower is woken for, and what it is not.
func TestFeedPipelineMatches(t *testing.T) {
	for _, eng := range testEngines(t) {
		t.Run(eng.name, func(t *testing.T) {
			s := eng.open(t)
			ctx := ctxT(t)
			c := s.Database().Collection("events_for_test")
			ev := func(id int, op, coll string, extra ...bson.E) bson.D {
				d := bson.D{{Key: "_id", Value: id}, {Key: "operationType", Value: op}, {Key: "ns", Value: bson.D{{Key: "db", Value: "x"}, {Key: "coll", Value: coll}}},
					{Key: "wallTime", Value: time.Now().UTC().Truncate(time.Millisecond)}, {Key: "clusterTime", Value: "ignored"}}
				return append(d, extra...)
			}
			entry := func(device string) bson.E {
				return bson.E{Key: "fullDocument", Value: bson.D{{Key: "_id", Value: FeedKey(device, 1)}, {Key: "device", Value: device}, {Key: "seq", Value: int64(1)}}}
			}
			to := func(coll string) bson.E {
				return bson.E{Key: "to", Value: bson.D{{Key: "db", Value: "x"}, {Key: "coll", Value: coll}}}
			}
			docs := []any{
				ev(1, "insert", FeedCollection, entry("b")),                         // another device's entry
				ev(2, "insert", FeedCollection, entry("a")),                         // our own
				ev(3, "replace", FeedCollection, entry("b")),                        // a retried entry
				ev(4, "delete", FeedCollection),                                     // trimming
				ev(5, "update", ConversationHistory),                                // a memory edit (the feed names it)
				ev(6, "insert", ConversationHistory, entry("b")),                    // a memory insert (likewise)
				ev(7, "rename", ConversationHistory, to("_infmem_replaced_x_Conv")), // a restore moves the live one aside
				ev(8, "rename", "_infmem_restore_x_Metadata", to(Metadata)),         // and the restored one in
				ev(9, "drop", "SomethingElse"),
				ev(10, "drop", MemoryIndex),
				ev(11, "invalidate", ""),
				ev(12, "dropDatabase", ""),
				ev(13, "rename", "unrelated", to("unrelated2")),
			}
			if _, err := c.InsertMany(ctx, docs); err != nil {
				t.Fatal(err)
			}
			cur, err := c.Aggregate(ctx, append(FeedPipeline("a"), bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}))
			if err != nil {
				t.Fatal(err)
			}
			var got []bson.M
			if err := cur.All(ctx, &got); err != nil {
				t.Fatal(err)
			}
			var ids []int32
			for _, g := range got {
				ids = append(ids, g["_id"].(int32))
				if _, ok := g["clusterTime"]; ok {
					t.Errorf("event %v keeps a field the follower does not read", g["_id"])
				}
			}
			if want := []int32{1, 3, 7, 8, 10, 11, 12}; fmt.Sprint(ids) != fmt.Sprint(want) {
				t.Fatalf("events passed: %v, want %v", ids, want)
			}
			raw, err := bson.Marshal(got[0])
			if err != nil {
				t.Fatal(err)
			}
			if d, _ := bson.Raw(raw).LookupErr("fullDocument", "device"); d.Type == 0 || d.StringValue() != "b" {
				t.Fatalf("entry event lost its entry: %v", got[0])
			}
		})
	}
}

// TestResumeTokenInDeviceRecord: the follower's resume token and the
// daemon's host and instance round-trip through its device record.
func TestResumeTokenInDeviceRecord(t *testing.T) {
	s := openTestStore(t, Options{Mode: ModeEmbedded})
	ctx := ctxT(t)
	tok, err := bson.Marshal(bson.D{{Key: "_data", Value: "8263F1A2B3000000012B022C0100296E5A1004"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Feed().SetDevice(ctx, "a", bson.D{{Key: "resume_token", Value: bson.Raw(tok)}, {Key: "host", Value: "laptop"}, {Key: "instance", Value: "i1"}}); err != nil {
		t.Fatal(err)
	}
	d, err := s.Feed().Device(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if string(d.ResumeToken) != string(tok) || d.Host != "laptop" || d.Instance != "i1" {
		t.Fatalf("device record: %+v", d)
	}
	// A record written before tokens existed decodes with none.
	if err := s.Feed().SetDevice(ctx, "b", bson.D{{Key: "head", Value: int64(3)}}); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Feed().Device(ctx, "b"); err != nil || d.ResumeToken != nil {
		t.Fatalf("device b: %+v %v", d, err)
	}
}

func TestIsResumeFailure(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{mongo.CommandError{Code: 286, Name: "ChangeStreamHistoryLost"}, true},
		{mongo.CommandError{Code: 260, Name: "InvalidResumeToken"}, true},
		{mongo.CommandError{Code: 280, Name: "ChangeStreamFatalError"}, true},
		{fmt.Errorf("cannot open a change stream: %w", mongo.CommandError{Code: 136}), true},
		{mongo.CommandError{Code: 11600, Name: "InterruptedAtShutdown"}, false},
		{mongo.CommandError{Code: 40573, Name: "Location40573"}, false}, // not a replica set
		{errors.New("connection reset"), false},
		{context.DeadlineExceeded, false},
	} {
		if got := IsResumeFailure(tc.err); got != tc.want {
			t.Errorf("IsResumeFailure(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestChangeStreamSupport: the embedded engine and a standalone server
// (the managed engine here) offer none, and say what they are; the
// server's hello is asked on all but the embedded engine.
func TestChangeStreamSupport(t *testing.T) {
	for _, eng := range testEngines(t) {
		t.Run(eng.name, func(t *testing.T) {
			s := eng.open(t)
			ok, where, err := s.ChangeStreamSupport(ctxT(t))
			if err != nil || where == "" {
				t.Fatalf("%v %q %v", ok, where, err)
			}
			if eng.name != ModeExternal && ok {
				t.Fatalf("%s offers change streams: %q", eng.name, where)
			}
			t.Logf("%s: change streams %v: %s", eng.name, ok, where)
		})
	}
}

// TestChangeStreamConformance runs the feed stream on a real replica set:
// only when INFMEM_TEST_MONGODB_URI names one.
func TestChangeStreamConformance(t *testing.T) {
	uri := os.Getenv("INFMEM_TEST_MONGODB_URI")
	if uri == "" {
		t.Skip("INFMEM_TEST_MONGODB_URI is not set: change streams need a MongoDB replica set (a one-member set will do: mongod --replSet rs0, then rs.initiate())")
	}
	s := openTestStore(t, Options{Mode: ModeExternal, URI: uri})
	t.Cleanup(func() { _ = s.Database().Drop(context.Background()) })
	ctx := ctxT(t)
	ok, where, err := s.ChangeStreamSupport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skipf("INFMEM_TEST_MONGODB_URI names %s: change streams need a replica set", where)
	}
	if err := s.ensureFeed(ctx); err != nil {
		t.Fatal(err)
	}
	f := s.Feed()
	st, err := f.Watch(ctx, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	id := bson.NewObjectID()
	for _, e := range []FeedEntry{{Device: "b", Seq: 1}, {Device: "a", Seq: 1}, {Device: "b", Seq: 2}} {
		e.MemoryID, e.Kind, e.Op, e.At = id, "memory", "insert", ms(time.Now())
		if err := f.Append(ctx, &e); err != nil {
			t.Fatal(err)
		}
	}
	next := func(st *FeedStream) *FeedEvent {
		t.Helper()
		nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		ev, err := st.Next(nctx)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	for _, want := range []int64{1, 2} {
		ev := next(st)
		if ev.Entry == nil || ev.Entry.Device != "b" || ev.Entry.Seq != want || len(ev.Token) == 0 {
			t.Fatalf("event: %+v, want b:%d", ev, want)
		}
	}
	tok := st.Token()
	st.Close(ctx)
	if err := f.Append(ctx, &FeedEntry{Device: "b", Seq: 3, MemoryID: id, Kind: "memory", Op: "edit", At: ms(time.Now())}); err != nil {
		t.Fatal(err)
	}
	// Resumed after the token: the entry written while it was closed.
	st2, err := f.Watch(ctx, "a", tok)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close(ctx)
	if ev := next(st2); ev.Entry == nil || ev.Entry.Seq != 3 {
		t.Fatalf("resumed stream: %+v", ev)
	}
	// A collection replaced wholesale (a restore's rename).
	if err := s.Database().Collection(ConversationHistory).Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if ev := next(st2); !ev.Replaced() || ev.Coll != ConversationHistory {
		t.Fatalf("drop event: %+v", ev)
	}
	// A token the server cannot resume from.
	bad, _ := bson.Marshal(bson.D{{Key: "_data", Value: "00"}})
	st3, err := f.Watch(ctx, "a", bad)
	if err == nil {
		nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = st3.Next(nctx)
		cancel()
		st3.Close(ctx)
	}
	if err == nil {
		t.Fatal("a stream resumed from a bogus token")
	}
	t.Logf("bogus token: %v (resume failure: %v)", err, IsResumeFailure(err))
}
