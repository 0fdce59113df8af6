package mcptools

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/testenv"
)

func TestStoreMemory(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	out := h.ok(c, "store_memory", map[string]any{
		"content":  "Project Apollo deadline is June 5",
		"metadata": map[string]any{"scope": "Work", "tags": []any{"#Apollo", "deadline"}, "importance": 0.8, "timestamp": "2025-05-01T09:30:00Z", "speaker": "user"},
	})
	if out["status"] != "OK" || out["scope"] != "Work" || out["scope_created"] != true {
		t.Fatalf("%v", out)
	}
	id, _ := bson.ObjectIDFromHex(out["memory_id"].(string))
	doc, err := h.store.Memories.Get(testenv.Context(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != "Project Apollo deadline is June 5" || doc.Scope != "Work" || !slices.Equal(doc.Tags, []string{"Apollo", "deadline"}) ||
		doc.Importance != 0.8 || !doc.Timestamp.Equal(time.Date(2025, 5, 1, 9, 30, 0, 0, time.UTC)) || doc.Speaker != "user" || doc.CreatedAt.IsZero() {
		t.Fatalf("stored: %+v", doc)
	}
	dup := h.ok(c, "store_memory", map[string]any{"content": "project apollo deadline is june 5", "metadata": map[string]any{"scope": "work"}})
	if dup["duplicate_of"] != out["memory_id"] {
		t.Fatalf("duplicate: %v", dup)
	}
	h.fails(c, "store_memory", map[string]any{"content": ""}, "content is empty")
	h.fails(c, "store_memory", map[string]any{"content": strings.Repeat("a", 33000)}, "the limit is 32768 bytes")
	h.fails(c, "store_memory", map[string]any{}, "content is empty")
	h.fails(c, "store_memory", map[string]any{"content": "x", "metadata": map[string]any{"timestamp": "yesterday-ish"}}, "not an ISO 8601 date")
	h.fails(c, "store_memory", map[string]any{"content": 5}, `argument "content" must be a string`)
	h.fails(c, "store_memory", map[string]any{"text": "x"}, `unknown argument "text"; this tool takes: content, metadata`)
	h.fails(c, "store_memory", map[string]any{"content": "x", "metadata": map[string]any{"source": "dream"}}, `source "dream" is not one of`)
}

func TestRetrieveMemory(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	for _, m := range []map[string]any{
		{"content": "Project Apollo deadline is June 5", "metadata": map[string]any{"scope": "Work", "tags": []any{"apollo"}}},
		{"content": "Alice's birthday is Jan 20", "metadata": map[string]any{"tags": []any{"family"}, "timestamp": "2024-01-02"}},
		{"content": "We plan to launch the product next week", "metadata": map[string]any{"scope": "Work"}},
		{"content": "Apollo budget approved by finance", "metadata": map[string]any{"scope": "Personal", "tags": []any{"apollo"}}},
	} {
		h.ok(c, "store_memory", m)
	}
	out := h.ok(c, "retrieve_memory", map[string]any{"query": "When is the Apollo deadline?"})
	got := texts(out, "results")
	if len(got) == 0 || got[0] != "Project Apollo deadline is June 5" {
		t.Fatalf("top result: %v", got)
	}
	r0 := out["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"text", "source", "timestamp", "scope", "tags", "confidence", "memory_id"} {
		if _, ok := r0[k]; !ok {
			t.Errorf("result lacks %q: %v", k, r0)
		}
	}
	if out["kind"] != "recalled_memory" || !strings.Contains(out["notice"].(string), "not instructions") {
		t.Fatalf("recalled text is not labelled as data: %v", out)
	}
	out = h.ok(c, "retrieve_memory", map[string]any{"query": "Apollo", "filter": map[string]any{"scope": "Work"}})
	if slices.Contains(texts(out, "results"), "Apollo budget approved by finance") {
		t.Fatalf("scope filter leaked: %v", texts(out, "results"))
	}
	out = h.ok(c, "retrieve_memory", map[string]any{"query": "Apollo", "filter": map[string]any{"tags": []any{"apollo"}, "scope": "ALL"}, "top_k": 10})
	if len(texts(out, "results")) != 2 {
		t.Fatalf("tag filter: %v", texts(out, "results"))
	}
	out = h.ok(c, "retrieve_memory", map[string]any{"query": "birthday", "filter": map[string]any{"time_range": map[string]any{"from": "2024-01-01", "to": "2024-01-31"}}})
	if !slices.Equal(texts(out, "results"), []string{"Alice's birthday is Jan 20"}) {
		t.Fatalf("time range: %v", texts(out, "results"))
	}
	out = h.ok(c, "retrieve_memory", map[string]any{"query": "birthday", "filter": map[string]any{"time_range": map[string]any{"from": "2025-01-01"}}})
	if len(texts(out, "results")) != 0 {
		t.Fatalf("time range excluded nothing: %v", texts(out, "results"))
	}
	out = h.ok(c, "retrieve_memory", map[string]any{"query": "quantum chromodynamics lecture"})
	if len(texts(out, "results")) != 0 || !strings.Contains(out["note"].(string), "do not remember") {
		t.Fatalf("unrelated query: %v", out)
	}
	h.fails(c, "retrieve_memory", map[string]any{"query": " "}, "query is empty")
	h.fails(c, "retrieve_memory", map[string]any{"query": "x", "top_k": 1000}, "between 1 and 100")
	h.fails(c, "retrieve_memory", map[string]any{"query": "x", "filter": map[string]any{"scope": "Nope"}}, `no scope named "Nope"`)
	h.fails(c, "retrieve_memory", map[string]any{"query": "x", "filter": map[string]any{"time_range": map[string]any{"from": "whenever"}}}, "neither an ISO 8601 date")
}

func TestSearchByTagAndScope(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	for i := 0; i < 3; i++ {
		h.ok(c, "store_memory", map[string]any{"content": fmt.Sprintf("projectX design note %d", i), "metadata": map[string]any{"tags": []any{"projectX"}}})
	}
	h.ok(c, "store_memory", map[string]any{"content": "unrelated design note"})
	h.ok(c, "store_memory", map[string]any{"content": "flight to Lisbon on July 3", "metadata": map[string]any{"scope": "Travel"}})
	out := h.ok(c, "search_by_tag", map[string]any{"tag": "#projectx"})
	if len(texts(out, "results")) != 3 {
		t.Fatalf("by tag: %v", texts(out, "results"))
	}
	out = h.ok(c, "search_by_tag", map[string]any{"tag": "projectX", "query": "note 2"})
	if got := texts(out, "results"); len(got) == 0 || got[0] != "projectX design note 2" {
		t.Fatalf("by tag with query: %v", got)
	}
	h.fails(c, "search_by_tag", map[string]any{"tag": "#"}, "tag is empty")
	out = h.ok(c, "search_by_scope", map[string]any{"scope": "travel"})
	if !slices.Equal(texts(out, "results"), []string{"flight to Lisbon on July 3"}) {
		t.Fatalf("by scope: %v", texts(out, "results"))
	}
	out = h.ok(c, "search_by_scope", map[string]any{"scope": "Global", "query": "design"})
	if len(texts(out, "results")) != 4 {
		t.Fatalf("Global only: %v", texts(out, "results"))
	}
	h.fails(c, "search_by_scope", map[string]any{"scope": "Mars"}, "no scope named")
}

func TestRecallMemoryByTime(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02") + "T12:00:00Z"
	h.ok(c, "store_memory", map[string]any{"content": "talked about the garden", "metadata": map[string]any{"timestamp": yesterday}})
	h.ok(c, "store_memory", map[string]any{"content": "talked about taxes", "metadata": map[string]any{"timestamp": "2023-03-10"}})
	h.ok(c, "store_memory", map[string]any{"content": "talked about the roof", "metadata": map[string]any{"timestamp": "2023-03-02"}})
	out := h.ok(c, "recall_memory_by_time", map[string]any{"time_query": "yesterday"})
	if !slices.Equal(texts(out, "results"), []string{"talked about the garden"}) || out["total"].(float64) != 1 {
		t.Fatalf("yesterday: %v", out)
	}
	out = h.ok(c, "recall_memory_by_time", map[string]any{"time_query": "March 2023"})
	if !slices.Equal(texts(out, "results"), []string{"talked about the roof", "talked about taxes"}) {
		t.Fatalf("March 2023, oldest first: %v", texts(out, "results"))
	}
	tf := out["time_frame"].(map[string]any)
	if tf["from"] != "2023-03-01T00:00:00Z" || tf["to"] != "2023-04-01T00:00:00Z" {
		t.Fatalf("time frame: %v", tf)
	}
	out = h.ok(c, "recall_memory_by_time", map[string]any{"range": map[string]any{"from": "2023-03-05", "to": "2023-03-31"}, "time_query": "ignored"})
	if !slices.Equal(texts(out, "results"), []string{"talked about taxes"}) {
		t.Fatalf("range: %v", texts(out, "results"))
	}
	out = h.ok(c, "recall_memory_by_time", map[string]any{"time_query": "2023", "limit": 1})
	if len(texts(out, "results")) != 1 || out["truncated"] != true || out["total"].(float64) != 2 {
		t.Fatalf("limit: %v", out)
	}
	h.fails(c, "recall_memory_by_time", map[string]any{"time_query": "when the moon was blue"}, "when the moon was blue")
	h.fails(c, "recall_memory_by_time", map[string]any{}, "say which period")
}

func TestDeleteAndUnforget(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	a := h.ok(c, "store_memory", map[string]any{"content": "my PIN hint is the first dog's name"})["memory_id"].(string)
	for i := 0; i < 3; i++ {
		h.ok(c, "store_memory", map[string]any{"content": fmt.Sprintf("temp note %d", i), "metadata": map[string]any{"tags": []any{"temp"}}})
	}
	h.ok(c, "store_memory", map[string]any{"content": "keep me"})
	h.ok(c, "store_memory", map[string]any{"content": "Project Y kickoff on Monday", "metadata": map[string]any{"scope": "Project Y"}})

	out := h.ok(c, "delete_memory", map[string]any{"target": map[string]any{"memory_id": a}})
	if out["deleted_count"].(float64) != 1 || !strings.Contains(out["note"].(string), "unforget") {
		t.Fatalf("by id: %v", out)
	}
	if got := texts(h.ok(c, "retrieve_memory", map[string]any{"query": "PIN hint dog"}), "results"); len(got) != 0 {
		t.Fatalf("forgotten memory recalled: %v", got)
	}
	out = h.ok(c, "delete_memory", map[string]any{"target": map[string]any{"tag": "temp"}})
	if out["deleted_count"].(float64) != 3 || len(out["forgotten"].([]any)) != 3 {
		t.Fatalf("by tag: %v", out)
	}
	out = h.ok(c, "delete_memory", map[string]any{"target": map[string]any{"scope": "Project Y"}, "forget_mode": "hard"})
	if out["deleted_count"].(float64) != 1 || out["scope_deleted"] != true {
		t.Fatalf("by scope, hard: %v", out)
	}
	out = h.ok(c, "delete_memory", map[string]any{"target": map[string]any{"memory_id": bson.NewObjectID().Hex()}})
	if out["deleted_count"].(float64) != 0 {
		t.Fatalf("missing id: %v", out)
	}
	// By description: a dry run lists every match; over 10 matches the
	// count must be confirmed.
	for i := 0; i < 11; i++ {
		h.ok(c, "store_memory", map[string]any{"content": fmt.Sprintf("Apollo task number %d", i)})
	}
	out = h.ok(c, "delete_memory", map[string]any{"target": map[string]any{"query": "Apollo"}, "dry_run": true})
	if out["deleted_count"].(float64) != 0 || out["matched"].(float64) != 11 || out["dry_run"] != true || len(out["forgotten"].([]any)) != 11 {
		t.Fatalf("dry run by query: %v", out)
	}
	out = h.ok(c, "delete_memory", map[string]any{"target": map[string]any{"query": "Apollo"}})
	if out["deleted_count"].(float64) != 0 || out["needs_confirmation"] != true || !strings.Contains(out["note"].(string), "confirm_count 11") {
		t.Fatalf("unconfirmed: %v", out)
	}
	out = h.ok(c, "delete_memory", map[string]any{"target": map[string]any{"query": "Apollo"}, "confirm_count": 11})
	if out["deleted_count"].(float64) != 11 {
		t.Fatalf("confirmed: %v", out)
	}
	h.fails(c, "delete_memory", map[string]any{"target": map[string]any{"query": "Apollo"}, "confirm_count": -1}, "confirm_count must be")
	h.fails(c, "delete_memory", map[string]any{"target": map[string]any{}}, "say what to forget")
	h.fails(c, "delete_memory", map[string]any{"target": map[string]any{"memory_id": a}, "forget_mode": "burn"}, "not soft or hard")

	listed := h.ok(c, "list_memories", map[string]any{"only_forgotten": true})
	if listed["total"].(float64) != 15 {
		t.Fatalf("forgotten listed: %v", listed)
	}
	un := h.ok(c, "unforget_memory", map[string]any{"memory_ids": []any{a, bson.NewObjectID().Hex()}})
	if !slices.Equal(toStrings(un["restored"]), []string{a}) || un["note"] == "" {
		t.Fatalf("unforget: %v", un)
	}
	if got := texts(h.ok(c, "retrieve_memory", map[string]any{"query": "PIN hint dog"}), "results"); len(got) != 1 {
		t.Fatalf("unforgotten memory not recalled: %v", got)
	}
	h.fails(c, "unforget_memory", map[string]any{"memory_ids": []any{"zzz"}}, "is not a memory id")
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestUpdateMemoryAndList(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	id := h.ok(c, "store_memory", map[string]any{"content": "Apollo ships June 5", "metadata": map[string]any{"tags": []any{"apollo"}}})["memory_id"].(string)
	out := h.ok(c, "update_memory", map[string]any{"memory_id": id, "content": "Apollo ships June 12", "add_tags": []any{"deadline"}})
	if out["previous_text"] != "Apollo ships June 5" || !slices.Equal(toStrings(out["changed"]), []string{"content", "tags"}) {
		t.Fatalf("update: %v", out)
	}
	if got := texts(h.ok(c, "retrieve_memory", map[string]any{"query": "Apollo ships"}), "results"); !slices.Equal(got, []string{"Apollo ships June 12"}) {
		t.Fatalf("after update: %v", got)
	}
	h.fails(c, "update_memory", map[string]any{"memory_id": id}, "nothing to change")
	h.fails(c, "update_memory", map[string]any{"memory_id": id, "importance": 7}, "importance must be")
	l := h.ok(c, "list_memories", map[string]any{"sort": "oldest", "limit": 5})
	if l["total"].(float64) != 1 || l["memories"].([]any)[0].(map[string]any)["created_at"] == "" {
		t.Fatalf("list: %v", l)
	}
	h.fails(c, "list_memories", map[string]any{"sort": "sideways"}, "sort \"sideways\"")
}

func TestScopesAndActiveScopePerSession(t *testing.T) {
	h := newHarness(t)
	a, b := h.connect(), h.connect()
	out := h.ok(a, "create_memory_scope", map[string]any{"scope": "Work", "description": "my job"})
	if out["created"] != true {
		t.Fatalf("create: %v", out)
	}
	if out = h.ok(a, "create_memory_scope", map[string]any{"scope": "work"}); out["created"] != false {
		t.Fatalf("create again: %v", out)
	}
	h.ok(a, "create_memory_scope", map[string]any{"scope": "Project Alpha", "parent_scope": "Work"})
	h.fails(a, "create_memory_scope", map[string]any{"scope": "ALL"}, "reserved")
	h.fails(a, "create_memory_scope", map[string]any{"scope": "X", "parent_scope": "Nope"}, "parent scope")

	set := h.ok(a, "set_active_scope", map[string]any{"scope": "project alpha"})
	if set["active_scope"] != "Project Alpha" || !slices.Equal(toStrings(set["searches"]), []string{"Project Alpha", "Work", "Global"}) {
		t.Fatalf("set: %v", set)
	}
	h.ok(a, "store_memory", map[string]any{"content": "alpha secret: the codename is Heron"})
	h.ok(b, "store_memory", map[string]any{"content": "global fact: the office closes at 6"})
	h.ok(b, "set_active_scope", map[string]any{"scope": "Health", "create": true})
	h.ok(b, "store_memory", map[string]any{"content": "health: the codename for my diet is Heron"})

	if got := texts(h.ok(a, "retrieve_memory", map[string]any{"query": "codename Heron"}), "results"); !slices.Equal(got, []string{"alpha secret: the codename is Heron"}) {
		t.Fatalf("session A (Project Alpha) sees: %v", got)
	}
	if got := texts(h.ok(b, "retrieve_memory", map[string]any{"query": "codename Heron"}), "results"); !slices.Equal(got, []string{"health: the codename for my diet is Heron"}) {
		t.Fatalf("session B (Health) sees: %v", got)
	}
	list := h.ok(b, "list_memory_scopes", map[string]any{})
	if list["active_scope"] != "Health" || len(list["scopes"].([]any)) != 4 {
		t.Fatalf("list: %v", list)
	}
	first := list["scopes"].([]any)[0].(map[string]any)
	if first["name"] != "Global" || first["memory_count"].(float64) != 1 {
		t.Fatalf("Global first with its count: %v", first)
	}
	h.ok(a, "create_memory_scope", map[string]any{"scope": "Health", "active": false})
	if got := texts(h.ok(a, "retrieve_memory", map[string]any{"query": "Heron", "filter": map[string]any{"scope": "ALL"}}), "results"); slices.Contains(got, "health: the codename for my diet is Heron") {
		t.Fatalf("inactive scope searched by ALL: %v", got)
	}
	cleared := h.ok(a, "set_active_scope", map[string]any{"scope": ""})
	if cleared["active_scope"] != "" {
		t.Fatalf("clear: %v", cleared)
	}
	h.fails(a, "set_active_scope", map[string]any{"scope": "ALL"}, "cannot be the active scope")
}

func TestUserProfileAndStats(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	out := h.ok(c, "update_user_profile", map[string]any{
		"name": "Jane", "set_facts": map[string]any{"favorite color": "blue"}, "set_preferences": map[string]any{"tone": "casual"},
		"add_contacts": []any{map[string]any{"name": "Alice", "relation": "sister"}}, "add_notes": []any{"allergic to penicillin"},
	})
	p := out["profile"].(map[string]any)
	if p["facts"].(map[string]any)["favorite_color"] != "blue" || len(toStrings(out["changed"])) != 5 {
		t.Fatalf("update: %v", out)
	}
	got := h.ok(c, "get_user_profile", map[string]any{})
	if got["profile"].(map[string]any)["name"] != "Jane" || got["kind"] != "recalled_memory" {
		t.Fatalf("get: %v", got)
	}
	h.fails(c, "update_user_profile", map[string]any{"set_facts": map[string]any{"a$b": "x"}}, "may contain only")
	h.fails(c, "get_user_profile", map[string]any{"user": "bob"}, "this tool takes: (no arguments)")

	h.ok(c, "store_memory", map[string]any{"content": "one", "metadata": map[string]any{"conversation_id": "c1"}})
	h.ok(c, "store_memory", map[string]any{"content": "two", "metadata": map[string]any{"conversation_id": "c1", "scope": "Work"}})
	h.ok(c, "store_memory", map[string]any{"content": "three", "metadata": map[string]any{"conversation_id": "c2", "scope": "Work"}})
	id := h.ok(c, "store_memory", map[string]any{"content": "four"})["memory_id"]
	h.ok(c, "delete_memory", map[string]any{"target": map[string]any{"memory_id": id}})
	st := h.ok(c, "get_memory_stats", map[string]any{})["stats"].(map[string]any)
	scopes := st["scopes"].(map[string]any)
	if st["total_memories"].(float64) != 3 || st["conversation_count"].(float64) != 2 || scopes["Global"].(float64) != 1 ||
		scopes["Work"].(float64) != 2 || st["forgotten"].(float64) != 1 || st["engine"] != "embedded" || st["index"].(map[string]any)["ready"] != true {
		t.Fatalf("stats: %v", st)
	}
}

func TestUnknownTool(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	req := mcpCallRequest("no_such_tool", nil)
	if _, err := c.CallTool(testenv.Context(t), req); err == nil {
		t.Fatal("unknown tool accepted")
	}
}
