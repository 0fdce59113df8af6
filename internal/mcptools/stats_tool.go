package mcptools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type statsIn struct{}

type indexStatusOut struct {
	Ready    bool  `json:"ready" jsonschema_description:"Every memory is indexed."`
	Loaded   int64 `json:"loaded" jsonschema_description:"Memories indexed so far."`
	Expected int64 `json:"expected" jsonschema_description:"Memories stored (approximate)."`
}

type statsOut struct {
	TotalMemories     int            `json:"total_memories" jsonschema_description:"Live memories and summaries (not forgotten or archived)."`
	ConversationCount int            `json:"conversation_count" jsonschema_description:"Distinct conversations among live memories."`
	Scopes            map[string]int `json:"scopes" jsonschema_description:"Live memories per scope."`
	Summaries         int            `json:"summaries" jsonschema_description:"Live summaries."`
	Forgotten         int            `json:"forgotten" jsonschema_description:"Soft-forgotten (restorable)."`
	Archived          int            `json:"archived"`
	LastBackup        string         `json:"last_backup,omitempty" jsonschema_description:"When the last successful backup finished."`
	DBSizeMB          float64        `json:"db_size_mb"`
	Engine            string         `json:"engine" jsonschema_description:"embedded, managed or external."`
	Index             indexStatusOut `json:"index" jsonschema_description:"Search index state."`
	Embedding         embeddingOut   `json:"embedding" jsonschema_description:"Semantic recall state."`
	// Maintenance lists each maintenance job's last run.
	Maintenance map[string]MaintenanceRun `json:"maintenance,omitempty" jsonschema_description:"Each maintenance job's last run."`
}

type embeddingOut struct {
	Model   string `json:"model" jsonschema_description:"Embedding model (empty: keyword search only)."`
	Vectors int    `json:"vectors" jsonschema_description:"Live memories with a vector of this model."`
	Pending int    `json:"pending" jsonschema_description:"Memories waiting to be embedded."`
}

type statsResultOut struct {
	Stats statsOut `json:"stats"`
}

func getMemoryStats(d Deps) server.ServerTool {
	tool := mcp.NewTool("get_memory_stats",
		mcp.WithDescription("Report how much is remembered: memories in total and per scope, conversations, summaries, forgotten and archived items, database size, last backup. Use it when the user asks \"how much do you remember?\" or about the state of their memory."),
		mcp.WithInputSchema[statsIn](),
		mcp.WithOutputSchema[statsResultOut](),
		annotate("Memory statistics", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "get_memory_stats", func(ctx context.Context, c call, _ statsIn) (any, error) {
		st, err := c.eng.Stats(ctx)
		if err != nil {
			return nil, err
		}
		out := statsOut{
			TotalMemories: st.TotalMemories, ConversationCount: st.ConversationCount, Scopes: st.Scopes, Summaries: st.Summaries,
			Forgotten: st.Forgotten, Archived: st.Archived, DBSizeMB: st.DBSizeMB, Engine: st.Engine,
			Index:     indexStatusOut{Ready: st.IndexReady, Loaded: st.IndexLoaded, Expected: st.IndexExpected},
			Embedding: embeddingOut{Model: st.Embedding.Model, Vectors: st.Embedding.Vectors, Pending: st.Embedding.Pending},
		}
		if d.LastBackup != nil {
			if t, ok := d.LastBackup(ctx); ok {
				out.LastBackup = iso(t)
			}
		}
		if d.MaintenanceRuns != nil {
			runs, err := d.MaintenanceRuns(ctx)
			if err != nil {
				d.Logger.Warn("cannot read maintenance runs for stats", "err", err)
			} else if len(runs) > 0 {
				out.Maintenance = runs
			}
		}
		return statsResultOut{Stats: out}, nil
	})}
}
