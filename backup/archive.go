package backup

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc64"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mongodb/mongo-tools/common/archive"
	bson1 "go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
)

// archiveCollection is what the archive says about one collection.
type archiveCollection struct {
	name string
	// indexes are the index names the prelude lists, in order.
	indexes []string
	docs    int64
	bytes   int64
	crc     hash.Hash64
	opened  bool
	closed  bool
}

// archiveSummary is what a complete read of an archive found.
type archiveSummary struct {
	serverVersion string
	toolVersion   string
	database      string
	// collections in prelude order.
	collections []*archiveCollection
	// from and to span the timestamps of ConversationHistory.
	from, to      time.Time
	schemaVersion int
}

// documents is the number of documents in all collections.
func (s *archiveSummary) documents() int64 {
	var n int64
	for _, c := range s.collections {
		n += c.docs
	}
	return n
}

func (s *archiveSummary) collection(name string) *archiveCollection {
	for _, c := range s.collections {
		if c.name == name {
			return c
		}
	}
	return nil
}

// archiveSink is told what a read of an archive finds, as it finds it.
type archiveSink interface {
	// doc receives each document. doc is reused after the call returns;
	// a sink that keeps it must copy it.
	doc(collection string, doc []byte) error
	// end says the last block of a collection has been read and its
	// checksum matched: no more of its documents follow.
	end(collection string) error
}

var crcTable = crc64.MakeTable(crc64.ECMA)

// errArchive marks a fault in the archive's own structure, as opposed to
// the compression or encryption layers around it.
var errArchive = errors.New("archive")

// readArchive reads a whole uncompressed mongodump archive from r through
// mongo-tools' parser, checking the prelude, every document, and each
// collection's CRC, and tells sink (which may be nil) each document and
// the end of each collection.
func readArchive(ctx context.Context, r io.Reader, sink archiveSink) (sum *archiveSummary, err error) {
	// mongo-tools' prelude parser decodes header blocks without checking
	// them first and panics on some malformed ones (found by
	// FuzzReadArchive); a damaged file is an error, never a crash.
	defer func() {
		if p := recover(); p != nil {
			sum, err = nil, fmt.Errorf("%w: the archive's structure is damaged (%v)", errArchive, p)
		}
	}()
	return readArchiveUnchecked(ctx, r, sink)
}

func readArchiveUnchecked(ctx context.Context, r io.Reader, sink archiveSink) (*archiveSummary, error) {
	parser := blockParser{in: r}
	var prelude archive.Prelude
	if err := parser.readPrelude(&prelude); err != nil {
		return nil, fmt.Errorf("%w: cannot read the archive prelude: %v", errArchive, err)
	}
	sum := &archiveSummary{}
	if prelude.Header != nil {
		sum.serverVersion = prelude.Header.ServerVersion
		sum.toolVersion = prelude.Header.ToolVersion
	}
	if len(prelude.DBS) != 1 {
		return nil, fmt.Errorf("%w: it holds %d databases, not one", errNotInfmem, len(prelude.DBS))
	}
	sum.database = prelude.DBS[0]
	for _, cm := range prelude.NamespaceMetadatas {
		if cm.Type != "" && cm.Type != "collection" {
			return nil, fmt.Errorf("%w: %s is a %s, not a collection", errNotInfmem, cm.Collection, cm.Type)
		}
		if !slices.Contains(mongostore.CollectionNames, cm.Collection) {
			return nil, fmt.Errorf("%w: it holds a collection %q, which is not one of infmem's (%s)", errNotInfmem, cm.Collection, strings.Join(mongostore.CollectionNames, ", "))
		}
		c := &archiveCollection{name: cm.Collection, crc: crc64.New(crcTable)}
		if cm.Metadata != "" {
			// Only the index names are read, for the dry run's listing:
			// the archive's options and index specifications are never
			// used (restore builds the schema's own). encoding/json, not
			// the driver's extended JSON parser, which can loop forever on
			// some malformed input (found by FuzzReadArchive).
			var md struct {
				Indexes []struct {
					Name string `json:"name"`
				} `json:"indexes"`
			}
			if err := json.Unmarshal([]byte(cm.Metadata), &md); err != nil {
				return nil, fmt.Errorf("%w: the metadata of %s does not parse: %v", errArchive, cm.Collection, err)
			}
			for _, ix := range md.Indexes {
				c.indexes = append(c.indexes, ix.Name)
			}
		}
		sum.collections = append(sum.collections, c)
	}
	for _, name := range mongostore.CollectionNames {
		if sum.collection(name) == nil {
			return nil, fmt.Errorf("%w: it has no %s collection", errNotInfmem, name)
		}
	}
	cons := &archiveConsumer{ctx: ctx, sum: sum, sink: sink}
	if err := parser.readAllBlocks(cons); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if cons.refused != nil {
			return nil, cons.refused
		}
		return nil, fmt.Errorf("%w: %w", errArchive, err)
	}
	return sum, nil
}

