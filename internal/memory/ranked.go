package memory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/memory/profile"
	"github.com/infmem/infmem/internal/memory/recall"
	"github.com/infmem/infmem/mongostore"
)

// Ranking is package recall's; these are its names in the engine's API.
type (
	// RankOptions tunes ranking (recall.Options).
	RankOptions = recall.Options
	// Evidence is what a search result's rank and confidence rest on.
	Evidence = recall.Evidence
)

// Ranking modes.
const (
	ModeHybrid  = recall.ModeHybrid
	ModeKeyword = recall.ModeKeyword
	ModeVector  = recall.ModeVector
)

// rank ranks the items f admits for query (recall.Rank) and returns the
// best k as hits to fetch.
func (e *Engine) rank(ctx context.Context, query string, loc *time.Location, f memindex.Filter, k int, mode string) ([]hit, error) {
	if loc == nil {
		loc = e.opts.Location
	}
	r := recall.Request{Query: query, Now: e.opts.Now(), Loc: loc, Filter: f, K: k, Mode: mode, Options: e.opts.Rank,
		Contacts: e.contacts, Log: e.log}
	if e.opts.Embedder != nil {
		r.Vector = e.queryVector
	}
	found, err := recall.Rank(ctx, e.index(), r)
	if err != nil {
		return nil, err
	}
	out := make([]hit, len(found))
	for i, h := range found {
		out[i] = hit{id: h.ID, kind: h.Kind, score: h.Score, weak: h.Weak, ts: h.TS, ev: h.Ev, folded: h.Folded, context: h.Context, uncut: h.Uncut}
	}
	return out, nil
}

// peopleTTL is how long the engine keeps the profile's contacts and time
// zone before reading them again (another device may have changed them);
// this engine's own profile updates drop them at once.
const peopleTTL = 10 * time.Second

// peopleCache keeps what searches and tool results read from the user's
// profile: its contacts (a query that names a relation) and its time zone
// (every result's local times). Reading the profile from the database
// cost a retrieval about half a millisecond.
type peopleCache struct {
	mu       sync.Mutex
	contacts []mongostore.Contact
	// loc is the zone the profile names (else the configured one) and
	// locErr why the profile's zone is not used (profile.PreferredLocation).
	loc    *time.Location
	locErr error
	at     time.Time
	valid  bool
}

func (c *peopleCache) drop() {
	c.mu.Lock()
	c.valid = false
	c.mu.Unlock()
}

// profileLocked reads the profile again when the cache is empty or old.
// The caller holds c.mu.
func (e *Engine) profileLocked(ctx context.Context) error {
	c := &e.people
	if c.valid && time.Since(c.at) <= peopleTTL {
		return nil
	}
	p, err := e.store.Profiles.Get(ctx, mongostore.DefaultUserID)
	if err != nil {
		return err
	}
	c.contacts, c.at, c.valid = p.Contacts, time.Now(), true
	c.loc, c.locErr = profile.PreferredLocation(p.Preferences, e.Location())
	return nil
}

// contacts are the profile's contacts, for a query that names people by
// relation ("what did I say about my sister?": Lena).
func (e *Engine) contacts(ctx context.Context) []mongostore.Contact {
	c := &e.people
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := e.profileLocked(ctx); err != nil {
		e.log.Warn("cannot read the profile's contacts for a search", "err", err)
		return nil
	}
	return c.contacts
}

// userLocation is UserLocation from the cached profile.
func (e *Engine) userLocation(ctx context.Context) (*time.Location, error) {
	c := &e.people
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := e.profileLocked(ctx); err != nil {
		return e.Location(), fmt.Errorf("cannot read the user profile: %w", err)
	}
	return c.loc, c.locErr
}

// contextTurns lists the turns ranking folded into hits as their context
// (hit.context), for fetchAlso to read beside the results.
func contextTurns(hits []hit) []hit {
	var turns []hit
	for _, h := range hits {
		for _, c := range h.context {
			turns = append(turns, hit{id: c.ID, kind: c.Kind})
		}
	}
	return turns
}

// withContext gives each result the turns ranking folded into it as its
// context (hit.context): ms, the documents of contextTurns(hits).
func (e *Engine) withContext(hits []hit, res, ms []Memory) {
	if len(ms) == 0 {
		return
	}
	byID := make(map[string]*Memory, len(ms))
	for i := range ms {
		byID[ms[i].ID] = &ms[i]
	}
	at := make(map[string]int, len(res))
	for i := range res {
		at[res[i].ID] = i
	}
	for _, h := range hits {
		i, ok := at[h.id.Hex()]
		if !ok {
			continue
		}
		for _, c := range h.context {
			if m := byID[c.ID.Hex()]; m != nil {
				res[i].Context = append(res[i].Context, Turn{ID: m.ID, Text: m.Text, Speaker: m.Speaker, Timestamp: m.Timestamp})
			}
		}
	}
}
