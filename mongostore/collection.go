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

// ErrNotFound is returned when no document has the requested _id.
var ErrNotFound = errors.New("not found")

// ErrDuplicate is returned when a write breaks a unique index.
var ErrDuplicate = errors.New("duplicate key")

// Collection is typed access to one collection. Every method addresses
// documents by _id, the only filter the embedded engine answers from an
// index; anything else scans the collection and belongs in an in-memory index.
type Collection[T any] struct {
	c *mongo.Collection
	// raw, on the embedded engine, reads whole collections and counts
	// straight from SQLite (rawscan.go).
	raw *sqliteFiles
}

// Name is the collection's name.
func (c Collection[T]) Name() string { return c.c.Name() }

// Raw exposes the driver collection for the few portable operations the
// typed API does not cover (schema bootstrap, backups, conformance tests).
func (c Collection[T]) Raw() *mongo.Collection { return c.c }

// Insert writes a new document.
func (c Collection[T]) Insert(ctx context.Context, doc *T) error {
	_, err := c.c.InsertOne(ctx, doc)
	return c.wrap("insert into", err)
}

// InsertMany writes new documents in order, stopping at the first failure.
func (c Collection[T]) InsertMany(ctx context.Context, docs []*T) error {
	if len(docs) == 0 {
		return nil
	}
	batch := make([]any, len(docs))
	for i, d := range docs {
		batch[i] = d
	}
	_, err := c.c.InsertMany(ctx, batch)
	return c.wrap("insert into", err)
}

// Get reads the document with this _id.
func (c Collection[T]) Get(ctx context.Context, id any) (*T, error) {
	if oid, ok := id.(bson.ObjectID); ok && c.raw != nil {
		var found *T
		err := c.raw.get(ctx, c.Name(), []bson.ObjectID{oid}, func(raw bson.Raw) error {
			found = new(T)
			if err := bson.Unmarshal(raw, found); err != nil {
				return fmt.Errorf("%w: %v", ErrUndecodable, err)
			}
			return nil
		})
		switch {
		case errors.Is(err, ErrUndecodable):
			return nil, fmt.Errorf("%s %v: %w", c.Name(), id, err)
		case err == nil && found == nil:
			return nil, fmt.Errorf("%s %v: %w", c.Name(), id, ErrNotFound)
		case err == nil:
			return found, nil
		case !errors.Is(err, errNoRawTable):
			return nil, c.wrap("read from", err)
		}
	}
	var doc T
	err := c.c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&doc)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("%s %v: %w", c.Name(), id, ErrNotFound)
	}
	if err != nil {
		if isDecodeError(err) {
			return nil, fmt.Errorf("%s %v: %w: %v", c.Name(), id, ErrUndecodable, err)
		}
		return nil, c.wrap("read from", err)
	}
	return &doc, nil
}

// ErrUndecodable is returned for a document whose fields do not fit the
// collection's type (a number where text belongs): written by something
// other than infmem, or damaged. Get wraps it; IterateSkipping hands such
// documents to its skip function.
var ErrUndecodable = errors.New("does not decode")

// isDecodeError tells a document that did not decode from a failed read.
func isDecodeError(err error) bool {
	var de *bson.DecodeError
	return errors.As(err, &de)
}

// GetMany reads the documents with these _ids; those not found, and those
// that do not decode (ErrUndecodable), are left out of the map.
func (c Collection[T]) GetMany(ctx context.Context, ids []bson.ObjectID) (map[bson.ObjectID]*T, error) {
	out := make(map[bson.ObjectID]*T, len(ids))
	if c.raw != nil {
		err := c.raw.get(ctx, c.Name(), ids, func(raw bson.Raw) error {
			doc := new(T)
			if err := bson.Unmarshal(raw, doc); err != nil {
				return nil // left out, as Get would refuse it
			}
			out[raw.Lookup("_id").ObjectID()] = doc
			return nil
		})
		if !errors.Is(err, errNoRawTable) {
			return out, c.wrap("read from", err)
		}
		clear(out)
	}
	for _, id := range ids {
		doc, err := c.Get(ctx, id)
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrUndecodable) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[id] = doc
	}
	return out, nil
}

