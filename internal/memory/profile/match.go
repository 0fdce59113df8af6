package memory

// ProfileMatch is a profile entry that names what a forget by query is
// about. Field is name, preferences, facts, contacts or notes; Key the
// preference or fact key, the contact's name or the note; Text the entry
// as the profile shows it.
type ProfileMatch struct {
	Field, Key, Text string
}

// removeFromProfile removes the matched profile entries.
func (e *Engine) removeFromProfile(ctx context.Context, ms []ProfileMatch) error {
	var u ProfileUpdate
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
	_, _, err := e.UpdateProfile(ctx, u)
	return err
}

func profileField(f string) string {
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

