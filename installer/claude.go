package installer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// ClaudeServerName is infmem's key under mcpServers in Claude Desktop's
// config.
const ClaudeServerName = "infmem"

// ErrMalformedConfig is wrapped by errors about a Claude Desktop config that
// infmem refuses to edit: invalid JSON, or a shape other than Claude's.
var ErrMalformedConfig = errors.New("malformed Claude Desktop config")

// ServerEntry is the command Claude Desktop runs to reach infmem.
type ServerEntry struct {
	Command string
	Args    []string
}

// ClaudeConfigPath returns where Claude Desktop keeps its config on goos:
// ~/Library/Application Support/Claude on macOS, %APPDATA%\Claude on
// Windows, and elsewhere $XDG_CONFIG_HOME/Claude (default ~/.config/Claude),
// which is where Electron's appData points on Linux. env looks up
// environment variables; home is the user's home directory.
func ClaudeConfigPath(goos string, env func(string) string, home string) (string, error) {
	const file = "claude_desktop_config.json"
	switch goos {
	case "darwin":
		if home == "" {
			return "", errors.New("locate Claude Desktop config: no home directory")
		}
		return path.Join(home, "Library/Application Support/Claude", file), nil
	case "windows":
		appData := env("APPDATA")
		if appData == "" {
			if home == "" {
				return "", errors.New(`locate Claude Desktop config: neither %APPDATA% nor a home directory is set`)
			}
			appData = strings.TrimRight(home, `\/`) + `\AppData\Roaming`
		}
		return strings.TrimRight(appData, `\/`) + `\Claude\` + file, nil
	default:
		base := env("XDG_CONFIG_HOME")
		if !path.IsAbs(base) { // the XDG spec says to ignore relative values
			if home == "" {
				return "", errors.New("locate Claude Desktop config: no home directory")
			}
			base = path.Join(home, ".config")
		}
		return path.Join(base, "Claude", file), nil
	}
}

func (e ServerEntry) fields() []jfield {
	args := e.Args
	if args == nil {
		args = []string{}
	}
	return []jfield{{"command", e.Command}, {"args", args}}
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// loadConfigDoc splits off a byte-order mark and parses the document, which
// must be a JSON object. An empty or blank document is returned as nil.
func loadConfigDoc(orig []byte) (bom, doc []byte, root *jnode, err error) {
	doc = orig
	if bytes.HasPrefix(doc, utf8BOM) {
		bom, doc = utf8BOM, doc[len(utf8BOM):]
	}
	if len(bytes.TrimSpace(doc)) == 0 {
		return bom, doc, nil, nil
	}
	if root, err = parseJSONDoc(doc); err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %v", ErrMalformedConfig, err)
	}
	if root.kind != "object" {
		return nil, nil, nil, fmt.Errorf("%w: the top level is %s %s, not an object", ErrMalformedConfig, article(root.kind), root.kind)
	}
	return bom, doc, root, nil
}

func article(kind string) string {
	if kind == "array" || kind == "object" {
		return "an"
	}
	return "a"
}

// mcpServers finds the mcpServers object; nil when absent.
func mcpServers(root *jnode) (int, *jnode, error) {
	i, err := root.member("mcpServers")
	if err != nil {
		return -1, nil, fmt.Errorf("%w: %v", ErrMalformedConfig, err)
	}
	if i < 0 {
		return -1, nil, nil
	}
	servers := root.members[i].val
	if servers.kind != "object" {
		return -1, nil, fmt.Errorf("%w: \"mcpServers\" is %s %s, not an object", ErrMalformedConfig, article(servers.kind), servers.kind)
	}
	return i, servers, nil
}

// MergeClaudeConfig returns orig with mcpServers.infmem running entry. Only
// what must change is rewritten: a missing mcpServers or infmem member is
// appended in the document's own layout; in an existing infmem object only
// "command" and "args" are replaced when they differ, so keys the user added
// (such as "env") survive; everything else is kept byte for byte. changed is
// false when orig already runs entry. Invalid JSON, a top level that is not
// an object, an mcpServers that is not an object, or a duplicated key yields
// an error wrapping ErrMalformedConfig.
func MergeClaudeConfig(orig []byte, entry ServerEntry) ([]byte, bool, error) {
	bom, doc, root, err := loadConfigDoc(orig)
	if err != nil {
		return nil, false, err
	}
	if root == nil {
		doc = []byte("{}\n")
		if root, err = parseJSONDoc(doc); err != nil {
			return nil, false, err
		}
	}
	st := detectStyle(doc, root)
	// Each edit shifts offsets, so edit, re-parse, repeat until nothing is left to do.
	for range 4 {
		next, err := mergeStep(doc, root, entry, st)
		if err != nil {
			return nil, false, err
		}
		if next == nil {
			break
		}
		doc = next
		if root, err = parseJSONDoc(doc); err != nil {
			return nil, false, fmt.Errorf("merge Claude Desktop config: an edit produced invalid JSON: %w", err)
		}
	}
	out := append(slices.Clip(bom), doc...)
	got, err := readEntry(out)
	if err != nil || got == nil || got.Command != entry.Command || !slices.Equal(got.Args, entry.Args) {
		return nil, false, fmt.Errorf("merge Claude Desktop config: the edited document does not hold the expected entry (%v)", err)
	}
	return out, !bytes.Equal(out, orig), nil
}

// mergeStep makes the first edit the document still needs, or returns nil.
func mergeStep(doc []byte, root *jnode, entry ServerEntry, st jsonStyle) ([]byte, error) {
	_, servers, err := mcpServers(root)
	if err != nil {
		return nil, err
	}
	if servers == nil {
		return insertMember(doc, root, "mcpServers", []jfield{{ClaudeServerName, entry.fields()}}, st), nil
	}
	i, err := servers.member(ClaudeServerName)
	if err != nil {
		return nil, fmt.Errorf("%w: in \"mcpServers\", %v", ErrMalformedConfig, err)
	}
	if i < 0 {
		return insertMember(doc, servers, ClaudeServerName, entry.fields(), st), nil
	}
	cur := servers.members[i].val
	if cur.kind != "object" {
		return replaceValue(doc, servers, i, entry.fields(), st), nil
	}
	for _, f := range entry.fields() {
		j, err := cur.member(f.key)
		if err != nil {
			return nil, fmt.Errorf("%w: in \"mcpServers\".%q, %v", ErrMalformedConfig, ClaudeServerName, err)
		}
		if j < 0 {
			return insertMember(doc, cur, f.key, f.val, st), nil
		}
		if !jsonEquals(doc[cur.members[j].val.start:cur.members[j].val.end], f.val) {
			return replaceValue(doc, cur, j, f.val, st), nil
		}
	}
	return nil, nil
}

// jsonEquals reports whether raw decodes to want (a string or []string).
func jsonEquals(raw []byte, want any) bool {
	switch w := want.(type) {
	case string:
		var s *string
		return json.Unmarshal(raw, &s) == nil && s != nil && *s == w
	case []string:
		var got []string
		return json.Unmarshal(raw, &got) == nil && got != nil && slices.Equal(got, w)
	}
	return false
}

// readEntry decodes mcpServers.infmem, nil when absent. Keys are matched
// exactly, as Claude Desktop does (encoding/json's struct fields would also
// accept "mcpservers" or "Command").
func readEntry(doc []byte) (*ServerEntry, error) {
	var top, servers, fields map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimPrefix(doc, utf8BOM), &top); err != nil {
		return nil, err
	}
	if raw, ok := top["mcpServers"]; !ok {
		return nil, nil
	} else if err := json.Unmarshal(raw, &servers); err != nil {
		return nil, err
	}
	raw, ok := servers[ClaudeServerName]
	if !ok {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	var e ServerEntry
	if c, ok := fields["command"]; ok {
		if err := json.Unmarshal(c, &e.Command); err != nil {
			return nil, err
		}
	}
	if a, ok := fields["args"]; ok {
		if err := json.Unmarshal(a, &e.Args); err != nil {
			return nil, err
		}
	}
	return &e, nil
}

// RemoveFromClaudeConfig returns orig without mcpServers.infmem, removing
// only that member and one adjacent comma; an mcpServers left empty stays as
// {}. changed is false when there was nothing to remove. Malformed documents
// yield an error wrapping ErrMalformedConfig, as in MergeClaudeConfig.
func RemoveFromClaudeConfig(orig []byte) ([]byte, bool, error) {
	bom, doc, root, err := loadConfigDoc(orig)
	if err != nil {
		return nil, false, err
	}
	if root == nil {
		return orig, false, nil
	}
	_, servers, err := mcpServers(root)
	if err != nil {
		return nil, false, err
	}
	if servers == nil {
		return orig, false, nil
	}
	// A duplicated key is no obstacle to removing every copy of it.
	for {
		i := slices.IndexFunc(servers.members, func(m jmember) bool { return m.key == ClaudeServerName })
		if i < 0 {
			break
		}
		doc = removeMember(doc, servers, i)
		if root, err = parseJSONDoc(doc); err != nil {
			return nil, false, fmt.Errorf("remove infmem from Claude Desktop config: an edit produced invalid JSON: %w", err)
		}
		if _, servers, err = mcpServers(root); err != nil {
			return nil, false, err
		}
	}
	out := append(slices.Clip(bom), doc...)
	return out, !bytes.Equal(out, orig), nil
}
