package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/facts"
	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/memory/recall"
	"github.com/infmem/infmem/mongostore"
)

// StoreRequest is one memory to remember.
type StoreRequest struct {
	Content string
	// Scope is where to store it; empty means ActiveScope, then the default.
	Scope       string
	ActiveScope string
	Tags        []string
	// Source is conversation, note (default), user_profile, summary or lesson.
	// A summary is stored in the Summaries collection.
	Source string
	// Timestamp is when it happened; zero means now.
	Timestamp      time.Time
	ConversationID string
	Speaker        string
	// Importance in [0, 1]; nil means 0.5.
	Importance *float64
	Category   string
	// Vector, when set, is Content's embedding as this engine's
	// EmbedBatch made it (an import embeds many texts in one model call);
	// a vector of another length is ignored and the text embedded here.
	Vector []float32
	// Restore, from an import of infmem's own export, is what the memory
	// carries beyond the fields above (restore.go): stored with it, and
	// nothing is compared with earlier memories.
	Restore *Restored
}

// StoreResult says where a memory went.
type StoreResult struct {
	ID    string
	Scope string
	// DuplicateOf is set when an identical memory already existed in the
	// scope; nothing new was stored and ID is that memory's id.
	DuplicateOf  string
	ScopeCreated bool
	Collection   string
	// Similar lists memories of the same scope that say nearly the same
	// (cosine at least SimilarCosine), so the client can update one of
	// them instead of keeping both.
	Similar []Similar
	// Updates lists the earlier memories the new one replaces: the same
	// subject with a changed value (supersede.go). Each is kept, marked
	// superseded by the new one. SupersededBy is set instead when the new
	// memory happened before a stored one that replaces it; Contradicts
	// lists memories it contradicts.
	Updates      []Update
	SupersededBy *Update
	Contradicts  []Update
	// Unchecked, when set, says why the memory was not compared with
	// earlier ones (stored while the index loaded: late.go); DuplicateOf,
	// Similar and the updates are then unknown, not empty.
	Unchecked string
}

// Similar is a stored memory that reads like a new one (recall.Similar).
type Similar = recall.Similar

// Thresholds for reporting similar memories (recall's).
const (
	SimilarCosine     = recall.SimilarCosine
	ParaphraseCosine  = recall.ParaphraseCosine
	ParaphraseOverlap = recall.ParaphraseOverlap
)

