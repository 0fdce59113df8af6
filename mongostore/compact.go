package mongostore

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Compact reclaims space the way the engine allows and says what it did.
// On mongod (managed or external) it runs compact on each collection. On
// the embedded engine, whose SQLite files FerretDB keeps open, it
// checkpoints the write-ahead log into the database and truncates it; a
// full VACUUM would need the files to itself.
func (s *Store) Compact(ctx context.Context) (string, error) {
	if e, ok := s.eng.(*embedded); ok {
		return "sqlite wal checkpoint", compactSQLite(ctx, e.dataDir, s.db.Name())
	}
	for _, name := range CollectionNames {
		if err := s.db.RunCommand(ctx, bson.D{{Key: "compact", Value: name}}).Err(); err != nil {
			return "", fmt.Errorf("compact %s: %w", name, err)
		}
	}
	return "compact", nil
}

func compactSQLite(ctx context.Context, dataDir, database string) error {
	file := filepath.Join(dataDir, database+".sqlite")
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(file)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	// A checkpoint that meets readers still copies what it can and reports
	// busy rather than failing; the next run finishes the job.
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("wal checkpoint: %w", err)
	}
	return nil
}