// Existing reports which of these _ids have a document, whether it
// decodes or not.
func (c Collection[T]) Existing(ctx context.Context, ids []bson.ObjectID) (map[bson.ObjectID]bool, error) {
	out := make(map[bson.ObjectID]bool, len(ids))
	if c.raw != nil {
		err := c.raw.get(ctx, c.Name(), ids, func(raw bson.Raw) error {
			if id, ok := raw.Lookup("_id").ObjectIDOK(); ok {
				out[id] = true
			}
			return nil
		})
		if !errors.Is(err, errNoRawTable) {
			return out, c.wrap("read from", err)
		}
		clear(out)
	}
	for _, id := range ids {
		_, err := c.Get(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil && !errors.Is(err, ErrUndecodable) {
			return nil, err
		}
		out[id] = true
	}
	return out, nil
}

// Replace overwrites the document with this _id.
func (c Collection[T]) Replace(ctx context.Context, id any, doc *T) error {
	res, err := c.c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}}, doc)
	if err != nil {
		return c.wrap("replace in", err)
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("%s %v: %w", c.Name(), id, ErrNotFound)
	}
	return nil
}

// Upsert writes the document with this _id, inserting it if absent.
func (c Collection[T]) Upsert(ctx context.Context, id any, doc *T) error {
	_, err := c.c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}}, doc, options.Replace().SetUpsert(true))
	return c.wrap("upsert into", err)
}

// Update applies update operators ($set, $unset, $inc, $push, $addToSet,
// $pull) to the document with this _id; ErrNotFound if there is none.
func (c Collection[T]) Update(ctx context.Context, id any, update bson.D) error {
	res, err := c.c.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, update)
	if err != nil {
		return c.wrap("update in", err)
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("%s %v: %w", c.Name(), id, ErrNotFound)
	}
	return nil
}

// SoftForget marks the document forgotten at t (for collections whose
// documents carry forgotten_at).
func (c Collection[T]) SoftForget(ctx context.Context, id any, t time.Time) error {
	return c.Update(ctx, id, bson.D{{Key: "$set", Value: bson.D{
		{Key: "forgotten_at", Value: t.UTC()},
		{Key: "updated_at", Value: t.UTC()},
	}}})
}

// Unforget clears a soft forget.
func (c Collection[T]) Unforget(ctx context.Context, id any, t time.Time) error {
	return c.Update(ctx, id, bson.D{
		{Key: "$unset", Value: bson.D{{Key: "forgotten_at", Value: ""}}},
		{Key: "$set", Value: bson.D{{Key: "updated_at", Value: t.UTC()}}},
	})
}

// Delete removes the document with this _id and reports whether it existed.
func (c Collection[T]) Delete(ctx context.Context, id any) (bool, error) {
	res, err := c.c.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
	if err != nil {
		return false, c.wrap("delete from", err)
	}
	return res.DeletedCount == 1, nil
}

// EstimatedCount counts documents without reading them: from collection
// metadata on mongod, from SQLite's _id index on the embedded engine
// (FerretDB's own count reads every document).
func (c Collection[T]) EstimatedCount(ctx context.Context) (int64, error) {
	if c.raw != nil {
		n, err := c.raw.count(ctx, c.Name())
		if !errors.Is(err, errNoRawTable) {
			return n, c.wrap("count", err)
		}
	}
	n, err := c.c.EstimatedDocumentCount(ctx)
	return n, c.wrap("count", err)
}

