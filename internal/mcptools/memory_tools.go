package mcptools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/internal/memory"
)

type storeMetaIn struct {
	Scope          string   `json:"scope,omitempty" jsonschema_description:"Scope to store into, e.g. \"Project Alpha\"; created on first use (\"Work/Apollo\" goes under Work). Default: the active scope, else the default one."`
	Tags           []string `json:"tags,omitempty" jsonschema_description:"Labels to find it by, e.g. [\"apollo\", \"deadline\"]; a leading # and letter case are ignored."`
	Source         string   `json:"source,omitempty" jsonschema:"enum=note,enum=conversation,enum=user_profile,enum=summary,enum=lesson" jsonschema_description:"note (default), conversation (a dialogue turn), user_profile, summary, or lesson (learned about helping this user; a proposal until the user confirms it)."`
	Timestamp      string   `json:"timestamp,omitempty" jsonschema_description:"When it happened, ISO 8601 (2024-03-05, 2024-03-05T14:30:00Z); default now."`
	ConversationID string   `json:"conversation_id,omitempty" jsonschema_description:"Groups the turns of one conversation."`
	Speaker        string   `json:"speaker,omitempty" jsonschema_description:"Who said it: user or assistant."`
	Importance     *float64 `json:"importance,omitempty" jsonschema_description:"0 (trivial) to 1 (vital); default 0.5; 0.8+ for what the user stressed."`
	Category       string   `json:"category,omitempty" jsonschema_description:"Free-form category, e.g. decision, todo, preference."`
}

type storeIn struct {
	Content  string      `json:"content" jsonschema_description:"What to remember: one fact, note or event that makes sense on its own later (say who and what; write dates, not \"tomorrow\")."`
	Metadata storeMetaIn `json:"metadata,omitempty" jsonschema_description:"Optional details."`
}

type storeOut struct {
	Status       string `json:"status" jsonschema_description:"OK."`
	MemoryID     string `json:"memory_id" jsonschema_description:"Id of the stored memory, or of the identical one already there."`
	Scope        string `json:"scope"`
	DuplicateOf  string `json:"duplicate_of,omitempty" jsonschema_description:"Set when an identical memory already existed in the scope: nothing new was stored."`
	ScopeCreated bool   `json:"scope_created,omitempty" jsonschema_description:"This call created the scope."`
	// SimilarMemories lets the model update an existing memory instead of
	// keeping two that say nearly the same.
	SimilarMemories []similarOut `json:"similar_memories,omitempty" jsonschema_description:"Memories of the scope that read like the new one."`
	// Updates, SupersededBy and Contradicts: what the store found the new
	// memory replaces, is replaced by, or disagrees with (kept, linked).
	Updates      []changeOut `json:"updates,omitempty" jsonschema_description:"Older memories this one replaces: kept, now superseded_by it."`
	SupersededBy string      `json:"superseded_by,omitempty" jsonschema_description:"Id of a memory dated later that replaces this one."`
	Contradicts  []changeOut `json:"contradicts,omitempty" jsonschema_description:"Memories it contradicts: ask the user which holds."`
	Kind         string      `json:"kind,omitempty" jsonschema_description:"recalled_memory when it carries memory text."`
	Notice       string      `json:"notice,omitempty"`
	Note         string      `json:"note,omitempty"`
}

// changeOut is a memory that a new one updates, is updated by or
// contradicts.
type changeOut struct {
	MemoryID  string   `json:"memory_id"`
	Text      string   `json:"text"`
	DiffersIn []string `json:"differs_in" jsonschema_description:"date, time, amount, number, name, place, state or negation."`
}

