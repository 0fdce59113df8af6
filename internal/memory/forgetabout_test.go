package memory

import (
	"slices"
	"strings"
	"testing"

	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

// "Forget everything about X" reaches the scope named X and the profile
// entries naming X: the preview lists them and says they are left out,
// and everything: true forgets them with the rest (issue 26.2).
func TestForgetEverythingAbout(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	mustStore(t, e, StoreRequest{Content: "Apollo ships in June", Scope: "Work"})
	inScope := mustStore(t, e, StoreRequest{Content: "The launch review is on Friday", Scope: "Work/Apollo"})
	mustStore(t, e, StoreRequest{Content: "Apollo budget approved", Scope: "Work/Apollo"})
	keep := mustStore(t, e, StoreRequest{Content: "Lunch with the team on Thursday", Scope: "Work"})
	mustStore(t, e, StoreRequest{Content: "Lena's birthday is March 3"})
	if _, _, err := e.UpdateProfile(ctx, ProfileUpdate{
		AddContacts: []mongostore.Contact{{Name: "Lena", Relation: "sister", Notes: "lives in Berlin"}, {Name: "Tom", Relation: "friend"}},
		SetFacts:    map[string]string{"project": "leads Apollo"},
	}); err != nil {
		t.Fatal(err)
	}

	preview, err := e.Forget(ctx, ForgetRequest{Query: "Apollo", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if preview.Matched != 2 || len(preview.Scopes) != 1 || preview.Scopes[0] != (ScopeMatch{Name: "Work/Apollo", Memories: 1}) ||
		!slices.Equal(preview.Profile, []ProfileMatch{{Field: "facts", Key: "project", Text: "project: leads Apollo"}}) ||
		!strings.Contains(preview.Note, `1 memory of scope "Work/Apollo"`) || !strings.Contains(preview.Note, "everything: true") {
		t.Fatalf("preview: %+v", preview)
	}
	// Without everything, the words alone are forgotten and the rest is named.
	res, err := e.Forget(ctx, ForgetRequest{Query: "Apollo"})
	if err != nil || res.Count != 2 || !strings.Contains(res.Note, "Left alone") {
		t.Fatalf("forget by words: %+v %v", res, err)
	}
	if m, _ := e.Get(ctx, inScope.ID); m.ForgottenAt != nil {
		t.Fatal("a memory of the scope was forgotten without everything")
	}
	// everything: true takes the scope's memories and the profile entry too.
	res, err = e.Forget(ctx, ForgetRequest{Query: "Apollo", Everything: true})
	if err != nil || res.Count != 1 || !idsContain(res.Items, inScope.ID) {
		t.Fatalf("forget everything: %+v %v", res, err)
	}
	if m, _ := e.Get(ctx, keep.ID); m.ForgottenAt != nil {
		t.Fatal("an unrelated memory of the parent scope was forgotten")
	}
	p, _ := e.Profile(ctx)
	if _, ok := p.Facts["project"]; ok {
		t.Fatalf("profile fact naming Apollo kept: %+v", p)
	}

	// A person: the memory, the contact, nothing else of the profile.
	res, err = e.Forget(ctx, ForgetRequest{Query: "Lena", Everything: true})
	if err != nil || res.Count != 1 || len(res.Profile) != 1 || res.Profile[0].Text != "Lena (sister) lives in Berlin" {
		t.Fatalf("forget Lena: %+v %v", res, err)
	}
	p, _ = e.Profile(ctx)
	if len(p.Contacts) != 1 || p.Contacts[0].Name != "Tom" {
		t.Fatalf("contacts after forgetting Lena: %+v", p.Contacts)
	}
	// Only a profile entry left: no memory matches, the entry still goes.
	if _, _, err := e.UpdateProfile(ctx, ProfileUpdate{AddNotes: []string{"Tom likes chess"}}); err != nil {
		t.Fatal(err)
	}
	res, err = e.Forget(ctx, ForgetRequest{Query: "chess"})
	if err != nil || res.Count != 0 || len(res.Profile) != 1 || !strings.Contains(res.Note, "everything: true") {
		t.Fatalf("profile-only preview: %+v %v", res, err)
	}
	if res, err = e.Forget(ctx, ForgetRequest{Query: "chess", Everything: true}); err != nil || len(res.Profile) != 1 {
		t.Fatalf("profile-only forget: %+v %v", res, err)
	}
	if p, _ = e.Profile(ctx); len(p.Notes) != 0 {
		t.Fatalf("note kept: %q", p.Notes)
	}
}

func idsContain(items []Forgotten, id string) bool {
	return slices.ContainsFunc(items, func(f Forgotten) bool { return f.ID == id })
}

// The note names only what was reached: a forget that took a scope's
// memories and no profile entry says nothing of profile entries, and a
// preview points at the lists the result holds (issue 26.2, found walking
// the newcomer path).
func TestForgetAboutNoteNamesWhatItReached(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := testenv.Context(t)
	mustStore(t, e, StoreRequest{Content: "Apollo ships in June", Scope: "Work/Apollo"})
	mustStore(t, e, StoreRequest{Content: "The launch review is on Friday", Scope: "Work/Apollo"})
	if _, _, err := e.UpdateProfile(ctx, ProfileUpdate{AddNotes: []string{"Lena prefers calls on Sundays"}}); err != nil {
		t.Fatal(err)
	}
	mustStore(t, e, StoreRequest{Content: "Lena's birthday is March 3"})

	preview, err := e.Forget(ctx, ForgetRequest{Query: "Apollo", DryRun: true})
	if err != nil || !strings.Contains(preview.Note, "listed in scopes)") || strings.Contains(preview.Note, "profile") {
		t.Fatalf("scope-only preview: %q %v", preview.Note, err)
	}
	res, err := e.Forget(ctx, ForgetRequest{Query: "Apollo", Everything: true})
	if err != nil || res.Count != 2 || strings.Contains(res.Note, "profile") ||
		!strings.Contains(res.Note, `the scope "Work/Apollo" is kept, without these memories`) {
		t.Fatalf("scope-only forget: %q %v", res.Note, err)
	}
	preview, err = e.Forget(ctx, ForgetRequest{Query: "Lena", DryRun: true})
	if err != nil || !strings.Contains(preview.Note, "listed in profile)") || strings.Contains(preview.Note, "scopes") {
		t.Fatalf("profile-only preview: %q %v", preview.Note, err)
	}
	res, err = e.Forget(ctx, ForgetRequest{Query: "Lena", Everything: true})
	if err != nil || !strings.Contains(res.Note, "removed for good") {
		t.Fatalf("profile forget: %q %v", res.Note, err)
	}
}
