package backup

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/infmem/infmem/mongostore"
)

// Contents is what a fully verified backup holds.
type Contents struct {
	File string
	Size int64
	// Encryption is none, x25519 or passphrase.
	Encryption string
	// Manifest is the manifest beside the file; nil if it has none.
	Manifest *Manifest
	// Database is the database the archive was dumped from.
	Database      string
	ServerVersion string
	ToolVersion   string
	SchemaVersion int
	Collections   []CollectionContents
	// From and To span the timestamps of the memories; zero when there are none.
	From, To time.Time
	SHA256   string
}

// CollectionContents describes one collection of a backup.
type CollectionContents struct {
	Name      string
	Documents int64
	// Bytes is the size of its documents as BSON.
	Bytes int64
	// Indexes names its indexes, _id_ included.
	Indexes []string
}

// Documents is the total number of documents.
func (c *Contents) Documents() int64 {
	var n int64
	for _, cc := range c.Collections {
		n += cc.Documents
	}
	return n
}

// Verify decrypts and reads the whole backup at path, checking every layer
// (age authentication, gzip CRC, the archive's structure and per-collection
// CRCs, every document) and its manifest, and says what it holds. It never
// touches a database. A bad file yields a *RefusedError.
func Verify(ctx context.Context, path string, keys Keys, progress func(Progress)) (*Contents, error) {
	rep := newReporter(progress, "verify")
	rep.step("verifying", 0, 0)
	s, facts, err := readBackupFile(ctx, path, readOptions{keys: keys, progress: bytesProgress(rep)})
	if err != nil {
		return nil, err
	}
	rep.finish()
	return contentsOf(s, facts), nil
}

func bytesProgress(rep *reporter) func(done, total int64) {
	return func(done, total int64) {
		rep.update(done == total, func(p *Progress) { p.Bytes, p.TotalBytes = done, total })
	}
}

func contentsOf(s *archiveSummary, facts *fileFacts) *Contents {
	c := &Contents{
		File: filepath.Base(facts.path), Size: facts.size, Encryption: facts.encryption,
		Manifest: facts.manifest, Database: s.database, ServerVersion: s.serverVersion,
		ToolVersion: s.toolVersion, SchemaVersion: s.schemaVersion, From: s.from, To: s.to,
		SHA256: facts.sha256,
	}
	for _, coll := range s.collections {
		c.Collections = append(c.Collections, CollectionContents{
			Name: coll.name, Documents: coll.docs, Bytes: coll.bytes, Indexes: slices.Sorted(slices.Values(coll.indexes)),
		})
	}
	// mongodump writes collections in whatever order its workers take
	// them; list them in the schema's order, anything else after.
	rank := func(name string) int {
		if i := slices.Index(mongostore.CollectionNames, name); i >= 0 {
			return i
		}
		return len(mongostore.CollectionNames)
	}
	slices.SortStableFunc(c.Collections, func(a, b CollectionContents) int {
		if d := rank(a.Name) - rank(b.Name); d != 0 {
			return d
		}
		return strings.Compare(a.Name, b.Name)
	})
	return c
}
