// Package profile owns the user's profile document (name, preferences,
// facts, contacts, notes): reading it, applying an update with its checks,
// the time zone it names, and the entries a "forget everything about X"
// names (Matches, Removal: match.go). The memory engine serialises updates with
// its own writes (memory.Engine.UpdateProfile).
package profile

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/infmem/infmem/internal/memory/content"
	"github.com/infmem/infmem/mongostore"
)

// Profile is the user's profile.
type Profile struct {
	Name        string
	Preferences map[string]string
	Facts       map[string]string
	Contacts    []mongostore.Contact
	Notes       []string
	UpdatedAt   time.Time
}

// Update changes parts of the profile; absent parts stay.
type Update struct {
	Name              *string
	SetPreferences    map[string]string
	RemovePreferences []string
	SetFacts          map[string]string
	RemoveFacts       []string
	// AddContacts adds or replaces contacts by name (ignoring case).
	AddContacts    []mongostore.Contact
	RemoveContacts []string
	AddNotes       []string
	RemoveNotes    []string
	// CreatedAt and UpdatedAt, when set, are the profile's times once
	// changed: an import bringing back an exported profile into an empty
	// one keeps the export's.
	CreatedAt, UpdatedAt time.Time
}

// Profile limits.
const (
	maxProfileKey   = 64
	maxProfileValue = 2048
	maxProfileItems = 500
)

// Read reads the user's profile.
func Read(ctx context.Context, store *mongostore.Store) (Profile, error) {
	p, err := store.Profiles.Get(ctx, mongostore.DefaultUserID)
	if err != nil {
		return Profile{}, fmt.Errorf("cannot read the user profile: %w", err)
	}
	return toProfile(p), nil
}