// iterateRaw is Iterate on the embedded engine, reading SQLite directly.
// The scan (SQLite, storage text to BSON, BSON to T) runs on a goroutine
// of its own and hands each full batch over to fn on the caller's: loading
// 100k memories, the scan and what fn does with a batch (indexing it) take
// about as long each, and now overlap. skip is called on the scan's
// goroutine.
func (c Collection[T]) iterateRaw(ctx context.Context, batch int, fn func([]T) error, skip func(id bson.RawValue, err error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	full := make(chan []T, 1)
	spare := make(chan []T, 2) // batches fn is done with, for the scan to refill
	var scanErr error
	go func() {
		defer close(full)
		buf := make([]T, 0, batch)
		send := func() error {
			select {
			case full <- buf:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case buf = <-spare:
			default:
				buf = make([]T, 0, batch)
			}
			return nil
		}
		scanErr = c.raw.iterate(ctx, c.Name(), func(raw bson.Raw) error {
			var doc T
			if err := bson.Unmarshal(raw, &doc); err != nil {
				if skip != nil {
					skip(raw.Lookup("_id"), fmt.Errorf("%w: %v", ErrUndecodable, err))
					return nil
				}
				return c.wrap("decode from", err)
			}
			buf = append(buf, doc)
			if len(buf) == batch {
				return send()
			}
			return nil
		})
		if scanErr == nil && len(buf) > 0 {
			scanErr = send()
		}
	}()
	var fnErr error
	for b := range full {
		if fnErr == nil {
			if fnErr = fn(b); fnErr != nil {
				cancel() // the scan stops; full is drained until it has
			}
		}
		clear(b)
		select {
		case spare <- b[:0]:
		default:
		}
	}
	if fnErr != nil {
		return fnErr
	}
	return scanErr
}

// Iterate reads every document in batches of up to batch documents and calls
// fn with each batch; the slice is reused, so fn must copy what it keeps.
// This is the one full scan the product makes: loading in-memory indexes.
func (c Collection[T]) Iterate(ctx context.Context, batch int, fn func([]T) error) error {
	return c.IterateSkipping(ctx, batch, fn, nil)
}

// IterateSkipping is Iterate, except that a document that does not decode
// into T is handed to skip (its _id, the error wrapping ErrUndecodable)
// and the scan goes on; with skip nil it ends the scan, as Iterate does.
func (c Collection[T]) IterateSkipping(ctx context.Context, batch int, fn func([]T) error, skip func(id bson.RawValue, err error)) error {
	if batch <= 0 {
		batch = 1000
	}
	if c.raw != nil {
		err := c.iterateRaw(ctx, batch, fn, skip)
		if !errors.Is(err, errNoRawTable) {
			return err
		}
	}
	cur, err := c.c.Find(ctx, bson.D{}, options.Find().SetBatchSize(int32(batch)))
	if err != nil {
		return c.wrap("scan", err)
	}
	defer cur.Close(ctx)
	buf := make([]T, 0, batch)
	for cur.Next(ctx) {
		var doc T
		if err := cur.Decode(&doc); err != nil {
			if skip == nil {
				return c.wrap("decode from", err)
			}
			skip(cur.Current.Lookup("_id"), fmt.Errorf("%w: %v", ErrUndecodable, err))
			continue
		}
		buf = append(buf, doc)
		if len(buf) == batch {
			if err := fn(buf); err != nil {
				return err
			}
			clear(buf)
			buf = buf[:0]
		}
	}
	if err := cur.Err(); err != nil {
		return c.wrap("scan", err)
	}
	if len(buf) > 0 {
		return fn(buf)
	}
	return nil
}

func (c Collection[T]) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("%s %s: %w: %v", op, c.Name(), ErrDuplicate, err)
	}
	return fmt.Errorf("cannot %s %s: %w", op, c.Name(), err)
}

// ErrConflict is returned by UpdateIf when the document exists but does
// not meet the condition (another writer changed it first).
var ErrConflict = errors.New("changed by another writer")

// UpdateIf is Update for the document with this _id that also matches
// cond (fields of the same filter); ErrConflict when it exists but does
// not match, ErrNotFound when it does not exist.
func (c Collection[T]) UpdateIf(ctx context.Context, id any, cond bson.D, update bson.D) error {
	filter := append(bson.D{{Key: "_id", Value: id}}, cond...)
	res, err := c.c.UpdateOne(ctx, filter, update)
	if err != nil {
		return c.wrap("update in", err)
	}
	if res.MatchedCount == 1 {
		return nil
	}
	n, err := c.c.CountDocuments(ctx, bson.D{{Key: "_id", Value: id}})
	if err != nil {
		return c.wrap("update in", err)
	}
	if n == 0 {
		return fmt.Errorf("%s %v: %w", c.Name(), id, ErrNotFound)
	}
	return fmt.Errorf("%s %v: %w", c.Name(), id, ErrConflict)
}
