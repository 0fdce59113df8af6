package mongostore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// SchemaVersion is the version of the data layout this build writes.
const SchemaVersion = 1

// schemaKey is the Metadata _id of the schema record.
const schemaKey = "schema"

// Migration upgrades the database from schema version From to From+1.
type Migration struct {
	From  int
	Name  string
	Apply func(ctx context.Context, s *Store) error
}

// Migrations are applied in order at start when the stored schema is older.
// Each one must be idempotent: a crash before the version is bumped re-runs it.
var Migrations []Migration

// indexSpec describes one secondary index. Only options both FerretDB and
// MongoDB accept are used: plain, compound, unique and sparse (no partial,
// TTL or text indexes).
type indexSpec struct {
	name   string
	keys   bson.D
	unique bool
	sparse bool
}

var indexes = map[string][]indexSpec{
	ConversationHistory: {
		{name: "conversation_id_1_timestamp_1", keys: bson.D{{Key: "conversation_id", Value: 1}, {Key: "timestamp", Value: 1}}},
		{name: "scope_1", keys: bson.D{{Key: "scope", Value: 1}}},
		{name: "tags_1", keys: bson.D{{Key: "tags", Value: 1}}},
		{name: "timestamp_1", keys: bson.D{{Key: "timestamp", Value: 1}}},
	},
	Summaries: {
		{name: "conversation_id_1", keys: bson.D{{Key: "conversation_id", Value: 1}}},
		{name: "topic_id_1", keys: bson.D{{Key: "topic_id", Value: 1}}, sparse: true},
		{name: "scope_1", keys: bson.D{{Key: "scope", Value: 1}}},
		{name: "tags_1", keys: bson.D{{Key: "tags", Value: 1}}},
	},
	UserProfile: {},
	MemoryIndex: {
		{name: "source_id_1", keys: bson.D{{Key: "source_id", Value: 1}}, unique: true},
		{name: "scope_1", keys: bson.D{{Key: "scope", Value: 1}}},
	},
	Metadata: {
		// Sparse, because Metadata also holds records without a scope_name
		// (schema, stats, job runs) and partial indexes are not portable.
		{name: "scope_name_1", keys: bson.D{{Key: "scope_name", Value: 1}}, unique: true, sparse: true},
		{name: "type_1", keys: bson.D{{Key: "type", Value: 1}}},
	},
}

type schemaRecord struct {
	ID        string    `bson:"_id"`
	Type      string    `bson:"type"`
	Version   int       `bson:"version"`
	UpdatedAt time.Time `bson:"updated_at"`
}

