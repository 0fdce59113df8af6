package scopes_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

func TestValidateName(t *testing.T) {
	good := []string{"Global", "Project Alpha", "work/2025", "Émile's notes", "a", "x-y_z.1:2#(3)&"}
	for _, n := range good {
		if err := scopes.ValidateName(n); err != nil {
			t.Errorf("%q rejected: %v", n, err)
		}
	}
	bad := []string{"", " padded", "trailing ", "ALL", "all", "tab\there", "new\nline", "semi;colon", "quote\"", string(make([]byte, 65)), "bad\xff"}
	for _, n := range bad {
		if err := scopes.ValidateName(n); !errors.Is(err, scopes.ErrInvalidName) {
			t.Errorf("%q accepted or wrong error: %v", n, err)
		}
	}
}

func TestRegistry(t *testing.T) {
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	r, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	if names := r.Names(); !slices.Equal(names, []string{"Global"}) {
		t.Fatalf("fresh registry: %v", names)
	}
	work, err := r.Create(ctx, scopes.Scope{Name: "Work", Description: "job"})
	if err != nil || !work.Active {
		t.Fatal(work, err)
	}
	if _, err := r.Create(ctx, scopes.Scope{Name: "work"}); !errors.Is(err, scopes.ErrExists) {
		t.Fatalf("case-insensitive duplicate: %v", err)
	}
	if _, err := r.Create(ctx, scopes.Scope{Name: "Alpha", Parent: "Nope"}); !errors.Is(err, scopes.ErrNotFound) {
		t.Fatalf("missing parent: %v", err)
	}
	alpha, err := r.Create(ctx, scopes.Scope{Name: "Project Alpha", Parent: "WORK"})
	if err != nil || alpha.Parent != "Work" {
		t.Fatalf("child: %+v %v", alpha, err)
	}
	if s, ok := r.Get("project ALPHA"); !ok || s.Name != "Project Alpha" {
		t.Fatalf("case-insensitive get: %+v", s)
	}
	set, err := r.SearchSet("project alpha")
	if err != nil || !slices.Equal(set, []string{"Project Alpha", "Work", "Global"}) {
		t.Fatalf("search set of a child: %v %v", set, err)
	}
	if set, _ = r.SearchSet("Work"); !slices.Equal(set, []string{"Work", "Global"}) {
		t.Fatalf("a parent does not read its children: %v", set)
	}
	if set, _ = r.SearchSet("Global"); !slices.Equal(set, []string{"Global"}) {
		t.Fatalf("Global: %v", set)
	}
	if _, err := r.SearchSet("Missing"); !errors.Is(err, scopes.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	if _, err := r.SetActive(ctx, "Work", false); err != nil {
		t.Fatal(err)
	}
	if set, _ = r.SearchSet("ALL"); !slices.Equal(set, []string{"Global", "Project Alpha"}) {
		t.Fatalf("ALL skips inactive scopes: %v", set)
	}
	if _, err := r.SetActive(ctx, "Global", false); err == nil {
		t.Fatal("Global deactivated")
	}
	if err := r.Delete(ctx, "Global"); err == nil {
		t.Fatal("Global deleted")
	}
	s, created, err := r.Ensure(ctx, "Travel")
	if err != nil || !created || s.Name != "Travel" {
		t.Fatalf("ensure new: %+v %v %v", s, created, err)
	}
	if _, created, _ = r.Ensure(ctx, "travel"); created {
		t.Fatal("ensure existing created again")
	}
	if _, _, err := r.Ensure(ctx, "ALL"); !errors.Is(err, scopes.ErrInvalidName) {
		t.Fatalf("ensure ALL: %v", err)
	}

	// A second registry reads the same state from the database.
	r2, err := scopes.Load(ctx, store, scopes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := r2.Get("work"); !ok || got.Active {
		t.Fatalf("reloaded Work: %+v %v", got, ok)
	}
	if _, _, err := r2.Ensure(ctx, "Health"); !errors.Is(err, scopes.ErrAutoCreateOff) {
		t.Fatalf("auto-create off: %v", err)
	}
	if err := r2.Delete(ctx, "Project Alpha"); err != nil {
		t.Fatal(err)
	}
	if _, ok := r2.Get("Project Alpha"); ok {
		t.Fatal("deleted scope still there")
	}
	if err := r.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Names(), []string{"Global", "Travel", "Work"}) {
		t.Fatalf("after reload: %v", r.Names())
	}
}

// TestSlashNestsScopes: a slash in a new scope's name makes the part before
// it the parent (created when missing), and reading a scope's subtree
// works even for a parent that exists only through its children's names.
func TestSlashNestsScopes(t *testing.T) {
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	r, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	apollo, err := r.Create(ctx, scopes.Scope{Name: "Work/Apollo"})
	if err != nil || apollo.Parent != "Work" {
		t.Fatalf("Work/Apollo: %+v %v", apollo, err)
	}
	if w, ok := r.Get("work"); !ok || w.Parent != "" {
		t.Fatalf("the parent was not created: %+v %v", w, ok)
	}
	if set, _ := r.SearchSet("work/apollo"); !slices.Equal(set, []string{"Work/Apollo", "Work", "Global"}) {
		t.Fatalf("search set of a slash child: %v", set)
	}
	s, created, err := r.Ensure(ctx, "A/B/C")
	if err != nil || !created || s.Parent != "A/B" {
		t.Fatalf("ensure A/B/C: %+v %v %v", s, created, err)
	}
	if ab, _ := r.Get("A/B"); ab.Parent != "A" {
		t.Fatalf("A/B: %+v", ab)
	}
	if x, err := r.Create(ctx, scopes.Scope{Name: "Side/Project", Parent: "Work"}); err != nil || x.Parent != "Work" {
		t.Fatalf("an explicit parent wins over the slash: %+v %v", x, err)
	}
	if _, ok := r.Get("Side"); ok {
		t.Fatal("Side was created although the parent was explicit")
	}
	if s, err := r.Create(ctx, scopes.Scope{Name: "Trailing/"}); err != nil || s.Parent != "" {
		t.Fatalf("Trailing/: %+v %v", s, err)
	}
	if _, err := r.Create(ctx, scopes.Scope{Name: "all/x"}); !errors.Is(err, scopes.ErrInvalidName) {
		t.Fatalf("all/x: %v", err)
	}
	if _, err := r.Create(ctx, scopes.Scope{Name: "Work/Old"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetActive(ctx, "Work/Old", false); err != nil {
		t.Fatal(err)
	}
	if sub, err := r.Subtree("WORK"); err != nil || !slices.Equal(sub, []string{"Work", "Side/Project", "Work/Apollo"}) {
		t.Fatalf("subtree of Work (inactive children left out): %v %v", sub, err)
	}
	if sub, _ := r.Subtree("A"); !slices.Equal(sub, []string{"A", "A/B", "A/B/C"}) {
		t.Fatalf("subtree of A: %v", sub)
	}
	if sub, _ := r.Subtree("Work/Old"); !slices.Equal(sub, []string{"Work/Old"}) {
		t.Fatalf("an inactive scope named itself: %v", sub)
	}
	for _, n := range []string{"Nope", "ALL", ""} {
		if _, err := r.Subtree(n); !errors.Is(err, scopes.ErrNotFound) {
			t.Fatalf("subtree of %q: %v", n, err)
		}
	}

	// Scopes made before slashes nested have no parent_scope and maybe no
	// parent at all: they still count as beneath it.
	for _, n := range []string{"Legacy/Child", "Old/Deep/Leaf"} {
		if err := store.Scopes.Insert(ctx, &mongostore.Scope{ID: bson.NewObjectID(), Type: mongostore.ScopeType, ScopeName: n, Active: true, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if sub, err := r.Subtree("legacy"); err != nil || !slices.Equal(sub, []string{"Legacy/Child"}) {
		t.Fatalf("subtree of a parent known only by name: %v %v", sub, err)
	}
	if sub, _ := r.Subtree("Old/Deep"); !slices.Equal(sub, []string{"Old/Deep/Leaf"}) {
		t.Fatalf("subtree of Old/Deep: %v", sub)
	}
	if sub, _ := r.Subtree("Old"); !slices.Equal(sub, []string{"Old/Deep/Leaf"}) {
		t.Fatalf("subtree of Old: %v", sub)
	}
	if c, _ := r.Get("Legacy/Child"); c.Parent != "" {
		t.Fatalf("a parent that does not exist is not reported: %+v", c)
	}
	if _, err := r.Create(ctx, scopes.Scope{Name: "Old"}); err != nil {
		t.Fatal(err)
	}
	if leaf, _ := r.Get("Old/Deep/Leaf"); leaf.Parent != "Old" {
		t.Fatalf("nearest existing ancestor: %+v", leaf)
	}
	if set, _ := r.SearchSet("Old/Deep/Leaf"); !slices.Equal(set, []string{"Old/Deep/Leaf", "Old", "Global"}) {
		t.Fatalf("search set of a legacy slash scope: %v", set)
	}
	if sub, _ := r.Subtree("Old"); !slices.Equal(sub, []string{"Old", "Old/Deep/Leaf"}) {
		t.Fatalf("subtree of Old, now defined: %v", sub)
	}
}

func TestImpliedParent(t *testing.T) {
	for name, want := range map[string]string{"Work/Apollo": "Work", "A/B/C": "A/B", "Work": "", "Trailing/": "", "/Lead": "", "Work /Apollo": "Work", "Work/ ": ""} {
		if got := scopes.ImpliedParent(name); got != want {
			t.Errorf("ImpliedParent(%q) = %q, want %q", name, got, want)
		}
	}
}

// A scope's description can be changed and removed, and a second registry
// reads the change from the database.
func TestSetDescription(t *testing.T) {
	store := testenv.Store(t)
	ctx := testenv.Context(t)
	r, err := scopes.Load(ctx, store, scopes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Create(ctx, scopes.Scope{Name: "Work", Description: "job"}); err != nil {
		t.Fatal(err)
	}
	s, err := r.SetDescription(ctx, "work", "The day job: Apollo and the ops rota")
	if err != nil || s.Name != "Work" || s.Description != "The day job: Apollo and the ops rota" {
		t.Fatalf("set: %+v %v", s, err)
	}
	r2, err := scopes.Load(ctx, store, scopes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := r2.Get("Work"); got.Description != "The day job: Apollo and the ops rota" || !got.Active {
		t.Fatalf("reloaded: %+v", got)
	}
	if s, err = r.SetDescription(ctx, "Work", ""); err != nil || s.Description != "" {
		t.Fatalf("clear: %+v %v", s, err)
	}
	if err := r2.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := r2.Get("Work"); got.Description != "" {
		t.Fatalf("cleared, reloaded: %q", got.Description)
	}
	if _, err := r.SetDescription(ctx, "Nope", "x"); !errors.Is(err, scopes.ErrNotFound) {
		t.Fatalf("unknown scope: %v", err)
	}
	if _, err := r.SetDescription(ctx, "Work", string(make([]byte, scopes.MaxDescriptionLen+1))); err == nil {
		t.Fatal("an over-long description was accepted")
	}
}