func toProfile(p *mongostore.Profile) Profile {
	out := Profile{Name: p.Name, Preferences: p.Preferences, Facts: p.Facts, Contacts: p.Contacts, Notes: p.Notes, UpdatedAt: p.UpdatedAt}
	if out.Preferences == nil {
		out.Preferences = map[string]string{}
	}
	if out.Facts == nil {
		out.Facts = map[string]string{}
	}
	if out.Contacts == nil {
		out.Contacts = []mongostore.Contact{}
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	return out
}

// Apply applies u at now and returns the new profile and what changed
// (nothing: the profile was not written). Callers serialise updates.
func Apply(ctx context.Context, store *mongostore.Store, u Update, now time.Time) (Profile, []string, error) {
	cur, err := store.Profiles.Get(ctx, mongostore.DefaultUserID)
	if err != nil {
		return Profile{}, nil, fmt.Errorf("cannot read the user profile: %w", err)
	}
	p := toProfile(cur)
	before := toProfile(cur)
	p.Preferences, p.Facts = maps.Clone(p.Preferences), maps.Clone(p.Facts)
	p.Contacts, p.Notes = slices.Clone(p.Contacts), slices.Clone(p.Notes)
	var changed []string

	if u.Name != nil {
		name := content.Normalize(*u.Name)
		if len(name) > maxProfileKey*2 || strings.ContainsRune(name, '\n') {
			return Profile{}, nil, content.InputErrorf("name must be one line of at most %d bytes", maxProfileKey*2)
		}
		if name != p.Name {
			p.Name = name
			changed = append(changed, "name")
		}
	}
	if err := applyKV("preferences", p.Preferences, u.SetPreferences, u.RemovePreferences); err != nil {
		return Profile{}, nil, err
	}
	if err := applyKV("facts", p.Facts, u.SetFacts, u.RemoveFacts); err != nil {
		return Profile{}, nil, err
	}
	for _, c := range u.AddContacts {
		c.Name, c.Relation, c.Notes = content.Normalize(c.Name), content.Normalize(c.Relation), content.Normalize(c.Notes)
		if c.Name == "" {
			return Profile{}, nil, content.InputErrorf("a contact needs a name, e.g. {\"name\": \"Alice\", \"relation\": \"sister\"}")
		}
		if len(c.Name)+len(c.Relation)+len(c.Notes) > maxProfileValue {
			return Profile{}, nil, content.InputErrorf("contact %q is longer than %d bytes", content.Snippet(c.Name, 40), maxProfileValue)
		}
		if i := slices.IndexFunc(p.Contacts, func(x mongostore.Contact) bool { return strings.EqualFold(x.Name, c.Name) }); i >= 0 {
			p.Contacts[i] = c
		} else {
			p.Contacts = append(p.Contacts, c)
		}
	}
	for _, name := range u.RemoveContacts {
		p.Contacts = slices.DeleteFunc(p.Contacts, func(x mongostore.Contact) bool { return strings.EqualFold(x.Name, strings.TrimSpace(name)) })
	}
	for _, n := range u.AddNotes {
		n = content.Normalize(n)
		if n == "" || len(n) > maxProfileValue {
			return Profile{}, nil, content.InputErrorf("a note must be 1 to %d bytes", maxProfileValue)
		}
		if !slices.Contains(p.Notes, n) {
			p.Notes = append(p.Notes, n)
		}
	}
	for _, n := range u.RemoveNotes {
		n = content.Normalize(n)
		p.Notes = slices.DeleteFunc(p.Notes, func(x string) bool { return strings.EqualFold(x, n) })
	}
	if len(p.Preferences)+len(p.Facts)+len(p.Contacts)+len(p.Notes) > maxProfileItems {
		return Profile{}, nil, content.InputErrorf("the profile would hold more than %d entries; remove some first", maxProfileItems)
	}
	if !maps.Equal(p.Preferences, before.Preferences) {
		changed = append(changed, "preferences")
	}
	if !maps.Equal(p.Facts, before.Facts) {
		changed = append(changed, "facts")
	}
	if !slices.Equal(p.Contacts, before.Contacts) {
		changed = append(changed, "contacts")
	}
	if !slices.Equal(p.Notes, before.Notes) {
		changed = append(changed, "notes")
	}
	if len(changed) == 0 {
		return before, nil, nil
	}
	p.UpdatedAt = now
	if !u.UpdatedAt.IsZero() {
		p.UpdatedAt = u.UpdatedAt.UTC().Truncate(time.Millisecond)
	}
	doc := &mongostore.Profile{ID: mongostore.DefaultUserID, Name: p.Name, Preferences: p.Preferences, Facts: p.Facts,
		Contacts: p.Contacts, Notes: p.Notes, CreatedAt: cur.CreatedAt, UpdatedAt: p.UpdatedAt}
	if !u.CreatedAt.IsZero() {
		doc.CreatedAt = u.CreatedAt.UTC().Truncate(time.Millisecond)
	}
	if err := store.Profiles.Replace(ctx, mongostore.DefaultUserID, doc); err != nil {
		return Profile{}, nil, fmt.Errorf("cannot update the user profile: %w", err)
	}
	return p, changed, nil
}

// applyKV sets and removes keys of a profile map. Keys are normalised to
// lower_snake_case so "Favorite Color" and "favorite_color" are one key.
func applyKV(what string, m map[string]string, set map[string]string, remove []string) error {
	for k, v := range set {
		key, err := profileKey(what, k)
		if err != nil {
			return err
		}
		v = content.Normalize(v)
		if v == "" {
			return content.InputErrorf("%s.%s has an empty value; to remove a key send it in remove_%s", what, key, what)
		}
		if len(v) > maxProfileValue {
			return content.InputErrorf("%s.%s is %d bytes; the limit is %d", what, key, len(v), maxProfileValue)
		}
		m[key] = v
	}
	for _, k := range remove {
		key, err := profileKey(what, k)
		if err != nil {
			return err
		}
		delete(m, key)
	}
	return nil
}

func profileKey(what, k string) (string, error) {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(k)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '_' || r == '.':
			b.WriteByte('_')
		default:
			return "", content.InputErrorf("%s key %q may contain only letters, digits, spaces, - and _", what, content.Snippet(k, 40))
		}
	}
	key := strings.Trim(b.String(), "_")
	if key == "" || len(key) > maxProfileKey {
		return "", content.InputErrorf("%s keys must be 1 to %d characters, like \"favorite_color\"", what, maxProfileKey)
	}
	return key, nil
}

// TimeZoneKeys are the profile preferences that set the user's time zone,
// time_zone first.
var TimeZoneKeys = []string{"time_zone", "timezone"}

// LoadZone reads an IANA time zone name; "Local" is refused (it would
// mean whatever machine reads it).
func LoadZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.EqualFold(name, "Local") {
		return nil, fmt.Errorf("%q is not an IANA time zone", name)
	}
	return time.LoadLocation(name)
}

// StoreLocation is the zone the user's dates and time phrases are read
// in: the profile's time_zone preference, else configured (the
// configured zone; the system's when none is). A non-nil error says why
// the profile's zone was not used (the profile could not be read, or its
// zone is not valid); configured is returned then.
func StoreLocation(ctx context.Context, store *mongostore.Store, configured *time.Location) (*time.Location, error) {
	p, err := store.Profiles.Get(ctx, mongostore.DefaultUserID)
	if err != nil {
		return configured, fmt.Errorf("cannot read the user profile: %w", err)
	}
	return PreferredLocation(p.Preferences, configured)
}

// PreferredLocation is StoreLocation for a profile's preferences already
// read.
func PreferredLocation(prefs map[string]string, configured *time.Location) (*time.Location, error) {
	for _, k := range TimeZoneKeys {
		if name := prefs[k]; name != "" {
			loc, err := LoadZone(name)
			if err != nil {
				return configured, fmt.Errorf("the profile's %s is not valid: %w", k, err)
			}
			return loc, nil
		}
	}
	return configured, nil
}