// errNotInfmem means a well-formed mongodump archive of something other
// than an infmem database.
var errNotInfmem = errors.New("not an infmem database")

// archiveConsumer implements archive.ParserConsumer over the data blocks.
type archiveConsumer struct {
	ctx  context.Context
	sum  *archiveSummary
	sink archiveSink
	cur  *archiveCollection
	n    int
	// refused is a document the tools' rules refuse.
	refused error
}

// namespaceHeader mirrors mongo-tools' archive.NamespaceHeader.
type namespaceHeader struct {
	Database   string `bson:"db"`
	Collection string `bson:"collection"`
	EOF        bool   `bson:"EOF"`
	CRC        int64  `bson:"CRC"`
}

func (c *archiveConsumer) HeaderBSON(buf []byte) error {
	var h namespaceHeader
	if err := bson.Unmarshal(buf, &h); err != nil {
		return fmt.Errorf("a block header does not parse: %v", err)
	}
	if h.Database != c.sum.database {
		return fmt.Errorf("a block belongs to database %q, which the prelude does not list", h.Database)
	}
	coll := c.sum.collection(h.Collection)
	if coll == nil {
		return fmt.Errorf("a block belongs to collection %q, which the prelude does not list", h.Collection)
	}
	if coll.closed {
		return fmt.Errorf("collection %s continues after its end", h.Collection)
	}
	coll.opened = true
	c.cur = coll
	if h.EOF {
		if got := int64(coll.crc.Sum64()); got != h.CRC {
			return fmt.Errorf("collection %s fails its checksum", h.Collection)
		}
		coll.closed = true
		c.cur = nil
		if c.sink != nil {
			return c.sink.end(coll.name)
		}
	}
	return nil
}

func (c *archiveConsumer) BodyBSON(buf []byte) error {
	if c.cur == nil {
		return errors.New("documents outside any collection")
	}
	if err := bson.Raw(buf).Validate(); err != nil {
		return fmt.Errorf("a document of %s is malformed: %v", c.cur.name, err)
	}
	if err := checkDocument(c.cur.name, bson.Raw(buf)); err != nil {
		id := "without an _id"
		if v, lerr := bson.Raw(buf).LookupErr("_id"); lerr == nil {
			if oid, ok := v.ObjectIDOK(); ok {
				id = oid.Hex()
			} else {
				id = v.String()
			}
		}
		// The parser keeps only the text of a consumer's error; the
		// refusal is kept here to be returned as itself.
		c.refused = fmt.Errorf("%w: the %s document %s breaks the rules the tools apply: %v", errNotInfmem, c.cur.name, id, err)
		return c.refused
	}
	c.cur.crc.Write(buf)
	c.cur.docs++
	c.cur.bytes += int64(len(buf))
	switch c.cur.name {
	case mongostore.ConversationHistory:
		if v, err := bson.Raw(buf).LookupErr("timestamp"); err == nil {
			if dt, ok := v.DateTimeOK(); ok {
				t := time.UnixMilli(dt).UTC()
				if c.sum.from.IsZero() || t.Before(c.sum.from) {
					c.sum.from = t
				}
				if t.After(c.sum.to) {
					c.sum.to = t
				}
			}
		}
	case mongostore.Metadata:
		if id, err := bson.Raw(buf).LookupErr("_id"); err == nil && isString(id, "schema") {
			if v, err := bson.Raw(buf).LookupErr("version"); err == nil {
				if n, ok := v.AsInt64OK(); ok {
					c.sum.schemaVersion = int(n)
				}
			}
		}
	}
	if c.n++; c.n%1024 == 0 {
		if err := c.ctx.Err(); err != nil {
			return err
		}
	}
	if c.sink != nil {
		return c.sink.doc(c.cur.name, buf)
	}
	return nil
}

func (c *archiveConsumer) End() error {
	var open []string
	for _, coll := range c.sum.collections {
		if !coll.closed {
			open = append(open, coll.name)
		}
	}
	if len(open) > 0 {
		sort.Strings(open)
		return fmt.Errorf("the archive ends before collections %v are complete: %w", open, io.ErrUnexpectedEOF)
	}
	return nil
}

func isString(v bson.RawValue, want string) bool {
	s, ok := v.StringValueOK()
	return ok && s == want
}

// blockParser reads an archive's blocks as mongo-tools' archive.Parser
// (ReadAllBlocks) does, with the same consumer calls and the same errors,
// but into a buffer that grows to the largest document read instead of
// the parser's fixed 16 MB array: an archive.Parser is a 16 MB object,
// live through a whole backup (the check of the archive as it is written),
// restore or verify, 16 of the ~30 MB a backup's daemon held above
// serving at 100k memories (BENCHMARKS.md, mem15).
// TestBlockParserMatchesTools compares the two.
type blockParser struct {
	in  io.Reader
	buf []byte
	n   int // the document in buf[:n]
}

