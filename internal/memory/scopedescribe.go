package memory

import (
	"context"
	"errors"

	"github.com/infmem/infmem/scopes"
)

// DescribeScope replaces a scope's description (empty removes it),
// normalised as CreateScope normalises one.
func (e *Engine) DescribeScope(ctx context.Context, name, description string) (ScopeInfo, error) {
	if err := e.wait(ctx); err != nil {
		return ScopeInfo{}, err
	}
	description = normalizeContent(description)
	if len(description) > scopes.MaxDescriptionLen {
		return ScopeInfo{}, inputErrorf("a scope description is limited to %d bytes, not %d", scopes.MaxDescriptionLen, len(description))
	}
	s, err := e.scopes.SetDescription(ctx, name, description)
	if errors.Is(err, scopes.ErrNotFound) {
		return ScopeInfo{}, e.unknownScope(name)
	}
	if err != nil {
		return ScopeInfo{}, err
	}
	return toInfo(s, e.index().Count().PerScope[s.Name]), nil
}
