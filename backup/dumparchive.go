package backup

import (
	"bufio"
	"context"
	"fmt"
	"hash/crc64"
	"io"
	"slices"
	"strings"

	"github.com/mongodb/mongo-tools/common/archive"
	"github.com/mongodb/mongo-tools/common/bsonutil"
	toolsdb "github.com/mongodb/mongo-tools/common/db"
	"github.com/mongodb/mongo-tools/mongodump"
	bson1 "go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/version"
	"github.com/infmem/infmem/mongostore"
)

// dumpWithTools makes the embedded engine's backups go through mongodump
// too (dumpInto), as they did before writeArchive; tests compare the two.
var dumpWithTools = false

// dump writes the store's database as a mongodump archive to out: on the
// embedded engine with writeArchive, on MongoDB with mongo-tools' mongodump.
func dump(ctx context.Context, store *mongostore.Store, out io.Writer, rep *reporter) error {
	if writesOwnArchive(store) {
		return writeArchive(ctx, store, out, rep)
	}
	return dumpInto(ctx, store, out, rep)
}

// writesOwnArchive says whether a backup of store is written by
// writeArchive rather than mongodump.
func writesOwnArchive(store *mongostore.Store) bool {
	return store.Engine == mongostore.ModeEmbedded && !dumpWithTools
}

// writeArchive writes the archive mongodump would write of the store's
// database (dumpInto: the same prelude, collection metadata, blocks and
// checksums; TestWriteArchiveMatchesMongodump compares the two), with the
// documents read straight from the embedded engine's SQLite file
// (Store.ScanDocuments) and written as they are read.
//
// Through mongodump, a backup of 100k memories allocated ~16 GB (FerretDB's
// conversions from its storage to BSON and the wire, the driver's and
// mongodump's copies of every document) and held mongo-tools' 16 MB
// multiplexer buffer per collection: the collector ran ~30 cycles a second
// and the daemon stood ~30 MB above serving (BENCHMARKS.md, mem15/mem16).
//
// The collection list, their options and indexes, and the server's
// version are asked of FerretDB as mongodump asks them, and the metadata
// is encoded by mongo-tools' own code. The collections are written one
// after another in the order the server lists them (mongodump with one
// worker, dumpParallel, takes them in that order too); the prelude lists
// them in the same order (mongodump's follows a map's).
func writeArchive(ctx context.Context, store *mongostore.Store, out io.Writer, rep *reporter) error {
	db := store.Database()
	cur, err := db.ListCollections(ctx, bson.D{})
	if err != nil {
		return fmt.Errorf("cannot list collections: %w", err)
	}
	var colls []*toolsdb.CollectionInfo
	for cur.Next(ctx) {
		ci := &toolsdb.CollectionInfo{}
		if err := bson1.Unmarshal(cur.Current, ci); err != nil {
			cur.Close(ctx)
			return fmt.Errorf("cannot read the collection list: %w", err)
		}
		if skipDumped(ci.Name) {
			continue
		}
		colls = append(colls, ci)
	}
	err = cur.Err()
	cur.Close(ctx)
	if err != nil {
		return fmt.Errorf("cannot list collections: %w", err)
	}

	prelude := &archive.Prelude{Header: &archive.Header{
		ConcurrentCollections: dumpParallel,
		FormatVersion:         archiveFormatVersion,
		ServerVersion:         serverVersion(ctx, store),
		ToolVersion:           "infmem " + version.String(),
	}}
	for _, ci := range colls {
		md, err := collectionMetadata(ctx, store, ci)
		if err != nil {
			return err
		}
		prelude.AddMetadata(&archive.CollectionMetadata{Database: db.Name(), Collection: ci.Name, Metadata: md, Type: ci.Type})
	}

	if rep.active() {
		// A progress bar's total, known before the first document: SQLite
		// counts a collection from its _id index in milliseconds.
		var total int64
		for _, ci := range colls {
			if n, err := store.CountDocuments(ctx, ci.Name); err == nil {
				total += n
			}
		}
		rep.update(true, func(p *Progress) { p.TotalDocs = total })
	}

	w := bufio.NewWriterSize(ctxWriter{ctx: ctx, w: out}, dumpBufferSize)
	if err := prelude.Write(w); err != nil {
		return err
	}
	var docs int64
	for _, ci := range colls {
		rep.update(true, func(p *Progress) { p.Collection = ci.Name })
		if ci.Type != "" && ci.Type != "collection" {
			// mongodump writes a view's metadata and an empty block;
			// the check of the archive refuses it (not infmem's).
			return fmt.Errorf("%s is a %s, not a collection", ci.Name, ci.Type)
		}
		if err := writeNamespace(w, db.Name(), ci.Name, false, 0); err != nil {
			return err
		}
		crc := crc64.New(crcTable)
		var inColl int64
		if _, err := store.ScanDocuments(ctx, ci.Name, func(doc bson.Raw) error {
			if _, err := w.Write(doc); err != nil {
				return err
			}
			crc.Write(doc)
			docs++
			if inColl++; inColl%256 == 0 {
				// The first count of each collection is always reported:
				// a small collection is read in less than the reporter's
				// 100 ms, and a bar would jump from one collection to the
				// next.
				n := docs
				rep.update(inColl == 256, func(p *Progress) { p.Docs = n })
			}
			return nil
		}); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("cannot dump %s: %w", ci.Name, err)
		}
		if _, err := w.Write(terminator); err != nil {
			return err
		}
		if err := writeNamespace(w, db.Name(), ci.Name, true, int64(crc.Sum64())); err != nil {
			return err
		}
		if _, err := w.Write(terminator); err != nil {
			return err
		}
		n := docs
		rep.update(true, func(p *Progress) {
			p.CollectionsDone++
			p.Docs = n
		})
	}
	return w.Flush()
}

