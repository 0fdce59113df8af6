package mongostore

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// GetMeta decodes the Metadata record with string _id key into out.
func (s *Store) GetMeta(ctx context.Context, key string, out any) error {
	err := s.db.Collection(Metadata).FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(out)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return fmt.Errorf("metadata %q: %w", key, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("cannot read metadata %q: %w", key, err)
	}
	return nil
}

// PutMeta writes doc as the Metadata record with string _id key, replacing
// any previous one. doc must carry the same _id (or none).
func (s *Store) PutMeta(ctx context.Context, key string, doc any) error {
	_, err := s.db.Collection(Metadata).ReplaceOne(ctx, bson.D{{Key: "_id", Value: key}}, doc, options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("cannot write metadata %q: %w", key, err)
	}
	return nil
}

// DeleteMeta removes the Metadata record with string _id key.
func (s *Store) DeleteMeta(ctx context.Context, key string) error {
	if _, err := s.db.Collection(Metadata).DeleteOne(ctx, bson.D{{Key: "_id", Value: key}}); err != nil {
		return fmt.Errorf("cannot delete metadata %q: %w", key, err)
	}
	return nil
}

// ScopeCollection is typed access to scope definitions in Metadata.
type ScopeCollection struct {
	Collection[Scope]
}

// List reads every scope definition. Metadata stays small (one record per
// scope plus a handful of others), so this filter's scan is cheap.
func (c ScopeCollection) List(ctx context.Context) ([]Scope, error) {
	cur, err := c.c.Find(ctx, bson.D{{Key: "type", Value: ScopeType}})
	if err != nil {
		return nil, fmt.Errorf("cannot list scopes: %w", err)
	}
	var out []Scope
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("cannot list scopes: %w", err)
	}
	return out, nil
}

// GetByName reads one scope definition by its exact name.
func (c ScopeCollection) GetByName(ctx context.Context, name string) (*Scope, error) {
	var sc Scope
	err := c.c.FindOne(ctx, bson.D{{Key: "type", Value: ScopeType}, {Key: "scope_name", Value: name}}).Decode(&sc)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("scope %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read scope %q: %w", name, err)
	}
	return &sc, nil
}
