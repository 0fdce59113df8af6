package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// Memories with a path. A memory whose source is "file" has a path and
// exact text: the engine stores it as written (no normalisation, no
// duplicate check by text), in the Global scope unless it is edited into
// another, indexes, recalls, counts, backs up and forgets it like any
// memory, and neither merges, archives nor prunes it. Its text may be
// empty. What the paths mean (the memory tool's /memories directory, its
// listings and edits) is package memfiles'; the engine only checks that a
// path is plain (checkPath) and tells its users when any memory with a path
// may have changed another way (PathsVersion), so that a table of paths
// they keep stays true.

// Limits of a memory with a path.
const (
	// pathHistoryKeep is how many earlier texts a memory with a path
	// keeps in its history.
	pathHistoryKeep = 10
)

// PathsVersion changes whenever a memory with a path may have changed:
// any write to one (WritePaths' own too), another device's change applied
// by sync, a reload of the index. WritePaths writes only while it is the
// version its caller read the paths at.
type PathsVersion uint64

// PathsVersion is the current version: a table of paths read at another
// version may be out of date.
func (e *Engine) PathsVersion() PathsVersion { return PathsVersion(e.pathsVer.Load()) }

// bumpPaths marks every memory with a path as possibly changed.
func (e *Engine) bumpPaths() { e.pathsVer.Add(1) }

// touchesPath reports whether c changes a memory with a path: its text,
// its path or whether it is live.
func (e *Engine) touchesPath(c *change) bool {
	if c.op == opUse || c.op == opEmbed || c.op == opDropEmbedding {
		return false
	}
	if (c.op == opInsert || c.op == opEdit) && c.doc.Source == sourceFile {
		return true
	}
	it, ok := e.index().Lookup(c.id)
	return ok && it.Source == sourceFile
}

// PathMemories reads the live memories with a path, by _id from the
// index (no scan), and the version they reflect.
func (e *Engine) PathMemories(ctx context.Context) ([]Memory, PathsVersion, error) {
	if err := e.waitWrite(ctx); err != nil {
		return nil, 0, err
	}
	// Read before the index: a change from here on changes it again.
	v := PathsVersion(e.pathsVer.Load())
	found := e.index().Select(func(it *memindex.Entry) bool {
		return it.Kind == memindex.KindMemory && it.Live() && it.Source == sourceFile
	})
	ms, err := e.fetch(ctx, asHits(found))
	if err != nil {
		return nil, 0, err
	}
	return ms, v, nil
}

// PathCount is how many live memories with a path there are, from the
// index.
func (e *Engine) PathCount() int {
	return e.index().Count().PerSource[sourceFile]
}

// PathWrite is one write WritePaths makes.
type PathWrite struct {
	// ID is the memory to change; empty: a new memory.
	ID string
	// Path is the memory's path after the write.
	Path string
	// Text is its new text; nil keeps the text (a move to Path).
	Text *string
	// Forget soft-forgets the memory (unforget_memory brings it back);
	// Path and Text are not used.
	Forget bool
	// At is a new memory's time (zero: now).
	At time.Time
	// Restore, for a new memory only (an import of infmem's own export),
	// is what the file carried beyond its path and text: its id (refused
	// when a memory here has it), created and updated times, earlier
	// versions (at most pathHistoryKeep), use and pin.
	Restore *Restored
}

