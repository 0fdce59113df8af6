package mongostore

import (
	"context"
	"errors"
	"time"
)

// snapshotKey is the Metadata record naming the one index snapshot that
// matches the database.
const snapshotKey = "index_snapshot"

type snapshotRecord struct {
	ID        string    `bson:"_id"`
	Type      string    `bson:"type"`
	Token     string    `bson:"token"`
	UpdatedAt time.Time `bson:"updated_at"`
}

// takeSnapshotToken reads the token of the index snapshot that matches the
// database, then clears it: from this open on, this process may write, so
// no snapshot is trusted again until its owner records a new one.
func (s *Store) takeSnapshotToken(ctx context.Context) error {
	var rec snapshotRecord
	err := s.GetMeta(ctx, snapshotKey, &rec)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	s.snapshotToken = rec.Token
	return s.DeleteMeta(ctx, snapshotKey)
}

// SnapshotToken is the token the database named as current when this store
// was opened ("" for none). An in-memory index snapshot carrying it reflects
// the database exactly.
func (s *Store) SnapshotToken() string { return s.snapshotToken }

// RecordSnapshot names token as the snapshot that matches the database now.
func (s *Store) RecordSnapshot(ctx context.Context, token string) error {
	return s.PutMeta(ctx, snapshotKey, &snapshotRecord{ID: snapshotKey, Type: "snapshot", Token: token, UpdatedAt: time.Now().UTC()})
}

// InvalidateSnapshot clears the snapshot record before the database changes.
func (s *Store) InvalidateSnapshot(ctx context.Context) error {
	return s.DeleteMeta(ctx, snapshotKey)
}

// ForgetSnapshotToken stops this store from vouching for any snapshot: the
// database changed after Open by other means than the memory engine (say,
// the rollback of an interrupted restore).
func (s *Store) ForgetSnapshotToken() { s.snapshotToken = "" }