// bootstrap creates collections, indexes, the Global scope and the default
// profile if missing, and migrates the schema. It is safe to run on every start.
func (s *Store) bootstrap(ctx context.Context) error {
	existing, err := s.db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return fmt.Errorf("cannot list collections: %w", err)
	}
	have := make(map[string]bool, len(existing))
	for _, n := range existing {
		have[n] = true
	}
	for _, name := range CollectionNames {
		if !have[name] {
			err := s.db.CreateCollection(ctx, name)
			// Another process may have created it between list and create.
			var ce mongo.CommandError
			if err != nil && !(errors.As(err, &ce) && (ce.Code == 48 || ce.Name == "NamespaceExists")) {
				return fmt.Errorf("cannot create collection %s: %w", name, err)
			}
		}
		if err := s.ensureIndexes(ctx, name); err != nil {
			return err
		}
	}
	if err := s.migrate(ctx); err != nil {
		return err
	}
	now := time.Now().UTC()
	if _, err := s.Scopes.GetByName(ctx, "Global"); errors.Is(err, ErrNotFound) {
		err := s.Scopes.Insert(ctx, &Scope{
			ID: bson.NewObjectID(), Type: ScopeType, ScopeName: "Global",
			Description: "Memories that apply everywhere; every scope's search includes them.",
			CreatedAt:   now, Active: true,
		})
		if err != nil && !errors.Is(err, ErrDuplicate) {
			return fmt.Errorf("cannot create the Global scope: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("cannot read the Global scope: %w", err)
	}
	if _, err := s.Profiles.Get(ctx, DefaultUserID); errors.Is(err, ErrNotFound) {
		err := s.Profiles.Insert(ctx, &Profile{
			ID: DefaultUserID, Preferences: map[string]string{}, Facts: map[string]string{},
			Contacts: []Contact{}, Notes: []string{}, CreatedAt: now, UpdatedAt: now,
		})
		if err != nil && !errors.Is(err, ErrDuplicate) {
			return fmt.Errorf("cannot create the default user profile: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("cannot read the user profile: %w", err)
	}
	return nil
}

// ensureIndexes creates the missing secondary indexes of a collection.
// Existing ones are skipped rather than re-sent: FerretDB v1.24 drops the
// connection when createIndexes names an index that already exists.
func (s *Store) ensureIndexes(ctx context.Context, collection string) error {
	return s.EnsureIndexesOn(ctx, collection, collection)
}

// EnsureIndexesOn creates the schema's secondary indexes of collection on
// the collection named target (a restore's staging copy): only infmem's
// own index keys and options, never ones read from elsewhere.
func (s *Store) EnsureIndexesOn(ctx context.Context, collection, target string) error {
	specs := indexes[collection]
	if len(specs) == 0 {
		return nil
	}
	coll := s.db.Collection(target)
	have, err := coll.Indexes().ListSpecifications(ctx)
	if err != nil {
		return fmt.Errorf("cannot list indexes of %s: %w", collection, err)
	}
	var models []mongo.IndexModel
	for _, sp := range specs {
		if slices.ContainsFunc(have, func(h mongo.IndexSpecification) bool { return h.Name == sp.name }) {
			continue
		}
		o := options.Index().SetName(sp.name)
		if sp.unique {
			o.SetUnique(true)
		}
		if sp.sparse {
			o.SetSparse(true)
		}
		models = append(models, mongo.IndexModel{Keys: sp.keys, Options: o})
	}
	if len(models) == 0 {
		return nil
	}
	if _, err := coll.Indexes().CreateMany(ctx, models); err != nil {
		return fmt.Errorf("cannot create indexes on %s: %w", collection, err)
	}
	return nil
}

func (s *Store) migrate(ctx context.Context) error {
	var rec schemaRecord
	err := s.GetMeta(ctx, schemaKey, &rec)
	switch {
	case errors.Is(err, ErrNotFound):
		// A fresh database starts at the current version.
		return s.PutMeta(ctx, schemaKey, &schemaRecord{ID: schemaKey, Type: "schema", Version: SchemaVersion, UpdatedAt: time.Now().UTC()})
	case err != nil:
		return fmt.Errorf("cannot read the schema version: %w", err)
	}
	if rec.Version > SchemaVersion {
		return fmt.Errorf("database %s has schema version %d, newer than this infmem understands (%d)\nhint: upgrade infmem, or restore a backup made by this version", s.db.Name(), rec.Version, SchemaVersion)
	}
	for rec.Version < SchemaVersion {
		m, ok := findMigration(rec.Version)
		if !ok {
			return fmt.Errorf("no migration from schema version %d", rec.Version)
		}
		s.log.Info("migrating schema", "from", m.From, "to", m.From+1, "migration", m.Name)
		if err := m.Apply(ctx, s); err != nil {
			return fmt.Errorf("schema migration %q (%d to %d) failed: %w", m.Name, m.From, m.From+1, err)
		}
		rec.Version = m.From + 1
		rec.UpdatedAt = time.Now().UTC()
		if err := s.PutMeta(ctx, schemaKey, &rec); err != nil {
			return fmt.Errorf("cannot record schema version %d: %w", rec.Version, err)
		}
	}
	return nil
}

func findMigration(from int) (Migration, bool) {
	for _, m := range Migrations {
		if m.From == from {
			return m, true
		}
	}
	return Migration{}, false
}

// SchemaVersionStored reads the schema version recorded in the database.
func (s *Store) SchemaVersionStored(ctx context.Context) (int, error) {
	var rec schemaRecord
	if err := s.GetMeta(ctx, schemaKey, &rec); err != nil {
		return 0, err
	}
	return rec.Version, nil
}

// MadeByBootstrap reports whether the named collection of the database
// holds nothing but what bootstrap writes into a collection it had to
// create (the schema record and the Global scope in Metadata, the default
// profile in UserProfile; nothing elsewhere). An interrupted restore's
// rollback uses it: a live name that an open re-created after the
// interruption holds only these defaults, whose real versions are in the
// collection the restore set aside.
func (s *Store) MadeByBootstrap(ctx context.Context, collection string) (bool, error) {
	cur, err := s.db.Collection(collection).Find(ctx, bson.D{}, options.Find().SetLimit(4))
	if err != nil {
		return false, fmt.Errorf("cannot read %s: %w", collection, err)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		doc := cur.Current
		id, _ := doc.Lookup("_id").StringValueOK()
		typ, _ := doc.Lookup("type").StringValueOK()
		name, _ := doc.Lookup("scope_name").StringValueOK()
		switch {
		case collection == Metadata && id == schemaKey:
		case collection == Metadata && typ == ScopeType && name == "Global":
		case collection == UserProfile && id == DefaultUserID:
		default:
			return false, nil
		}
	}
	return true, cur.Err()
}
