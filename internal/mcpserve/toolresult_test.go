package mcpserve

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// tricky are pieces of text that encoding/json escapes or rewrites.
var tricky = []string{"plain", `"quoted"`, `back\slash`, "<b>&amp;</b>", "line\nbreak\ttab\r", "\x00\x1f\x7f",
	"é ü ß 日本 😀", "\u2028\u2029", "bad \xff\xfe utf-8", "\xe2\x80", "{\"not\": \"json\"}", ""}

func randomText(r *rand.Rand) string {
	var sb strings.Builder
	for range r.IntN(6) {
		sb.WriteString(tricky[r.IntN(len(tricky))])
	}
	return sb.String()
}

// randomValue is a value like a tool's output: objects, lists, strings,
// numbers, booleans, nulls.
func randomValue(r *rand.Rand, depth int) any {
	switch k := r.IntN(7); {
	case depth > 3 || k == 0:
		return randomText(r)
	case k == 1:
		return r.Float64() * 1e3
	case k == 2:
		return r.IntN(2) == 0
	case k == 3:
		return nil
	case k == 4:
		l := make([]any, r.IntN(4))
		for i := range l {
			l[i] = randomValue(r, depth+1)
		}
		return l
	default:
		m := map[string]any{}
		for range r.IntN(5) {
			m[randomText(r)] = randomValue(r, depth+1)
		}
		return m
	}
}

// TestToolResponseAsMarshal: the fast path writes exactly json.Marshal's
// bytes for tool answers of every shape it takes, whatever their text.
func TestToolResponseAsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ids := []mcp.RequestId{mcp.NewRequestId(int64(0)), mcp.NewRequestId(int64(1) << 40), mcp.NewRequestId("a<\"id\">\u2028"), mcp.NewRequestId("")}
	for i := range 3000 {
		b, err := json.Marshal(map[string]any{"results": randomValue(r, 0), "note": randomText(r)})
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if i%3 == 1 {
			text = randomText(r) // a text that is not the JSON itself
		}
		res := mcp.NewToolResultStructured(JSON(b), text)
		if i%4 >= 2 {
			// As mcp-go decorates a result for protocol 2026-07-28 clients.
			res.ResultType = mcp.ResultTypeComplete
			res.Meta = &mcp.Meta{AdditionalFields: map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "infmem<&>", "version": randomText(r)}}}
			if i%8 >= 6 {
				res.Meta.ProgressToken = mcp.ProgressToken(randomText(r))
			}
		}
		var result any = res
		if i%2 == 0 {
			result = *res
		}
		resp := mcp.NewJSONRPCResultResponse(ids[i%len(ids)], result)
		want, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendToolResponse([]byte("x"), resp)
		if !ok {
			t.Fatalf("case %d: fast path not taken", i)
		}
		if string(got[1:]) != string(want) || got[0] != 'x' {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestToolResponseOtherShapes: any other message is left to json.Marshal.
func TestToolResponseOtherShapes(t *testing.T) {
	b := []byte(`{"a":1}`)
	id := mcp.NewRequestId(int64(3))
	base := func() *mcp.CallToolResult { return mcp.NewToolResultStructured(JSON(b), string(b)) }
	cases := map[string]any{
		"raw message":   mcp.NewJSONRPCResultResponse(id, mcp.NewToolResultStructured(json.RawMessage(b), string(b))),
		"no structured": mcp.NewJSONRPCResultResponse(id, mcp.NewToolResultText("hi")),
		"error":         mcp.NewJSONRPCResultResponse(id, func() *mcp.CallToolResult { r := base(); r.IsError = true; return r }()),
		"input required": mcp.NewJSONRPCResultResponse(id, func() *mcp.CallToolResult {
			r := base()
			r.ResultType, r.RequestState = mcp.ResultTypeInputRequired, "state"
			return r
		}()),
		"two contents": mcp.NewJSONRPCResultResponse(id, func() *mcp.CallToolResult {
			r := base()
			r.Content = append(r.Content, mcp.NewTextContent("more"))
			return r
		}()),
		"annotated text": mcp.NewJSONRPCResultResponse(id, func() *mcp.CallToolResult {
			r := base()
			tc := r.Content[0].(mcp.TextContent)
			tc.Annotations = &mcp.Annotations{Priority: new(float64)}
			r.Content[0] = tc
			return r
		}()),
		"raw structured":   mcp.NewJSONRPCResultResponse(id, func() *mcp.CallToolResult { r := base(); r.RawStructuredContent = b; return r }()),
		"not a tool":       mcp.NewJSONRPCResultResponse(id, map[string]any{"tools": []any{}}),
		"error response":   mcp.NewJSONRPCError(id, mcp.INTERNAL_ERROR, "boom", nil),
		"a plain map":      map[string]any{"jsonrpc": "2.0"},
		"empty structured": mcp.NewJSONRPCResultResponse(id, mcp.NewToolResultStructured(JSON(nil), "")),
	}
	for name, v := range cases {
		if got, ok := appendToolResponse(nil, v); ok {
			t.Errorf("%s: fast path taken: %s", name, got)
		}
	}
}

// TestJSONMarshalsAsItIs: JSON encodes as its own bytes inside any value.
func TestJSONMarshalsAsItIs(t *testing.T) {
	got, err := json.Marshal(map[string]any{"x": JSON(`{"a":"\u003c"}`), "y": JSON(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"x":{"a":"\u003c"},"y":null}`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestAppendJSONStringAsMarshal: the text copy of a tool answer is escaped
// by hand; it must be the bytes json.Marshal gives for every string.
func TestAppendJSONStringAsMarshal(t *testing.T) {
	pieces := []string{"a", "Z", " ", "\"", "\\", "<", ">", "&", "'", "\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f",
		"é", "日本", "\u2028", "\u2029", "\u2027", "\u202a", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "😀", "\ufffd", "/"}
	rng := rand.New(rand.NewPCG(7, 11))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.IntN(12); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("appendJSONString(%q) = %s, json.Marshal %s", s, got[1:], want)
		}
	}
}
