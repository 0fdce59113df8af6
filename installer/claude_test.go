package installer

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var testEntry = ServerEntry{
	Command: "/home/user/go/bin/infmem",
	Args:    []string{"mcp", "--data-dir", "/home/user/Memory Data"},
}

// decodeWithoutInfmem decodes a config and drops mcpServers.infmem, to
// compare everything else.
func decodeWithoutInfmem(t *testing.T, doc []byte) any {
	t.Helper()
	doc = bytes.TrimPrefix(doc, utf8BOM)
	if len(bytes.TrimSpace(doc)) == 0 {
		return map[string]any{}
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", doc, err)
	}
	if servers, ok := v["mcpServers"].(map[string]any); ok {
		delete(servers, ClaudeServerName)
		if len(servers) == 0 {
			delete(v, "mcpServers")
		}
	}
	return v
}

// insertedOnly reports whether out is in with one contiguous run of bytes
// inserted, i.e. every original byte survived in place.
func insertedOnly(in, out []byte) bool {
	p := 0
	for p < len(in) && p < len(out) && in[p] == out[p] {
		p++
	}
	s := 0
	for s < len(in)-p && s < len(out)-p && in[len(in)-1-s] == out[len(out)-1-s] {
		s++
	}
	return p+s == len(in)
}

func TestMergeClaudeConfigGolden(t *testing.T) {
	cases := []struct {
		name string
		// insertion: the merge only inserts bytes.
		insertion bool
		// roundTrip: removing the entry again restores the input exactly
		// (mcpServers existed, without infmem).
		roundTrip bool
	}{
		{"absent", false, false},
		{"blank", false, false},
		{"empty-object", false, false},
		{"empty-servers", true, true},
		{"no-servers", true, false},
		{"other-servers", true, true},
		{"odd-format", true, true},
		{"compact", true, true},
		{"bom", true, true},
		{"stale-entry", false, false},
		{"stale-not-object", false, false},
		{"stale-args-only", true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var in []byte
			if tc.name != "absent" {
				var err error
				if in, err = os.ReadFile(filepath.Join("testdata/claude", tc.name+".in.json")); err != nil {
					t.Fatal(err)
				}
			}
			out, changed, err := MergeClaudeConfig(in, testEntry)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "claude/"+tc.name+".merged.json", out)
			if !changed {
				t.Error("changed = false")
			}
			got, err := readEntry(out)
			if err != nil || got == nil || got.Command != testEntry.Command || !slices.Equal(got.Args, testEntry.Args) {
				t.Errorf("entry = %+v, %v", got, err)
			}
			if !reflect.DeepEqual(decodeWithoutInfmem(t, in), decodeWithoutInfmem(t, out)) {
				t.Error("the merge changed something besides mcpServers.infmem")
			}
			if tc.insertion && !insertedOnly(in, out) {
				t.Error("the merge rewrote bytes of the original instead of only inserting")
			}

			again, changed, err := MergeClaudeConfig(out, testEntry)
			if err != nil || changed || !bytes.Equal(again, out) {
				t.Errorf("second merge: changed=%v err=%v", changed, err)
			}

			removed, changed, err := RemoveFromClaudeConfig(out)
			if err != nil || !changed {
				t.Fatalf("remove: changed=%v err=%v", changed, err)
			}
			golden(t, "claude/"+tc.name+".removed.json", removed)
			if e, err := readEntry(removed); err != nil || e != nil {
				t.Errorf("after removal the entry is %+v (%v)", e, err)
			}
			if !reflect.DeepEqual(decodeWithoutInfmem(t, in), decodeWithoutInfmem(t, removed)) {
				t.Error("the removal changed something besides mcpServers.infmem")
			}
			if tc.roundTrip && !bytes.Equal(removed, in) {
				t.Errorf("install then uninstall did not restore the file:\n%s", unifiedDiff("in", "removed", string(in), string(removed)))
			}
		})
	}
}

