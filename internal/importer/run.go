package importer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/lookalike"
	"github.com/infmem/infmem/internal/memfiles"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/memory/content"
	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// The memory engine's limits on a memory's small fields (see
// internal/memory's store.go); the engine checks them again.
const (
	maxTags        = memory.MaxTags
	maxTagLen      = memory.MaxTagLen
	maxSpeakerLen  = 64
	maxConvIDLen   = 128
	maxCategoryLen = 64
)

// Target is the open memory an import writes into.
type Target struct {
	Memory *memory.Engine
	Store  *mongostore.Store
}

// Options configures Run.
type Options struct {
	// Scope puts every item into this scope; empty keeps the scopes the
	// input names (infmem's export) and puts the rest into DefaultScope.
	Scope        string
	DefaultScope string
	// MaxContentBytes is the engine's limit on a memory's text; longer
	// items are split into parts (default 32 KiB).
	MaxContentBytes int
	// DryRun reads and checks everything and reports what would be added,
	// without writing anything.
	DryRun bool
	// Workers bounds the stores running at once (default: the CPUs, at
	// most 8): each store embeds its text before it takes the engine's
	// write lock, so embeddings run in parallel.
	Workers  int
	Progress func(Progress)
	Logger   *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Progress is a snapshot of a running import.
type Progress struct {
	Step        string
	Done, Total int
	Final       bool
}

// Report says what an import did, or in a dry run what it would do.
type Report struct {
	Path   string `json:"path"`
	Format Format `json:"format"`
	// From says what the input held: "12 conversations", "3 notes".
	From   string `json:"from"`
	DryRun bool   `json:"dry_run"`
	// Items is how many memories the input makes (after splitting).
	Items int `json:"items"`
	// Added were stored (in a dry run: would be).
	Added int `json:"added"`
	// AlreadyImported were imported by an earlier run.
	AlreadyImported int `json:"already_imported"`
	// AlreadyPresent have the same text as a memory of their scope (stored
	// before, or earlier in this input): the engine keeps one. A dry run
	// counts only the repeats within the input.
	AlreadyPresent int `json:"already_present"`
	// Skipped are what the input holds but nothing to import: empty,
	// system and tool messages, deleted and superseded rows, auto-memory
	// index lines.
	Skipped int `json:"skipped"`
	// Split counts items longer than the engine's limit, each stored as
	// several parts.
	Split    int           `json:"split"`
	Archived int           `json:"archived,omitempty"`
	Scopes   []ScopeReport `json:"scopes"`
	// Profile lists what of the profile the input filled in.
	Profile  []string `json:"profile,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	Seconds  float64  `json:"seconds"`
	// ToAdd and Stored list, in a dry run, every item that would be added
	// and every one whose text a memory of its scope already holds, in
	// input order.
	ToAdd  []Listed `json:"to_add,omitempty"`
	Stored []Listed `json:"already_stored,omitempty"`
}

// Listed is one item of a dry run's lists.
type Listed struct {
	Scope string `json:"scope"`
	// Text is the item's text, shortened to ListedTextLen characters.
	Text string `json:"text"`
	// MemoryID is the memory that already holds it (Stored only).
	MemoryID string `json:"memory_id,omitempty"`
}

// ListedTextLen bounds a listed item's text.
const ListedTextLen = 300

// ScopeReport is one scope's share of an import.
type ScopeReport struct {
	Scope string `json:"scope"`
	// Created: the scope did not exist and was (would be) created.
	Created         bool `json:"created,omitempty"`
	Added           int  `json:"added"`
	AlreadyImported int  `json:"already_imported"`
	AlreadyPresent  int  `json:"already_present"`
}

// ledgerFlushEvery is how often a running import writes its ledger.
const ledgerFlushEvery = 2 * time.Second

// unit is one memory to store: an item, or a part of a long one.
type unit struct {
	item  *Item
	scope string
	text  string
	tags  []string
	key   ledgerKey
	// dupe: the same text is earlier in the input, in the same scope.
	dupe bool
	// restore is what it carries from infmem's export (Item.Restore); a
	// part of a split item keeps it without its id.
	restore *memory.Restored
}

// plan is a checked input: its units and the scopes to create.
type plan struct {
	units  []unit
	scopes []ScopeDef
	split  int
	// empty counts items with no text once cleaned.
	empty int
	warn  []string
}

func (o *Options) defaults() {
	if o.MaxContentBytes <= 0 {
		o.MaxContentBytes = 32 << 10
	}
	if o.DefaultScope == "" {
		o.DefaultScope = scopes.Global
	}
	if o.Workers <= 0 {
		o.Workers = min(runtime.GOMAXPROCS(0), 8)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Run imports in into t: it checks every item against the engine's rules
// first and refuses the whole input, naming each item at fault, when any
// fails; then it skips what an earlier import recorded and stores the
// rest, recording each item as it is stored.
func Run(ctx context.Context, t Target, in *Input, o Options) (*Report, error) {
	o.defaults()
	start := time.Now()
	rep := &Report{Path: in.Path, Format: in.Format, From: in.Units, DryRun: o.DryRun, Scopes: []ScopeReport{}}
	reg := t.Memory.Scopes()
	p, err := makePlan(in, o, reg)
	if err != nil {
		return nil, err
	}
	// What an export carries beyond the fields (ids, marks, links) is
	// checked before anything is stored too.
	probs := &Problems{Path: in.Path}
	for _, u := range p.units {
		var err error
		if u.item.Path != "" {
			// A file of the memory tool: its path, text and what it
			// restores, as memfiles will store it.
			err = memfiles.For(t.Memory).CheckImport(u.item.Path, u.text, u.item.Timestamp, u.restore)
		} else {
			err = t.Memory.CheckRestored(u.restore)
		}
		if err != nil {
			probs.add(inputErr(u.item.Where, "%v", err))
		}
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	rep.Split, rep.Warnings, rep.Skipped = p.split, append(slices.Clone(in.Warnings), p.warn...), in.Skipped+p.empty
	rep.Items = len(p.units)
	progress := newThrottle(o.Progress)
	progress.report(Progress{Step: "checking", Total: len(p.units)}, true)

	led, err := loadLedger(ctx, t.Store)
	if err != nil {
		return nil, err
	}
	perScope := map[string]*ScopeReport{}
	scopeRep := func(name string) *ScopeReport {
		f := strings.ToLower(name)
		if r := perScope[f]; r != nil {
			return r
		}
		r := &ScopeReport{Scope: name}
		if _, ok := reg.Get(name); !ok {
			r.Created = true
		}
		perScope[f] = r
		return r
	}
	for _, d := range p.scopes {
		scopeRep(d.Name)
	}
	var todo []*unit
	for i := range p.units {
		u := &p.units[i]
		sr := scopeRep(u.scope)
		switch {
		case led.has(u.key):
			sr.AlreadyImported++
			rep.AlreadyImported++
		case o.DryRun && u.dupe:
			sr.AlreadyPresent++
			rep.AlreadyPresent++
		default:
			todo = append(todo, u)
		}
	}
	finish := func() *Report {
		for _, r := range perScope {
			rep.Scopes = append(rep.Scopes, *r)
		}
		sort.Slice(rep.Scopes, func(i, j int) bool {
			return strings.ToLower(rep.Scopes[i].Scope) < strings.ToLower(rep.Scopes[j].Scope)
		})
		rep.Seconds = time.Since(start).Seconds()
		return rep
	}
	if o.DryRun {
		for _, u := range todo {
			sr := scopeRep(u.scope)
			l := Listed{Scope: sr.Scope, Text: snippet(u.text, ListedTextLen)}
			if id, ok := t.Memory.Stored(u.scope, u.text); ok {
				l.MemoryID = id
				rep.Stored = append(rep.Stored, l)
				sr.AlreadyPresent++
				rep.AlreadyPresent++
				continue
			}
			rep.ToAdd = append(rep.ToAdd, l)
			sr.Added++
			rep.Added++
		}
		if in.Profile != nil {
			rep.Profile = profileGaps(ctx, t.Memory, in.Profile)
		}
		return finish(), nil
	}

	files := map[string]string{}
	for _, u := range todo {
		if u.item.Path != "" {
			files[u.item.Path] = u.text
		}
	}
	if len(files) > 0 {
		if err := memfiles.For(t.Memory).CheckRoom(ctx, files); err != nil {
			if memory.IsInputError(err) {
				return nil, inputErr(in.Path, "%v", err)
			}
			return nil, err
		}
	}
	if err := createScopes(ctx, t.Memory, p.scopes, rep); err != nil {
		return nil, err
	}
	if err := freeIDs(ctx, t.Store, todo); err != nil {
		return nil, err
	}
	if in.Profile != nil {
		changed, err := mergeProfile(ctx, t.Memory, in.Profile)
		if err != nil {
			return nil, err
		}
		rep.Profile = changed
	}

	var archive []string
	// The ledger is written every few seconds, so an import cut short
	// (a crash, a kill) leaves little unrecorded.
	lastFlush := time.Now()
	stored, err := storeAll(ctx, t.Memory, todo, o, progress, func(u *unit, res memory.StoreResult) error {
		sr := scopeRep(u.scope)
		if res.DuplicateOf != "" {
			sr.AlreadyPresent++
			rep.AlreadyPresent++
		} else {
			sr.Added++
			rep.Added++
			switch {
			case u.item.Archived && u.restore != nil:
				rep.Archived++ // stored archived
			case u.item.Archived:
				archive = append(archive, res.ID)
			}
		}
		if err := led.add(ctx, u.key); err != nil {
			return err
		}
		if time.Since(lastFlush) >= ledgerFlushEvery {
			lastFlush = time.Now()
			return led.flush(ctx)
		}
		return nil
	})
	// What was stored is recorded even when the import stops early.
	if ferr := led.flush(context.WithoutCancel(ctx)); ferr != nil {
		err = errors.Join(err, ferr)
	}
	progress.report(Progress{Step: "storing", Done: stored, Total: len(todo), Final: true}, true)
	// What was archived in the export is archived again, even when the
	// import stopped early: a second run skips what this one stored.
	if len(archive) > 0 {
		n, aerr := t.Memory.Archive(context.WithoutCancel(ctx), archive, "archived when exported")
		rep.Archived = n
		if aerr != nil {
			err = errors.Join(err, fmt.Errorf("cannot archive the memories archived in the export: %w", aerr))
		}
	}
	// A large import would otherwise leave the index snapshot dropped
	// until the daemon stops: a crash meanwhile would cost a full reload.
	if rep.Added >= 1000 {
		if serr := t.Memory.Snapshot(context.WithoutCancel(ctx)); serr != nil {
			o.Logger.Warn("cannot write the index snapshot after an import", "err", serr)
		}
	}
	finish()
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("import interrupted after storing %d of %d memories; what was stored is recorded: run the same import again to finish", stored, len(todo))
		} else {
			err = fmt.Errorf("import stopped after storing %d of %d memories (what was stored is recorded; run the same import again to finish): %w", stored, len(todo), err)
		}
		return rep, err
	}
	o.Logger.Info("import done", "path", in.Path, "format", in.Format, "added", rep.Added,
		"already_imported", rep.AlreadyImported, "already_present", rep.AlreadyPresent, "seconds", rep.Seconds)
	return rep, nil
}

// embedBatch is how many texts an import embeds in one model call, and
// stores in one StoreMany unless more are waiting (storeBatchMax).
const embedBatch = 32

// storeBatchMax bounds how many embedded units one StoreMany takes when
// batches wait for the database: each StoreMany is a commit with its disk
// syncs (about 3 per call, 8–25 ms each on the build VM), which with the
// AMX embedding came to cost more than embedding the batch.
const storeBatchMax = 256

// embeddedBatch is units with their store requests, vectors filled in.
type embeddedBatch struct {
	units []*unit
	reqs  []memory.StoreRequest
}

// with returns b and the batches already waiting in ready, up to about
// storeBatchMax units, without waiting for more. b.units is a window on
// the plan's units, so a merge copies it rather than appending in place.
func (b embeddedBatch) with(ready <-chan embeddedBatch) embeddedBatch {
	merged := false
	for len(b.units) < storeBatchMax {
		select {
		case nb, ok := <-ready:
			if !ok {
				return b
			}
			if !merged {
				b.units, b.reqs = slices.Clip(slices.Clone(b.units)), slices.Clip(b.reqs)
				merged = true
			}
			b.units = append(b.units, nb.units...)
			b.reqs = append(b.reqs, nb.reqs...)
		default:
			return b
		}
	}
	return b
}

// storeAll stores units, calling done for each stored one, in the caller's
// goroutine. o.Workers goroutines each take a batch of units (of any
// conversations) and embed its texts in one model call (most of an
// import's time is embedding: a batch of 32 short messages costs about a
// third less per message, and the workers keep every core busy); this
// goroutine stores each embedded batch with one StoreMany (one write per
// collection, one journal sync, one index update). It stops at the first
// failure and returns how many were stored.
func storeAll(ctx context.Context, eng *memory.Engine, todo []*unit, o Options, progress *throttle, done func(*unit, memory.StoreResult) error) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan []*unit)
	// Room for a few batches per worker: while the database's writes (each
	// StoreMany a commit and a sync) are slower than the embedding, the
	// batches waiting are stored together (embeddedBatch.with).
	ready := make(chan embeddedBatch, 4*o.Workers)
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Go(func() {
			for units := range jobs {
				b := embeddedBatch{units: units, reqs: make([]memory.StoreRequest, len(units))}
				var texts []string
				for i, u := range units {
					it := u.item
					b.reqs[i] = memory.StoreRequest{
						Content: u.text, Scope: u.scope, Tags: u.tags, Source: it.Source, Timestamp: it.Timestamp,
						ConversationID: it.ConversationID, Speaker: it.Speaker, Importance: it.Importance, Category: it.Category,
						Restore: u.restore,
					}
					if it.Path == "" {
						texts = append(texts, u.text)
					}
				}
				if len(texts) == len(units) {
					if vecs := eng.EmbedBatch(ctx, texts); vecs != nil {
						for i := range b.reqs {
							b.reqs[i].Vector = vecs[i]
						}
					}
				}
				select {
				case ready <- b:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() {
		defer close(jobs)
		for start := 0; start < len(todo); start += embedBatch {
			select {
			case jobs <- todo[start:min(start+embedBatch, len(todo))]:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(ready)
	}()
	stored := 0
	var first error
	for b := range ready {
		if first != nil {
			continue
		}
		b = b.with(ready)
		res, errs, err := storeMany(ctx, eng, b.units, b.reqs)
		if err != nil {
			first = err
			cancel()
			continue
		}
		// Every stored unit of the batch is recorded, also those after
		// one that was refused.
		for i, u := range b.units {
			if errs[i] != nil {
				if first == nil {
					first = errs[i]
					if memory.IsInputError(errs[i]) {
						first = &InputError{Where: u.item.Where, Msg: errs[i].Error()}
					}
					cancel()
				}
				continue
			}
			stored++
			if err := done(u, res[i]); err != nil {
				if first == nil {
					first = err
					cancel()
				}
				break
			}
			progress.report(Progress{Step: "storing", Done: stored, Total: len(todo)}, false)
		}
	}
	if first == nil && stored < len(todo) {
		first = ctx.Err()
	}
	return stored, first
}

// makePlan checks every item and turns it into units: scope resolved,
// text cleaned and split to the size limit, tags within the limits, each
// with its ledger key.
func makePlan(in *Input, o Options, reg *scopes.Registry) (*plan, error) {
	p := &plan{}
	probs := &Problems{Path: in.Path}
	now := o.Now()
	canon := func(name string) string {
		if s, ok := reg.Get(name); ok {
			return s.Name
		}
		return name
	}
	// The scopes to create: those the units go to and, without --scope,
	// every scope the input defines (an export's empty ones too).
	want := map[string]bool{}
	if o.Scope != "" {
		if err := scopes.ValidateName(o.Scope); err != nil {
			return nil, fmt.Errorf("--scope: %w", err)
		}
	}
	defs := map[string]ScopeDef{}
	if o.Scope == "" {
		for _, d := range in.Scopes {
			if err := scopes.ValidateName(d.Name); err != nil {
				probs.add(inputErr(d.Where, "%v", err))
				continue
			}
			defs[strings.ToLower(d.Name)] = d
			want[strings.ToLower(d.Name)] = true
		}
	}
	seenKey := map[ledgerKey]bool{}
	seenText := map[string]bool{}
	limit := o.MaxContentBytes
	for i := range in.Items {
		it := &in.Items[i]
		scope := o.Scope
		if scope == "" {
			scope = it.Scope
		}
		if scope == "" {
			scope = o.DefaultScope
		}
		if o.Scope == "" && it.Scope != "" {
			if err := scopes.ValidateName(it.Scope); err != nil {
				probs.add(inputErr(it.Where, "%v", err))
				continue
			}
		}
		scope = canon(scope)
		tags, err := checkItem(it, now)
		if err != nil {
			probs.add(err)
			continue
		}
		if len(tags) > maxTags {
			p.warn = append(p.warn, fmt.Sprintf("%s: %d tags; kept the first %d", it.Where, len(tags), maxTags))
			tags = tags[:maxTags]
		}
		text := clean(it.Text)
		if it.Path != "" {
			text = it.Text // a memory file is exact text, and may be empty
		}
		if text == "" && it.Path == "" {
			p.empty++
			continue
		}
		parts := []string{text}
		if len(text) > limit && it.Path == "" {
			parts = content.Split(text, limit-partReserve)
			for j := range parts {
				parts[j] = fmt.Sprintf("%s\n\n(part %d of %d)", parts[j], j+1, len(parts))
			}
			p.split++
		}
		sf := strings.ToLower(scope)
		for j, t := range parts {
			part := 0
			if len(parts) > 1 {
				part = j + 1
			}
			k := itemKey(in.Format, sf, it.Key, part)
			if seenKey[k] {
				// The same item twice (a bullet repeated in one file):
				// once is enough.
				continue
			}
			seenKey[k] = true
			want[sf] = true
			tk := sf + "\x00" + foldText(t)
			r := it.Restore
			if r != nil && len(parts) > 1 {
				// A part is a new memory.
				c := *r
				c.ID = bson.ObjectID{}
				r = &c
			}
			p.units = append(p.units, unit{item: it, scope: scope, text: t, tags: tags, key: k, dupe: seenText[tk], restore: r})
			seenText[tk] = true
		}
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	// Scopes to create, parents first; a parent outside the input (an
	// export of one scope) is left to the scope's name.
	for f := range want {
		if _, ok := reg.Get(f); ok {
			continue
		}
		d, ok := defs[f]
		if !ok {
			d = ScopeDef{Name: nameOf(f, in, o)}
		}
		p.scopes = append(p.scopes, d)
	}
	sort.Slice(p.scopes, func(i, j int) bool {
		di, dj := depth(p.scopes[i], defs), depth(p.scopes[j], defs)
		return di < dj || di == dj && p.scopes[i].Name < p.scopes[j].Name
	})
	return p, nil
}

// nameOf is the spelling of the folded scope name f as given.
func nameOf(f string, in *Input, o Options) string {
	if strings.ToLower(o.Scope) == f {
		return o.Scope
	}
	if strings.ToLower(o.DefaultScope) == f {
		return o.DefaultScope
	}
	for _, it := range in.Items {
		if strings.ToLower(it.Scope) == f {
			return it.Scope
		}
	}
	return f
}

// depth is how many parents a scope has in defs.
func depth(d ScopeDef, defs map[string]ScopeDef) int {
	n := 0
	seen := map[string]bool{}
	for d.Parent != "" && !seen[strings.ToLower(d.Parent)] && n < 64 {
		seen[strings.ToLower(d.Parent)] = true
		n++
		p, ok := defs[strings.ToLower(d.Parent)]
		if !ok {
			break
		}
		d = p
	}
	return n + strings.Count(d.Name, "/")
}

// checkItem checks an item's fields against the engine's limits and
// returns its tags, cleaned. Items from infmem itself must already be
// within them; what other formats hold is shortened to fit.
func checkItem(it *Item, now time.Time) ([]string, *InputError) {
	var tags []string
	seen := map[string]bool{}
	for _, t := range it.Tags {
		t = strings.TrimSpace(strings.TrimLeft(oneLine(t), "#"))
		if r, ok := lookalike.FirstInvisible(t); ok {
			// The engine refuses a tag with an invisible character (it
			// looks like another); what other tools wrote is cleaned.
			if it.Strict {
				return nil, inputErr(it.Where, "tag %q contains an invisible or formatting character (%U)", snippet(t, 20), r)
			}
			t = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
				if lookalike.Invisible(r) {
					return ' '
				}
				return r
			}, t)), " ")
		}
		switch {
		case t == "" && it.Strict:
			return nil, inputErr(it.Where, "an empty tag")
		case t == "":
			continue
		case len(t) > maxTagLen && it.Strict:
			return nil, inputErr(it.Where, "tag %q is %d bytes; the limit is %d", snippet(t, 20), len(t), maxTagLen)
		case len(t) > maxTagLen:
			t = shorten(t, maxTagLen)
		}
		if f := memindex.FoldTag(t); !seen[f] {
			seen[f] = true
			tags = append(tags, t)
		}
	}
	if it.Strict && len(tags) > maxTags {
		return nil, inputErr(it.Where, "%d tags; the limit is %d", len(tags), maxTags)
	}
	if s := it.Source; s != "" && !slices.Contains(exportSources, s) {
		return nil, inputErr(it.Where, "source %q is not one of %v", s, exportSources)
	}
	if l := len(clean(it.Speaker)); l > maxSpeakerLen || strings.Contains(clean(it.Speaker), "\n") {
		return nil, inputErr(it.Where, "speaker %q is not a short one-line name (at most %d bytes)", snippet(it.Speaker, 20), maxSpeakerLen)
	}
	if l := len(clean(it.ConversationID)); l > maxConvIDLen || strings.Contains(clean(it.ConversationID), "\n") {
		return nil, inputErr(it.Where, "conversation id %q is not one line of at most %d bytes", snippet(it.ConversationID, 20), maxConvIDLen)
	}
	if l := len(clean(it.Category)); l > maxCategoryLen || strings.Contains(clean(it.Category), "\n") {
		return nil, inputErr(it.Where, "category %q is not one line of at most %d bytes", snippet(it.Category, 20), maxCategoryLen)
	}
	if p := it.Importance; p != nil && (*p < 0 || *p > 1 || *p != *p) {
		return nil, inputErr(it.Where, "importance %v is not between 0 and 1", *p)
	}
	if ts := it.Timestamp; !ts.IsZero() && (ts.Before(time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)) || ts.After(now.AddDate(1, 0, 0))) {
		return nil, inputErr(it.Where, "time %s is out of range (1900 to a year from now)", ts.UTC().Format(time.RFC3339))
	}
	return tags, nil
}

// freeIDs keeps the ids infmem's export gave the units' memories only
// where no memory here has them (a forgotten one too): the others are
// stored with new ids.
func freeIDs(ctx context.Context, store *mongostore.Store, units []*unit) error {
	var ids []bson.ObjectID
	for _, u := range units {
		if u.restore != nil && !u.restore.ID.IsZero() {
			ids = append(ids, u.restore.ID)
		}
	}
	taken := map[bson.ObjectID]bool{}
	for ch := range slices.Chunk(ids, 500) {
		for _, coll := range []func(context.Context, []bson.ObjectID) (map[bson.ObjectID]bool, error){store.Memories.Existing, store.Summaries.Existing} {
			got, err := coll(ctx, ch)
			if err != nil {
				return fmt.Errorf("cannot check the exported ids: %w", err)
			}
			maps.Copy(taken, got)
		}
	}
	for _, u := range units {
		if r := u.restore; r != nil && taken[r.ID] {
			c := *r
			c.ID = bson.ObjectID{}
			u.restore = &c
		}
	}
	return nil
}

// storeMany stores one batch: a file of the memory tool (an item with a
// path) as that file (memfiles: at its path, or beside a different file
// there), the rest with one StoreMany. res[i] and errs[i] answer reqs[i]
// as StoreMany's do.
func storeMany(ctx context.Context, eng *memory.Engine, units []*unit, reqs []memory.StoreRequest) ([]memory.StoreResult, []error, error) {
	res, errs := make([]memory.StoreResult, len(reqs)), make([]error, len(reqs))
	var rest []memory.StoreRequest
	var at []int
	for i, u := range units {
		if u.item.Path == "" {
			rest, at = append(rest, reqs[i]), append(at, i)
			continue
		}
		res[i], errs[i] = memfiles.For(eng).Import(ctx, u.item.Path, reqs[i].Content, reqs[i].Timestamp, u.restore)
	}
	if len(rest) == 0 {
		return res, errs, nil
	}
	r, e, err := eng.StoreMany(ctx, rest)
	if err != nil {
		return nil, nil, err
	}
	for j, i := range at {
		res[i], errs[i] = r[j], e[j]
	}
	return res, errs, nil
}

// createScopes creates the scopes the import needs that do not exist.
func createScopes(ctx context.Context, eng *memory.Engine, defs []ScopeDef, rep *Report) error {
	for _, d := range defs {
		s := scopes.Scope{Name: d.Name, Description: d.Description, CreatedAt: d.CreatedAt}
		if d.Parent != "" {
			if _, ok := eng.Scopes().Get(d.Parent); ok {
				s.Parent = d.Parent
			} else {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("scope %q: its parent %q is not in the input nor here; created without it", d.Name, d.Parent))
			}
		}
		if _, _, err := eng.CreateScope(ctx, s); err != nil {
			return fmt.Errorf("cannot create scope %q: %w", d.Name, err)
		}
	}
	return nil
}

// profileGaps lists what of p the profile here lacks (for a dry run).
func profileGaps(ctx context.Context, eng *memory.Engine, p *ProfileDef) []string {
	u, err := profileUpdate(ctx, eng, p)
	if err != nil {
		return nil
	}
	return describeUpdate(u)
}

// mergeProfile fills in what the profile here lacks from p: nothing that
// is already set is replaced.
func mergeProfile(ctx context.Context, eng *memory.Engine, p *ProfileDef) ([]string, error) {
	u, err := profileUpdate(ctx, eng, p)
	if err != nil {
		return nil, err
	}
	if len(describeUpdate(u)) == 0 {
		return nil, nil
	}
	_, changed, err := eng.UpdateProfile(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("cannot merge the exported profile: %w", err)
	}
	return changed, nil
}

func profileUpdate(ctx context.Context, eng *memory.Engine, p *ProfileDef) (memory.ProfileUpdate, error) {
	cur, err := eng.Profile(ctx)
	if err != nil {
		return memory.ProfileUpdate{}, err
	}
	var u memory.ProfileUpdate
	if cur.Name == "" && len(cur.Preferences)+len(cur.Facts)+len(cur.Contacts)+len(cur.Notes) == 0 {
		// An empty profile takes the exported one whole, with its times.
		u.CreatedAt, u.UpdatedAt = p.CreatedAt, p.UpdatedAt
	}
	if cur.Name == "" && strings.TrimSpace(p.Name) != "" {
		name := p.Name
		u.Name = &name
	}
	for k, v := range p.Preferences {
		if _, ok := cur.Preferences[k]; !ok {
			if u.SetPreferences == nil {
				u.SetPreferences = map[string]string{}
			}
			u.SetPreferences[k] = v
		}
	}
	for k, v := range p.Facts {
		if _, ok := cur.Facts[k]; !ok {
			if u.SetFacts == nil {
				u.SetFacts = map[string]string{}
			}
			u.SetFacts[k] = v
		}
	}
	for _, c := range p.Contacts {
		if !slices.ContainsFunc(cur.Contacts, func(x mongostore.Contact) bool { return strings.EqualFold(x.Name, c.Name) }) {
			u.AddContacts = append(u.AddContacts, mongostore.Contact{Name: c.Name, Relation: c.Relation, Notes: c.Notes})
		}
	}
	for _, n := range p.Notes {
		if !slices.Contains(cur.Notes, clean(n)) {
			u.AddNotes = append(u.AddNotes, n)
		}
	}
	return u, nil
}

func describeUpdate(u memory.ProfileUpdate) []string {
	var out []string
	if u.Name != nil {
		out = append(out, "name")
	}
	if len(u.SetPreferences) > 0 {
		out = append(out, "preferences")
	}
	if len(u.SetFacts) > 0 {
		out = append(out, "facts")
	}
	if len(u.AddContacts) > 0 {
		out = append(out, "contacts")
	}
	if len(u.AddNotes) > 0 {
		out = append(out, "notes")
	}
	return out
}

// throttle passes progress on at most ten times a second.
type throttle struct {
	fn   func(Progress)
	last time.Time
}

func newThrottle(fn func(Progress)) *throttle { return &throttle{fn: fn} }

func (t *throttle) report(p Progress, force bool) {
	if t.fn == nil {
		return
	}
	if now := time.Now(); force || now.Sub(t.last) >= 100*time.Millisecond {
		t.last = now
		t.fn(p)
	}
}
