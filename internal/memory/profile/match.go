package profile

import (
	"maps"
	"slices"

	"github.com/infmem/infmem/internal/memory/content"
)

// Match is a profile entry that names what a forget by query is about
// ("forget everything about X"). Field is name, preferences, facts,
// contacts or notes; Key the preference or fact key, the contact's name
// or the note; Text the entry as the profile shows it.
type Match struct {
	Field, Key, Text string
}

// Matches lists p's entries whose text names admits (it holds every word
// of the query), in the profile's order.
func Matches(p Profile, names func(text string) bool) []Match {
	var out []Match
	match := func(field, key, text string) {
		if names(text) {
			out = append(out, Match{Field: field, Key: key, Text: content.Snippet(text, 200)})
		}
	}
	match("name", p.Name, p.Name)
	for _, k := range slices.Sorted(maps.Keys(p.Preferences)) {
		match("preferences", k, k+": "+p.Preferences[k])
	}
	for _, k := range slices.Sorted(maps.Keys(p.Facts)) {
		match("facts", k, k+": "+p.Facts[k])
	}
	for _, c := range p.Contacts {
		text := c.Name
		if c.Relation != "" {
			text += " (" + c.Relation + ")"
		}
		if c.Notes != "" {
			text += " " + c.Notes
		}
		match("contacts", c.Name, text)
	}
	for _, n := range p.Notes {
		match("notes", n, n)
	}
	return out
}

// Removal is the update that removes the matched entries.
func Removal(ms []Match) Update {
	var u Update
	for _, m := range ms {
		switch m.Field {
		case "name":
			u.Name = new(string)
		case "preferences":
			u.RemovePreferences = append(u.RemovePreferences, m.Key)
		case "facts":
			u.RemoveFacts = append(u.RemoveFacts, m.Key)
		case "contacts":
			u.RemoveContacts = append(u.RemoveContacts, m.Key)
		case "notes":
			u.RemoveNotes = append(u.RemoveNotes, m.Key)
		}
	}
	return u
}

// FieldName is a match's field as one entry of it ("preference").
func FieldName(f string) string {
	switch f {
	case "preferences":
		return "preference"
	case "facts":
		return "fact"
	case "contacts":
		return "contact"
	case "notes":
		return "note"
	}
	return f
}