func TestMergeKeepsUserKeysInEntry(t *testing.T) {
	in, err := os.ReadFile("testdata/claude/stale-entry.in.json")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := MergeClaudeConfig(in, testEntry)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"env": {"INFMEM_LOG": "debug"}`)) {
		t.Errorf("the env the user set on the entry was lost:\n%s", out)
	}
}

func TestMergeClaudeConfigAlreadyCorrect(t *testing.T) {
	in := []byte("{\"mcpServers\": {\"infmem\": {\"args\": [\"mcp\", \"--data-dir\", \"/home/user/Memory Data\"], \"command\": \"/home/user/go/bin/infmem\", \"env\": {}}}}")
	out, changed, err := MergeClaudeConfig(in, testEntry)
	if err != nil || changed || !bytes.Equal(out, in) {
		t.Errorf("changed=%v err=%v out=%s", changed, err, out)
	}
}

func TestMalformedClaudeConfig(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"syntax", "{\n  \"mcpServers\": {,}\n}", "invalid JSON at line 2, column 18"},
		{"truncated", `{"mcpServers": {`, "invalid JSON"},
		{"trailing", `{} {}`, "invalid JSON"},
		{"top-level array", `[]`, "the top level is an array, not an object"},
		{"top-level string", `"x"`, "the top level is a string, not an object"},
		{"servers array", `{"mcpServers": []}`, `"mcpServers" is an array, not an object`},
		{"servers null", `{"mcpServers": null}`, `"mcpServers" is a null, not an object`},
		{"servers string", `{"mcpServers": "x"}`, `"mcpServers" is a string, not an object`},
		{"servers twice", `{"mcpServers": {}, "mcpServers": {}}`, `"mcpServers" appears more than once`},
	}
	for _, tt := range tests {
		for op, f := range map[string]func([]byte) ([]byte, bool, error){
			"merge":  func(b []byte) ([]byte, bool, error) { return MergeClaudeConfig(b, testEntry) },
			"remove": RemoveFromClaudeConfig,
		} {
			out, changed, err := f([]byte(tt.doc))
			if !errors.Is(err, ErrMalformedConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s %s: error = %v, want ErrMalformedConfig saying %q", op, tt.name, err, tt.want)
			}
			if out != nil || changed {
				t.Errorf("%s %s: returned a document", op, tt.name)
			}
		}
	}
}

func TestDuplicateInfmemEntries(t *testing.T) {
	doc := []byte(`{"mcpServers": {"infmem": {"command": "a"}, "x": {}, "infmem": {"command": "b"}}}`)
	if _, _, err := MergeClaudeConfig(doc, testEntry); !errors.Is(err, ErrMalformedConfig) {
		t.Errorf("merge error = %v, want ErrMalformedConfig", err)
	}
	out, changed, err := RemoveFromClaudeConfig(doc)
	if err != nil || !changed || string(out) != `{"mcpServers": {"x": {}}}` {
		t.Errorf("remove = %s, %v, %v", out, changed, err)
	}
	dupField := []byte(`{"mcpServers": {"infmem": {"command": "a", "command": "b"}}}`)
	if _, _, err := MergeClaudeConfig(dupField, testEntry); !errors.Is(err, ErrMalformedConfig) {
		t.Errorf("merge of duplicated command: error = %v", err)
	}
}

func TestRemoveFromClaudeConfig(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"mcpServers": {"infmem": {}, "b": 1, "c": 2}}`, `{"mcpServers": {"b": 1, "c": 2}}`},
		{`{"mcpServers": {"a": 1, "infmem": {}, "c": 2}}`, `{"mcpServers": {"a": 1, "c": 2}}`},
		{`{"mcpServers": {"a": 1, "b": 2, "infmem": {}}}`, `{"mcpServers": {"a": 1, "b": 2}}`},
		{"{\n  \"mcpServers\": {\n    \"infmem\": {\n      \"command\": \"x\"\n    }\n  }\n}\n", "{\n  \"mcpServers\": {}\n}\n"},
		{"{\n  \"mcpServers\": {\n    \"a\": 1,\n    \"infmem\": 2\n  }\n}", "{\n  \"mcpServers\": {\n    \"a\": 1\n  }\n}"},
		{"{\n  \"mcpServers\": {\n    \"infmem\": 2,\n    \"a\": 1\n  }\n}", "{\n  \"mcpServers\": {\n    \"a\": 1\n  }\n}"},
	}
	for _, tt := range tests {
		out, changed, err := RemoveFromClaudeConfig([]byte(tt.in))
		if err != nil || !changed || string(out) != tt.want {
			t.Errorf("RemoveFromClaudeConfig(%q) = %q, %v, %v; want %q", tt.in, out, changed, err, tt.want)
		}
	}
	for _, in := range []string{"", " \n", `{}`, `{"mcpServers": {}}`, `{"mcpServers": {"a": 1}}`, `{"other": {"infmem": 1}}`} {
		out, changed, err := RemoveFromClaudeConfig([]byte(in))
		if err != nil || changed || string(out) != in {
			t.Errorf("RemoveFromClaudeConfig(%q) = %q, %v, %v; want it unchanged", in, out, changed, err)
		}
	}
}