// maxBSONSize is the largest document an archive may hold (mongo-tools'
// db.MaxBSONSize).
const maxBSONSize = 16 * 1024 * 1024

// blockParserError is mongo-tools' parserError, for the same text.
type blockParserError struct {
	err error
	msg string
}

func (e *blockParserError) Error() string {
	s := "corruption found in archive; " + e.msg
	if e.err != nil {
		s = fmt.Sprintf("%v ( %v )", s, e.err)
	}
	return s
}

// readBSONOrTerminator reads a terminator (true) or a document into buf.
func (p *blockParser) readBSONOrTerminator() (bool, error) {
	p.n = 0
	if cap(p.buf) < 4 {
		p.buf = make([]byte, 4, 1<<16)
	}
	p.buf = p.buf[:4]
	_, err := io.ReadFull(p.in, p.buf)
	if err == io.EOF {
		return false, err
	}
	if err != nil {
		return false, &blockParserError{err, "I/O error reading length or terminator"}
	}
	size := int32(uint32(p.buf[0]) | uint32(p.buf[1])<<8 | uint32(p.buf[2])<<16 | uint32(p.buf[3])<<24)
	if size == -1 {
		return true, nil
	}
	if size < 5 || size > maxBSONSize {
		return false, &blockParserError{nil, fmt.Sprintf("%v is neither a valid bson length nor a archive terminator", size)}
	}
	if cap(p.buf) < int(size) {
		p.buf = append(p.buf, make([]byte, int(size)-len(p.buf))...)
	}
	p.buf = p.buf[:size]
	if _, err := io.ReadFull(p.in, p.buf[4:size]); err != nil {
		return false, &blockParserError{err, "read bson"}
	}
	if p.buf[size-1] != 0 {
		return false, &blockParserError{nil, fmt.Sprintf("bson (size: %v, byte: %d) doesn't end with a null byte", size, p.buf[size-1])}
	}
	p.n = int(size)
	return false, nil
}

// readPrelude is archive.Prelude's Read (the magic number, then the
// header and the collections' metadata as one block), with the same
// errors, on p's buffer: Prelude.Read makes an archive.Parser of its own,
// whose 16 MB array was the one spike of a backup's memory once the
// blocks were read here (BENCHMARKS.md, mem16).
func (p *blockParser) readPrelude(prelude *archive.Prelude) error {
	var magic [4]byte
	if _, err := io.ReadAtLeast(p.in, magic[:], 4); err != nil {
		return fmt.Errorf("I/O failure reading beginning of archive: %v", err)
	}
	if binary.LittleEndian.Uint32(magic[:]) != archive.MagicNumber {
		return fmt.Errorf("stream or file does not appear to be a mongodump archive")
	}
	return p.readBlock(preludeConsumer{prelude})
}

// preludeConsumer is archive's preludeParserConsumer.
type preludeConsumer struct{ prelude *archive.Prelude }

func (c preludeConsumer) HeaderBSON(data []byte) error {
	c.prelude.Header = &archive.Header{}
	return bson1.Unmarshal(data, c.prelude.Header)
}

func (c preludeConsumer) BodyBSON(data []byte) error {
	cm := &archive.CollectionMetadata{}
	if err := bson1.Unmarshal(data, cm); err != nil {
		return err
	}
	c.prelude.AddMetadata(cm)
	return nil
}

func (c preludeConsumer) End() error { return nil }

// readAllBlocks is archive.Parser's ReadAllBlocks.
func (p *blockParser) readAllBlocks(c archive.ParserConsumer) error {
	var err error
	for err == nil {
		err = p.readBlock(c)
	}
	endErr := c.End()
	if err == io.EOF {
		return endErr
	}
	return err
}

// readBlock is archive.Parser's ReadBlock: a header, its documents, a
// terminator.
func (p *blockParser) readBlock(c archive.ParserConsumer) error {
	term, err := p.readBSONOrTerminator()
	if err != nil {
		return err
	}
	if term {
		return &blockParserError{nil, "consecutive terminators / headerless blocks are not allowed"}
	}
	if err := c.HeaderBSON(p.buf[:p.n]); err != nil {
		return &blockParserError{err, "ParserConsumer.HeaderBSON()"}
	}
	for {
		term, err = p.readBSONOrTerminator()
		if err != nil {
			return &blockParserError{err, "ParserConsumer.BodyBSON()"}
		}
		if term {
			return nil
		}
		if err := c.BodyBSON(p.buf[:p.n]); err != nil {
			return &blockParserError{err, "ParserConsumer.BodyBSON()"}
		}
	}
}
