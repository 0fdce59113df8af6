package memory

import (
	"context"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/internal/memory/profile"
	"github.com/infmem/infmem/internal/memory/recall"
	"github.com/infmem/infmem/internal/textindex"
	"github.com/infmem/infmem/scopes"
)

// "Forget everything about X": a forget by query alone reaches the
// memories whose text contains X's words. X may also name a scope
// ("Apollo": Work/Apollo, whose memories need not say "Apollo") and
// entries of the profile (the contact "Lena"). The preview and the result
// list those too and say they are left out, unless the request says
// Everything: then the scopes' memories are forgotten with the rest and
// the profile entries are removed.

// ScopeMatch is a scope a forget by query names: its memories (and those
// of the scopes beneath it) that the words alone do not reach.
type ScopeMatch struct {
	Name     string
	Memories int
}

// ProfileMatch is a profile entry that names what a forget by query is
// about (profile.Match).
type ProfileMatch = profile.Match

// removeFromProfile removes the matched profile entries.
func (e *Engine) removeFromProfile(ctx context.Context, ms []ProfileMatch) error {
	_, _, err := e.UpdateProfile(ctx, profile.Removal(ms))
	return err
}

// about is what a forget by query reaches beyond the words: the scopes
// it names, their memories the words leave out, the profile entries.
type about struct {
	scopes  []ScopeMatch
	extra   []hit
	profile []ProfileMatch
}

func (a about) empty() bool { return len(a.extra) == 0 && len(a.profile) == 0 }

// forgetAbout finds what a forget by query alone reaches beyond the
// memories whose text matches (byText).
func (e *Engine) forgetAbout(ctx context.Context, req ForgetRequest, byText []hit) (about, error) {
	var out about
	ix := e.index()
	q := recall.Keywords(ix, ix.Analyze(normalizeContent(req.Query)))
	if q.Empty() {
		return out, nil
	}
	set, err := e.searchScopes("", req.ActiveScope, false)
	if err != nil {
		return out, err
	}
	seen := map[bson.ObjectID]bool{}
	for _, h := range byText {
		seen[h.id] = true
	}
	named := map[string]bool{}
	for _, name := range set {
		if strings.EqualFold(name, scopes.Global) || !names(ix, q, strings.ReplaceAll(name, "/", " ")) {
			continue
		}
		tree, err := e.subtreeScopes(name)
		if err != nil {
			return out, err
		}
		for _, s := range tree {
			if named[strings.ToLower(s)] {
				continue
			}
			named[strings.ToLower(s)] = true
			found, _ := ix.Scan(memindex.Filter{Scopes: []string{s}, IncludeArchived: true, IncludeForgotten: req.Hard}, memindex.Newest, 0, 0)
			m := ScopeMatch{Name: s}
			for _, h := range asHits(found) {
				if !seen[h.id] {
					seen[h.id] = true
					out.extra = append(out.extra, h)
					m.Memories++
				}
			}
			out.scopes = append(out.scopes, m)
		}
	}
	p, err := e.Profile(ctx)
	if err != nil {
		return out, err
	}
	out.profile = profile.Matches(p, func(text string) bool { return names(ix, q, text) })
	return out, nil
}

// names reports whether text holds every word of the query q.
func names(ix *memindex.Index, q textindex.Query, text string) bool {
	if strings.TrimSpace(text) == "" {
		return false
	}
	have := map[string]bool{}
	for _, t := range ix.Analyze(normalizeContent(text)).Terms() {
		have[t] = true
	}
	for _, t := range q.Terms() {
		if !have[t] {
			return false
		}
	}
	return true
}

// aboutNote says what a forget by query reaches beyond the words: left
// out (listed, and how to include it) or included.
func aboutNote(req ForgetRequest, a about, done bool) string {
	x := snippet(req.Query, 60)
	var parts, lists []string
	for _, s := range a.scopes {
		if s.Memories > 0 {
			parts = append(parts, fmt.Sprintf("%s of scope %q (named after %q) without the word", plural(s.Memories, "memory", "memories"), s.Name, x))
		}
	}
	if len(parts) > 0 {
		lists = append(lists, "scopes")
	}
	if len(a.profile) > 0 {
		var ps []string
		for _, p := range a.profile {
			ps = append(ps, fmt.Sprintf("%s %q", profile.FieldName(p.Field), snippet(p.Key, 40)))
		}
		parts = append(parts, "the profile's "+strings.Join(ps, ", "))
		lists = append(lists, "profile")
	}
	if len(parts) == 0 {
		return ""
	}
	what := strings.Join(parts, "; ")
	listed := strings.Join(lists, " and ")
	if req.Everything && len(a.scopes) > 0 {
		// The scopes themselves are records, not memories: they stay
		// (unforget_memory puts their memories back where they were).
		var ns []string
		for _, s := range a.scopes {
			ns = append(ns, fmt.Sprintf("%q", s.Name))
		}
		if len(ns) > 3 {
			ns = append(ns[:3], fmt.Sprintf("%d more", len(a.scopes)-3))
		}
		kept := "the scopes " + strings.Join(ns, ", ") + " are kept"
		if len(a.scopes) == 1 {
			kept = "the scope " + ns[0] + " is kept"
		}
		what += "; " + kept + ", without these memories"
	}
	switch {
	case !req.Everything && done:
		return fmt.Sprintf(" Left alone: %s; to forget them too, repeat the request with everything: true (they are listed in %s).", what, listed)
	case !req.Everything:
		return fmt.Sprintf(" Not included: %s; everything: true includes them (they are listed in %s).", what, listed)
	case len(a.profile) == 0:
		return fmt.Sprintf(" Included: %s.", what)
	case done:
		return fmt.Sprintf(" Included: %s; the profile entries were removed for good (update_user_profile can add them back).", what)
	}
	return fmt.Sprintf(" Included: %s; the profile entries would be removed for good.", what)
}

// plural is "1 memory", "2 memories".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
