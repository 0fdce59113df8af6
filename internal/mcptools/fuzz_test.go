package mcptools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/scopes"
)

// FuzzToolArguments sends arbitrary JSON arguments to every tool: no
// handler may panic, and every bad input must come back as an isError
// result, never as a protocol or infrastructure error.
func FuzzToolArguments(f *testing.F) {
	seeds := []string{
		`{}`, `null`, `[]`, `"x"`, `5`,
		`{"content":"remember the milk","metadata":{"scope":"Home","tags":["#shop"],"importance":0.4}}`,
		`{"content":""}`, `{"content":5}`, `{"content":"x","metadata":{"importance":"high"}}`,
		`{"content":"x","metadata":{"timestamp":"2024-13-45"}}`, `{"content":"x","metadata":{"scope":"ALL"}}`,
		`{"query":"milk","filter":{"scope":"ALL","tags":["shop"],"time_range":{"phrase":"last week"}},"top_k":3}`,
		`{"query":"milk","top_k":-1}`, `{"query":"milk","filter":{"time_range":{"from":"2024-02-30"}}}`,
		`{"tag":"shop","query":"milk"}`, `{"scope":"Home"}`, `{"time_query":"yesterday"}`, `{"time_query":"the day after never"}`,
		`{"target":{"memory_id":"abc"}}`, `{"target":{"query":"milk"},"forget_mode":"hard"}`, `{"target":{"scope":"ALL"}}`,
		`{"memory_ids":["000000000000000000000000"]}`, `{"memory_id":"000000000000000000000000","content":"y"}`,
		`{"scope":"Work","parent_scope":"Nope"}`, `{"scope":"\u0000"}`, `{"set_facts":{"":"x"}}`, `{"add_contacts":[{}]}`,
		`{"sort":"oldest","limit":200}`, `{"include_inactive":"yes"}`,
	}
	for i := range Tools(Deps{}) {
		for _, s := range seeds {
			f.Add(uint8(i), s)
		}
	}
	store := testenv.Store(f)
	ctx := context.Background()
	reg, err := scopes.Load(ctx, store, scopes.Options{AutoCreate: true})
	if err != nil {
		f.Fatal(err)
	}
	eng := memory.New(store, reg, memory.Options{})
	eng.Start(ctx)
	f.Cleanup(func() { eng.Close(context.Background()) })
	tools := Tools(Deps{Memory: Ready(eng), Logger: testenv.Logger(f)})

	f.Fuzz(func(t *testing.T, which uint8, raw string) {
		var args any
		if json.Unmarshal([]byte(raw), &args) != nil {
			return // the transport rejects invalid JSON before any tool sees it
		}
		st := tools[int(which)%len(tools)]
		req := mcpCallRequest(st.Tool.Name, nil)
		req.Params.Arguments = args
		res, err := st.Handler(ctx, req)
		if err != nil {
			t.Fatalf("%s(%s): infrastructure error for a client input: %v", st.Tool.Name, raw, err)
		}
		if res == nil {
			t.Fatalf("%s(%s): nil result", st.Tool.Name, raw)
		}
		if !res.IsError && res.StructuredContent == nil {
			t.Fatalf("%s(%s): success without structured content", st.Tool.Name, raw)
		}
	})
}