func changesOut(us []memory.Update) []changeOut {
	var out []changeOut
	for _, u := range us {
		out = append(out, changeOut{MemoryID: u.ID, Text: u.Text, DiffersIn: nonNilStrings(u.DiffersIn)})
	}
	return out
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

type similarOut struct {
	MemoryID   string   `json:"memory_id"`
	Text       string   `json:"text" jsonschema_description:"Shortened."`
	Similarity float64  `json:"similarity" jsonschema_description:"Cosine similarity of meaning, 0 to 1."`
	SameFact   bool     `json:"same_fact" jsonschema_description:"Same details, mostly the same words: a repeat."`
	DiffersIn  []string `json:"differs_in,omitempty" jsonschema_description:"Kinds of detail that differ."`
	Spellings  []string `json:"spellings,omitempty" jsonschema_description:"A name spelled two ways: here, then in the new one."`
}

func storeMemory(d Deps) server.ServerTool {
	tool := mcp.NewTool("store_memory",
		mcp.WithDescription("Save what the user asks you to remember, or a lasting fact, preference, decision, plan or event worth recalling later: one self-contained sentence per call. Facts about the user themselves (name, birthday, likes, family) go to update_user_profile. An identical memory is not stored twice. updates lists older memories the new one replaces (same subject, changed value): they are kept, marked superseded_by it, and recalled below it; if one is no update, update_memory it with superseded_by \"\". similar_memories lists other look-alikes: keep only one of a same_fact pair."),
		mcp.WithInputSchema[storeIn](),
		mcp.WithOutputSchema[storeOut](),
		annotate("Remember", false, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typedWrite(d, "store_memory", func(ctx context.Context, c call, in storeIn) (any, error) {
		var ts time.Time
		if strings.TrimSpace(in.Metadata.Timestamp) != "" {
			var err error
			if ts, err = parseTimestamp(in.Metadata.Timestamp, c.location(ctx)); err != nil {
				return nil, err
			}
		}
		req := memory.StoreRequest{
			Content: in.Content, Scope: in.Metadata.Scope, ActiveScope: c.sess.ActiveScope(), Tags: in.Metadata.Tags,
			Source: in.Metadata.Source, Timestamp: ts, ConversationID: in.Metadata.ConversationID, Speaker: in.Metadata.Speaker,
			Importance: in.Metadata.Importance, Category: in.Metadata.Category,
		}
		lesson := isLesson(req.Source)
		if lesson {
			// A proposal until the user confirms it (lesson_tools.go).
			req.Source, req.Speaker = memory.SourceProposedLesson, lessonOrigin(ctx)
		}
		res, err := c.eng.Store(ctx, req)
		if err != nil {
			return nil, err
		}
		out := storeOut{Status: "OK", MemoryID: res.ID, Scope: res.Scope, DuplicateOf: res.DuplicateOf, ScopeCreated: res.ScopeCreated}
		if lesson && res.DuplicateOf == "" {
			out.Note = proposedNote
		}
		if res.Unchecked != "" {
			// Stored while the index loaded: what is not reported is
			// unknown, not absent.
			out.Note = strings.TrimSpace(res.Unchecked + ". " + out.Note)
		}
		for _, sm := range res.Similar {
			out.SimilarMemories = append(out.SimilarMemories, similarOut{MemoryID: sm.ID, Text: sm.Text, Similarity: sm.Similarity, SameFact: sm.SameFact, DiffersIn: sm.DiffersIn, Spellings: sm.Spellings})
		}
		out.Updates, out.Contradicts = changesOut(res.Updates), changesOut(res.Contradicts)
		if res.SupersededBy != nil {
			out.SupersededBy = res.SupersededBy.ID
		}
		out.Kind, out.Notice = labelled(len(out.SimilarMemories)+len(out.Updates)+len(out.Contradicts) > 0)
		return out, nil
	})}
}

type retrieveFilterIn struct {
	Scope     string      `json:"scope,omitempty" jsonschema_description:"Scope to search (with its parents and Global) or \"ALL\"; default: the active scope, else all."`
	Tags      []string    `json:"tags,omitempty" jsonschema_description:"Only memories with all of these tags."`
	TimeRange timeRangeIn `json:"time_range,omitempty" jsonschema_description:"Only memories from this period."`
}

type retrieveIn struct {
	Query  string           `json:"query" jsonschema_description:"What to recall: the user's question or its key phrase, e.g. \"Apollo deadline\"."`
	Filter retrieveFilterIn `json:"filter,omitempty" jsonschema_description:"Optional restrictions."`
	TopK   int              `json:"top_k,omitempty" jsonschema_description:"Results, 1 to 100; default 5."`
}

func retrieveMemory(d Deps) server.ServerTool {
	tool := mcp.NewTool("retrieve_memory",
		mcp.WithDescription("Recall memories relevant to a question. Call it before answering anything that depends on the past: earlier conversations, the user's plans, projects, people, preferences, \"do you remember…\". Results come best first, up to top_k, with a confidence (0 to 1) that never rises down the list; loose matches are marked weak. When nothing_relevant is true, say you do not remember rather than guess, unless a weak result plainly answers. A result superseded_by a newer one is out of date: answer with the newer and say what changed (\"December 19, moved from December 12\"); results that contradict each other: ask which holds."),
		mcp.WithInputSchema[retrieveIn](),
		mcp.WithOutputSchema[recallOut](),
		annotate("Recall", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "retrieve_memory", func(ctx context.Context, c call, in retrieveIn) (any, error) {
		if strings.TrimSpace(in.Query) == "" {
			return nil, badInput("query is empty; send what to recall, e.g. \"Apollo deadline\" (recall_memory_by_time lists a period without a query)")
		}
		from, to, err := period(ctx, c, in.Filter.TimeRange)
		if err != nil {
			return nil, err
		}
		res, err := c.eng.Search(ctx, memory.SearchRequest{
			Query: in.Query, Scope: in.Filter.Scope, ActiveScope: c.sess.ActiveScope(), Tags: in.Filter.Tags,
			From: from, To: to, Limit: in.TopK, Location: c.queryLocation(ctx, in.Query),
		})
		if err != nil {
			return nil, err
		}
		return recall(res, true, c.location(ctx)), nil
	})}
}

// period resolves a time-range argument in the user's time zone; an empty
// one is open at both ends.
func period(ctx context.Context, c call, tr timeRangeIn) (from, to time.Time, err error) {
	if strings.TrimSpace(tr.Phrase+tr.From+tr.To) == "" {
		return
	}
	return periodIn(c.location(ctx), tr)
}

func periodIn(loc *time.Location, tr timeRangeIn) (from, to time.Time, err error) {
	now := time.Now()
	if strings.TrimSpace(tr.Phrase) != "" && tr.From == "" && tr.To == "" {
		if from, err = parseWhen("time_range.phrase", tr.Phrase, loc, now, false); err != nil {
			return
		}
		to, err = parseWhen("time_range.phrase", tr.Phrase, loc, now, true)
		return
	}
	if from, err = parseWhen("time_range.from", tr.From, loc, now, false); err != nil {
		return
	}
	to, err = parseWhen("time_range.to", tr.To, loc, now, true)
	return
}

type searchByTagIn struct {
	Tag   string `json:"tag" jsonschema_description:"The tag, with or without #, e.g. \"ProjectAlpha\"."`
	Query string `json:"query,omitempty" jsonschema_description:"Rank the tagged memories by relevance to this; omit to list them newest first."`
	Scope string `json:"scope,omitempty" jsonschema_description:"Scope to search (with its parents and Global) or \"ALL\"; default: the active scope, else all."`
	TopK  int    `json:"top_k,omitempty" jsonschema_description:"Results, 1 to 100; default 20."`
}

func searchByTag(d Deps) server.ServerTool {
	tool := mcp.NewTool("search_by_tag",
		mcp.WithDescription("Recall the memories carrying a tag, when the user names one (\"what do you remember about #ProjectAlpha?\"). With a query they are ranked as in retrieve_memory (weak, nothing_relevant); without one they are listed newest first."),
		mcp.WithInputSchema[searchByTagIn](),
		mcp.WithOutputSchema[recallOut](),
		annotate("Recall by tag", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "search_by_tag", func(ctx context.Context, c call, in searchByTagIn) (any, error) {
		tag := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(in.Tag), "#"))
		if tag == "" {
			return nil, badInput("tag is empty; send the tag to search, e.g. \"ProjectAlpha\"")
		}
		limit := in.TopK
		if limit == 0 {
			limit = 20
		}
		res, err := c.eng.Search(ctx, memory.SearchRequest{Query: in.Query, Scope: in.Scope, ActiveScope: c.sess.ActiveScope(), Tags: []string{tag}, Limit: limit, Location: c.queryLocation(ctx, in.Query)})
		if err != nil {
			return nil, err
		}
		return recall(res, strings.TrimSpace(in.Query) != "", c.location(ctx)), nil
	})}
}

