package mcptools

import (
	"strings"
	"testing"
)

// Issue 22, item 10: names that look like others were accepted — memory
// tool paths with "‥", fullwidth dots, "∕", zero-width and no-break
// spaces, and the same name decomposed (NFD) and composed (NFC) as two
// files; a fullwidth scope ＡＬＬ beside the reserved ALL, and Ｗｏｒｋ
// beside Work; a tag with U+202E. Now text is NFC, invisible and
// formatting characters are refused, and names compare folded.
func TestLookAlikeNamesRefused(t *testing.T) {
	h := newHarness(t)
	c := h.connect()

	for path, want := range map[string]string{
		"/memories/\u2025/x.md":                 "reads as",
		"/memories/\uff0e\uff0e/x.md":           "reads as",
		"/memories/a\uff0fb.md":                 "reads as",
		"/memories/a\u2215b.md":                 "looks like a slash",
		"/memories/a\u200bb.md":                 "invisible",
		"/memories/a\u00a0b.md":                 "invisible",
		"/memories/x\u202egnp.md":               "invisible",
		"/memories/\uff4e\uff4f\uff54\uff45.md": "reads as",
	} {
		h.memFails(c, create(path, "text"), want)
	}
	// The same name composed and decomposed is one file.
	h.mem(c, create("/memories/Cafe\u0301 notes.md", "the espresso machine is descaled monthly"))
	if got := h.mem(c, view("/memories/Caf\u00e9 notes.md")); !strings.Contains(got, "descaled monthly") {
		t.Fatalf("the NFC name does not find the file made with the NFD one: %q", got)
	}
	h.mem(c, create("/memories/Caf\u00e9 notes.md", "descaled every month"))
	if got := h.mem(c, view("/memories")); strings.Count(got, "notes.md") != 1 {
		t.Fatalf("two files for one name:\n%s", got)
	}

	// Scopes: ＡＬＬ is ALL; Ｗｏｒｋ is Work; an invisible character is refused.
	h.fails(c, "create_memory_scope", map[string]any{"scope": "\uff21\uff2c\uff2c"}, "reserved")
	h.ok(c, "create_memory_scope", map[string]any{"scope": "Work"})
	out := h.ok(c, "create_memory_scope", map[string]any{"scope": "\uff37\uff4f\uff52\uff4b"})
	if sc, _ := out["scope"].(map[string]any); sc["name"] != "Work" || out["created"] != false {
		t.Fatalf("Ｗｏｒｋ made a scope beside Work: %v", out)
	}
	h.fails(c, "create_memory_scope", map[string]any{"scope": "Wo\u200brk"}, "invisible")
	h.ok(c, "store_memory", map[string]any{"content": "The café opens at seven", "metadata": map[string]any{"scope": "Cafe\u0301"}})
	r := h.ok(c, "search_by_scope", map[string]any{"scope": "Caf\u00e9"})
	if !strings.Contains(strings.Join(texts(r, "results"), "|"), "opens at seven") {
		t.Fatalf("the NFC scope name does not find the NFD one's memory: %v", r)
	}

	// Tags.
	for _, tag := range []string{"invoice\u202efdp", "wo\u200brk", "a\u00a0b"} {
		h.fails(c, "store_memory", map[string]any{"content": "Tagged " + tag, "metadata": map[string]any{"tags": []any{tag}}}, "invisible")
	}
}
