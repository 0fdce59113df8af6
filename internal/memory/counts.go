package memory

import "context"

// Counts are how many memories there are, from the in-memory index alone:
// what a page header shows. Stats says the same and more, but also asks
// the database for its size, which on the embedded engine reads the whole
// file's statistics (about a second at 100k memories).
type Counts struct {
	// Live memories are neither forgotten nor archived; Summaries count
	// among them.
	Live, Forgotten, Archived, Summaries int
	// Scopes is how many scopes there are (with or without memories).
	Scopes int
}

// Counts tallies the memories the index holds.
func (e *Engine) Counts(ctx context.Context) (Counts, error) {
	if err := e.wait(ctx); err != nil {
		return Counts{}, err
	}
	c := e.index().Count()
	names := map[string]bool{}
	for _, n := range e.scopes.Names() {
		names[n] = true
	}
	for n := range c.PerScope {
		names[n] = true
	}
	return Counts{Live: c.Live, Forgotten: c.Forgotten, Archived: c.Archived, Summaries: c.Summaries, Scopes: len(names)}, nil
}
