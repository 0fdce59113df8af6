package scopes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
)

// ErrNotFound means no scope has the name.
var ErrNotFound = errors.New("no such scope")

// ErrExists means a scope with the name (in any letter case) exists.
var ErrExists = errors.New("scope exists")

// ErrAutoCreateOff means a scope would have been created on first use but
// scopes.auto_create is false.
var ErrAutoCreateOff = errors.New("scope does not exist and automatic creation is off")

// Scope is a scope definition.
type Scope struct {
	Name            string
	Description     string
	Active          bool
	Parent          string
	RelatedKeywords []string
	CreatedAt       time.Time
}

// Registry holds every scope definition in memory, backed by the Metadata
// collection. Names are unique regardless of letter case and are looked up
// case-insensitively, so "project alpha" finds "Project Alpha". Safe for
// concurrent use.
type Registry struct {
	store      *mongostore.Store
	autoCreate bool
	now        func() time.Time

	mu     sync.RWMutex
	byFold map[string]*mongostore.Scope
}

// Options configures a Registry.
type Options struct {
	// AutoCreate lets Ensure create a scope on first use.
	AutoCreate bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Load reads every scope definition from the store.
func Load(ctx context.Context, store *mongostore.Store, opts Options) (*Registry, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	r := &Registry{store: store, autoCreate: opts.AutoCreate, now: opts.Now}
	return r, r.Reload(ctx)
}

// Reload re-reads the definitions (after a restore, for instance).
func (r *Registry) Reload(ctx context.Context) error {
	defs, err := r.store.Scopes.List(ctx)
	if err != nil {
		return err
	}
	m := make(map[string]*mongostore.Scope, len(defs))
	for i := range defs {
		m[fold(defs[i].ScopeName)] = &defs[i]
	}
	r.mu.Lock()
	r.byFold = m
	r.mu.Unlock()
	return nil
}

func fold(name string) string { return strings.ToLower(name) }

func toScope(d *mongostore.Scope) Scope {
	return Scope{
		Name: d.ScopeName, Description: d.Description, Active: d.Active, Parent: d.ParentScope,
		RelatedKeywords: slices.Clone(d.RelatedKeywords), CreatedAt: d.CreatedAt,
	}
}

// Get finds a scope by name, ignoring letter case.
func (r *Registry) Get(name string) (Scope, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	d, ok := r.byFold[fold(name)]
	if !ok {
		return Scope{}, false
	}
	return toScope(d), true
}

// List returns every scope sorted by name, Global first.
func (r *Registry) List() []Scope {
	r.mu.RLock()
	out := make([]Scope, 0, len(r.byFold))
	for _, d := range r.byFold {
		out = append(out, toScope(d))
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if (out[i].Name == Global) != (out[j].Name == Global) {
			return out[i].Name == Global
		}
		return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name)
	})
	return out
}

// Names lists every scope name, Global first.
func (r *Registry) Names() []string {
	list := r.List()
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.Name
	}
	return names
}

// Create defines a new scope. The parent, when given, must exist.
func (r *Registry) Create(ctx context.Context, s Scope) (Scope, error) {
	if err := ValidateName(s.Name); err != nil {
		return Scope{}, err
	}
	if len(s.Description) > 1000 {
		return Scope{}, fmt.Errorf("a scope description is limited to 1000 bytes, not %d", len(s.Description))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, ok := r.byFold[fold(s.Name)]; ok {
		return toScope(d), fmt.Errorf("%w: %q", ErrExists, d.ScopeName)
	}
	if s.Parent != "" {
		p, ok := r.byFold[fold(s.Parent)]
		if !ok {
			return Scope{}, fmt.Errorf("%w: parent scope %q; create it first", ErrNotFound, s.Parent)
		}
		s.Parent = p.ScopeName
	}
	d := &mongostore.Scope{
		ID: bson.NewObjectID(), Type: mongostore.ScopeType, ScopeName: s.Name, Description: s.Description,
		CreatedAt: r.now().UTC(), Active: true, RelatedKeywords: s.RelatedKeywords, ParentScope: s.Parent,
	}
	if err := r.store.Scopes.Insert(ctx, d); err != nil {
		return Scope{}, fmt.Errorf("cannot create scope %q: %w", s.Name, err)
	}
	r.byFold[fold(s.Name)] = d
	return toScope(d), nil
}

// Ensure returns the scope with this name, creating it when it does not
// exist and automatic creation is on. created reports a new scope.
func (r *Registry) Ensure(ctx context.Context, name string) (s Scope, created bool, err error) {
	if sc, ok := r.Get(name); ok {
		return sc, false, nil
	}
	if err := ValidateName(name); err != nil {
		return Scope{}, false, err
	}
	if !r.autoCreate {
		return Scope{}, false, fmt.Errorf("%w: %q", ErrAutoCreateOff, name)
	}
	s, err = r.Create(ctx, Scope{Name: name})
	if errors.Is(err, ErrExists) {
		return s, false, nil
	}
	return s, err == nil, err
}

// SetActive activates or deactivates a scope. Inactive scopes are left out
// of searches that do not name them. Global is always active.
func (r *Registry) SetActive(ctx context.Context, name string, active bool) (Scope, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.byFold[fold(name)]
	if !ok {
		return Scope{}, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	if d.ScopeName == Global && !active {
		return Scope{}, errors.New("the Global scope cannot be deactivated")
	}
	if err := r.store.Scopes.Update(ctx, d.ID, bson.D{{Key: "$set", Value: bson.D{{Key: "active", Value: active}}}}); err != nil {
		return Scope{}, fmt.Errorf("cannot update scope %q: %w", d.ScopeName, err)
	}
	d.Active = active
	return toScope(d), nil
}

// Delete removes a scope's definition (not its memories). Global stays.
func (r *Registry) Delete(ctx context.Context, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.byFold[fold(name)]
	if !ok {
		return fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	if d.ScopeName == Global {
		return errors.New("the Global scope cannot be deleted")
	}
	if _, err := r.store.Scopes.Delete(ctx, d.ID); err != nil {
		return fmt.Errorf("cannot delete scope %q: %w", d.ScopeName, err)
	}
	delete(r.byFold, fold(name))
	return nil
}

// SearchSet is the set of scope names a query in scope name may read:
// the scope itself, its ancestors and Global. A query in ALL reads every
// active scope. Descendants are not included: a memory stored in a child
// scope stays private to it unless the query names it or ALL.
func (r *Registry) SearchSet(name string) ([]string, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if strings.EqualFold(name, All) {
		var out []string
		for _, d := range r.byFold {
			if d.Active {
				out = append(out, d.ScopeName)
			}
		}
		sort.Strings(out)
		return out, nil
	}
	d, ok := r.byFold[fold(name)]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	out := []string{d.ScopeName}
	seen := map[string]bool{fold(d.ScopeName): true}
	for p := d.ParentScope; p != ""; {
		pd, ok := r.byFold[fold(p)]
		if !ok || seen[fold(pd.ScopeName)] {
			break
		}
		seen[fold(pd.ScopeName)] = true
		out = append(out, pd.ScopeName)
		p = pd.ParentScope
	}
	if !seen[fold(Global)] {
		if g, ok := r.byFold[fold(Global)]; ok {
			out = append(out, g.ScopeName)
		}
	}
	return out, nil
}
