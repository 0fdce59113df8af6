package mcptools

import (
	"context"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
)

type contactOut struct {
	Name     string `json:"name"`
	Relation string `json:"relation,omitempty" jsonschema_description:"Relation to the user."`
	Notes    string `json:"notes,omitempty"`
}

type profileOut struct {
	Name        string            `json:"name,omitempty" jsonschema_description:"The user's name."`
	Preferences map[string]string `json:"preferences" jsonschema_description:"How the user wants to be helped, e.g. tone, detail_level, time_zone."`
	Facts       map[string]string `json:"facts" jsonschema_description:"Facts about the user, e.g. birthday, home_city."`
	Contacts    []contactOut      `json:"contacts" jsonschema_description:"People and entities that matter to the user."`
	Notes       []string          `json:"notes"`
	UpdatedAt   string            `json:"updated_at,omitempty"`
}

type profileResultOut struct {
	Kind    string     `json:"kind" jsonschema_description:"Always recalled_memory."`
	Notice  string     `json:"notice"`
	Profile profileOut `json:"profile"`
}

func toProfileOut(p memory.Profile) profileOut {
	out := profileOut{Name: p.Name, Preferences: p.Preferences, Facts: p.Facts, Contacts: make([]contactOut, len(p.Contacts)), Notes: p.Notes}
	for i, c := range p.Contacts {
		out.Contacts[i] = contactOut(c)
	}
	if !p.UpdatedAt.IsZero() {
		out.UpdatedAt = iso(p.UpdatedAt)
	}
	return out
}

type getProfileIn struct{}

func getUserProfile(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_user_profile",
		mcp.WithDescription("Read what is known about the user: name, preferences, personal facts (birthday, favourite things, home city), important people and notes. Read it at the start of a conversation, when personalising an answer, and when the user asks what you know about them."),
		mcp.WithInputSchema[getProfileIn](),
		mcp.WithOutputSchema[profileResultOut](),
		annotate("Read user profile", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "get_user_profile", func(ctx context.Context, c call, _ getProfileIn) (any, error) {
		p, err := c.eng.Profile(ctx)
		if err != nil {
			return nil, err
		}
		return profileResultOut{Kind: recalledKind, Notice: recalledNotice, Profile: toProfileOut(p)}, nil
	})}
}

type contactIn struct {
	Name     string `json:"name" jsonschema_description:"Person or entity, e.g. Alice."`
	Relation string `json:"relation,omitempty" jsonschema_description:"Relation to the user, e.g. sister."`
	Notes    string `json:"notes,omitempty" jsonschema_description:"Anything else worth knowing."`
}

type updateProfileIn struct {
	Name              *string           `json:"name,omitempty" jsonschema_description:"The user's name."`
	SetPreferences    map[string]string `json:"set_preferences,omitempty" jsonschema_description:"Preferences to add or change, e.g. {\"tone\": \"casual\"}. time_zone takes an IANA name (Europe/Paris): the memory tools then read dates and time phrases in it."`
	RemovePreferences []string          `json:"remove_preferences,omitempty" jsonschema_description:"Preference keys to remove."`
	SetFacts          map[string]string `json:"set_facts,omitempty" jsonschema_description:"Facts to add or change, e.g. {\"birthday\": \"1990-05-15\"}; keys are stored in lower_snake_case."`
	RemoveFacts       []string          `json:"remove_facts,omitempty" jsonschema_description:"Fact keys to remove."`
	AddContacts       []contactIn       `json:"add_contacts,omitempty" jsonschema_description:"People to add; one of the same name is replaced."`
	RemoveContacts    []string          `json:"remove_contacts,omitempty" jsonschema_description:"Names of people to remove."`
	AddNotes          []string          `json:"add_notes,omitempty" jsonschema_description:"Notes to add, e.g. \"allergic to penicillin\"."`
	RemoveNotes       []string          `json:"remove_notes,omitempty" jsonschema_description:"Notes to remove (exact text, any case)."`
}

type updateProfileOut struct {
	Status  string     `json:"status" jsonschema_description:"OK."`
	Changed []string   `json:"changed" jsonschema_description:"Parts that changed."`
	Profile profileOut `json:"profile" jsonschema_description:"The profile now."`
}

func updateUserProfile(d Deps) server.ServerTool {
	tool := mcp.NewTool("update_user_profile",
		mcp.WithDescription("Record lasting facts about the user themselves: \"my favorite color is blue\" (set_facts favorite_color), \"call me Sam\" (name), \"keep answers short\" (set_preferences detail_level), \"I am on Tokyo time\" (set_preferences time_zone Asia/Tokyo), \"my sister is Alice\" (add_contacts), \"I'm allergic to penicillin\" (add_notes). Also removes them when the user says they no longer hold."),
		mcp.WithInputSchema[updateProfileIn](),
		mcp.WithOutputSchema[updateProfileOut](),
		annotate("Update user profile", false, true, true),
	)
	return server.ServerTool{Tool: tool, Handler: typedWrite(d, "update_user_profile", func(ctx context.Context, c call, in updateProfileIn) (any, error) {
		for k, v := range in.SetPreferences {
			if !isTimeZoneKey(k) {
				continue
			}
			if _, err := memory.LoadZone(v); err != nil {
				return nil, badInput("set_preferences.%s %q is not an IANA time zone; send a name like Europe/Paris or America/New_York (or remove_preferences [%q] to use infmem's configured zone)", k, v, k)
			}
		}
		u := memory.ProfileUpdate{
			Name: in.Name, SetPreferences: in.SetPreferences, RemovePreferences: in.RemovePreferences,
			SetFacts: in.SetFacts, RemoveFacts: in.RemoveFacts, RemoveContacts: in.RemoveContacts,
			AddNotes: in.AddNotes, RemoveNotes: in.RemoveNotes,
		}
		for _, c := range in.AddContacts {
			u.AddContacts = append(u.AddContacts, mongostore.Contact(c))
		}
		p, changed, err := c.eng.UpdateProfile(ctx, u)
		if err != nil {
			return nil, err
		}
		if changed == nil {
			changed = []string{}
		}
		return updateProfileOut{Status: "OK", Changed: changed, Profile: toProfileOut(p)}, nil
	})}
}

// isTimeZoneKey reports whether a preference key (as sent, before the
// profile stores it in lower_snake_case) sets the time zone.
func isTimeZoneKey(k string) bool {
	k = strings.ToLower(strings.TrimSpace(k))
	k = strings.NewReplacer(" ", "_", "-", "_", ".", "_").Replace(k)
	return slices.Contains(memory.TimeZoneKeys, strings.Trim(k, "_"))
}
