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
	// ResumeToken is the resume token of this device's change stream on
	// the feed, as of PositionAt (changestream.go); empty when it polls.
	ResumeToken bson.Raw `bson:"resume_token,omitempty"`
	// Host is the machine the device's daemon last started on, Instance
	// that daemon's random id: a record naming another instance than a
	// running daemon's own means two daemons share the device name.
	Host      string    `bson:"host,omitempty"`
	Instance  string    `bson:"instance,omitempty"`
	StartedAt time.Time `bson:"started_at"`
	UpdatedAt time.Time `bson:"updated_at"`
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
// filter's scan is cheap. A record that does not decode (written by
// something other than infmem) names no device anyone can follow: it is
// left out rather than hiding every other device.
func (f Feed) Devices(ctx context.Context) ([]DeviceRecord, error) {
	cur, err := f.meta.Find(ctx, bson.D{{Key: "type", Value: DeviceType}})
	if err != nil {
		return nil, fmt.Errorf("cannot list sync devices: %w", err)
	}
	defer cur.Close(ctx)
	var out []DeviceRecord
	for cur.Next(ctx) {
		var r DeviceRecord
		if err := cur.Decode(&r); err != nil || r.Device == "" {
			continue
		}
		out = append(out, r)
	}
	if err := cur.Err(); err != nil {
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

// OpRestore is the Op of a feed entry that announces a restore: the whole
// database was replaced, so no index, snapshot or feed position taken
// before it describes the data. A reader meeting it reloads its whole
// index (internal/memsync/follow.go). Its MemoryID is zero.
const OpRestore = "restore"

// RestoreDevice is the device a restore announces itself as when it runs
// with no device name of its own (sync off on the restoring machine, but
// devices share the database). It is not a valid device name, so it names
// no daemon.
const RestoreDevice = "~restore"

// headOf is device's highest entry: its record's head, then the entries
// written past it.
func (f Feed) headOf(ctx context.Context, device string) (first, head int64, err error) {
	first = 1
	rec, err := f.Device(ctx, device)
	switch {
	case err == nil:
		first = max(rec.First, 1)
		head = max(rec.Head, first-1)
	case !errors.Is(err, ErrNotFound):
		return 0, 0, err
	}
	for {
		_, err := f.Get(ctx, device, head+1)
		if errors.Is(err, ErrNotFound) {
			return first, head, nil
		}
		if err != nil {
			return 0, 0, err
		}
		head++
	}
}

// MarkRestore announces in device's feed, after its highest entry, that a
// restore replaced the database at at, and records that entry as the
// device's head; it returns the entry's number. The device's own daemon
// must not be writing meanwhile (a restore pauses it): its next start
// continues numbering after the mark.
func (f Feed) MarkRestore(ctx context.Context, device string, at time.Time) (int64, error) {
	first, head, err := f.headOf(ctx, device)
	if err != nil {
		return 0, err
	}
	e := &FeedEntry{Device: device, Seq: head + 1, Kind: "restore", Op: OpRestore, At: at.UTC().Truncate(time.Millisecond)}
	if err := f.Append(ctx, e); err != nil {
		return 0, err
	}
	return e.Seq, f.SetDevice(ctx, device, bson.D{{Key: "first", Value: first}, {Key: "head", Value: e.Seq}})
}

// SyncRecords reads, raw, the Metadata records that describe the daemons
// sharing the database rather than its memories: every device record and
// every lease. A restore carries them over (PutSyncRecords): the change
// feed they describe is not part of a backup, and the restored Metadata
// would otherwise bring back device records whose heads and trim points
// belong to the time of the backup (a reader following one would wait
// forever for an entry trimmed since).
func (s *Store) SyncRecords(ctx context.Context) ([]bson.Raw, error) {
	cur, err := s.db.Collection(Metadata).Find(ctx, bson.D{{Key: "type", Value: bson.D{{Key: "$in", Value: bson.A{DeviceType, LeaseType}}}}})
	if err != nil {
		return nil, fmt.Errorf("cannot read the sync records: %w", err)
	}
	var out []bson.Raw
	for cur.Next(ctx) {
		out = append(out, append(bson.Raw(nil), cur.Current...))
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the sync records: %w", err)
	}
	return out, cur.Close(ctx)
}

// PutSyncRecords puts the device records and leases recs (as
// SyncRecords read them before a restore's swap) back into Metadata, over
// those the restore brought back: of two versions of a record the newer
// one stays (updated_at, or renewed_at for a lease), so a device that
// wrote its record after the swap keeps its write. Records the restore
// brought back that were not live before are removed when older than
// swapped (the time the swap began).
func (s *Store) PutSyncRecords(ctx context.Context, recs []bson.Raw, swapped time.Time) error {
	c := s.db.Collection(Metadata)
	now, err := s.SyncRecords(ctx)
	if err != nil {
		return err
	}
	current := map[string]bson.Raw{}
	for _, r := range now {
		if id, ok := r.Lookup("_id").StringValueOK(); ok {
			current[id] = r
		}
	}
	carried := map[string]bool{}
	for _, r := range recs {
		id, ok := r.Lookup("_id").StringValueOK()
		if !ok {
			continue
		}
		carried[id] = true
		if cur, ok := current[id]; ok && syncStamp(cur).After(syncStamp(r)) {
			continue
		}
		if _, err := c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}}, r, options.Replace().SetUpsert(true)); err != nil {
			return fmt.Errorf("cannot carry the sync records over: %w", err)
		}
	}
	for id, r := range current {
		if carried[id] || !syncStamp(r).Before(swapped) {
			continue
		}
		if _, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
			return fmt.Errorf("cannot carry the sync records over: %w", err)
		}
	}
	return nil
}

// syncStamp is when a device record or lease was last written.
func syncStamp(r bson.Raw) time.Time {
	for _, k := range []string{"updated_at", "renewed_at"} {
		if v, err := r.LookupErr(k); err == nil {
			if t, ok := v.TimeOK(); ok {
				return t
			}
		}
	}
	return time.Time{}
}
