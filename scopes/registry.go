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

	"github.com/infmem/infmem/internal/lookalike"
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
	Name        string
	Description string
	Active      bool
	// Parent is the nearest existing ancestor: the stored parent_scope, or
	// for a scope stored without one, what a slash in its name implies.
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

// fold is the form in which two names are one scope: letter case and
// look-alike spellings (fullwidth letters, NFD) aside.
func fold(name string) string { return lookalike.Fold(name) }

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
	return r.toScopeLocked(d), true
}

// List returns every scope sorted by name, Global first.
func (r *Registry) List() []Scope {
	r.mu.RLock()
	out := make([]Scope, 0, len(r.byFold))
	for _, d := range r.byFold {
		out = append(out, r.toScopeLocked(d))
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

// Create defines a new scope. The parent, when given, must exist. Without
// one, a slash in the name nests the scope: "Work/Apollo" goes under "Work",
// which is created first when missing (and so on up: "A/B/C" makes "A/B"
// and "A").
func (r *Registry) Create(ctx context.Context, s Scope) (Scope, error) {
	s.Name, s.Parent = lookalike.NFC(s.Name), lookalike.NFC(s.Parent)
	if err := ValidateName(s.Name); err != nil {
		return Scope{}, err
	}
	if len(s.Description) > MaxDescriptionLen {
		return Scope{}, fmt.Errorf("a scope description is limited to %d bytes, not %d", MaxDescriptionLen, len(s.Description))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.createLocked(ctx, s)
}

func (r *Registry) createLocked(ctx context.Context, s Scope) (Scope, error) {
	if d, ok := r.byFold[fold(s.Name)]; ok {
		return r.toScopeLocked(d), fmt.Errorf("%w: %q", ErrExists, d.ScopeName)
	}
	switch {
	case s.Parent != "":
		p, ok := r.byFold[fold(s.Parent)]
		if !ok {
			return Scope{}, fmt.Errorf("%w: parent scope %q; create it first", ErrNotFound, s.Parent)
		}
		s.Parent = p.ScopeName
	case ImpliedParent(s.Name) != "":
		parent := ImpliedParent(s.Name)
		if err := ValidateName(parent); err != nil {
			return Scope{}, fmt.Errorf("%w (the slash in %q puts it under %q)", err, s.Name, parent)
		}
		p, ok := r.byFold[fold(parent)]
		if !ok {
			made, err := r.createLocked(ctx, Scope{Name: parent})
			if err != nil {
				return Scope{}, err
			}
			p = r.byFold[fold(made.Name)]
		}
		s.Parent = p.ScopeName
	}
	d := &mongostore.Scope{
		ID: bson.NewObjectID(), Type: mongostore.ScopeType, ScopeName: s.Name, Description: s.Description,
		CreatedAt: r.now().UTC(), Active: true, RelatedKeywords: s.RelatedKeywords, ParentScope: s.Parent,
	}
	if !s.CreatedAt.IsZero() {
		// A scope an import brings back keeps its time.
		d.CreatedAt = s.CreatedAt.UTC().Truncate(time.Millisecond)
	}
	if err := r.store.Scopes.Insert(ctx, d); err != nil {
		return Scope{}, fmt.Errorf("cannot create scope %q: %w", s.Name, err)
	}
	r.byFold[fold(s.Name)] = d
	return r.toScopeLocked(d), nil
}

// ImpliedParent is the parent a slash in a scope name implies: the part
// before the last slash ("Work/Apollo" → "Work"), or "" when the name has
// no slash with text on both sides.
func ImpliedParent(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i < 0 || strings.TrimSpace(name[i+1:]) == "" {
		return ""
	}
	return strings.TrimSpace(name[:i])
}

// parentLocked is a scope's parent as searches see it: its parent_scope,
// or, for a scope stored without one, the scope its slash implies.
// Ancestors that no longer exist (or never did, for a slash name kept from
// before slashes nested) are skipped up to the nearest one that does; ""
// when there is none.
func (r *Registry) parentLocked(d *mongostore.Scope) string {
	seen := map[string]bool{fold(d.ScopeName): true}
	name := d.ScopeName
	p := d.ParentScope
	if p == "" {
		p = ImpliedParent(name)
	}
	for p != "" && !seen[fold(p)] {
		seen[fold(p)] = true
		if pd, ok := r.byFold[fold(p)]; ok {
			return pd.ScopeName
		}
		p = ImpliedParent(p)
	}
	return ""
}

func (r *Registry) toScopeLocked(d *mongostore.Scope) Scope {
	s := toScope(d)
	s.Parent = r.parentLocked(d)
	return s
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
	return r.toScopeLocked(d), nil
}

// MaxDescriptionLen bounds a scope's description in bytes.
const MaxDescriptionLen = 1000

// SetDescription replaces a scope's description (empty removes it).
func (r *Registry) SetDescription(ctx context.Context, name, description string) (Scope, error) {
	if len(description) > MaxDescriptionLen {
		return Scope{}, fmt.Errorf("a scope description is limited to %d bytes, not %d", MaxDescriptionLen, len(description))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.byFold[fold(name)]
	if !ok {
		return Scope{}, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "description", Value: description}}}}
	if description == "" {
		update = bson.D{{Key: "$unset", Value: bson.D{{Key: "description", Value: ""}}}}
	}
	if err := r.store.Scopes.Update(ctx, d.ID, update); err != nil {
		return Scope{}, fmt.Errorf("cannot update scope %q: %w", d.ScopeName, err)
	}
	d.Description = description
	return r.toScopeLocked(d), nil
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
	for p := r.parentLocked(d); p != "" && !seen[fold(p)]; {
		pd := r.byFold[fold(p)]
		seen[fold(p)] = true
		out = append(out, pd.ScopeName)
		p = r.parentLocked(pd)
	}
	if !seen[fold(Global)] {
		if g, ok := r.byFold[fold(Global)]; ok {
			out = append(out, g.ScopeName)
		}
	}
	return out, nil
}

// Subtree is the scope and every active scope beneath it (children,
// grandchildren...), the scope first and the rest by name: what reading
// "everything in Work" means. The scope itself need not exist when scopes
// beneath it do ("Work" when only "Work/Apollo" was ever made); with
// neither, the error is ErrNotFound. ALL is not a scope: it is refused
// with ErrNotFound too.
func (r *Registry) Subtree(name string) ([]string, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	target := fold(strings.TrimSpace(name))
	var out, below []string
	if d, ok := r.byFold[target]; ok {
		out = append(out, d.ScopeName)
	}
	for f, d := range r.byFold {
		if f == target || !d.Active {
			continue
		}
		if r.underLocked(d, target) {
			below = append(below, d.ScopeName)
		}
	}
	if len(out)+len(below) == 0 || target == fold(All) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	sort.Slice(below, func(i, j int) bool { return fold(below[i]) < fold(below[j]) })
	return append(out, below...), nil
}

// underLocked reports whether d sits beneath the scope named target
// (folded), by parent_scope or, where none is stored, by its slashes;
// target itself need not exist.
func (r *Registry) underLocked(d *mongostore.Scope, target string) bool {
	seen := map[string]bool{fold(d.ScopeName): true}
	cur := d
	for {
		p := cur.ParentScope
		if p == "" {
			p = ImpliedParent(cur.ScopeName)
		}
		// Walk up through names with no definition by their slashes.
		for p != "" {
			if fold(p) == target {
				return true
			}
			if seen[fold(p)] {
				return false
			}
			seen[fold(p)] = true
			if pd, ok := r.byFold[fold(p)]; ok {
				cur = pd
				break
			}
			p = ImpliedParent(p)
		}
		if p == "" {
			return false
		}
	}
}