type searchByScopeIn struct {
	Scope string `json:"scope" jsonschema_description:"The scope to read, e.g. \"Work\"; the scopes beneath it are read too."`
	Query string `json:"query,omitempty" jsonschema_description:"Rank by relevance to this; omit to list the newest memories."`
	TopK  int    `json:"top_k,omitempty" jsonschema_description:"Results, 1 to 100; default 20."`
}

func searchByScope(d Deps) server.ServerTool {
	tool := mcp.NewTool("search_by_scope",
		mcp.WithDescription("Recall what one scope holds, with the scopes beneath it: \"what do you remember from my Work scope?\" reads Work, Work/Apollo (a slash nests) and any scope whose parent_scope is Work, but not Global or other scopes. With a query the memories are ranked as in retrieve_memory (weak, nothing_relevant); without one the newest are listed."),
		mcp.WithInputSchema[searchByScopeIn](),
		mcp.WithOutputSchema[recallOut](),
		annotate("Recall by scope", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "search_by_scope", func(ctx context.Context, c call, in searchByScopeIn) (any, error) {
		if strings.TrimSpace(in.Scope) == "" {
			return nil, badInput("scope is empty; send the scope to read (list_memory_scopes shows them)")
		}
		limit := in.TopK
		if limit == 0 {
			limit = 20
		}
		res, err := c.eng.Search(ctx, memory.SearchRequest{Query: in.Query, Scope: in.Scope, Subtree: true, Limit: limit, Location: c.queryLocation(ctx, in.Query)})
		if err != nil {
			return nil, err
		}
		return recall(res, strings.TrimSpace(in.Query) != "", c.location(ctx)), nil
	})}
}

