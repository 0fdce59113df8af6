package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Change streams (docs/SYNC.md). A server that keeps an oplog — a replica
// set member, or a mongos in front of replica sets; every Atlas cluster is
// one — pushes changes to a change stream. There a sync follower watches
// the change feed's new entries through one instead of asking every other
// device for its next entry every 500 ms. The feed stays the record of
// what changed: a stream event only says "device D wrote entry n", and the
// follower then reads D's entries from its position on, exactly as a poll
// would. So positions, snapshots, trimming and restore marks work the same
// in both modes, and a stream that cannot resume costs one catch-up from
// the feed position (or, past the trim point, a full reload), never a
// missed change. The same stream also reports any drop or rename of the
// memory collections, the feed or Metadata (a restore from elsewhere, a
// hand-made change): the follower reloads its whole index then.
//
// The embedded engine and a standalone mongod have no oplog: there the
// follower polls the feed.

// ChangeStreamSupport asks the server (hello) whether it offers change
// streams: a replica set member names its set (setName), a mongos says
// "isdbgrid". where describes the server for status and doctor.
func (s *Store) ChangeStreamSupport(ctx context.Context) (ok bool, where string, err error) {
	if s.Engine == ModeEmbedded {
		return false, "the embedded engine, which is no replica set", nil
	}
	var hello struct {
		SetName string `bson:"setName"`
		Msg     string `bson:"msg"`
	}
	if err := s.client.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		return false, "", fmt.Errorf("cannot ask the server what it is (hello): %w", err)
	}
	switch {
	case hello.SetName != "":
		return true, "replica set " + hello.SetName, nil
	case hello.Msg == "isdbgrid":
		return true, "sharded cluster (mongos)", nil
	}
	return false, "a standalone server, not a replica set", nil
}

// watchedCollections are the collections whose drop or rename means the
// data under every index changed wholesale.
var watchedCollections = bson.A{ConversationHistory, Summaries, MemoryIndex, Metadata, FeedCollection}

// FeedPipeline is the change stream pipeline of device's follower: new or
// rewritten feed entries of every other device, any drop or rename of the
// memory collections, the feed or Metadata, and the end of the stream
// (dropDatabase, invalidate). Events keep their _id (the resume token),
// operationType, namespaces and, for an entry, the entry itself.
func FeedPipeline(device string) mongo.Pipeline {
	return mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "$or", Value: bson.A{
			bson.D{
				{Key: "ns.coll", Value: FeedCollection},
				{Key: "operationType", Value: bson.D{{Key: "$in", Value: bson.A{"insert", "replace"}}}},
				{Key: "fullDocument.device", Value: bson.D{{Key: "$ne", Value: device}}},
			},
			bson.D{
				{Key: "operationType", Value: bson.D{{Key: "$in", Value: bson.A{"drop", "rename"}}}},
				{Key: "$or", Value: bson.A{
					bson.D{{Key: "ns.coll", Value: bson.D{{Key: "$in", Value: watchedCollections}}}},
					bson.D{{Key: "to.coll", Value: bson.D{{Key: "$in", Value: watchedCollections}}}},
				}},
			},
			bson.D{{Key: "operationType", Value: bson.D{{Key: "$in", Value: bson.A{"dropDatabase", "invalidate"}}}}},
		}}}}},
		{{Key: "$project", Value: bson.D{
			{Key: "operationType", Value: 1}, {Key: "ns", Value: 1}, {Key: "to", Value: 1}, {Key: "fullDocument", Value: 1}, {Key: "wallTime", Value: 1},
		}}},
	}
}

// FeedEvent is one event of a feed stream.
type FeedEvent struct {
	// Token is the event's resume token.
	Token bson.Raw
	// Op is the operationType.
	Op string
	// Entry is the feed entry written (insert, replace); nil for the
	// other events.
	Entry *FeedEntry
	// Coll is the collection dropped or renamed.
	Coll string
	// At is when the server made the change (zero before MongoDB 6.0).
	At time.Time
}

// Replaced reports whether the event means collections were dropped or
// replaced: every index must be rebuilt from the database.
func (ev *FeedEvent) Replaced() bool { return ev.Entry == nil }

// FeedStream is an open change stream on the feed (Feed.Watch).
type FeedStream struct {
	cs *mongo.ChangeStream
}

// Watch opens device's feed stream (FeedPipeline) on the database,
// resuming after token when one is given. A token the server cannot
// resume from fails here or at the first Next (IsResumeFailure).
func (f Feed) Watch(ctx context.Context, device string, token bson.Raw) (*FeedStream, error) {
	opts := options.ChangeStream()
	if len(token) > 0 {
		opts.SetResumeAfter(token)
	}
	cs, err := f.c.Database().Watch(ctx, FeedPipeline(device), opts)
	if err != nil {
		return nil, fmt.Errorf("cannot open a change stream: %w", err)
	}
	return &FeedStream{cs: cs}, nil
}

type rawEvent struct {
	ID bson.Raw `bson:"_id"`
	Op string   `bson:"operationType"`
	NS struct {
		Coll string `bson:"coll"`
	} `bson:"ns"`
	FullDocument *FeedEntry `bson:"fullDocument"`
	WallTime     time.Time  `bson:"wallTime"`
}

// Next waits for the next event; nil and the stream's error when it ends
// (ctx done, a network failure the driver could not resume from, a
// resume failure).
func (s *FeedStream) Next(ctx context.Context) (*FeedEvent, error) {
	if !s.cs.Next(ctx) {
		err := s.cs.Err()
		if err == nil {
			err = ctx.Err()
		}
		if err == nil {
			err = errors.New("the change stream ended")
		}
		return nil, err
	}
	var raw rawEvent
	if err := s.cs.Decode(&raw); err != nil {
		return nil, fmt.Errorf("cannot decode a change stream event: %w", err)
	}
	ev := &FeedEvent{Token: append(bson.Raw(nil), s.cs.ResumeToken()...), Op: raw.Op, Coll: raw.NS.Coll, At: raw.WallTime}
	if raw.Op == "insert" || raw.Op == "replace" {
		if raw.FullDocument == nil {
			return nil, fmt.Errorf("change stream event %s without its document", raw.Op)
		}
		ev.Entry = raw.FullDocument
	}
	return ev, nil
}

// Token is the stream's resume token now.
func (s *FeedStream) Token() bson.Raw { return append(bson.Raw(nil), s.cs.ResumeToken()...) }

// Close ends the stream.
func (s *FeedStream) Close(ctx context.Context) error { return s.cs.Close(ctx) }

// Server error codes meaning a change stream cannot go on from its
// resume token.
var resumeFailureCodes = []int{
	136, // CappedPositionLost: the oplog moved past the token
	260, // InvalidResumeToken
	280, // ChangeStreamFatalError
	286, // ChangeStreamHistoryLost
}

// IsResumeFailure reports whether err means the stream cannot resume from
// its token (the oplog no longer holds it, or the token is invalid): the
// follower then opens a new stream without one and catches up from its
// feed position. Other errors (the network, the server stepping down) are
// retried with the same token.
func IsResumeFailure(err error) bool {
	var se mongo.ServerError
	if !errors.As(err, &se) {
		return false
	}
	for _, c := range resumeFailureCodes {
		if se.HasErrorCode(c) {
			return true
		}
	}
	return false
}
