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
	Name            string   `json:"name" jsonschema_description:"Scope name."`
	Description     string   `json:"description,omitempty" jsonschema_description:"What it is for."`
	ParentScope     string   `json:"parent_scope,omitempty" jsonschema_description:"Parent scope; a search in this scope also reads its parents."`
	Active          bool     `json:"active" jsonschema_description:"Inactive scopes are left out of searches that do not name them."`
	RelatedKeywords []string `json:"related_keywords" jsonschema_description:"Words that suggest this scope."`
	MemoryCount     int      `json:"memory_count" jsonschema_description:"Live memories in it."`
	CreatedAt       string   `json:"created_at" jsonschema_description:"When it was created."`
}

func toScopeOut(s memory.ScopeInfo) scopeOut {
	return scopeOut{Name: s.Name, Description: s.Description, ParentScope: s.Parent, Active: s.Active,
		RelatedKeywords: s.RelatedKeywords, MemoryCount: s.Memories, CreatedAt: iso(s.CreatedAt)}
}

type createScopeIn struct {
	Scope           string   `json:"scope" jsonschema_description:"Name of the scope: letters, digits, spaces and - _ . : / # ( ) & ', at most 64 bytes, e.g. \"Project Alpha\"."`
	Description     string   `json:"description,omitempty" jsonschema_description:"What the scope is for."`
	ParentScope     string   `json:"parent_scope,omitempty" jsonschema_description:"Existing scope it belongs under, e.g. \"Work\"; searches in this scope then also read the parent."`
	RelatedKeywords []string `json:"related_keywords,omitempty" jsonschema_description:"Words that suggest this scope."`
	Active          *bool    `json:"active,omitempty" jsonschema_description:"Set false to leave the scope out of searches that do not name it (also for an existing scope); true to bring it back."`
}

type createScopeOut struct {
	Status  string   `json:"status" jsonschema_description:"OK."`
	Created bool     `json:"created" jsonschema_description:"False when the scope already existed."`
	Scope   scopeOut `json:"scope" jsonschema_description:"The scope."`
}

func createMemoryScope(d Deps) server.ServerTool {
	tool := mcp.NewTool("create_memory_scope",
		mcp.WithDescription("Create a memory scope (a separate context such as Work, Health or a project) with a description, optionally under a parent scope; or activate/deactivate an existing one. Scopes are also created automatically the first time a memory is stored in one, so this is needed only to describe, nest or deactivate them."),
		mcp.WithInputSchema[createScopeIn](),
		mcp.WithOutputSchema[createScopeOut](),
		annotate("Create a scope", false, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "create_memory_scope", func(ctx context.Context, c call, in createScopeIn) (any, error) {
		info, created, err := c.eng.CreateScope(ctx, scopes.Scope{Name: in.Scope, Description: in.Description, Parent: in.ParentScope, RelatedKeywords: in.RelatedKeywords})
		if err != nil {
			return nil, err
		}
		if in.Active != nil && *in.Active != info.Active {
			if info, err = c.eng.SetScopeActive(ctx, info.Name, *in.Active); err != nil {
				return nil, err
			}
		}
		return createScopeOut{Status: "OK", Created: created, Scope: toScopeOut(info)}, nil
	})}
}

type listScopesIn struct {
	IncludeInactive bool `json:"include_inactive,omitempty" jsonschema_description:"Also list inactive scopes."`
}

type listScopesOut struct {
	Scopes      []scopeOut `json:"scopes" jsonschema_description:"Scopes, Global first."`
	ActiveScope string     `json:"active_scope,omitempty" jsonschema_description:"This session's active scope, if one is set."`
}

func listMemoryScopes(d Deps) server.ServerTool {
	tool := mcp.NewTool("list_memory_scopes",
		mcp.WithDescription("List the memory scopes (contexts) with their descriptions and how many memories each holds, and this session's active scope. Use it when the user asks what contexts or projects you keep memories for, or before choosing a scope."),
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
		for i, s := range list {
			out.Scopes[i] = toScopeOut(s)
		}
		return out, nil
	})}
}

type setScopeIn struct {
	Scope string `json:"scope" jsonschema_description:"Scope to work in from now on in this conversation, e.g. \"Project Alpha\" (created if new). Empty string: no active scope."`
}

type setScopeOut struct {
	Status      string   `json:"status" jsonschema_description:"OK."`
	ActiveScope string   `json:"active_scope" jsonschema_description:"The active scope now (empty: none)."`
	Created     bool     `json:"created,omitempty" jsonschema_description:"True when the scope was created by this call."`
	Searches    []string `json:"searches" jsonschema_description:"Scopes a search without an explicit scope now reads."`
}

func setActiveScope(d Deps) server.ServerTool {
	tool := mcp.NewTool("set_active_scope",
		mcp.WithDescription("Set the scope this conversation works in, e.g. when the user says \"let's work on Project Alpha\" or the topic is clearly one context. Afterwards store_memory saves into it and searches read it, its parents and Global, so other contexts' memories stay out. Applies to this connection only; send an empty scope to clear it."),
		mcp.WithInputSchema[setScopeIn](),
		mcp.WithOutputSchema[setScopeOut](),
		annotate("Set active scope", false, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "set_active_scope", func(ctx context.Context, c call, in setScopeIn) (any, error) {
		name, created, err := c.eng.UseScope(ctx, in.Scope)
		if err != nil {
			return nil, err
		}
		c.sess.SetActiveScope(name)
		set := "ALL"
		if name != "" {
			set = name
		}
		searches, err := c.eng.Scopes().SearchSet(set)
		if err != nil {
			return nil, err
		}
		if name == "" && !strings.EqualFold(set, "ALL") {
			searches = nil
		}
		return setScopeOut{Status: "OK", ActiveScope: name, Created: created, Searches: searches}, nil
	})}
}