func TestClaudeConfigPath(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	tests := []struct {
		goos, home string
		vars       map[string]string
		want       string
	}{
		{"darwin", "/Users/ann", nil, "/Users/ann/Library/Application Support/Claude/claude_desktop_config.json"},
		{"linux", "/home/ann", nil, "/home/ann/.config/Claude/claude_desktop_config.json"},
		{"linux", "/home/ann", map[string]string{"XDG_CONFIG_HOME": "/xdg"}, "/xdg/Claude/claude_desktop_config.json"},
		{"linux", "/home/ann", map[string]string{"XDG_CONFIG_HOME": "relative"}, "/home/ann/.config/Claude/claude_desktop_config.json"},
		{"freebsd", "/home/ann", nil, "/home/ann/.config/Claude/claude_desktop_config.json"},
		{"windows", `C:\Users\Ann`, map[string]string{"APPDATA": `C:\Users\Ann\AppData\Roaming\`}, `C:\Users\Ann\AppData\Roaming\Claude\claude_desktop_config.json`},
		{"windows", `C:\Users\Ann`, nil, `C:\Users\Ann\AppData\Roaming\Claude\claude_desktop_config.json`},
	}
	for _, tt := range tests {
		got, err := ClaudeConfigPath(tt.goos, env(tt.vars), tt.home)
		if err != nil || got != tt.want {
			t.Errorf("ClaudeConfigPath(%s, %v, %s) = %q, %v; want %q", tt.goos, tt.vars, tt.home, got, err, tt.want)
		}
	}
	for _, goos := range []string{"darwin", "linux", "windows"} {
		if _, err := ClaudeConfigPath(goos, env(nil), ""); err == nil {
			t.Errorf("%s without home or environment: no error", goos)
		}
	}
}

func FuzzMergeClaudeConfig(f *testing.F) {
	for _, seed := range []string{
		"", "{}", `{"a":1}`, `{"mcpServers":{}}`, `{"mcpServers":{"infmem":null}}`,
		"{\r\n\t\"mcpServers\": {\r\n\t\t\"x\": [1, {\"y\": \"\\u00e9\"}]\r\n\t}\r\n}",
		`{"mcpServers":{"infmem":{"command":"a","args":"b","env":{}}}}`,
		`{"mcpServers":[]}`, `[1]`, `{"a":`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if removed, _, err := RemoveFromClaudeConfig(in); err == nil {
			if e, err := readEntry(removed); len(bytes.TrimSpace(removed)) > 0 && (err != nil || e != nil) {
				t.Fatalf("remove left %+v (%v) in %q", e, err, removed)
			}
			if !reflect.DeepEqual(decodeWithoutInfmem(t, in), decodeWithoutInfmem(t, removed)) {
				t.Fatalf("remove from %q changed other content: %q", in, removed)
			}
		}
		out, _, err := MergeClaudeConfig(in, testEntry)
		if err != nil {
			return
		}
		if !json.Valid(bytes.TrimPrefix(out, utf8BOM)) {
			t.Fatalf("merge produced invalid JSON from %q: %q", in, out)
		}
		if !reflect.DeepEqual(decodeWithoutInfmem(t, in), decodeWithoutInfmem(t, out)) {
			t.Fatalf("merge of %q changed other content: %q", in, out)
		}
		if again, changed, err := MergeClaudeConfig(out, testEntry); err != nil || changed || !bytes.Equal(again, out) {
			t.Fatalf("second merge of %q changed it (%v)", out, err)
		}
		removed, _, err := RemoveFromClaudeConfig(out)
		if err != nil {
			t.Fatalf("remove after merge of %q: %v", in, err)
		}
		if e, err := readEntry(removed); err != nil || e != nil {
			t.Fatalf("remove left %+v (%v) in %q", e, err, removed)
		}
	})
}
