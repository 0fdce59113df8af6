package scopes_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/infmem/infmem/internal/testenv"
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
