package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// Upper bounds on the tools/list result (compact JSON), every tool
// registered. Before the schemas were made plain and the descriptions
// tightened (issue 12) it was 44,709 bytes, 21,549 without output schemas
// (77,217 and 31,947 indented). optimize_memory's merges (with their
// texts) added about 500 bytes of output schema, and labelling every
// response that carries stored text (issue 13) about 700. The bounds leave
// some room (39,169 and 20,659 bytes then): a new tool or a longer
// description has to fit or trim elsewhere. The memory tool (Anthropic's
// memory-tool commands on /memories, issue 15) could not fit in that room:
// its ten arguments are Anthropic's, and results name a file's path; it
// added 2,189 bytes (1,393 without output schemas), so both bounds rose by
// 2,200 and 1,400 (41,393 and 22,087 bytes then). Issue 26 added 1,821
// bytes of output schema (287 without): every recalled memory's local_time
// and folded count, repeated in the five listing tools' schemas, the
// results' time_zone, update_memory's merged_into and delete_memory's
// everything, scopes and profile (43,214 and 22,374 bytes then).
// Knowledge updates (issue 23: superseded_by on every recalled memory,
// supersedes and contradicts on ranked results, updates / superseded_by /
// contradicts from store_memory, update_memory's superseded_by,
// similar_memories' spellings) added 1,195 bytes net of what was trimmed
// from result descriptions (391 without output schemas); the first bound
// rose by 1,200 (44,408 and 22,764 bytes then).
const (
	maxToolsListBytes         = 44_800
	maxToolsListNoOutputBytes = 22_900
)

// toolsList answers a real tools/list request with every tool registered
// and returns the result's JSON.
func toolsList(t testing.TB, withOutput bool) []byte {
	t.Helper()
	srv := NewServer(Deps{
		Backup: func(context.Context) (BackupResult, error) { return BackupResult{}, errors.New("not called") },
		Export: func(context.Context, ExportRequest) (ExportResult, error) {
			return ExportResult{}, errors.New("not called")
		},
		Optimize: func(context.Context, string, bool) (OptimizeResult, error) {
			return OptimizeResult{}, errors.New("not called")
		},
	}, "test")
	resp := srv.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, &msg); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(msg.Result, &list); err != nil || len(list.Tools) != 19 {
		t.Fatalf("tools/list: %v %s", err, b)
	}
	if withOutput {
		return msg.Result
	}
	for _, tool := range list.Tools {
		delete(tool, "outputSchema")
	}
	out, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestToolsListSize keeps the tool list small: it is sent to the model
// with every conversation.
func TestToolsListSize(t *testing.T) {
	full, bare := len(toolsList(t, true)), len(toolsList(t, false))
	t.Logf("tools/list result: %d bytes; %d bytes without output schemas", full, bare)
	if full > maxToolsListBytes {
		t.Errorf("tools/list is %d bytes; keep it under %d", full, maxToolsListBytes)
	}
	if bare > maxToolsListNoOutputBytes {
		t.Errorf("tools/list without output schemas is %d bytes; keep it under %d", bare, maxToolsListNoOutputBytes)
	}
}

// BenchmarkToolsListSize reports the tools/list size as a metric.
func BenchmarkToolsListSize(b *testing.B) {
	var n int
	for b.Loop() {
		n = len(toolsList(b, true))
	}
	b.ReportMetric(float64(n), "bytes")
}

// TestSchemasHaveNoNullTypes: optional means absent, never a null type
// union, in input and output schemas alike (strict validators and some
// clients reject ["null", …]).
func TestSchemasHaveNoNullTypes(t *testing.T) {
	var list struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(toolsList(t, true), &list); err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		for _, which := range []string{"inputSchema", "outputSchema"} {
			if tool[which] == nil {
				t.Errorf("%s has no %s", tool["name"], which)
			}
			for _, p := range nullTypes(tool[which], fmt.Sprint(tool["name"], ".", which)) {
				t.Errorf("%s has a null type", p)
			}
		}
	}
}

// nullTypes lists the paths in a schema whose type is or includes null.
func nullTypes(v any, path string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if k == "type" {
				switch ty := sub.(type) {
				case string:
					if ty == "null" {
						out = append(out, path)
					}
				case []any:
					for _, e := range ty {
						if e == "null" {
							out = append(out, path)
						}
					}
				}
				continue
			}
			if k == "properties" {
				if props, ok := sub.(map[string]any); ok {
					for name, p := range props {
						out = append(out, nullTypes(p, path+"."+name)...)
					}
					continue
				}
			}
			out = append(out, nullTypes(sub, path+"."+k)...)
		}
	case []any:
		for i, e := range x {
			out = append(out, nullTypes(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
}

// TestNonNil: results never carry null where their schema says array or
// object, and the values they were built from are left alone.
func TestNonNil(t *testing.T) {
	shared := []rankedItem{{memoryItem: memoryItem{Text: "a"}}}
	runs := map[string]MaintenanceRun{"dedup": {Outcome: "ok"}}
	out := nonNil(struct {
		L listOut
		R recallOut
		S statsOut
		P *int
	}{L: listOut{Memories: []listItem{{memoryItem: memoryItem{Text: "x"}}}}, R: recallOut{Results: shared}, S: statsOut{Maintenance: runs}})
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"tags":[]`, `"scopes_searched":[]`, `"scopes":{}`, `"P":null`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	if bytes.Contains(b, []byte(`:null`)) && !bytes.Contains(b, []byte(`"P":null`)) {
		t.Errorf("null left in %s", b)
	}
	if shared[0].Tags != nil || runs["dedup"].Warnings != nil {
		t.Error("nonNil changed the values the result was built from")
	}
}
