package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/infmem/infmem/internal/clip"
	"github.com/infmem/infmem/internal/mcpserve"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/timephrase"
)

// scopeHolder is a session that remembers its active scope.
type scopeHolder interface {
	ActiveScope() string
	SetActiveScope(string)
}

// fallbackScope serves sessions that cannot hold a scope themselves.
type fallbackScope struct {
	mu    sync.Mutex
	scope string
}

func (f *fallbackScope) ActiveScope() string     { f.mu.Lock(); defer f.mu.Unlock(); return f.scope }
func (f *fallbackScope) SetActiveScope(s string) { f.mu.Lock(); f.scope = s; f.mu.Unlock() }

func sessionScope(ctx context.Context, fb *fallbackScope) scopeHolder {
	if h, ok := server.ClientSessionFromContext(ctx).(scopeHolder); ok {
		return h
	}
	return fb
}

// call is what a tool handler works with.
type call struct {
	eng  *memory.Engine
	sess scopeHolder
	deps Deps
}

// location is the time zone the tools read dates and time phrases in: the
// user profile's time_zone preference, else infmem's configured zone.
func (c call) location(ctx context.Context) *time.Location {
	loc, err := c.eng.UserLocation(ctx)
	if err != nil {
		c.deps.Logger.Warn("cannot use the user profile's time zone; using the configured one", "err", c.deps.Redact(err.Error()))
	}
	return loc
}

// queryLocation is the zone a search query's time words ("last May",
// "yesterday") are read in: the user's (location) when the query names a
// period, else nil, the engine's zone, without reading the profile.
func (c call) queryLocation(ctx context.Context, query string) *time.Location {
	if _, ok := timephrase.Scan(query, time.Now(), c.eng.Location()); !ok {
		return nil
	}
	return c.location(ctx)
}

// zoneName names a time zone for the model: its IANA name, or for the
// system's zone (named Local) its abbreviation and offset now.
func zoneName(loc *time.Location) string {
	if loc.String() != "Local" {
		return loc.String()
	}
	return "the system's time zone (" + time.Now().In(loc).Format("MST, UTC-07:00") + ")"
}

// typed adapts a handler on a decoded input struct to an MCP tool handler:
// bad arguments and refused requests become isError results that say what
// to send instead; failures (a full disk, a database gone) become isError
// results that say what happened, with the details logged.
func typed[In any](d Deps, name string, fn func(ctx context.Context, c call, in In) (any, error)) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if err := decodeArgs(req.GetRawArguments(), &in); err != nil {
			return mcp.NewToolResultError(clip.Text(fmt.Sprintf("%s: %v", name, err))), nil
		}
		eng, release, err := d.Memory(ctx)
		var out any
		if err == nil {
			func() {
				defer release() // also when fn panics (the server recovers)
				out, err = fn(ctx, call{eng: eng, sess: sessionScope(ctx, d.fallback), deps: d}, in)
			}()
		}
		switch {
		case err == nil:
		// Every error text is clipped (package clip): it may quote an
		// argument of any size.
		case memory.IsInputError(err), errors.Is(err, memory.ErrLoading), errors.Is(err, errInput):
			return mcp.NewToolResultError(clip.Text(fmt.Sprintf("%s: %s", name, err.Error()))), nil
		case errors.As(err, new(refusal)):
			return mcp.NewToolResultError(clip.Text(fmt.Sprintf("%s: %s", name, d.Redact(err.Error())))), nil
		default:
			msg := clip.Text(d.Redact(err.Error()))
			d.Logger.Error("tool failed", "tool", name, "err", msg)
			// Still a tool result, so the model can tell the user what
			// went wrong (a protocol error would reach nobody).
			return mcp.NewToolResultError(failureText(name, msg)), nil
		}
		b, err := json.Marshal(nonNil(out))
		if err != nil {
			return nil, fmt.Errorf("%s: cannot encode result: %w", name, err)
		}
		if len(b) > MaxResultBytes {
			// Whatever the database holds (memories as long as another
			// device allows, many of them), one answer stays readable.
			return mcp.NewToolResultError(fmt.Sprintf("%s: the result would be %d bytes, over the limit of %d bytes (%d MiB) for one tool result: ask for fewer results (a smaller top_k or limit) or a narrower query",
				name, len(b), MaxResultBytes, MaxResultBytes>>20)), nil
		}
		// b is json.Marshal's output: the MCP writer copies it as it is.
		return mcp.NewToolResultStructured(mcpserve.JSON(b), string(b)), nil
	}
}

// typedWrite is typed for a tool that writes a memory: it takes the
// engine from Deps.Write when set (not waiting for the index to load).
func typedWrite[In any](d Deps, name string, fn func(ctx context.Context, c call, in In) (any, error)) server.ToolHandlerFunc {
	if d.Write != nil {
		d.Memory = d.Write
	}
	return typed(d, name, fn)
}

// MaxResultBytes bounds one tool result's JSON: twice the longest memory
// any configuration allows (memory.max_content_bytes' ceiling, 1 MiB).
const MaxResultBytes = 2 << 20

