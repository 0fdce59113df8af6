package memory

import (
	"context"
	"errors"
	"maps"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
)

// Several daemons (devices) may share one database (docs/SYNC.md). The
// engine's part in it is small, and exists only when Options.Follower is
// set:
//
//   - every change other devices must see (insert, edit, forget, unforget,
//     flag, embed, delete, link; not a use count, which each device keeps for
//     itself, nor the removal of an orphaned embedding) carries this
//     device's name in its document ("device");
//   - an edit applies only if the memory's updated_at is not newer than
//     the edit's and it is not forgotten; otherwise it fails with
//     ErrConflict and changes nothing, so among concurrent edits the newest
//     wins and a forget wins over any edit made without knowing of it;
//   - the write path tells the Follower, its one observer, of each such
//     change after the database write and the index update, before the
//     change is acknowledged (apply, write.go);
//   - the index follows the others' changes only through Follow, which
//     also keeps the follow position (how far it has read each other
//     device's changes) beside the index: the snapshot records it with
//     the index, a full load starts it from Follower.Heads.
//
// The feed, the follower, change streams and device records are package
// memsync's, which implements Follower.

// Follower keeps the index current with the other devices writing to the
// same database. The engine calls it at the points named.
type Follower interface {
	// Device is the name this engine's changes carry.
	Device() string
	// Starting runs before each attempt to load the index; an error fails
	// the attempt (it is retried). It is the first call the engine makes.
	Starting(ctx context.Context, e *Engine) error
	// Heads is, as a full load from the database begins, how far the
	// other devices' changes stand: the loaded index reflects them, and
	// following goes on from there.
	Heads(ctx context.Context) (map[string]int64, error)
	// Follow runs, once the index is loaded, until ctx ends.
	Follow(ctx context.Context)
	// Changed is the write path's observer: the database holds change c
	// and the index shows it; the change is acknowledged only if Changed
	// returns nil (otherwise it is saved but its writer hears the error).
	Changed(ctx context.Context, c Change) error
}

// Change is what the write path tells the Follower of one change.
type Change struct {
	ID bson.ObjectID
	// Kind is "memory" or "summary".
	Kind string
	// Op is insert, edit, forget, unforget, flag, embed, delete or link.
	Op string
	// At is when it was made, by the engine's clock.
	At time.Time
}

// ErrConflict means another device changed or forgot the memory first;
// this change was not made.
var ErrConflict = errors.New("the memory was changed or forgotten on another device at the same time; this change was not made: read it again and retry")

var opNames = map[op]string{opInsert: "insert", opEdit: "edit", opForget: "forget", opUnforget: "unforget",
	opFlag: "flag", opEmbed: "embed", opDelete: "delete", opLink: "link"}

// announced reports whether other devices hear of changes of this op.
func announced(o op) bool { _, ok := opNames[o]; return ok }

// observed reports whether c is stamped with the device and told to the
// Follower.
func (e *Engine) observed(c *change) bool { return e.follower != nil && announced(c.op) }

// changeOf is what the Follower hears of c.
func (e *Engine) changeOf(c *change) Change {
	kind := "memory"
	if c.kind == memindex.KindSummary {
		kind = "summary"
	}
	return Change{ID: c.id, Kind: kind, Op: opNames[c.op], At: e.now()}
}

// stampDevice puts this device's name into the change's database write.
func stampDevice(c *change, device string) {
	switch d := c.insert.(type) {
	case *mongostore.Memory:
		d.Device = device
	case *mongostore.Summary:
		d.Device = device
	}
	if c.op == opForget && c.update == nil {
		c.update = bson.D{{Key: "$set", Value: bson.D{{Key: "forgotten_at", Value: c.at.UTC()}, {Key: "updated_at", Value: c.at.UTC()}}}}
	}
	if c.update == nil {
		return
	}
	for i, el := range c.update {
		if el.Key == "$set" {
			if set, ok := el.Value.(bson.D); ok {
				c.update[i].Value = append(set[:len(set):len(set)], bson.E{Key: "device", Value: device})
				return
			}
		}
	}
	c.update = append(c.update[:len(c.update):len(c.update)], bson.E{Key: "$set", Value: bson.D{{Key: "device", Value: device}}})
}

// editCondition is the filter an edit in a shared database must also
// match: not forgotten, and not changed after the edit's own updated_at.
func editCondition(update bson.D) bson.D {
	cond := bson.D{{Key: "forgotten_at", Value: bson.D{{Key: "$exists", Value: false}}}}
	for _, el := range update {
		if el.Key != "$set" {
			continue
		}
		set, _ := el.Value.(bson.D)
		for _, f := range set {
			if f.Key == "updated_at" {
				cond = append(cond, bson.E{Key: "updated_at", Value: bson.D{{Key: "$lte", Value: f.Value}}})
			}
		}
	}
	return cond
}

// followState is the follow position. It changes only under writeMu too,
// so that a snapshot (which holds writeMu) sees a position matching its
// index.
type followState struct {
	mu  sync.Mutex
	pos map[string]int64
}

// FollowPosition is, per other device, the last of its changes the index
// reflects (nil without a Follower).
func (e *Engine) FollowPosition() map[string]int64 {
	if e.follower == nil {
		return nil
	}
	e.follow.mu.Lock()
	defer e.follow.mu.Unlock()
	return maps.Clone(e.follow.pos)
}

// setFollowPosition replaces the position (a load, a failed reload).
func (e *Engine) setFollowPosition(p map[string]int64) {
	e.follow.mu.Lock()
	e.follow.pos = maps.Clone(p)
	if e.follow.pos == nil {
		e.follow.pos = map[string]int64{}
	}
	e.follow.mu.Unlock()
}

// Followed is what Follow's function works on: the index and the follow
// position, under the engine's write lock.
type Followed struct {
	e           *Engine
	scopesStale bool
}

// Position is the last of device's changes the index reflects.
func (f *Followed) Position(device string) int64 {
	f.e.follow.mu.Lock()
	defer f.e.follow.mu.Unlock()
	return f.e.follow.pos[device]
}

// Advance records that the index reflects device's changes up to seq.
func (f *Followed) Advance(device string, seq int64) {
	f.e.follow.mu.Lock()
	f.e.follow.pos[device] = seq
	f.e.follow.mu.Unlock()
}

// Refresh makes the index's entry for id match the database: another
// device changed it. A document that breaks the rules a restore applies
// is left out of the index and recorded (Skipped), not an error.
func (f *Followed) Refresh(ctx context.Context, id bson.ObjectID) error {
	d, err := f.e.refreshDoc(ctx, id)
	if errors.Is(err, errSkipped) {
		return nil
	}
	if err != nil {
		return err
	}
	if d.Scope != "" {
		if _, known := f.e.scopes.Get(d.Scope); !known {
			f.scopesStale = true
		}
	}
	return nil
}

// Follow runs fn holding the write lock, so that no change of this engine
// interleaves with the others' it applies, and a snapshot sees a position
// matching its index. When a refreshed memory names a scope this engine
// does not know, the scopes are read again afterwards.
func (e *Engine) Follow(ctx context.Context, fn func(*Followed) error) error {
	f := &Followed{e: e}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	err := fn(f)
	if f.scopesStale {
		if err := e.scopes.Reload(ctx); err != nil {
			e.log.Warn("cannot reload the scopes another device created", "err", err)
		}
	}
	return err
}
