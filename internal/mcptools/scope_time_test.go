package mcptools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/testenv"
	"github.com/infmem/infmem/mongostore"
)

// TestSetActiveScopeRefusesUnknown: a typo must not create an empty scope
// and narrow every later search to it; create: true asks for a new one.
func TestSetActiveScopeRefusesUnknown(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	h.ok(c, "store_memory", map[string]any{"content": "the Apollo launch is on May 3", "metadata": map[string]any{"scope": "Work"}})

	h.fails(c, "set_active_scope", map[string]any{"scope": "Nonexistent"}, `there is no scope named "Nonexistent"; use one of: Global, Work (or send create: true`)
	list := h.ok(c, "list_memory_scopes", map[string]any{})
	if list["active_scope"] != nil || len(list["scopes"].([]any)) != 2 {
		t.Fatalf("the refused scope was created or made active: %v", list)
	}
	got := h.ok(c, "retrieve_memory", map[string]any{"query": "Apollo launch"})
	if !slices.Equal(texts(got, "results"), []string{"the Apollo launch is on May 3"}) {
		t.Fatalf("searches were narrowed: %v", got)
	}

	set := h.ok(c, "set_active_scope", map[string]any{"scope": "Nonexistent", "create": true})
	if set["active_scope"] != "Nonexistent" || set["created"] != true {
		t.Fatalf("create: true: %v", set)
	}
	set = h.ok(c, "set_active_scope", map[string]any{"scope": "work"})
	if set["active_scope"] != "Work" || set["created"] != nil || !slices.Equal(toStrings(set["searches"]), []string{"Work", "Global"}) {
		t.Fatalf("existing scope: %v", set)
	}
	set = h.ok(c, "set_active_scope", map[string]any{"scope": "Work/Apollo", "create": true})
	if !slices.Equal(toStrings(set["searches"]), []string{"Work/Apollo", "Work", "Global"}) {
		t.Fatalf("a new slash scope goes under its parent: %v", set)
	}
	h.fails(c, "set_active_scope", map[string]any{"scope": "ALL", "create": true}, "cannot be the active scope")
	if cleared := h.ok(c, "set_active_scope", map[string]any{"scope": ""}); cleared["active_scope"] != "" {
		t.Fatalf("clear: %v", cleared)
	}
}