var errInput = errors.New("invalid input")

// engineLocation matches the source positions FerretDB puts in its error
// messages ("[msg_insert.go:168 handler.(*Handler).MsgInsert]").
var engineLocation = regexp.MustCompile(`\s*\[[\w.]+\.go:\d+ [^\]]*\]`)

// diskFull recognises a write refused for lack of space: SQLite's "database
// or disk is full" or "disk I/O error" (what a size limit gives), ENOSPC,
// EFBIG.
var diskFull = regexp.MustCompile(`(?i)disk is full|no space left|file too large|disk I/O error|SQLITE_FULL`)

// failureText words a failure the user cannot fix by asking differently.
func failureText(tool, msg string) string {
	msg = engineLocation.ReplaceAllString(msg, "")
	if diskFull.MatchString(msg) {
		return fmt.Sprintf("%s failed: the disk holding infmem's data is full (or over a size limit), so the change was not saved. Ask the user to free some space, then try again. (%s)", tool, msg)
	}
	return fmt.Sprintf("%s failed: %s", tool, msg)
}

func badInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errInput, fmt.Sprintf(format, args...))
}

// BadInput is an error a tool hook returns for a request it refuses; the
// tool answers it as an isError result with this message.
func BadInput(format string, args ...any) error { return badInput(format, args...) }

// refusal is a request a tool hook declines for now (a rate limit, a disk
// nearly full): an isError result with the message as it is.
type refusal struct{ msg string }

func (r refusal) Error() string { return r.msg }

// Refused is an error a tool hook returns to decline a well-formed request
// for a reason the user can act on ("try again in 40 s", "free space");
// the tool answers it as an isError result with this message.
func Refused(format string, args ...any) error { return refusal{fmt.Sprintf(format, args...)} }

// decodeArgs decodes tool arguments strictly: an unknown or mistyped
// argument is an error that names it and lists the valid ones.
func decodeArgs(raw any, into any) error {
	if raw == nil {
		raw = map[string]any{}
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return fmt.Errorf("arguments are not JSON: %v", err)
	}
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		b = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return describeDecodeError(err, reflect.TypeOf(into).Elem())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("arguments must be one JSON object")
	}
	return nil
}

func describeDecodeError(err error, t reflect.Type) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		if te.Field == "" {
			return fmt.Errorf("arguments must be a JSON object of named arguments, not %s", te.Value)
		}
		return fmt.Errorf("argument %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	case errors.As(err, &se):
		return fmt.Errorf("arguments are not valid JSON: %v", se)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return fmt.Errorf("unknown argument %s; this tool takes: %s", field, strings.Join(argNames(t), ", "))
	}
	return fmt.Errorf("cannot read arguments: %v", err)
}

// argNames lists the top-level argument names of an input struct.
func argNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return []string{"(no arguments)"}
	}
	return names
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int64", "int32":
		return "a whole number"
	case "float64", "float32":
		return "a number"
	case "bool":
		return "true or false"
	case "slice":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "another type"
}

// parseWhen reads a time argument: an ISO 8601 date or date-time, or a
// phrase ("last Monday"). As a start it is the date-time, the date's
// midnight or the phrase's start. With end set it is an exclusive end: the
// date-time itself, the midnight after a date (so that day is in), or the
// end of a phrase's range (so that whole period is in).
func parseWhen(arg, s string, loc *time.Location, now time.Time, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		if end {
			return t.AddDate(0, 0, 1), nil
		}
		return t, nil
	}
	r, err := timephrase.Parse(s, now.In(loc), loc)
	if err != nil {
		return time.Time{}, badInput("%s %q is neither an ISO 8601 date (2024-03-05, 2024-03-05T14:30:00Z) nor a time phrase like \"last Monday\"", arg, s)
	}
	if end {
		return r.To, nil
	}
	return r.From, nil
}

// parsePeriod reads a period in words ("last week") as [from, to).
func parsePeriod(arg, phrase string, loc *time.Location, now time.Time) (from, to time.Time, err error) {
	r, err := timephrase.Parse(strings.TrimSpace(phrase), now.In(loc), loc)
	if err != nil {
		return time.Time{}, time.Time{}, badInput("%s: %v; or send range with from/to ISO dates", arg, err)
	}
	return r.From, r.To, nil
}

// parseTimestamp reads when a memory happened: ISO 8601 only.
func parseTimestamp(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, badInput("timestamp %q is not an ISO 8601 date or date-time; send e.g. 2024-03-05 or 2024-03-05T14:30:00Z", s)
}

func iso(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func isoPtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return iso(*t)
}

func boolPtr(b bool) *bool { return &b }

// annotate sets all four behaviour hints explicitly: mcp-go's defaults
// (destructive, open-world) are wrong for a local memory.
func annotate(title string, readOnly, destructive, idempotent bool) mcp.ToolOption {
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{
		Title: title, ReadOnlyHint: boolPtr(readOnly), DestructiveHint: boolPtr(destructive),
		IdempotentHint: boolPtr(idempotent), OpenWorldHint: boolPtr(false),
	})
}
