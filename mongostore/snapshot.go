package mongostore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// snapshotKey is the Metadata record naming the one index snapshot that
// matches the database.
const snapshotKey = "index_snapshot"

// With sync enabled (Options.Device set) each device has its own record,
// "index_snapshot:DEVICE", which also holds the change feed position the
// snapshot was taken at: other devices' writes do not invalidate it, since
// the feed replays them from that position (internal/memory/snapshot.go).
func (s *Store) snapshotKey() string {
	if s.device != "" {
		return snapshotKey + ":" + s.device
	}
	return snapshotKey
}

type snapshotRecord struct {
	ID        string    `bson:"_id"`
	Type      string    `bson:"type"`
	Token     string    `bson:"token"`
	UpdatedAt time.Time `bson:"updated_at"`
	// Feed is, per device, the last feed entry the snapshot reflects (set
	// only with sync enabled; an empty map when no device has written).
	Feed map[string]int64 `bson:"feed,omitempty"`
}

// takeSnapshotToken reads the token of the index snapshot that matches the
// database, then clears it: from this open on, this process may write, so
// no snapshot is trusted again until its owner records a new one.
func (s *Store) takeSnapshotToken(ctx context.Context) error {
	var rec snapshotRecord
	err := s.GetMeta(ctx, s.snapshotKey(), &rec)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	s.snapshotToken, s.snapshotFeed = rec.Token, rec.Feed
	if s.device != "" && rec.Feed == nil {
		// Taken with sync off: it cannot say what it missed of the others.
		s.snapshotToken = ""
	}
	return s.DeleteMeta(ctx, s.snapshotKey())
}

// SnapshotToken is the token the database named as current when this store
// was opened ("" for none). An in-memory index snapshot carrying it reflects
// the database exactly.
func (s *Store) SnapshotToken() string { return s.snapshotToken }

// SnapshotFeed is the feed position recorded with SnapshotToken's
// snapshot (nil without sync).
func (s *Store) SnapshotFeed() map[string]int64 { return s.snapshotFeed }

// RecordSnapshot names token as the snapshot that matches the database now.
func (s *Store) RecordSnapshot(ctx context.Context, token string) error {
	return s.RecordSnapshotAt(ctx, token, nil)
}

// RecordSnapshotAt names token as the snapshot that matches the database
// up to feed, the last entry of each device's it reflects. With sync
// enabled feed must not be nil.
func (s *Store) RecordSnapshotAt(ctx context.Context, token string, feed map[string]int64) error {
	if s.device != "" && feed == nil {
		feed = map[string]int64{}
	}
	key := s.snapshotKey()
	return s.PutMeta(ctx, key, &snapshotRecord{ID: key, Type: "snapshot", Token: token, UpdatedAt: time.Now().UTC(), Feed: feed})
}

// InvalidateSnapshot clears the snapshot record before the database changes.
func (s *Store) InvalidateSnapshot(ctx context.Context) error {
	return s.DeleteMeta(ctx, s.snapshotKey())
}

// Device is the sync device this store was opened as ("" without sync).
func (s *Store) Device() string { return s.device }

// ForgetSnapshotToken stops this store from vouching for any snapshot: the
// database changed after Open by other means than the memory engine (say,
// the rollback of an interrupted restore).
func (s *Store) ForgetSnapshotToken() { s.snapshotToken = "" }

// InvalidateAllSnapshots deletes every device's index snapshot record (and
// the record of a store without sync): after a restore none of them
// describes the database.
func (s *Store) InvalidateAllSnapshots(ctx context.Context) error {
	c := s.db.Collection(Metadata)
	cur, err := c.Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return fmt.Errorf("cannot list the index snapshot records: %w", err)
	}
	var ids []any
	for cur.Next(ctx) {
		id := cur.Current.Lookup("_id")
		if key, ok := id.StringValueOK(); ok && (key == snapshotKey || strings.HasPrefix(key, snapshotKey+":")) {
			ids = append(ids, key)
		}
	}
	if err := cur.Err(); err != nil {
		return fmt.Errorf("cannot list the index snapshot records: %w", err)
	}
	cur.Close(ctx)
	for _, id := range ids {
		if _, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
			return fmt.Errorf("cannot delete index snapshot record %v: %w", id, err)
		}
	}
	return nil
}