// TestSearchByScopeReadsSubScopes: "Work/Apollo" is created under "Work",
// and search_by_scope "Work" reads Work and every scope beneath it, even a
// parent known only from its children's names.
func TestSearchByScopeReadsSubScopes(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	for _, m := range []struct{ scope, text, ts string }{
		{"Work/Apollo", "Apollo deadline is June 5", "2025-01-03T10:00:00Z"},
		{"Work/Hermes", "Hermes deadline is July 9", "2025-01-05T10:00:00Z"},
		{"Work", "the office deadline for expenses is the 25th", "2025-01-04T10:00:00Z"},
		{"Personal", "passport renewal deadline is August 1", "2025-01-06T10:00:00Z"},
		{"", "global deadline note", "2025-01-07T10:00:00Z"},
	} {
		h.ok(c, "store_memory", map[string]any{"content": m.text, "metadata": map[string]any{"scope": m.scope, "timestamp": m.ts}})
	}
	for _, s := range h.ok(c, "list_memory_scopes", map[string]any{})["scopes"].([]any) {
		sc := s.(map[string]any)
		if strings.HasPrefix(sc["name"].(string), "Work/") && sc["parent_scope"] != "Work" {
			t.Errorf("%v is not under Work", sc)
		}
	}
	out := h.ok(c, "search_by_scope", map[string]any{"scope": "work"})
	if got := texts(out, "results"); !slices.Equal(got, []string{"Hermes deadline is July 9", "the office deadline for expenses is the 25th", "Apollo deadline is June 5"}) ||
		!slices.Equal(toStrings(out["scopes_searched"]), []string{"Work", "Work/Apollo", "Work/Hermes"}) {
		t.Fatalf("Work and its sub-scopes, newest first: %v", out)
	}
	out = h.ok(c, "search_by_scope", map[string]any{"scope": "Work", "query": "Hermes deadline", "top_k": 2})
	res := out["results"].([]any)
	if len(res) != 2 || texts(out, "results")[0] != "Hermes deadline is July 9" ||
		res[0].(map[string]any)["confidence"].(float64) < res[1].(map[string]any)["confidence"].(float64) {
		t.Fatalf("ranked across sub-scopes: %v", out)
	}
	if got := texts(h.ok(c, "search_by_scope", map[string]any{"scope": "Work/Apollo"}), "results"); !slices.Equal(got, []string{"Apollo deadline is June 5"}) {
		t.Fatalf("a leaf scope reads itself only: %v", got)
	}
	out = h.ok(c, "search_by_scope", map[string]any{"scope": "Work", "query": "quantum chromodynamics"})
	if out["nothing_relevant"] != true || len(texts(out, "results")) != 0 || !strings.Contains(out["note"].(string), "do not remember") {
		t.Fatalf("nothing relevant: %v", out)
	}

	// A slash scope made before slashes nested has no parent definition.
	ctx := testenv.Context(t)
	if err := h.store.Scopes.Insert(ctx, &mongostore.Scope{ID: bson.NewObjectID(), Type: mongostore.ScopeType, ScopeName: "Legacy/Child", Active: true, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := h.eng.Scopes().Reload(ctx); err != nil {
		t.Fatal(err)
	}
	h.ok(c, "store_memory", map[string]any{"content": "kept from long ago", "metadata": map[string]any{"scope": "Legacy/Child"}})
	if got := texts(h.ok(c, "search_by_scope", map[string]any{"scope": "Legacy"}), "results"); !slices.Equal(got, []string{"kept from long ago"}) {
		t.Fatalf("a parent known only by its children's names: %v", got)
	}
	h.fails(c, "search_by_scope", map[string]any{"scope": "Mars"}, `there is no scope named "Mars"; use one of: Global,`)
}

// TestTimeRangeToMeansWhatItSays: time_range.to includes a date's whole
// day, excludes a date-time's instant, and says exactly that.
func TestTimeRangeToMeansWhatItSays(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	for text, ts := range map[string]string{
		"before six": "2024-01-20T17:59:00Z", "at six": "2024-01-20T18:00:00Z",
		"late evening": "2024-01-20T23:30:00Z", "next midnight": "2024-01-21T00:00:00Z",
	} {
		h.ok(c, "store_memory", map[string]any{"content": text, "metadata": map[string]any{"timestamp": ts}})
	}
	list := func(to string) []string {
		out := h.ok(c, "list_memories", map[string]any{"sort": "oldest", "time_range": map[string]any{"from": "2024-01-20", "to": to}})
		var got []string
		for _, m := range out["memories"].([]any) {
			got = append(got, m.(map[string]any)["text"].(string))
		}
		return got
	}
	if got := list("2024-01-20"); !slices.Equal(got, []string{"before six", "at six", "late evening"}) {
		t.Fatalf("a date includes its whole day: %v", got)
	}
	if got := list("2024-01-20T18:00:00Z"); !slices.Equal(got, []string{"before six"}) {
		t.Fatalf("a date-time is excluded: %v", got)
	}
	for _, st := range allTools() {
		var in map[string]any
		if err := json.Unmarshal(st.Tool.RawInputSchema, &in); err != nil {
			t.Fatal(err)
		}
		for _, path := range [][]string{{"time_range"}, {"filter", "time_range"}, {"range"}} {
			tr := in
			for _, k := range path {
				p, _ := tr["properties"].(map[string]any)
				tr, _ = p[k].(map[string]any)
			}
			if tr == nil {
				continue
			}
			to := tr["properties"].(map[string]any)["to"].(map[string]any)["description"].(string)
			if !strings.Contains(to, "a date includes that whole day; a date-time is excluded") || strings.Contains(to, "exclusive") {
				t.Errorf("%s: time_range.to says %q", st.Tool.Name, to)
			}
		}
	}
}

// TestProfileTimeZone: the profile's time_zone preference is the zone the
// tools read dates and time phrases in; a zone that is not one is refused.
func TestProfileTimeZone(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	// Kiritimati is UTC+14: 2023-03-04T12:00Z is March 5 there.
	h.ok(c, "store_memory", map[string]any{"content": "fixed the roof", "metadata": map[string]any{"timestamp": "2023-03-04T12:00:00Z"}})
	h.ok(c, "store_memory", map[string]any{"content": "filed the taxes", "metadata": map[string]any{"timestamp": "2023-03-05T12:00:00Z"}})
	march5 := func(args map[string]any) ([]string, map[string]any) {
		out := h.ok(c, "recall_memory_by_time", args)
		return texts(out, "results"), out["time_frame"].(map[string]any)
	}
	byRange := map[string]any{"range": map[string]any{"from": "2023-03-05", "to": "2023-03-05"}}
	if got, _ := march5(byRange); !slices.Equal(got, []string{"filed the taxes"}) {
		t.Fatalf("configured zone (UTC): %v", got)
	}
	h.ok(c, "update_user_profile", map[string]any{"set_preferences": map[string]any{"time_zone": "Pacific/Kiritimati"}})
	if got, tf := march5(byRange); !slices.Equal(got, []string{"fixed the roof"}) || tf["from"] != "2023-03-04T10:00:00Z" || tf["time_zone"] != "Pacific/Kiritimati" {
		t.Fatalf("range in the profile's zone: %v %v", got, tf)
	}
	h.fails(c, "update_user_profile", map[string]any{"set_preferences": map[string]any{"time_zone": "Mars/Olympus"}}, `set_preferences.time_zone "Mars/Olympus" is not an IANA time zone; send a name like Europe/Paris`)
	h.fails(c, "update_user_profile", map[string]any{"set_preferences": map[string]any{"Time Zone": "UTC+2"}}, "is not an IANA time zone")
	h.fails(c, "update_user_profile", map[string]any{"set_preferences": map[string]any{"timezone": "Local"}}, "is not an IANA time zone")
	if got, _ := march5(map[string]any{"time_query": "2023-03-05"}); !slices.Equal(got, []string{"fixed the roof"}) {
		t.Fatalf("time_query in the profile's zone: %v", got)
	}
	out := h.ok(c, "list_memories", map[string]any{"time_range": map[string]any{"phrase": "2023-03-05"}})
	if out["total"].(float64) != 1 || out["memories"].([]any)[0].(map[string]any)["text"] != "fixed the roof" {
		t.Fatalf("time_range.phrase in the profile's zone: %v", out)
	}
	st := h.ok(c, "store_memory", map[string]any{"content": "breakfast meeting", "metadata": map[string]any{"timestamp": "2023-03-07T09:00"}})
	id, _ := bson.ObjectIDFromHex(st["memory_id"].(string))
	doc, err := h.store.Memories.Get(testenv.Context(t), id)
	if err != nil || !doc.Timestamp.Equal(time.Date(2023, 3, 6, 19, 0, 0, 0, time.UTC)) {
		t.Fatalf("a timestamp without offset is read in the profile's zone: %v %v", doc.Timestamp, err)
	}

	h.ok(c, "update_user_profile", map[string]any{"remove_preferences": []any{"time_zone"}})
	if got, tf := march5(byRange); !slices.Equal(got, []string{"filed the taxes"}) || tf["time_zone"] != "UTC" {
		t.Fatalf("back to the configured zone: %v %v", got, tf)
	}
}

// TestProfileTimeZoneInQueries: the time words inside a search query
// ("on March 5 2023") are read in the profile's time zone too, as the
// tools' descriptions say (issue 12).
func TestProfileTimeZoneInQueries(t *testing.T) {
	h := newHarness(t)
	c := h.connect()
	// Kiritimati is UTC+14: 2023-03-04T12:00Z is March 5 there.
	h.ok(c, "store_memory", map[string]any{"content": "chores done: the roof", "metadata": map[string]any{"timestamp": "2023-03-04T12:00:00Z"}})
	h.ok(c, "store_memory", map[string]any{"content": "chores done: the taxes", "metadata": map[string]any{"timestamp": "2023-03-05T12:00:00Z"}})
	first := func(tool string, args map[string]any) string {
		t.Helper()
		got := texts(h.ok(c, tool, args), "results")
		if len(got) == 0 {
			t.Fatalf("%s %v: no result", tool, args)
		}
		return got[0]
	}
	q := map[string]any{"query": "chores done on March 5 2023"}
	if got := first("retrieve_memory", q); got != "chores done: the taxes" {
		t.Fatalf("configured zone (UTC): %q first", got)
	}
	h.ok(c, "update_user_profile", map[string]any{"set_preferences": map[string]any{"time_zone": "Pacific/Kiritimati"}})
	if got := first("retrieve_memory", q); got != "chores done: the roof" {
		t.Fatalf("profile zone: %q first", got)
	}
	if got := first("search_by_scope", map[string]any{"scope": "Global", "query": "chores done on March 5 2023"}); got != "chores done: the roof" {
		t.Fatalf("search_by_scope in the profile zone: %q first", got)
	}
}