type recallTimeIn struct {
	TimeQuery string      `json:"time_query,omitempty" jsonschema_description:"The period in words: \"yesterday\", \"last week\", \"3 days ago\", \"March 2023\", \"from March 1 to March 15\"."`
	Range     timeRangeIn `json:"range,omitempty" jsonschema_description:"The period as from/to instead (wins over time_query)."`
	Scope     string      `json:"scope,omitempty" jsonschema_description:"Scope to read (with its parents and Global) or \"ALL\"; default: the active scope, else all."`
	Limit     int         `json:"limit,omitempty" jsonschema_description:"Most memories to return, 1 to 100; default 50."`
}

type timeFrameOut struct {
	From     string `json:"from" jsonschema_description:"Start, included (UTC; empty: open)."`
	To       string `json:"to" jsonschema_description:"End, excluded (UTC)."`
	TimeZone string `json:"time_zone" jsonschema_description:"Time zone the period was read in."`
}

type recallTimeOut struct {
	Kind           string       `json:"kind" jsonschema_description:"Always recalled_memory."`
	Notice         string       `json:"notice"`
	Results        []memoryItem `json:"results" jsonschema_description:"Oldest first."`
	TimeFrame      timeFrameOut `json:"time_frame" jsonschema_description:"The period as read."`
	Total          int          `json:"total" jsonschema_description:"Memories the period holds."`
	Truncated      bool         `json:"truncated" jsonschema_description:"Total exceeds the results returned."`
	ScopesSearched []string     `json:"scopes_searched"`
}

func recallMemoryByTime(d Deps) server.ServerTool {
	tool := mcp.NewTool("recall_memory_by_time",
		mcp.WithDescription("List what was remembered in a period, oldest first: \"what did we talk about last week?\", \"what happened yesterday?\", read in the user's time zone. To look for something specific in a period, use retrieve_memory with filter.time_range."),
		mcp.WithInputSchema[recallTimeIn](),
		mcp.WithOutputSchema[recallTimeOut](),
		annotate("Recall a period", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "recall_memory_by_time", func(ctx context.Context, c call, in recallTimeIn) (any, error) {
		// The period is read here, in the user's time zone (the profile's
		// time_zone if set), rather than by the engine in the configured one.
		loc := c.location(ctx)
		var from, to time.Time
		var err error
		switch {
		case in.Range.From != "" || in.Range.To != "" || in.Range.Phrase != "":
			from, to, err = periodIn(loc, in.Range)
		case strings.TrimSpace(in.TimeQuery) != "":
			from, to, err = parsePeriod("time_query", in.TimeQuery, loc, time.Now())
		}
		if err != nil {
			return nil, err
		}
		res, err := c.eng.ByTime(ctx, memory.TimeRequest{Phrase: in.TimeQuery, From: from, To: to, Scope: in.Scope, ActiveScope: c.sess.ActiveScope(), Limit: in.Limit})
		if err != nil {
			return nil, err
		}
		return recallTimeOut{
			Kind: recalledKind, Notice: recalledNotice, Results: toItems(res.Results, false, loc),
			TimeFrame: timeFrameOut{From: iso(res.From), To: iso(res.To), TimeZone: zoneName(loc)}, Total: res.Total,
			Truncated: res.Total > len(res.Results), ScopesSearched: res.Scopes,
		}, nil
	})}
}

