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

// FeedCollection is the change feed several daemons sharing one database
// read each other's changes from (docs/SYNC.md). It exists only where
// sync is enabled, and is not part of backups: it describes changes, not
// memories.
const FeedCollection = "SyncFeed"

// The feed's keys.
//
// Every entry's _id is FeedKey(device, seq): the writing device's name and
// a sequence number that device alone assigns, 1, 2, 3, ..., without gaps:
// it writes entry n+1 only once entry n is in the database, and after a
// restart continues from the highest entry it finds (DeviceRecord.Head,
// then probing forward). So the keys are unique across devices without
// coordination, and a reader never needs to order one device's entries
// against another's (clocks disagree): it keeps, per device, the last
// sequence number it applied and asks for the next one by _id equality,
// the one lookup the embedded engine answers from an index. A miss means
// "nothing new from that device yet", never "skipped": entry n+1 cannot
// appear before entry n. Entries older than a device's DeviceRecord.First
// were trimmed; a reader whose position is below it has missed changes.

// FeedKey is the _id of device's entry number seq.
func FeedKey(device string, seq int64) string { return fmt.Sprintf("%s:%016d", device, seq) }

// FeedEntry is one change to one memory, as the feed announces it: readers
// re-read the memory by MemoryID.
type FeedEntry struct {
	ID       string        `bson:"_id"`
	Device   string        `bson:"device"`
	Seq      int64         `bson:"seq"`
	MemoryID bson.ObjectID `bson:"memory_id"`
	// Kind is memory or summary.
	Kind string `bson:"kind"`
	// Op is what the change did (insert, edit, forget, unforget, flag,
	// embed, delete).
	Op string    `bson:"op"`
	At time.Time `bson:"at"`
}

// DeviceType is the Metadata type of device records.
const DeviceType = "sync_device"

// DeviceRecord is one device's record in Metadata (_id "sync_device:NAME"):
// which of its feed entries exist, and how far it has read the others'.
// Only that device writes it.
type DeviceRecord struct {
	ID     string `bson:"_id"`
	Type   string `bson:"type"`
	Device string `bson:"device"`
	// First is the lowest sequence number of its entries not trimmed (1
	// before any trim); Head the highest written when the record was last
	// updated (entries past it may exist).
	First int64 `bson:"first"`
	Head  int64 `bson:"head"`
	// Position is, per other device, the last of its entries this device
	// has applied to its index, as of PositionAt.
	Position   map[string]int64 `bson:"position,omitempty"`
	PositionAt time.Time        `bson:"position_at,omitempty"`
	StartedAt  time.Time        `bson:"started_at"`
	UpdatedAt  time.Time        `bson:"updated_at"`
}

func deviceKey(device string) string { return DeviceType + ":" + device }

// Feed is typed access to the change feed and the device records.
type Feed struct {
	c    *mongo.Collection
	meta *mongo.Collection
}

// Feed returns the change feed of this database.
func (s *Store) Feed() Feed {
	return Feed{c: s.db.Collection(FeedCollection), meta: s.db.Collection(Metadata)}
}

// ensureFeed creates the feed collection, so that the embedded engine's
// prepare gives it its _id index (sqliteindex.go) at this start.
func (s *Store) ensureFeed(ctx context.Context) error {
	names, err := s.db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: FeedCollection}})
	if err != nil {
		return fmt.Errorf("cannot list collections: %w", err)
	}
	if len(names) > 0 {
		return nil
	}
	err = s.db.CreateCollection(ctx, FeedCollection)
	var ce mongo.CommandError
	if err != nil && !(errors.As(err, &ce) && (ce.Code == 48 || ce.Name == "NamespaceExists")) {
		return fmt.Errorf("cannot create collection %s: %w", FeedCollection, err)
	}
	return nil
}

// Append writes e (its _id set from Device and Seq). Writing the same entry
// again is harmless, so a failed append is simply retried.
func (f Feed) Append(ctx context.Context, e *FeedEntry) error {
	e.ID = FeedKey(e.Device, e.Seq)
	_, err := f.c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: e.ID}}, e, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("cannot append to the change feed: %w", err)
	}
	return nil
}

// Get reads device's entry seq; ErrNotFound when there is none (not
// written yet, or trimmed).
func (f Feed) Get(ctx context.Context, device string, seq int64) (*FeedEntry, error) {
	var e FeedEntry
	err := f.c.FindOne(ctx, bson.D{{Key: "_id", Value: FeedKey(device, seq)}}).Decode(&e)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("feed entry %s: %w", FeedKey(device, seq), ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the change feed: %w", err)
	}
	return &e, nil
}

// Delete removes device's entry seq (trimming).
func (f Feed) Delete(ctx context.Context, device string, seq int64) error {
	if _, err := f.c.DeleteOne(ctx, bson.D{{Key: "_id", Value: FeedKey(device, seq)}}); err != nil {
		return fmt.Errorf("cannot trim the change feed: %w", err)
	}
	return nil
}

// Count estimates how many entries the feed holds.
func (f Feed) Count(ctx context.Context) (int64, error) {
	return f.c.EstimatedDocumentCount(ctx)
}

// Devices reads every device record. Metadata stays small, so this
// filter's scan is cheap.
func (f Feed) Devices(ctx context.Context) ([]DeviceRecord, error) {
	cur, err := f.meta.Find(ctx, bson.D{{Key: "type", Value: DeviceType}})
	if err != nil {
		return nil, fmt.Errorf("cannot list sync devices: %w", err)
	}
	var out []DeviceRecord
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("cannot list sync devices: %w", err)
	}
	return out, nil
}

// Device reads one device's record.
func (f Feed) Device(ctx context.Context, device string) (*DeviceRecord, error) {
	var r DeviceRecord
	err := f.meta.FindOne(ctx, bson.D{{Key: "_id", Value: deviceKey(device)}}).Decode(&r)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("sync device %q: %w", device, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read sync device %q: %w", device, err)
	}
	return &r, nil
}

// SetDevice sets fields of device's record, creating it when missing.
func (f Feed) SetDevice(ctx context.Context, device string, fields bson.D) error {
	fields = append(fields, bson.E{Key: "type", Value: DeviceType}, bson.E{Key: "device", Value: device},
		bson.E{Key: "updated_at", Value: time.Now().UTC()})
	_, err := f.meta.UpdateOne(ctx, bson.D{{Key: "_id", Value: deviceKey(device)}}, bson.D{{Key: "$set", Value: fields}},
		options.UpdateOne().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("cannot write sync device %q: %w", device, err)
	}
	return nil
}
