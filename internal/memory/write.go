package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
)

// Every change the engine makes to a memory, whatever asked for it (a
// tool, maintenance, the background embedder, the access tracker, the
// start-up load), is a change carried by apply through the same sequence.

// op is what a change does.
type op uint8

const (
	// opInsert stores a new memory or summary (change.insert) and indexes
	// it (change.doc, with its embedding in doc.Vec when known).
	opInsert op = iota
	// opEdit updates a memory's document (change.update) and indexes it
	// again (change.doc): with a new embedding, or, with doc.KeepVec, the
	// stored embedding's scope, time and tags brought up to date.
	opEdit
	// opForget soft-forgets a memory at change.at, by change.update when
	// set (a merge says into which memory).
	opForget
	// opUnforget brings a soft-forgotten memory (text doc.Text) back with
	// its stored embedding, by change.update.
	opUnforget
	// opFlag sets (on) or clears change.flag, archived or pinned, by
	// change.update.
	opFlag
	// opUse records retrievals (change.update); the index has counted them.
	opUse
	// opEmbed stores a memory's embedding (doc.Vec) and nothing else.
	opEmbed
	// opDelete deletes a memory and its embedding for good.
	opDelete
	// opDropEmbedding deletes an embedding whose memory no longer exists.
	opDropEmbedding
	// opLink sets a memory's links (doc.Links: the memory that supersedes
	// it, those that contradict it) by change.update; supersede.go.
	opLink
)

// change is one write to one memory.
type change struct {
	op   op
	id   bson.ObjectID
	kind memindex.Kind
	// insert is opInsert's document: a *mongostore.Memory or a
	// *mongostore.Summary.
	insert any
	// update is the database update of opEdit, opUnforget, opFlag, opUse
	// and a merge's opForget.
	update bson.D
	// doc is the memory as the index holds it after opInsert and opEdit
	// (its scope, time and tags also go with a stored embedding);
	// opUnforget needs its Text, opEmbed its Vec. apply sets its ID and
	// Kind.
	doc  memindex.Doc
	at   time.Time // opForget
	flag memindex.Flag
	on   bool // opFlag
	// afterDB, when set, runs once the database holds the change, before
	// its embedding and the index hear of it: Store fills in doc.Vec,
	// embedded meanwhile, there.
	afterDB func()
}

// apply carries a change through the sequence every write to a memory
// takes, in this order:
//
//  1. the change journal: markDirty appends the id and syncs before the
//     database hears of the change, so that the index snapshot stays
//     usable after a crash (snapshot.go);
//  2. the database, in the collection the memory's kind lives in; then
//     change.afterDB, when set (Store: its embedding, computed meanwhile,
//     and the vector scan that must see the index without the memory);
//  3. its embedding in MemoryIndex: written (a new memory's after the
//     store is acknowledged, by the vector writer: vecwrite.go), deleted,
//     or its scope, time and tags updated;
//  4. the in-memory index;
//  5. the background embedder's queue, when the memory's text has no
//     embedding yet;
//  6. the one observer, Options.Follower (follower.go; package memsync,
//     with sync on only): the change is acknowledged only once it
//     returns. With a Follower a change other devices must see also
//     carries the device's name, and an edit applies only if the memory
//     was not changed since (ErrConflict).
//
// The caller holds writeMu (or is loading the index: nothing else writes
// then). A batch may journal all its ids first: one sync instead of one
// each (apply then finds them journaled). A database
// error stops the change before the index sees it; so does a failed
// embedding delete. A failed embedding write does not: the memory is
// stored, and the background embedder tries again. A delete of a memory
// whose document was already gone still removes what is left of it, then
// reports ErrNotFound.
func (e *Engine) apply(ctx context.Context, c *change) error {
	c.doc.ID, c.doc.Kind = c.id, c.kind
	if e.observed(c) {
		stampDevice(c, e.device)
	}
	if e.touchesPath(c) {
		defer e.bumpPaths()
	}
	// An embedding still waiting to be written goes first (vecwrite.go).
	e.flushVectorOf(ctx, c.id)
	e.markDirty(ctx, c.id)

	var err error
	existed := true
	switch c.op {
	case opInsert:
		switch d := c.insert.(type) {
		case *mongostore.Memory:
			err = e.store.Memories.Insert(ctx, d)
		case *mongostore.Summary:
			err = e.store.Summaries.Insert(ctx, d)
		default:
			err = fmt.Errorf("cannot insert a %T", d)
		}
	case opForget:
		if c.update == nil {
			err = e.collection(c.kind).SoftForget(ctx, c.id, c.at)
			break
		}
		fallthrough
	case opEdit, opUnforget, opFlag, opUse, opLink:
		if e.follower != nil && c.op == opEdit {
			err = e.collection(c.kind).UpdateIf(ctx, c.id, editCondition(c.update), c.update)
			if errors.Is(err, mongostore.ErrConflict) {
				err = fmt.Errorf("memory %s: %w", c.id.Hex(), ErrConflict)
			}
			break
		}
		err = e.collection(c.kind).Update(ctx, c.id, c.update)
	case opDelete:
		existed, err = e.collection(c.kind).Delete(ctx, c.id)
	}
	if err != nil {
		return err
	}
	if c.afterDB != nil {
		c.afterDB()
	}

	switch {
	case c.op == opDelete || c.op == opDropEmbedding:
		if _, err := e.store.Index.Delete(ctx, c.id); err != nil {
			return err
		}
	case c.op == opUnforget:
		c.doc.Vec = e.readVector(ctx, c.id)
	case c.doc.Vec != nil && c.op == opInsert && e.vecw.on:
		// Written after the store is acknowledged (vecwrite.go).
		e.vecw.add(c.doc)
	case c.doc.Vec != nil:
		if err := e.writeVector(ctx, c.doc); err != nil {
			e.log.Warn("embedding not stored; queued for the background embedder", "memory_id", c.id.Hex(), "err", err)
			c.doc.Vec = nil
		}
	case c.op == opEdit && c.doc.KeepVec:
		if err := e.updateVectorMeta(ctx, c.id, c.doc.Scope, c.doc.TS, c.doc.Tags); err != nil {
			e.log.Warn("cannot update the embedding's metadata", "memory_id", c.id.Hex(), "err", err)
		}
	}

	ix := e.index()
	switch c.op {
	case opInsert, opEdit:
		ix.Put(c.doc)
	case opForget:
		ix.SetForgotten(c.id, true, c.at, "", nil)
	case opUnforget:
		ix.SetForgotten(c.id, false, time.Time{}, c.doc.Text, c.doc.Vec)
	case opFlag:
		ix.SetFlag(c.id, c.flag, c.on)
	case opLink:
		ix.SetLinks(c.id, *c.doc.Links)
	case opEmbed:
		if c.doc.Vec != nil {
			ix.SetVec(c.id, c.doc.Vec)
		}
	case opDelete:
		ix.Remove(c.id)
	}

	needsVec := c.op == opInsert || c.op == opEdit && !c.doc.KeepVec || c.op == opUnforget || c.op == opEmbed
	if needsVec && c.doc.Vec == nil && e.opts.Embedder != nil {
		e.embeds.add(c.id, c.kind)
	}
	if e.observed(c) {
		// The one observer: acknowledged only once the other devices can
		// hear of it (follower.go).
		if err := e.follower.Changed(ctx, e.changeOf(c)); err != nil {
			return err
		}
	}
	if !existed {
		return fmt.Errorf("memory %s: %w", c.id.Hex(), ErrNotFound)
	}
	return nil
}

