package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// LeaseType is the Metadata type of lease records.
const LeaseType = "lease"

// Lease is a Metadata record (_id "lease:NAME") naming the one device
// allowed to do something (run scheduled maintenance and backups) until
// ExpiresAt. Its holder renews it well before then; a holder that crashed
// stops renewing and any device takes the lease once it has expired.
// Expiry is judged by the clock of the device asking, so devices' clocks
// must agree to well within the lease's length (NTP does).
type Lease struct {
	ID         string    `bson:"_id"`
	Type       string    `bson:"type"`
	Holder     string    `bson:"holder"`
	AcquiredAt time.Time `bson:"acquired_at"`
	RenewedAt  time.Time `bson:"renewed_at"`
	ExpiresAt  time.Time `bson:"expires_at"`
}

func leaseKey(name string) string { return LeaseType + ":" + name }

// AcquireLease takes or renews the lease name for holder until now+ttl,
// when holder holds it already or it has expired (or never existed). It
// returns the lease as it stands and whether holder holds it.
func (s *Store) AcquireLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (*Lease, bool, error) {
	now = now.UTC().Truncate(time.Millisecond)
	c := s.db.Collection(Metadata)
	key := leaseKey(name)
	// Renew our own.
	res, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}, {Key: "holder", Value: holder}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "renewed_at", Value: now}, {Key: "expires_at", Value: now.Add(ttl)}}}})
	if err != nil {
		return nil, false, fmt.Errorf("cannot renew lease %q: %w", name, err)
	}
	if res.MatchedCount == 0 {
		// Take an expired one: the filter names the expiry read, so of two
		// devices racing for it only one matches.
		cur, err := s.ReadLease(ctx, name)
		switch {
		case errors.Is(err, ErrNotFound):
			_, err := c.InsertOne(ctx, &Lease{ID: key, Type: LeaseType, Holder: holder, AcquiredAt: now, RenewedAt: now, ExpiresAt: now.Add(ttl)})
			if err != nil && !mongo.IsDuplicateKeyError(err) {
				return nil, false, fmt.Errorf("cannot take lease %q: %w", name, err)
			}
		case err != nil:
			return nil, false, err
		case cur.ExpiresAt.Before(now):
			_, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}, {Key: "holder", Value: cur.Holder}, {Key: "expires_at", Value: cur.ExpiresAt}},
				bson.D{{Key: "$set", Value: bson.D{{Key: "holder", Value: holder}, {Key: "acquired_at", Value: now},
					{Key: "renewed_at", Value: now}, {Key: "expires_at", Value: now.Add(ttl)}}}})
			if err != nil {
				return nil, false, fmt.Errorf("cannot take lease %q: %w", name, err)
			}
		}
	}
	l, err := s.ReadLease(ctx, name)
	if err != nil {
		return nil, false, err
	}
	return l, l.Holder == holder && l.ExpiresAt.After(now), nil
}

// ReleaseLease gives the lease up if holder holds it.
func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	_, err := s.db.Collection(Metadata).DeleteOne(ctx, bson.D{{Key: "_id", Value: leaseKey(name)}, {Key: "holder", Value: holder}})
	if err != nil {
		return fmt.Errorf("cannot release lease %q: %w", name, err)
	}
	return nil
}

// ReadLease reads the lease name; ErrNotFound when nobody ever took it.
func (s *Store) ReadLease(ctx context.Context, name string) (*Lease, error) {
	var l Lease
	if err := s.GetMeta(ctx, leaseKey(name), &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// Leases reads every lease record; one that does not decode is left out.
func (s *Store) Leases(ctx context.Context) ([]Lease, error) {
	cur, err := s.db.Collection(Metadata).Find(ctx, bson.D{{Key: "type", Value: LeaseType}})
	if err != nil {
		return nil, fmt.Errorf("cannot list leases: %w", err)
	}
	defer cur.Close(ctx)
	var out []Lease
	for cur.Next(ctx) {
		var l Lease
		if cur.Decode(&l) == nil {
			out = append(out, l)
		}
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("cannot list leases: %w", err)
	}
	return out, nil
}