// Store remembers a memory, unless an identical one is already in its scope.
func (e *Engine) Store(ctx context.Context, req StoreRequest) (StoreResult, error) {
	// While the index loads, to the database only (late.go).
	if res, ok, err := e.storeLate(ctx, req); ok {
		return res, err
	}
	if err := e.wait(ctx); err != nil {
		return StoreResult{}, err
	}
	in, err := e.checkStore(ctx, req)
	if err != nil {
		return StoreResult{}, err
	}
	text, scope, created := in.text, in.scope, in.created
	key := contentKey(text)
	// The embedding, the slow part of a store, starts before the write
	// lock and runs while the memory is written to the database (which
	// does not hold it): apply waits for it (afterDB below) before the
	// embedding and the index hear of the memory.
	var embedded chan []float32
	if _, dup := e.index().Duplicate(scope, key); !dup {
		embedded = make(chan []float32, 1)
		if e.opts.Embedder != nil && len(req.Vector) == e.dim {
			embedded <- req.Vector
		} else {
			go func() { embedded <- e.embedText(ctx, text) }()
		}
	}
	embedding := func() []float32 {
		if embedded == nil {
			return nil // a duplicate at first sight, gone since: embedded in the background
		}
		return <-embedded
	}

	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if id, ok := e.index().Duplicate(scope, key); ok {
		it, _ := e.index().Lookup(id)
		return StoreResult{ID: id.Hex(), Scope: scope, DuplicateOf: id.Hex(), ScopeCreated: created, Collection: e.collection(it.Kind).Name()}, nil
	}
	id, err := e.restoredID(req.Restore)
	if err != nil {
		return StoreResult{}, err
	}
	c := newStoreChange(in, id, key)
	if r := req.Restore; r != nil {
		m, s := restoreInto(r, c.insert)
		c.doc = restoredDoc(m, s, nil)
	}
	// Similar and the update check's vector candidates come from one scan
	// of the vectors (the pass is completed with the new memory's own
	// vector when relate ranks).
	// The scan starts as soon as the embedding is ready, while the
	// database write (and its sync) runs: under writeMu no other write
	// changes the index until apply puts the memory in it (retrievals
	// only count their uses), and the scan holds
	// the index's read lock from its start, so it sees the index without
	// the new memory, and apply's index step, after the database write,
	// waits for it (afterDB first waits until the scan holds that lock).
	var similar []memindex.Hit
	var pass *memindex.VectorPass
	var keywords chan keywordsAhead
	var ahead keywordsAhead
	takeAhead := func() keywordsAhead {
		if keywords != nil {
			ahead, keywords = <-keywords, nil
		}
		return ahead
	}
	// Whatever happens, the drawing ahead ends before the store does.
	defer takeAhead()
	if set, serr := e.searchScopes(scope, "", false); serr == nil && c.kind == memindex.KindMemory {
		// The update check's keyword candidates are drawn ahead too, as
		// the keyword index will be with the memory in it
		// (memindex.KeywordsAhead): the memory's Put is the next change
		// of the index (writeMu), waits for them (afterDB), and relate's
		// Rank checks that it was. The new text is parsed for it then
		// too. They are drawn once the embedding is done, beside the
		// vector scan (both hold the index's read lock): while the
		// embedding runs, the second core is left to its products
		// (embed's sharer) but for the database write.
		keywords = make(chan keywordsAhead, 1)
		var wait func() ([]memindex.Hit, *memindex.VectorPass)
		var vec []float32
		scanning := make(chan struct{})
		go func() {
			defer close(scanning)
			vec = embedding()
			go func() {
				ix := e.index()
				kw := ix.KeywordsAhead(id, text, ix.Analyze(text), memindex.Filter{Scopes: set}, recall.RelateVectorCandidates)
				keywords <- keywordsAhead{kw, facts.Parse(text)}
			}()
			wait = e.index().SimilarPassGo(vec, scope, ParaphraseCosine, 5, memindex.Filter{Scopes: set}, recall.RelateVectorCandidates)
		}()
		c.afterDB = func() {
			<-scanning
			c.doc.Vec = vec
			// The memory's Put follows: the keyword hits are drawn first.
			takeAhead()
		}
		err = e.apply(ctx, &c)
		// apply succeeds only past afterDB; when it failed before, the
		// scan may not have started (and is not waited for).
		if err == nil && wait != nil {
			similar, pass = wait()
		}
	} else {
		c.doc.Vec = embedding()
		similar = e.index().Similar(c.doc.Vec, scope, ParaphraseCosine, 5)
		err = e.apply(ctx, &c)
	}
	// The memory is stored and acknowledged once apply returns; a failed
	// embedding write is retried by the background embedder.
	if err != nil {
		return StoreResult{}, fmt.Errorf("cannot store memory: %w", err)
	}
	res := StoreResult{ID: id.Hex(), Scope: scope, ScopeCreated: created, Collection: e.collection(c.kind).Name()}
	if c.kind == memindex.KindMemory && req.Restore == nil {
		ahead := takeAhead()
		rel, err := e.relate(ctx, &c.doc, pass, ahead.pass, ahead.mine)
		if err != nil {
			e.log.Warn("cannot compare the new memory with earlier ones", "memory_id", id.Hex(), "err", err)
		}
		res.Updates, res.SupersededBy, res.Contradicts = rel.updates, rel.supersededBy, rel.contradicts
	}
	// Below SimilarCosine only a memory sharing most of the words can be
	// the same fact; the others are not worth reading.
	close := similar[:0]
	for _, h := range similar {
		if h.Score >= SimilarCosine || e.index().Overlap(id, h.ID) >= ParaphraseOverlap {
			close = append(close, h)
		}
	}
	if len(close) > 0 {
		ms, err := e.fetch(ctx, asHits(close))
		if err != nil {
			e.log.Warn("cannot read similar memories", "err", err)
		}
		cl := make([]recall.Close, len(ms))
		for i, m := range ms {
			cl[i] = recall.Close{ID: m.ID, Text: m.Text, Cos: m.Confidence}
		}
		res.Similar = recall.CompareSimilar(text, cl)
		// What updates already lists is not repeated.
		res.Similar = slices.DeleteFunc(res.Similar, func(s Similar) bool {
			return slices.ContainsFunc(res.Updates, func(u Update) bool { return u.ID == s.ID })
		})
	}
	return res, nil
}

