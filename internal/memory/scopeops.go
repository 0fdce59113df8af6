package memory

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/infmem/infmem/scopes"
)

// ScopeInfo is a scope with how many live memories it holds.
type ScopeInfo struct {
	Name            string
	Description     string
	Parent          string
	Active          bool
	RelatedKeywords []string
	CreatedAt       time.Time
	Memories        int
}

// ListScopes lists scopes, Global first; inactive ones only when asked.
func (e *Engine) ListScopes(ctx context.Context, includeInactive bool) ([]ScopeInfo, error) {
	if err := e.wait(ctx); err != nil {
		return nil, err
	}
	c := e.index().Count()
	var out []ScopeInfo
	for _, s := range e.scopes.List() {
		if !s.Active && !includeInactive {
			continue
		}
		out = append(out, toInfo(s, c.PerScope[s.Name]))
	}
	return out, nil
}

func toInfo(s scopes.Scope, n int) ScopeInfo {
	kw := s.RelatedKeywords
	if kw == nil {
		kw = []string{}
	}
	return ScopeInfo{Name: s.Name, Description: s.Description, Parent: s.Parent, Active: s.Active, RelatedKeywords: kw, CreatedAt: s.CreatedAt, Memories: n}
}

// CreateScope defines a scope. Creating one that exists is not an error:
// it returns the existing scope with created false.
func (e *Engine) CreateScope(ctx context.Context, s scopes.Scope) (info ScopeInfo, created bool, err error) {
	if err := e.waitWrite(ctx); err != nil {
		return ScopeInfo{}, false, err
	}
	s.Name = strings.TrimSpace(s.Name)
	s.Description = normalizeContent(s.Description)
	for i, k := range s.RelatedKeywords {
		s.RelatedKeywords[i] = normalizeContent(k)
	}
	got, err := e.scopes.Create(ctx, s)
	switch {
	case errors.Is(err, scopes.ErrExists):
		return toInfo(got, e.index().Count().PerScope[got.Name]), false, nil
	case errors.Is(err, scopes.ErrInvalidName), errors.Is(err, scopes.ErrNotFound):
		return ScopeInfo{}, false, inputErrorf("%s", err.Error())
	case err != nil:
		if strings.Contains(err.Error(), "description") {
			return ScopeInfo{}, false, inputErrorf("%s", err.Error())
		}
		return ScopeInfo{}, false, err
	}
	return toInfo(got, 0), true, nil
}

// SetScopeActive activates or deactivates a scope.
func (e *Engine) SetScopeActive(ctx context.Context, name string, active bool) (ScopeInfo, error) {
	s, err := e.scopes.SetActive(ctx, name, active)
	if errors.Is(err, scopes.ErrNotFound) {
		return ScopeInfo{}, e.unknownScope(name)
	}
	if err != nil {
		if strings.Contains(err.Error(), "Global") {
			return ScopeInfo{}, inputErrorf("%s", err.Error())
		}
		return ScopeInfo{}, err
	}
	return toInfo(s, e.index().Count().PerScope[s.Name]), nil
}

// UseScope resolves the scope a session makes active, creating it when
// automatic creation is on. An empty name clears the session's scope.
func (e *Engine) UseScope(ctx context.Context, name string) (canonical string, created bool, err error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", false, nil
	}
	if strings.EqualFold(name, scopes.All) {
		return "", false, inputErrorf("ALL cannot be the active scope; send an empty scope to search everything by default, or name one scope")
	}
	return e.storeScope(ctx, name, "")
}
