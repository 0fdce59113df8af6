package mcptools

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/scopes"
)

type scopeOut struct {
	Name            string   `json:"name"`
	Description     string   `json:"description,omitempty"`
	ParentScope     string   `json:"parent_scope,omitempty" jsonschema_description:"Parent; searches in this scope also read it."`
	Active          bool     `json:"active" jsonschema_description:"Inactive scopes are left out of searches that do not name them."`
	RelatedKeywords []string `json:"related_keywords"`
	MemoryCount     int      `json:"memory_count" jsonschema_description:"Live memories in it."`
	CreatedAt       string   `json:"created_at"`
}

func toScopeOut(s memory.ScopeInfo) scopeOut {
	return scopeOut{Name: s.Name, Description: s.Description, ParentScope: s.Parent, Active: s.Active,
		RelatedKeywords: s.RelatedKeywords, MemoryCount: s.Memories, CreatedAt: iso(s.CreatedAt)}
}

type createScopeIn struct {
	Scope           string   `json:"scope" jsonschema_description:"Name: letters, digits, spaces and - _ . : / # ( ) & ', at most 64 bytes, e.g. \"Project Alpha\". A slash nests: \"Work/Apollo\" goes under Work, created if missing."`
	Description     string   `json:"description,omitempty" jsonschema_description:"What the scope is for."`
	ParentScope     string   `json:"parent_scope,omitempty" jsonschema_description:"Existing scope to put it under instead of the slash's, e.g. \"Work\"."`
	RelatedKeywords []string `json:"related_keywords,omitempty" jsonschema_description:"Words that suggest this scope."`
	Active          *bool    `json:"active,omitempty" jsonschema_description:"false: leave the scope out of searches that do not name it (also for an existing scope); true: bring it back."`
}

type createScopeOut struct {
	Status  string   `json:"status" jsonschema_description:"OK."`
	Created bool     `json:"created" jsonschema_description:"False when the scope already existed."`
	Scope   scopeOut `json:"scope"`
	Kind    string   `json:"kind,omitempty" jsonschema_description:"recalled_memory when it carries memory text."`
	Notice  string   `json:"notice,omitempty"`
}

func createMemoryScope(d Deps) server.ServerTool {
	tool := mcp.NewTool("create_memory_scope",
		mcp.WithDescription("Create a memory scope (a context such as Work, Health or a project) with a description, optionally under a parent (searches in a scope also read its parents), or activate/deactivate one. Storing into a new scope creates it too; this is for describing, nesting or deactivating scopes."),
		mcp.WithInputSchema[createScopeIn](),
		mcp.WithOutputSchema[createScopeOut](),
		annotate("Create a scope", false, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typedWrite(d, "create_memory_scope", func(ctx context.Context, c call, in createScopeIn) (any, error) {
		info, created, err := c.eng.CreateScope(ctx, scopes.Scope{Name: in.Scope, Description: in.Description, Parent: in.ParentScope, RelatedKeywords: in.RelatedKeywords})
		if err != nil {
			return nil, err
		}
		if in.Active != nil && *in.Active != info.Active {
			if info, err = c.eng.SetScopeActive(ctx, info.Name, *in.Active); err != nil {
				return nil, err
			}
		}
		out := createScopeOut{Status: "OK", Created: created, Scope: toScopeOut(info)}
		out.Kind, out.Notice = labelled(info.Description != "")
		return out, nil
	})}
}

type listScopesIn struct {
	IncludeInactive bool `json:"include_inactive,omitempty" jsonschema_description:"Also list inactive scopes."`
}

type listScopesOut struct {
	Scopes      []scopeOut `json:"scopes" jsonschema_description:"Global first."`
	ActiveScope string     `json:"active_scope,omitempty" jsonschema_description:"This session's active scope, if set."`
	Kind        string     `json:"kind,omitempty" jsonschema_description:"recalled_memory when it carries memory text."`
	Notice      string     `json:"notice,omitempty"`
}

func listMemoryScopes(d Deps) server.ServerTool {
	tool := mcp.NewTool("list_memory_scopes",
		mcp.WithDescription("List the memory scopes (contexts) with their descriptions, parents and memory counts, and this session's active scope. Use it when the user asks what contexts or projects you keep memories for, or before choosing a scope."),
		mcp.WithInputSchema[listScopesIn](),
		mcp.WithOutputSchema[listScopesOut](),
		annotate("List scopes", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "list_memory_scopes", func(ctx context.Context, c call, in listScopesIn) (any, error) {
		list, err := c.eng.ListScopes(ctx, in.IncludeInactive)
		if err != nil {
			return nil, err
		}
		out := listScopesOut{Scopes: make([]scopeOut, len(list)), ActiveScope: c.sess.ActiveScope()}
		described := false
		for i, s := range list {
			out.Scopes[i] = toScopeOut(s)
			described = described || s.Description != ""
		}
		// Descriptions are text a user or another client wrote.
		out.Kind, out.Notice = labelled(described)
		return out, nil
	})}
}

type setScopeIn struct {
	Scope  string `json:"scope" jsonschema_description:"Scope to work in, e.g. \"Project Alpha\"; empty string: none."`
	Create bool   `json:"create,omitempty" jsonschema_description:"true: create the scope if it does not exist (\"Work/Apollo\" goes under Work). Otherwise an unknown scope is refused."`
}

type setScopeOut struct {
	Status      string   `json:"status" jsonschema_description:"OK."`
	ActiveScope string   `json:"active_scope" jsonschema_description:"The active scope now (empty: none)."`
	Created     bool     `json:"created,omitempty" jsonschema_description:"This call created the scope."`
	Searches    []string `json:"searches" jsonschema_description:"Scopes a search without an explicit scope now reads."`
}

func setActiveScope(d Deps) server.ServerTool {
	tool := mcp.NewTool("set_active_scope",
		mcp.WithDescription("Set the scope this conversation works in, e.g. when the user says \"let's work on Project Alpha\" or the topic is clearly one context: store_memory then saves into it and searches read it, its parents and Global, keeping other contexts out. For this connection only; an empty scope clears it. An unknown scope is refused unless create is true."),
		mcp.WithInputSchema[setScopeIn](),
		mcp.WithOutputSchema[setScopeOut](),
		annotate("Set active scope", false, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typedWrite(d, "set_active_scope", func(ctx context.Context, c call, in setScopeIn) (any, error) {
		want := strings.TrimSpace(in.Scope)
		if _, ok := c.eng.Scopes().Get(want); !ok && !in.Create && want != "" && !strings.EqualFold(want, scopes.All) {
			return nil, unknownActiveScope(c.eng.Scopes(), want)
		}
		name, created, err := c.eng.UseScope(ctx, in.Scope)
		if err != nil {
			return nil, err
		}
		c.sess.SetActiveScope(name)
		set := scopes.All
		if name != "" {
			set = name
		}
		searches, err := c.eng.Scopes().SearchSet(set)
		if err != nil {
			return nil, err
		}
		return setScopeOut{Status: "OK", ActiveScope: name, Created: created, Searches: searches}, nil
	})}
}

// unknownActiveScope refuses to make an unknown scope active, in the words
// a search uses for an unknown filter.scope, and says how to create it.
func unknownActiveScope(reg *scopes.Registry, name string) error {
	names := reg.Names()
	if len(names) > 30 {
		names = append(names[:30], "…")
	}
	return badInput("there is no scope named %q; use one of: %s (or send create: true to start it as a new scope)", name, strings.Join(names, ", "))
}