// newStoreChange is the insert of a new memory (or summary) id with
// key, as in says.
func newStoreChange(in storeInput, id bson.ObjectID, key [16]byte) change {
	c := change{op: opInsert, id: id, doc: memindex.Doc{Text: in.text, Source: in.source, Scope: in.scope, Conv: in.conv, Speaker: in.speaker,
		Tags: in.tags, TS: in.ts, Created: in.now, Importance: in.importance, Key: key}}
	if in.source == sourceSummary {
		c.kind = memindex.KindSummary
		c.insert = &mongostore.Summary{
			ID: id, ConversationID: in.conv, SummaryText: in.text, Scope: in.scope, Tags: in.tags, Method: "client",
			Timestamp: in.ts, Importance: in.importance, ContentHash: keyHex(key), CreatedAt: in.now, UpdatedAt: in.now,
		}
	} else {
		c.insert = &mongostore.Memory{
			ID: id, ConversationID: in.conv, Timestamp: in.ts, Speaker: in.speaker, Text: in.text, Scope: in.scope, Tags: in.tags,
			Source: in.source, Importance: in.importance, Category: in.category, ContentHash: keyHex(key), CreatedAt: in.now, UpdatedAt: in.now,
		}
	}
	return c
}

// keywordsAhead is what a store draws for its update check while its
// memory is written.
type keywordsAhead struct {
	pass *memindex.KeywordPass
	mine *facts.Statement
}

// storeInput is a StoreRequest checked and put in the form it is stored in.
type storeInput struct {
	text, source, scope, speaker, conv, category string
	tags                                         []string
	importance                                   float64
	now, ts                                      time.Time
	// created: the scope did not exist and was created.
	created bool
}

// checkStore checks and normalises what Store and StoreMany are asked to
// store, and finds (or creates) its scope.
func (e *Engine) checkStore(ctx context.Context, req StoreRequest) (storeInput, error) {
	text := normalizeContent(req.Content)
	if text == "" {
		return storeInput{}, inputErrorf("content is empty; send the text to remember, e.g. \"The Apollo deadline is June 5\"")
	}
	if len(text) > e.opts.MaxContentBytes {
		return storeInput{}, inputErrorf("content is %d bytes; the limit is %d bytes (%d KiB): store a shorter summary, or split it into several memories", len(text), e.opts.MaxContentBytes, e.opts.MaxContentBytes>>10)
	}
	tags, err := normalizeTags(req.Tags)
	if err != nil {
		return storeInput{}, err
	}
	source, err := checkSource(req.Source)
	if err == nil && source == sourceFile {
		err = inputErrorf("source %q is for the files of the memory tool, which writes them itself (with their path); store a note instead", sourceFile)
	}
	if err != nil {
		return storeInput{}, err
	}
	importance, err := checkImportance(req.Importance)
	if err != nil {
		return storeInput{}, err
	}
	speaker, conv, category, err := checkSmallFields(req.Speaker, req.ConversationID, req.Category)
	if err != nil {
		return storeInput{}, err
	}
	now := e.now()
	if err := e.checkRestore(req.Restore, now); err != nil {
		return storeInput{}, err
	}
	ts := now
	if !req.Timestamp.IsZero() {
		if ts, err = checkTimestamp(req.Timestamp, now); err != nil {
			return storeInput{}, err
		}
	}
	scope, created, err := e.storeScope(ctx, req.Scope, req.ActiveScope)
	if err != nil {
		return storeInput{}, err
	}
	return storeInput{text: text, source: source, scope: scope, speaker: speaker, conv: conv, category: category,
		tags: tags, importance: importance, now: now, ts: ts, created: created}, nil
}

// parseID turns a memory id from a client into an ObjectID.
// parseIDs parses every id before anything is changed.
func parseIDs(ids []string) ([]bson.ObjectID, error) {
	out := make([]bson.ObjectID, len(ids))
	for i, s := range ids {
		id, err := parseID(s)
		if err != nil {
			return nil, err
		}
		out[i] = id
	}
	return out, nil
}

func parseID(s string) (bson.ObjectID, error) {
	id, err := bson.ObjectIDFromHex(strings.TrimSpace(s))
	if err != nil {
		return id, inputErrorf("memory_id %q is not a memory id; use the 24-character memory_id from an earlier result, like 6650f1c2a3b4c5d6e7f80912", snippet(s, 40))
	}
	return id, nil
}
