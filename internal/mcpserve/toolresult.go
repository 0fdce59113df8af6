package mcpserve

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// JSON is a tool result's structured content exactly as encoding/json's
// Marshal wrote it: valid, compact, with <, >, & and U+2028/2029 escaped.
// Serve writes it as it is. encoding/json would check and compact it again
// three times on its way out (as the structured content, as the output of
// CallToolResult's MarshalJSON, as part of the response), which took a
// retrieve's answer ~0.1 ms at 100k. Its MarshalJSON returns it unchanged,
// so every other encoder writes the same bytes. Bytes from anywhere else
// (hand-written, indented) must stay a json.RawMessage.
type JSON []byte

// MarshalJSON returns j as it is (null when empty).
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j) == 0 {
		return []byte("null"), nil
	}
	return j, nil
}

// appendToolResponse appends to dst the bytes json.Marshal(v) gives for a
// tools/call answer whose structured content is JSON and whose only content
// is its text (the shape mcp.NewToolResultStructured builds), without
// scanning the structured content again; ok is false for any other message,
// which the caller then encodes with json.Marshal.
func appendToolResponse(dst []byte, v any) (b []byte, ok bool) {
	resp, ok := v.(mcp.JSONRPCResponse)
	if !ok {
		return dst, false
	}
	var r *mcp.CallToolResult
	switch x := resp.Result.(type) {
	case mcp.CallToolResult:
		r = &x
	case *mcp.CallToolResult:
		r = x
	}
	// Every member CallToolResult.MarshalJSON may write but _meta,
	// resultType (both set for clients of protocol 2026-07-28 and later),
	// content and structuredContent must be absent.
	if r == nil || r.IsError || len(r.InputRequests) > 0 ||
		r.RequestState != "" || len(r.RawStructuredContent) > 0 || len(r.Content) != 1 {
		return dst, false
	}
	sc, ok := r.StructuredContent.(JSON)
	if !ok || len(sc) == 0 {
		return dst, false
	}
	tc, ok := r.Content[0].(mcp.TextContent)
	if !ok || tc.Annotations != nil || tc.Meta != nil {
		return dst, false
	}
	version, err := json.Marshal(resp.JSONRPC)
	if err != nil {
		return dst, false
	}
	id, err := json.Marshal(resp.ID)
	if err != nil {
		return dst, false
	}
	typ, err := json.Marshal(tc.Type)
	if err != nil {
		return dst, false
	}
	var meta, resultType []byte
	if r.Meta != nil {
		if meta, err = json.Marshal(r.Meta); err != nil {
			return dst, false
		}
	}
	if r.ResultType != "" {
		if resultType, err = json.Marshal(r.ResultType); err != nil {
			return dst, false
		}
	}
	// The members in json.Marshal's order: the response's fields as
	// declared, the result's map keys sorted, TextContent's fields as
	// declared (annotations and _meta omitted when empty).
	dst = append(dst, `{"jsonrpc":`...)
	dst = append(dst, version...)
	dst = append(dst, `,"id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"result":{`...)
	if meta != nil {
		dst = append(dst, `"_meta":`...)
		dst = append(dst, meta...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"content":[{"type":`...)
	dst = append(dst, typ...)
	dst = append(dst, `,"text":`...)
	dst = appendJSONString(dst, tc.Text)
	dst = append(dst, `}],`...)
	if resultType != nil {
		dst = append(dst, `"resultType":`...)
		dst = append(dst, resultType...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"structuredContent":`...)
	dst = append(dst, sc...)
	dst = append(dst, `}}`...)
	return dst, true
}

// appendJSONString appends s as json.Marshal writes a string (HTML
// characters escaped, invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped),
// without the copy json.Marshal makes: a result's text is ~4 KB.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