type listIn struct {
	Scope            string      `json:"scope,omitempty" jsonschema_description:"Scope to read (with its parents and Global) or \"ALL\"; default: the active scope, else all."`
	Tags             []string    `json:"tags,omitempty" jsonschema_description:"Only memories with all of these tags."`
	Source           string      `json:"source,omitempty" jsonschema:"enum=note,enum=conversation,enum=user_profile,enum=summary,enum=lesson,enum=proposed_lesson,enum=file" jsonschema_description:"Only this kind of memory."`
	TimeRange        timeRangeIn `json:"time_range,omitempty" jsonschema_description:"Only memories from this period."`
	IncludeForgotten bool        `json:"include_forgotten,omitempty" jsonschema_description:"Also soft-forgotten memories."`
	OnlyForgotten    bool        `json:"only_forgotten,omitempty" jsonschema_description:"Only soft-forgotten memories (ids for unforget_memory)."`
	IncludeArchived  bool        `json:"include_archived,omitempty" jsonschema_description:"Also archived memories (condensed into summaries)."`
	Sort             string      `json:"sort,omitempty" jsonschema:"enum=newest,enum=oldest,enum=most_used,enum=importance" jsonschema_description:"Order; default newest."`
	Limit            int         `json:"limit,omitempty" jsonschema_description:"Page size, 1 to 100; default 20."`
	Offset           int         `json:"offset,omitempty" jsonschema_description:"Skip this many (next_offset of the previous page)."`
}

type listItem struct {
	memoryItem
	CreatedAt   string `json:"created_at" jsonschema_description:"When it was stored."`
	UseCount    int64  `json:"use_count" jsonschema_description:"How often it was recalled."`
	ForgottenAt string `json:"forgotten_at,omitempty" jsonschema_description:"When it was soft-forgotten."`
	Archived    bool   `json:"archived,omitempty"`
	Pinned      bool   `json:"pinned,omitempty" jsonschema_description:"Maintenance never archives it."`
	MergedInto  string `json:"merged_into,omitempty" jsonschema_description:"The memory this forgotten duplicate was merged into (unforget_memory undoes it)."`
}

type listOut struct {
	Kind       string     `json:"kind" jsonschema_description:"Always recalled_memory."`
	Notice     string     `json:"notice"`
	Memories   []listItem `json:"memories" jsonschema_description:"This page."`
	Total      int        `json:"total" jsonschema_description:"How many match in all."`
	NextOffset int        `json:"next_offset,omitempty" jsonschema_description:"Offset of the next page; absent on the last."`
	Scopes     []string   `json:"scopes_searched"`
	TimeZone   string     `json:"time_zone,omitempty" jsonschema_description:"Of local_time."`
}

