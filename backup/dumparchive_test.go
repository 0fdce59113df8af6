package backup

import (
	"bytes"
	"context"
	"hash/crc64"
	"testing"

	"github.com/mongodb/mongo-tools/common/archive"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/version"
	"github.com/infmem/infmem/mongostore"
)

// demuxOut receives one collection's documents from mongo-tools'
// Demultiplexer, as mongorestore's receivers do.
type demuxOut struct {
	docs  []bson.Raw
	crc   interface{ Sum64() uint64 }
	write func([]byte)
	ended bool
}

func newDemuxOut() *demuxOut {
	h := crc64.New(crc64.MakeTable(crc64.ECMA))
	o := &demuxOut{crc: h}
	o.write = func(b []byte) { h.Write(b) }
	return o
}

func (o *demuxOut) Write(b []byte) (int, error) {
	o.write(b)
	o.docs = append(o.docs, bson.Raw(bytes.Clone(b)))
	return len(b), nil
}
func (o *demuxOut) End()                  { o.ended = true }
func (o *demuxOut) Sum64() (uint64, bool) { return o.crc.Sum64(), true }

// toolsRead reads a whole archive with mongo-tools' own code, as
// mongorestore does: the prelude, then the Demultiplexer over the blocks
// (which checks each collection's checksum and that every collection the
// prelude lists ends). It returns the prelude, each collection's
// documents, and where the blocks begin.
func toolsRead(t *testing.T, data []byte) (*archive.Prelude, map[string]*demuxOut, int) {
	t.Helper()
	r := bytes.NewReader(data)
	var prelude archive.Prelude
	if err := prelude.Read(r); err != nil {
		t.Fatalf("prelude: %v", err)
	}
	start := len(data) - r.Len()
	demux := archive.CreateDemux(prelude.NamespaceMetadatas, r, false)
	outs := map[string]*demuxOut{}
	for _, cm := range prelude.NamespaceMetadatas {
		o := newDemuxOut()
		outs[cm.Collection] = o
		demux.Open(cm.Database+"."+cm.Collection, o)
	}
	if err := demux.Run(); err != nil {
		t.Fatalf("mongo-tools' demultiplexer: %v", err)
	}
	if r.Len() != 0 {
		t.Fatalf("%d bytes after the archive", r.Len())
	}
	for name, o := range outs {
		if !o.ended {
			t.Fatalf("%s never ended", name)
		}
	}
	return &prelude, outs, start
}

// TestWriteArchiveMatchesMongodump: the archive written from SQLite is the
// one mongodump writes of the same database: the same header (but for the
// tool's name), the same metadata of every collection, and, after the
// prelude, the same bytes (every block, document and checksum, in the same
// order). mongo-tools' own reader takes it, and our check of it counts
// what the database holds.
func TestWriteArchiveMatchesMongodump(t *testing.T) {
	env := openTestStore(t)
	ctx := context.Background()
	populate(t, env.store, 300)
	// An empty collection: its block is a header and a terminator.
	if _, err := env.store.Summaries.Raw().DeleteMany(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}

	var tools, ours bytes.Buffer
	must(t, dumpInto(ctx, env.store, &tools, newReporter(nil, "backup")))
	must(t, writeArchive(ctx, env.store, &ours, newReporter(nil, "backup")))

	tp, tdocs, tstart := toolsRead(t, tools.Bytes())
	op, odocs, ostart := toolsRead(t, ours.Bytes())
	th, oh := *tp.Header, *op.Header
	if oh.ToolVersion != "infmem "+version.String() {
		t.Errorf("tool version %q", oh.ToolVersion)
	}
	th.ToolVersion, oh.ToolVersion = "", ""
	if th != oh {
		t.Errorf("header %+v, mongodump's %+v", oh, th)
	}
	if len(op.NamespaceMetadatas) != len(tp.NamespaceMetadatas) || len(op.DBS) != 1 || op.DBS[0] != tp.DBS[0] {
		t.Fatalf("prelude lists %d collections of %v, mongodump's %d of %v", len(op.NamespaceMetadatas), op.DBS, len(tp.NamespaceMetadatas), tp.DBS)
	}
	want := map[string]archive.CollectionMetadata{}
	for _, cm := range tp.NamespaceMetadatas {
		want[cm.Collection] = *cm
	}
	for _, cm := range op.NamespaceMetadatas {
		if *cm != want[cm.Collection] {
			t.Errorf("metadata of %s:\n  %+v\nmongodump's\n  %+v", cm.Collection, *cm, want[cm.Collection])
		}
	}
	if !bytes.Equal(ours.Bytes()[ostart:], tools.Bytes()[tstart:]) {
		t.Errorf("the blocks differ from mongodump's (%d bytes, mongodump's %d)", len(ours.Bytes())-ostart, len(tools.Bytes())-tstart)
	}
	for name, o := range odocs {
		n, err := env.store.CountDocuments(ctx, name)
		must(t, err)
		if int64(len(o.docs)) != n || len(tdocs[name].docs) != len(o.docs) {
			t.Errorf("%s: %d documents, mongodump %d, the database %d", name, len(o.docs), len(tdocs[name].docs), n)
		}
	}
	if len(odocs[mongostore.ConversationHistory].docs) != 300 || len(odocs[mongostore.Summaries].docs) != 0 {
		t.Errorf("memories %d, summaries %d", len(odocs[mongostore.ConversationHistory].docs), len(odocs[mongostore.Summaries].docs))
	}

	sum, err := readArchive(ctx, bytes.NewReader(ours.Bytes()), nil)
	must(t, err)
	var total int64
	for _, o := range odocs {
		total += int64(len(o.docs))
	}
	if sum.documents() != total {
		t.Errorf("our check counts %d documents, mongo-tools' %d", sum.documents(), total)
	}
}