// WritePaths makes ws, in order (each to a different memory), if no
// memory with a path has changed
// since v; otherwise it writes nothing (ok false: read the paths again
// and retry). An edit keeps the previous text in the memory's history
// (the last pathHistoryKeep). It returns each write's memory id ("" for a
// memory that was gone by then) and the version after the writes, which
// reflects them. The texts are embedded first, outside the write lock.
func (e *Engine) WritePaths(ctx context.Context, v PathsVersion, ws []PathWrite) (ids []string, next PathsVersion, ok bool, err error) {
	if err := e.waitWrite(ctx); err != nil {
		return nil, 0, false, err
	}
	now := e.now()
	oids := make([]bson.ObjectID, len(ws))
	vecs := make([][]float32, len(ws))
	curs := make([]Memory, len(ws))
	for i, w := range ws {
		if w.ID != "" {
			if oids[i], err = parseID(w.ID); err != nil {
				return nil, 0, false, err
			}
		}
		if w.Forget {
			continue
		}
		if err := checkPath(w.Path); err != nil {
			return nil, 0, false, inputErrorf("path %q: %v", snippet(w.Path, 60), err)
		}
		if w.Text != nil {
			if err := e.checkPathText(w.Path, *w.Text); err != nil {
				return nil, 0, false, err
			}
		}
		if !w.At.IsZero() {
			if ws[i].At, err = checkTimestamp(w.At, now); err != nil {
				return nil, 0, false, err
			}
		}
		if w.ID == "" && w.Text == nil {
			return nil, 0, false, fmt.Errorf("a new memory at %s needs a text", w.Path)
		}
		if w.Restore != nil {
			if w.ID != "" {
				return nil, 0, false, fmt.Errorf("%s: only a new memory is restored", w.Path)
			}
			if err := e.checkPathRestore(w.Path, w.Restore, now); err != nil {
				return nil, 0, false, err
			}
		}
		if w.ID != "" {
			// Read before the lock; the version check below says it is
			// still current.
			if curs[i], err = e.get(ctx, oids[i], memindex.KindMemory); err != nil && !errIsNotFound(err) {
				return nil, 0, false, fmt.Errorf("cannot read %s: %w", w.Path, err)
			}
		}
		if w.Text != nil && (w.ID == "" || *w.Text != curs[i].Text) {
			vecs[i] = e.embedText(ctx, *w.Text)
		}
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if PathsVersion(e.pathsVer.Load()) != v {
		return nil, 0, false, nil
	}
	now = e.now()
	ids = make([]string, len(ws))
	for i := range ws {
		if oids[i].IsZero() {
			if oids[i], err = e.restoredID(ws[i].Restore); err != nil {
				return nil, 0, false, fmt.Errorf("%s: %w", ws[i].Path, err)
			}
		}
	}
	at := map[*change]int{}
	done, err := e.writeBatch(ctx, oids, func(i int, id bson.ObjectID) (*change, error) {
		c := e.pathChange(ws[i], id, curs[i], vecs[i], now)
		at[c] = i
		return c, nil
	}, func(c *change, n int, err error) error {
		return fmt.Errorf("memory %s (after %d): %w", c.id.Hex(), n, err)
	})
	for _, c := range done {
		ids[at[c]] = c.id.Hex()
	}
	return ids, PathsVersion(e.pathsVer.Load()), true, err
}

// pathChange is the change that makes w to memory id (cur: its document
// as read; vec: the new text's embedding); nil when the memory is gone.
// The caller holds writeMu.
func (e *Engine) pathChange(w PathWrite, id bson.ObjectID, cur Memory, vec []float32, now time.Time) *change {
	if w.Forget {
		return &change{op: opForget, id: id, kind: memindex.KindMemory, at: now}
	}
	if w.ID == "" {
		ts := w.At
		if ts.IsZero() {
			ts = now
		}
		text := *w.Text
		key := pathKey(w.Path, text)
		m := &mongostore.Memory{ID: id, Timestamp: ts, Text: text, Scope: scopes.Global, Tags: []string{}, Source: sourceFile,
			Path: w.Path, Importance: 0.5, ContentHash: keyHex(key), CreatedAt: now, UpdatedAt: now}
		doc := memindex.Doc{Text: text, Source: sourceFile, Scope: scopes.Global, Tags: []string{}, TS: ts, Created: now,
			Importance: 0.5, Key: key, Vec: vec}
		if w.Restore != nil {
			w.Restore.memory(m)
			doc = restoredDoc(m, nil, vec)
			doc.Key = key
		}
		return &change{op: opInsert, id: id, kind: memindex.KindMemory, insert: m, doc: doc}
	}
	it, ok := e.index().Lookup(id)
	if !ok || !it.Live() || cur.ID == "" {
		return nil
	}
	text := cur.Text
	if w.Text != nil {
		text = *w.Text
	}
	key := pathKey(w.Path, text)
	doc := memindex.Doc{Text: text, Source: sourceFile, Scope: cur.Scope, Conv: cur.ConversationID, Speaker: cur.Speaker, Tags: cur.Tags,
		TS: cur.Timestamp, Created: cur.CreatedAt, Importance: cur.Importance, UseCount: it.UseCount, Key: key,
		Archived: cur.Archived, Pinned: cur.Pinned, Vec: vec}
	set := bson.D{{Key: "path", Value: w.Path}, {Key: "content_hash", Value: keyHex(key)}}
	if text != cur.Text {
		// A new text is a new version: it keeps the previous one and
		// takes the time of the edit.
		history := append(slices.Clone(cur.History), mongostore.Revision{Text: cur.Text, Tags: cur.Tags, Importance: cur.Importance,
			Scope: cur.Scope, Category: cur.Category, ChangedAt: now})
		if len(history) > pathHistoryKeep {
			history = history[len(history)-pathHistoryKeep:]
		}
		doc.TS = now
		set = append(set, bson.E{Key: "text", Value: text}, bson.E{Key: "timestamp", Value: now}, bson.E{Key: "history", Value: history})
	} else {
		doc.Vec, doc.KeepVec = nil, true
	}
	set = append(set, bson.E{Key: "updated_at", Value: now})
	return &change{op: opEdit, id: id, kind: memindex.KindMemory, update: bson.D{{Key: "$set", Value: set}}, doc: doc}
}

// checkPathRestore checks what a new memory with a path restores: the
// rules of any restored memory, and no more earlier versions than a file
// keeps.
func (e *Engine) checkPathRestore(p string, r *Restored, now time.Time) error {
	if err := e.checkRestore(r, now); err != nil {
		return inputErrorf("%s: %v", p, err)
	}
	if len(r.History) > pathHistoryKeep {
		return inputErrorf("%s has %d earlier versions; a memory file keeps at most %d", p, len(r.History), pathHistoryKeep)
	}
	return nil
}

// CheckPathWrite checks a new memory with a path as WritePaths would
// (its path, text, time and what it restores), so that an import can
// refuse a bad input before it stores anything.
func (e *Engine) CheckPathWrite(w PathWrite) error {
	now := e.now()
	if err := checkPath(w.Path); err != nil {
		return inputErrorf("path %q: %v", snippet(w.Path, 60), err)
	}
	if w.Text == nil {
		return inputErrorf("a new memory at %s needs a text", w.Path)
	}
	if err := e.checkPathText(w.Path, *w.Text); err != nil {
		return err
	}
	if !w.At.IsZero() {
		if _, err := checkTimestamp(w.At, now); err != nil {
			return err
		}
	}
	if w.Restore != nil {
		return e.checkPathRestore(w.Path, w.Restore, now)
	}
	return nil
}

// pathKey is a memory with a path's content key: its path and text, so
// that two files with the same text, or a file and a note, are never taken
// for duplicates of each other.
func pathKey(p, text string) [16]byte { return contentKey("\x00file\x00" + p + "\x00" + text) }

// checkPathText checks a memory with a path's new text.
func (e *Engine) checkPathText(p, text string) error {
	if len(text) > e.opts.MaxContentBytes {
		return inputErrorf("%s would be %d bytes; the limit for one memory file is %d bytes (%d KiB): keep it shorter, or split it into several files", p, len(text), e.opts.MaxContentBytes, e.opts.MaxContentBytes>>10)
	}
	if !utf8.ValidString(text) {
		return inputErrorf("the content for %s is not valid UTF-8", p)
	}
	if strings.ContainsRune(text, 0) {
		return inputErrorf("the content for %s contains a NUL character; memory files hold text", p)
	}
	return nil
}

// Extension returns the value kept with this engine under key, made by
// mk the first time it is asked for: a package built over the engine
// (memfiles) keeps its state for one engine here, so that every user of
// the engine shares it and it lives as long as the engine does.
func (e *Engine) Extension(key any, mk func() any) any {
	e.extMu.Lock()
	defer e.extMu.Unlock()
	if v, ok := e.ext[key]; ok {
		return v
	}
	if e.ext == nil {
		e.ext = map[any]any{}
	}
	v := mk()
	e.ext[key] = v
	return v
}

// extensions is the engine's Extension state.
type extensions struct {
	extMu sync.Mutex
	ext   map[any]any
}