func listMemories(d Deps) server.ServerTool {
	tool := mcp.NewTool("list_memories",
		mcp.WithDescription("Browse stored memories without a query, with filters, sorting and paging: \"show everything I saved about work\", \"what have you remembered recently?\", \"show what I asked you to forget\". Listing does not count as using a memory."),
		mcp.WithInputSchema[listIn](),
		mcp.WithOutputSchema[listOut](),
		annotate("List memories", true, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typed(d, "list_memories", func(ctx context.Context, c call, in listIn) (any, error) {
		from, to, err := period(ctx, c, in.TimeRange)
		if err != nil {
			return nil, err
		}
		res, err := c.eng.List(ctx, memory.ListRequest{
			Scope: in.Scope, ActiveScope: c.sess.ActiveScope(), Tags: in.Tags, Source: in.Source, From: from, To: to,
			IncludeForgotten: in.IncludeForgotten, OnlyForgotten: in.OnlyForgotten, IncludeArchived: in.IncludeArchived,
			Sort: in.Sort, Limit: in.Limit, Offset: in.Offset,
		})
		if err != nil {
			return nil, err
		}
		loc := c.location(ctx)
		items := toItems(res.Memories, false, loc)
		out := listOut{Kind: recalledKind, Notice: recalledNotice, Memories: make([]listItem, len(items)), Total: res.Total, NextOffset: res.NextOffset, Scopes: res.Scopes}
		if len(items) > 0 {
			out.TimeZone = zoneName(loc)
		}
		for i, m := range res.Memories {
			out.Memories[i] = listItem{memoryItem: items[i], CreatedAt: iso(m.CreatedAt), UseCount: m.UseCount, ForgottenAt: isoPtr(m.ForgottenAt),
				Archived: m.Archived, Pinned: m.Pinned, MergedInto: m.MergedInto}
		}
		return out, nil
	})}
}

type updateIn struct {
	MemoryID   string    `json:"memory_id" jsonschema_description:"Id of the memory (from an earlier result)."`
	Content    *string   `json:"content,omitempty" jsonschema_description:"New text."`
	Tags       *[]string `json:"tags,omitempty" jsonschema_description:"Replace all tags with these."`
	AddTags    []string  `json:"add_tags,omitempty" jsonschema_description:"Tags to add."`
	RemoveTags []string  `json:"remove_tags,omitempty" jsonschema_description:"Tags to remove."`
	Importance *float64  `json:"importance,omitempty" jsonschema_description:"New importance, 0 to 1."`
	Category   *string   `json:"category,omitempty" jsonschema_description:"New category; empty clears it."`
	Scope      *string   `json:"scope,omitempty" jsonschema_description:"Move it to this scope."`
	Pinned     *bool     `json:"pinned,omitempty" jsonschema_description:"true: maintenance never archives or prunes it (what the user wants kept as is); false: unpin."`
	// SupersededBy undoes (or makes) a knowledge-update link.
	SupersededBy *string `json:"superseded_by,omitempty" jsonschema_description:"Id of the newer memory that replaces this one; \"\": it is current again."`
	// ConfirmLesson is how a proposed lesson becomes one (lesson_tools.go).
	ConfirmLesson bool `json:"confirm_lesson,omitempty" jsonschema_description:"true: the user said to keep this proposed_lesson."`
}

type updateOut struct {
	Status       string   `json:"status" jsonschema_description:"OK."`
	MemoryID     string   `json:"memory_id"`
	Changed      []string `json:"changed" jsonschema_description:"Fields that changed."`
	PreviousText string   `json:"previous_text,omitempty" jsonschema_description:"The text before the change."`
	Scope        string   `json:"scope" jsonschema_description:"Its scope now."`
	MergedInto   string   `json:"merged_into,omitempty" jsonschema_description:"Another memory of the scope already said this: this one was merged into it (unforget_memory undoes that)."`
	Note         string   `json:"note,omitempty"`
	Kind         string   `json:"kind,omitempty" jsonschema_description:"recalled_memory when it carries memory text."`
	Notice       string   `json:"notice,omitempty"`
}

func updateMemory(d Deps) server.ServerTool {
	tool := mcp.NewTool("update_memory",
		mcp.WithDescription("Correct or extend a stored memory instead of storing a contradicting one (\"actually the deadline moved to June 12\"): change its text, tags, importance, category or scope, or pin it, by memory_id. The previous text is kept in its history."),
		mcp.WithInputSchema[updateIn](),
		mcp.WithOutputSchema[updateOut](),
		annotate("Update a memory", false, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typedWrite(d, "update_memory", func(ctx context.Context, c call, in updateIn) (any, error) {
		var confirmed []string
		if in.ConfirmLesson {
			m, changed, err := c.eng.ConfirmLesson(ctx, in.MemoryID)
			if err != nil {
				return nil, err
			}
			if changed {
				confirmed = []string{"source"}
			}
			if in.Content == nil && in.Tags == nil && in.AddTags == nil && in.RemoveTags == nil && in.Importance == nil && in.Category == nil && in.Scope == nil && in.Pinned == nil {
				return updateOut{Status: "OK", MemoryID: m.ID, Changed: append([]string{}, confirmed...), Scope: m.Scope}, nil
			}
		}
		res, err := c.eng.Update(ctx, memory.UpdateRequest{
			ID: in.MemoryID, Content: in.Content, Tags: in.Tags, AddTags: in.AddTags, RemoveTags: in.RemoveTags,
			Importance: in.Importance, Category: in.Category, Scope: in.Scope, Pinned: in.Pinned, SupersededBy: in.SupersededBy,
			ActiveScope: c.sess.ActiveScope(),
		})
		if err != nil {
			return nil, err
		}
		res.Changed = append(confirmed, res.Changed...)
		if res.Changed == nil {
			res.Changed = []string{}
		}
		out := updateOut{Status: "OK", MemoryID: res.ID, Changed: res.Changed, PreviousText: res.PreviousText, Scope: res.Scope, MergedInto: res.MergedInto}
		if res.MergedInto != "" {
			out.Note = fmt.Sprintf("memory %s already says this, so this memory was merged into it instead of keeping two copies; unforget_memory with %s undoes the merge", res.MergedInto, res.ID)
		}
		out.Kind, out.Notice = labelled(out.PreviousText != "")
		return out, nil
	})}
}

type deleteTargetIn struct {
	MemoryID string `json:"memory_id,omitempty" jsonschema_description:"Forget this one memory (id from an earlier result)."`
	Scope    string `json:"scope,omitempty" jsonschema_description:"Forget the memories of this scope (alone: the whole scope; in hard mode its definition too)."`
	Tag      string `json:"tag,omitempty" jsonschema_description:"Forget memories with this tag."`
	Query    string `json:"query,omitempty" jsonschema_description:"Forget every memory containing all these words, e.g. \"Apollo\"."`
}

type deleteIn struct {
	Target       deleteTargetIn `json:"target" jsonschema_description:"What to forget. Fields given together narrow each other."`
	ForgetMode   string         `json:"forget_mode,omitempty" jsonschema:"enum=soft,enum=hard" jsonschema_description:"soft (default): hidden everywhere, undoable with unforget_memory; hard: deleted for good."`
	DryRun       bool           `json:"dry_run,omitempty" jsonschema_description:"List what would be forgotten; change nothing."`
	ConfirmCount int            `json:"confirm_count,omitempty" jsonschema_description:"Needed when a query matches more than 10: the number matched."`
	Everything   bool           `json:"everything,omitempty" jsonschema_description:"With target.query alone: also forget the memories of the scopes it names and remove the profile entries naming it (else they are only listed)."`
}

type scopeMatchOut struct {
	Scope    string `json:"scope"`
	Memories int    `json:"memories" jsonschema_description:"Its memories without the words."`
}

type profileMatchOut struct {
	Field string `json:"field" jsonschema_description:"name, preferences, facts, contacts or notes."`
	Key   string `json:"key"`
	Text  string `json:"text"`
}

type forgottenOut struct {
	MemoryID string `json:"memory_id" jsonschema_description:"Id of the forgotten memory."`
	Text     string `json:"text" jsonschema_description:"Its text (shortened)."`
}

type deleteOut struct {
	Status       string            `json:"status" jsonschema_description:"OK."`
	DeletedCount int               `json:"deleted_count" jsonschema_description:"How many were forgotten."`
	Matched      int               `json:"matched" jsonschema_description:"How many the target names."`
	DryRun       bool              `json:"dry_run,omitempty" jsonschema_description:"Nothing was changed (dry_run)."`
	NeedsConfirm bool              `json:"needs_confirmation,omitempty" jsonschema_description:"More than 10 matched: show them, and repeat with confirm_count if the user agrees."`
	Scope        string            `json:"scope,omitempty" jsonschema_description:"Set when a whole scope was forgotten."`
	ScopeDeleted bool              `json:"scope_deleted,omitempty" jsonschema_description:"True when the scope definition was deleted too."`
	Forgotten    []forgottenOut    `json:"forgotten" jsonschema_description:"What was (or would be) forgotten, up to 50."`
	Note         string            `json:"note" jsonschema_description:"Soft or hard, and how to undo."`
	Scopes       []scopeMatchOut   `json:"scopes,omitempty" jsonschema_description:"Scopes the query names (included with everything)."`
	Profile      []profileMatchOut `json:"profile,omitempty" jsonschema_description:"Profile entries naming it (removed with everything)."`
	Kind         string            `json:"kind,omitempty" jsonschema_description:"recalled_memory when it carries memory text."`
	Notice       string            `json:"notice,omitempty"`
}

func deleteMemory(d Deps) server.ServerTool {
	tool := mcp.NewTool("delete_memory",
		mcp.WithDescription("Forget memories when the user asks (\"forget that\", \"delete what I said about X\", \"forget everything about Project Y\"). Name the target by memory_id (best), scope, tag or query (every memory containing all its words; for \"everything about X\" also the scopes and profile entries naming X, with everything: true); dry_run shows what would go. Soft by default: the memories stop appearing anywhere and unforget_memory can bring them back. Use forget_mode hard only when the user wants the data gone for good."),
		mcp.WithInputSchema[deleteIn](),
		mcp.WithOutputSchema[deleteOut](),
		annotate("Forget", false, true, true),
	)
	return server.ServerTool{Tool: tool, Handler: typedWrite(d, "delete_memory", func(ctx context.Context, c call, in deleteIn) (any, error) {
		hard := false
		switch strings.ToLower(strings.TrimSpace(in.ForgetMode)) {
		case "", "soft":
		case "hard":
			hard = true
		default:
			return nil, badInput("forget_mode %q is not soft or hard", in.ForgetMode)
		}
		if in.ConfirmCount < 0 {
			return nil, badInput("confirm_count must be the number of memories the query matched, not %d", in.ConfirmCount)
		}
		res, err := c.eng.Forget(ctx, memory.ForgetRequest{
			ID: in.Target.MemoryID, Scope: in.Target.Scope, Tag: in.Target.Tag, Query: in.Target.Query,
			ActiveScope: c.sess.ActiveScope(), Hard: hard, DryRun: in.DryRun, ConfirmCount: in.ConfirmCount, Everything: in.Everything,
		})
		if err != nil {
			return nil, err
		}
		out := deleteOut{Status: "OK", DeletedCount: res.Count, Matched: res.Matched, DryRun: res.DryRun, NeedsConfirm: res.NeedsConfirmation,
			Scope: res.Scope, ScopeDeleted: res.ScopeDeleted, Forgotten: []forgottenOut{}, Note: res.Note}
		if res.Count == 0 {
			out.Scope = ""
		}
		for _, it := range res.Items {
			out.Forgotten = append(out.Forgotten, forgottenOut{MemoryID: it.ID, Text: it.Text})
		}
		for _, s := range res.Scopes {
			out.Scopes = append(out.Scopes, scopeMatchOut{Scope: s.Name, Memories: s.Memories})
		}
		for _, p := range res.Profile {
			out.Profile = append(out.Profile, profileMatchOut{Field: p.Field, Key: p.Key, Text: p.Text})
		}
		out.Kind, out.Notice = labelled(len(out.Forgotten) > 0 || len(out.Profile) > 0)
		return out, nil
	})}
}

type unforgetIn struct {
	MemoryIDs []string `json:"memory_ids" jsonschema_description:"Ids of soft-forgotten memories (from delete_memory, or list_memories with only_forgotten)."`
}

type unforgetOut struct {
	Status   string   `json:"status" jsonschema_description:"OK."`
	Restored []string `json:"restored" jsonschema_description:"Ids restored; others are skipped."`
	Note     string   `json:"note,omitempty" jsonschema_description:"Why ids were skipped."`
}

func unforgetMemory(d Deps) server.ServerTool {
	tool := mcp.NewTool("unforget_memory",
		mcp.WithDescription("Undo a soft forget: restore memories by id so they are recalled again (\"actually, keep that\"). Hard-deleted memories cannot be restored."),
		mcp.WithInputSchema[unforgetIn](),
		mcp.WithOutputSchema[unforgetOut](),
		annotate("Undo forget", false, false, true),
	)
	return server.ServerTool{Tool: tool, Handler: typedWrite(d, "unforget_memory", func(ctx context.Context, c call, in unforgetIn) (any, error) {
		restored, err := c.eng.Unforget(ctx, in.MemoryIDs)
		if err != nil {
			return nil, err
		}
		out := unforgetOut{Status: "OK", Restored: restored}
		if out.Restored == nil {
			out.Restored = []string{}
		}
		if len(restored) < len(in.MemoryIDs) {
			out.Note = "some ids were not soft-forgotten memories (unknown, never forgotten, or hard-deleted) and were skipped"
		}
		return out, nil
	})}
}
