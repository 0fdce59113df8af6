package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/infmem/infmem/internal/memory"
)

// Format names an input format.
type Format string

// The formats Read understands.
const (
	FormatAuto        Format = "auto"
	FormatMemoryJSONL Format = "memory-jsonl"
	FormatClaudeCode  Format = "claude-code"
	FormatMarkdown    Format = "markdown"
	FormatMCPMS       Format = "mcp-memory-service"
	FormatChatGPT     Format = "chatgpt"
	FormatClaudeAI    Format = "claude-ai"
	FormatInfmemJSON  Format = "infmem-json"
)

// Formats lists every concrete format, in the order auto tries them.
var Formats = []Format{FormatInfmemJSON, FormatMemoryJSONL, FormatChatGPT, FormatClaudeAI, FormatMCPMS, FormatClaudeCode, FormatMarkdown}

// ParseFormat checks a format name given by a user ("" means auto).
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	if f == "" || f == FormatAuto {
		return FormatAuto, nil
	}
	if slices.Contains(Formats, f) {
		return f, nil
	}
	names := []string{string(FormatAuto)}
	for _, f := range Formats {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("format %q is not one of %s", s, strings.Join(names, ", "))
}

// Sources of imported memories (the memory engine's names).
const (
	sourceNote         = "note"
	sourceConversation = "conversation"
	sourceSummary      = "summary"
)

// Item is one memory an input holds, as read: not yet checked against the
// engine's rules, nor split to its size limit.
type Item struct {
	// Where names the item in its input for messages: "file:line" and, for
	// records, which one.
	Where string
	// Key identifies the item within its format, across files and runs:
	// a message id, a content hash, a note's path and text. Two items with
	// the same key are the same item.
	Key string
	// Scope is the scope the input puts it in (infmem's export); empty
	// means the import's target scope.
	Scope string
	Text  string
	Tags  []string
	// Source is note (default), conversation or summary; file (infmem's
	// export) with Path.
	Source string
	// Path is a memory tool file's path (source file): its text is stored
	// as it is, as that file.
	Path string
	// Timestamp is when it happened; zero means now.
	Timestamp      time.Time
	Speaker        string
	ConversationID string
	Category       string
	Importance     *float64
	// Archived items are archived once stored (infmem's export).
	Archived bool
	// Strict items come from infmem itself: a tag or field beyond the
	// engine's limits is refused rather than shortened.
	Strict bool
	// Restore is what infmem's own export carries of the item beyond the
	// fields above (its id, bookkeeping, marks and links): stored with it.
	Restore *memory.Restored
}

// ScopeDef is a scope an input defines (infmem's export).
type ScopeDef struct {
	Name, Description, Parent string
	// CreatedAt is when it was made (infmem's export); zero: now.
	CreatedAt time.Time
	Where     string
}

// ProfileDef is a user profile an input holds (infmem's export); it is
// merged into the profile: nothing already there is replaced.
type ProfileDef struct {
	Name        string
	Preferences map[string]string
	Facts       map[string]string
	Contacts    []Contact
	Notes       []string
	// CreatedAt and UpdatedAt are the exported profile's times: kept when
	// the profile here was empty.
	CreatedAt, UpdatedAt time.Time
}

// Contact is a profile contact.
type Contact struct {
	Name     string `json:"name"`
	Relation string `json:"relation,omitempty"`
	Notes    string `json:"notes,omitempty"`
}

// Input is everything read from one path.
type Input struct {
	Path   string
	Format Format
	Items  []Item
	Scopes []ScopeDef
	// Profile is set when the input holds a user profile.
	Profile *ProfileDef
	// Skipped counts what the input holds that is not imported: empty,
	// system and tool messages, deleted rows.
	Skipped int
	// Warnings say what was left out and why (a note that is a link
	// leaving its folder, say); the report carries them.
	Warnings []string
	// Units says what the items came from, for the report: "3 files",
	// "12 conversations".
	Units string
}

// Read reads path in format (FormatAuto: detected) and returns every item
// it holds, or an error naming the file and the line or record at fault.
func Read(path string, format Format) (*Input, error) {
	return ReadContext(context.Background(), path, format)
}

// ReadContext is Read, stopped when ctx ends (the import job's context:
// a client that leaves, a daemon that stops).
func ReadContext(ctx context.Context, path string, format Format) (*Input, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("cannot import %s: %w", path, unwrapPathError(err))
	}
	if format == "" || format == FormatAuto {
		if format, err = Detect(abs); err != nil {
			return nil, err
		}
	}
	var in *Input
	switch format {
	case FormatMemoryJSONL:
		in, err = readMemoryJSONL(abs)
	case FormatClaudeCode:
		in, err = readClaudeCode(abs)
	case FormatMarkdown:
		in, err = readMarkdown(ctx, abs)
	case FormatMCPMS:
		in, err = readMCPMS(ctx, abs)
	case FormatChatGPT:
		in, err = readChatGPT(ctx, abs)
	case FormatClaudeAI:
		in, err = readClaudeAI(ctx, abs)
	case FormatInfmemJSON:
		in, err = readInfmemJSON(abs)
	default:
		return nil, fmt.Errorf("unknown import format %q", format)
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	in.Path, in.Format = abs, format
	return in, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
