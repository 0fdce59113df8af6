package mcptools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/internal/memfiles"
)

// The memory tool speaks the commands of Anthropic's client-side memory
// tool (memory_20250818) on a virtual /memories directory whose files are
// memories in infmem's store: the design is in package memfiles.
// Its result field carries the text Anthropic's tool answers, so an app
// that uses the API's memory tool can hand it back as the tool_result.

type memoryFileIn struct {
	Command    string  `json:"command" jsonschema:"enum=view,enum=create,enum=str_replace,enum=insert,enum=delete,enum=rename" jsonschema_description:"What to do."`
	Path       string  `json:"path,omitempty" jsonschema_description:"A path under /memories (all but rename)."`
	ViewRange  []int   `json:"view_range,omitempty" jsonschema_description:"view: lines [start, end]; end -1: to the end."`
	FileText   *string `json:"file_text,omitempty" jsonschema_description:"create: the whole content."`
	OldStr     *string `json:"old_str,omitempty" jsonschema_description:"str_replace: text that appears exactly once."`
	NewStr     *string `json:"new_str,omitempty" jsonschema_description:"str_replace: its replacement."`
	InsertLine *int    `json:"insert_line,omitempty" jsonschema_description:"insert: after this line (0: at the top)."`
	InsertText *string `json:"insert_text,omitempty" jsonschema_description:"insert: the text."`
	OldPath    string  `json:"old_path,omitempty" jsonschema_description:"rename: the file or directory."`
	NewPath    string  `json:"new_path,omitempty" jsonschema_description:"rename: where to; must not exist."`
}

type memoryFileOut struct {
	Result    string   `json:"result" jsonschema_description:"What Anthropic's memory tool answers."`
	Path      string   `json:"path" jsonschema_description:"The path acted on."`
	MemoryIDs []string `json:"memory_ids,omitempty" jsonschema_description:"The files' memories; unforget_memory restores deleted ones."`
	Kind      string   `json:"kind,omitempty" jsonschema_description:"recalled_memory when result carries stored text."`
	Notice    string   `json:"notice,omitempty"`
}

func memoryFiles(d Deps) server.ServerTool {
	tool := mcp.NewTool("memory",
		mcp.WithDescription("Anthropic's memory tool on a /memories directory kept in this memory (retrieve_memory searches it): view a directory or file, create or overwrite, str_replace, insert, delete, rename. Check /memories at the start of a task; keep its files current and organised."),
		mcp.WithInputSchema[memoryFileIn](),
		mcp.WithOutputSchema[memoryFileOut](),
		annotate("Memory files", false, true, false),
	)
	return server.ServerTool{Tool: tool, Handler: typedWrite(d, "memory", func(ctx context.Context, c call, in memoryFileIn) (any, error) {
		res, err := memfiles.For(c.eng).Run(ctx, memfiles.FileRequest{
			Command: in.Command, Path: in.Path, ViewRange: in.ViewRange, FileText: in.FileText, OldStr: in.OldStr, NewStr: in.NewStr,
			InsertLine: in.InsertLine, InsertText: in.InsertText, OldPath: in.OldPath, NewPath: in.NewPath,
		})
		if err != nil {
			return nil, err
		}
		out := memoryFileOut{Result: res.Text, Path: res.Path, MemoryIDs: res.IDs}
		out.Kind, out.Notice = labelled(res.HasContent)
		return out, nil
	})}
}
