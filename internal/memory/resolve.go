package memory

import (
	"context"
	"errors"
	"strings"

	"github.com/infmem/infmem/scopes"
)

// storeScope picks the scope a new memory goes to: the request's, else the
// session's active scope, else the configured default; creating it on first
// use when allowed.
func (e *Engine) storeScope(ctx context.Context, requested, active string) (name string, created bool, err error) {
	name = strings.TrimSpace(requested)
	if name == "" {
		name = active
	}
	if name == "" {
		name = e.opts.DefaultScope
	}
	if strings.EqualFold(name, scopes.All) {
		return "", false, inputErrorf("scope ALL is for searching; name one scope to store into (existing: %s), or leave scope empty for %q", e.scopeList(), e.defaultFor(active))
	}
	s, created, err := e.scopes.Ensure(ctx, name)
	switch {
	case errors.Is(err, scopes.ErrInvalidName):
		return "", false, inputErrorf("%s", err.Error())
	case errors.Is(err, scopes.ErrAutoCreateOff):
		return "", false, inputErrorf("scope %q does not exist and automatic scope creation is off; create it with create_memory_scope or use one of: %s", name, e.scopeList())
	case err != nil:
		return "", false, err
	}
	return s.Name, created, nil
}

func (e *Engine) defaultFor(active string) string {
	if active != "" {
		return active
	}
	return e.opts.DefaultScope
}

// searchScopes is the set of scopes a query reads. An explicit scope reads
// itself, its ancestors and Global (exact: itself only); ALL reads every
// active scope. With no scope named, the session's active scope decides; with
// none, the configured default, where a default of Global means every
// active scope (the user has not chosen to narrow anything).
func (e *Engine) searchScopes(requested, active string, exact bool) ([]string, error) {
	requested = strings.TrimSpace(requested)
	var name string
	switch {
	case requested != "":
		name = requested
	case active != "":
		name = active
	case e.opts.DefaultScope == scopes.Global:
		name = scopes.All
	default:
		name = e.opts.DefaultScope
	}
	if exact && !strings.EqualFold(name, scopes.All) {
		s, ok := e.scopes.Get(name)
		if !ok {
			return nil, e.unknownScope(name)
		}
		return []string{s.Name}, nil
	}
	set, err := e.scopes.SearchSet(name)
	if errors.Is(err, scopes.ErrNotFound) {
		if requested == "" && active != "" {
			return nil, inputErrorf("the session's active scope %q no longer exists; call set_active_scope with one of: %s", active, e.scopeList())
		}
		return nil, e.unknownScope(name)
	}
	return set, err
}

// subtreeScopes is a scope and the active scopes beneath it.
func (e *Engine) subtreeScopes(name string) ([]string, error) {
	set, err := e.scopes.Subtree(strings.TrimSpace(name))
	if errors.Is(err, scopes.ErrNotFound) {
		return nil, e.unknownScope(name)
	}
	return set, err
}

func (e *Engine) unknownScope(name string) error {
	return inputErrorf("there is no scope named %q; use one of: %s (or ALL for every scope)", name, e.scopeList())
}

func (e *Engine) scopeList() string {
	names := e.scopes.Names()
	if len(names) > 30 {
		names = append(names[:30], "…")
	}
	return strings.Join(names, ", ")
}
