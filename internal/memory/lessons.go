package memory

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/content"
	"github.com/infmem/infmem/internal/memory/memindex"
)

// Lessons are standing instructions: the lessons prompt tells the model to
// apply them, and a relevant one ranks ahead of other memories. So a
// lesson the model stores (anything that steers it, a prompt injection
// among them, can make it call store_memory with source "lesson") is only
// a proposal, source SourceProposedLesson, stored with where it came from:
// it gets no ranking boost and the lessons prompt lists it apart, as not
// to be applied. It becomes a lesson when the user confirms it
// (ConfirmLesson: the page, 'infmem lessons confirm', or the confirm_lesson
// tool called on the user's word) (issue 22).

// Sources of lessons.
const (
	SourceLesson         = sourceLesson
	SourceProposedLesson = content.SourceProposedLesson
)

// ConfirmLesson makes the proposed lesson id a lesson. confirmed is false
// when it already was one.
func (e *Engine) ConfirmLesson(ctx context.Context, id string) (m Memory, confirmed bool, err error) {
	if err := e.waitWrite(ctx); err != nil {
		return Memory{}, false, err
	}
	oid, err := parseID(id)
	if err != nil {
		return Memory{}, false, err
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	it, ok := e.index().Lookup(oid)
	if !ok || !it.Live() {
		return Memory{}, false, inputErrorf("no live memory has id %s; it may have been forgotten (unforget_memory restores it)", id)
	}
	cur, err := e.get(ctx, oid, it.Kind)
	if err != nil {
		return Memory{}, false, err
	}
	switch cur.Source {
	case sourceLesson:
		return cur, false, nil
	case SourceProposedLesson:
	default:
		return Memory{}, false, inputErrorf("memory %s is a %s, not a proposed lesson", id, cur.Source)
	}
	now := e.now()
	c := change{op: opEdit, id: oid, kind: it.Kind,
		update: bson.D{{Key: "$set", Value: bson.D{{Key: "source", Value: sourceLesson}, {Key: "updated_at", Value: now}}}},
		doc: memindex.Doc{Text: cur.Text, Source: sourceLesson, Scope: cur.Scope, Conv: cur.ConversationID, Speaker: cur.Speaker, Tags: cur.Tags,
			TS: cur.Timestamp, Created: cur.CreatedAt, Importance: cur.Importance, UseCount: it.UseCount, Key: contentKey(cur.Text),
			Archived: cur.Archived, Pinned: it.Has(memindex.FlagPinned), KeepVec: true}}
	if err := e.apply(ctx, &c); err != nil {
		return Memory{}, false, fmt.Errorf("cannot confirm lesson %s: %w", id, err)
	}
	cur.Source = sourceLesson
	return cur, true, nil
}