// dumpBufferSize is how much of the archive writeArchive gathers before it
// hands it on (to the check, the compression and the file).
const dumpBufferSize = 256 << 10

// archiveFormatVersion is the archive format mongo-tools writes
// (archive.archiveFormatVersion).
const archiveFormatVersion = "0.1"

// terminator ends a block and the prelude (archive.terminatorBytes).
var terminator = []byte{0xff, 0xff, 0xff, 0xff}

// skipDumped says which collections a backup leaves out, as dumpInto's
// mongodump options and mongodump's own rules for a database other than
// admin, config and local do.
func skipDumped(name string) bool {
	if name == mongostore.FeedCollection || strings.Contains(name, "$") {
		return true
	}
	if strings.HasPrefix(name, "system.") && name != "system.js" {
		return true
	}
	return slices.ContainsFunc(stagingPrefixes, func(p string) bool { return strings.HasPrefix(name, p) })
}

// writeNamespace writes a block header: the start of a collection's
// documents, or (eof) its end with the checksum of all of them.
func writeNamespace(w io.Writer, db, coll string, eof bool, crc int64) error {
	h, err := bson1.Marshal(archive.NamespaceHeader{Database: db, Collection: coll, EOF: eof, CRC: crc})
	if err != nil {
		return err
	}
	_, err = w.Write(h)
	return err
}

// collectionMetadata is mongodump's metadata of one collection: its
// options, indexes, UUID and name as canonical extended JSON.
func collectionMetadata(ctx context.Context, store *mongostore.Store, ci *toolsdb.CollectionInfo) (string, error) {
	meta := mongodump.Metadata{Indexes: []bson1.D{}, Options: ci.Options, UUID: ci.GetUUID(), CollectionName: ci.Name, Type: ci.Type}
	if ci.Type != "view" {
		cur, err := store.Database().Collection(ci.Name).Indexes().List(ctx)
		if err != nil {
			return "", fmt.Errorf("cannot list the indexes of %s: %w", ci.Name, err)
		}
		for cur.Next(ctx) {
			var ix bson1.D
			if err := bson1.Unmarshal(cur.Current, &ix); err != nil {
				cur.Close(ctx)
				return "", fmt.Errorf("cannot read the indexes of %s: %w", ci.Name, err)
			}
			meta.Indexes = append(meta.Indexes, ix)
		}
		err = cur.Err()
		cur.Close(ctx)
		if err != nil {
			return "", fmt.Errorf("cannot list the indexes of %s: %w", ci.Name, err)
		}
	}
	js, err := bsonutil.MarshalExtJSONWithBSONRoundtripConsistency(meta, true, false)
	if err != nil {
		return "", fmt.Errorf("cannot encode the metadata of %s: %w", ci.Name, err)
	}
	return string(js), nil
}

// serverVersion is the server's version as mongodump records it
// ("unknown" if the server does not say).
func serverVersion(ctx context.Context, store *mongostore.Store) string {
	var out struct {
		Version string `bson:"version"`
	}
	if err := store.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&out); err != nil {
		return "unknown"
	}
	return out.Version
}