// writeBatch makes, in order, the change changeFor returns for each id (nil:
// none), after journaling all the ids at once: one sync for the batch. A
// change whose memory turns out to be gone is skipped; any other failure
// stops the batch, worded by fail (given how many changes were made
// before it). It returns the changes made. The caller holds writeMu.
func (e *Engine) writeBatch(ctx context.Context, ids []bson.ObjectID, changeFor func(i int, id bson.ObjectID) (*change, error),
	fail func(c *change, done int, err error) error) ([]*change, error) {
	e.markDirty(ctx, ids...)
	var done []*change
	for i, id := range ids {
		c, err := changeFor(i, id)
		switch {
		case err != nil:
			return done, err
		case c == nil:
			continue
		}
		switch err := e.apply(ctx, c); {
		case errIsNotFound(err):
		case err != nil:
			return done, fail(c, len(done), err)
		default:
			done = append(done, c)
		}
	}
	return done, nil
}

// writeIDs is writeBatch, under the write lock, for the memory ids a
// client sent (all parsed before anything changes).
func (e *Engine) writeIDs(ctx context.Context, ids []string, changeFor func(i int, id bson.ObjectID) (*change, error),
	fail func(c *change, done int, err error) error) ([]*change, error) {
	oids, err := parseIDs(ids)
	if err != nil {
		return nil, err
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	return e.writeBatch(ctx, oids, changeFor, fail)
}

// collection is what the engine asks alike of the two collections
// memories live in, ConversationHistory and Summaries.
type collection interface {
	Name() string
	Update(ctx context.Context, id any, update bson.D) error
	UpdateIf(ctx context.Context, id any, cond, update bson.D) error
	SoftForget(ctx context.Context, id any, t time.Time) error
	Delete(ctx context.Context, id any) (bool, error)
	RecordUses(ctx context.Context, uses []mongostore.Use) ([]mongostore.Use, error)
	FoldUses(ctx context.Context, uses []mongostore.Use) ([]mongostore.Use, error)
	LogUses(ctx context.Context, uses []mongostore.Use) (bool, error)
	LoggedUses(ctx context.Context) ([]mongostore.Use, error)
}

// collection is where memories of kind k live.
func (e *Engine) collection(k memindex.Kind) collection {
	if k == memindex.KindSummary {
		return e.store.Summaries
	}
	return e.store.Memories
}

// docFromMemory and docFromSummary are what the index takes of a stored
// memory and summary.
func docFromMemory(m *mongostore.Memory) memindex.Doc {
	return memindex.Doc{
		ID: m.ID, Kind: memindex.KindMemory, Text: m.Text, Source: m.Source, Scope: m.Scope, Conv: m.ConversationID, Speaker: m.Speaker,
		Tags: m.Tags, TS: m.Timestamp, Created: m.CreatedAt, Importance: m.Importance, UseCount: m.UseCount,
		Key: contentKey(m.Text), Forgotten: m.ForgottenAt != nil, ForgottenAt: timeOr(m.ForgottenAt), Archived: m.Archived, Pinned: m.Pinned,
		Links: memindex.StoredLinks(m.SupersededBy, m.Contradicts, m.LinksAbout, m.LinksByMeaning),
	}
}

func docFromSummary(s *mongostore.Summary) memindex.Doc {
	return memindex.Doc{
		ID: s.ID, Kind: memindex.KindSummary, Text: s.SummaryText, Source: sourceSummary, Scope: s.Scope, Conv: s.ConversationID,
		Tags: s.Tags, TS: s.Timestamp, Created: s.CreatedAt, Importance: s.Importance, UseCount: s.UseCount,
		Key: contentKey(s.SummaryText), Forgotten: s.ForgottenAt != nil, ForgottenAt: timeOr(s.ForgottenAt), Archived: s.Archived, Pinned: s.Pinned,
	}
}

func timeOr(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
