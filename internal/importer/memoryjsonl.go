package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The reference MCP memory server (@modelcontextprotocol/server-memory)
// keeps a knowledge graph in memory.jsonl, one JSON object a line:
//
//	{"type":"entity","name":"Alice","entityType":"person","observations":["Lives in Porto"]}
//	{"type":"relation","from":"Alice","to":"Acme","relationType":"works at"}
//
// Each observation becomes a memory "<name>: <observation>" tagged with
// the entity's name and type; an entity without observations becomes
// "<name> (<type>)"; each relation becomes "<from> <relationType> <to>"
// tagged with both ends.

type graphLine struct {
	Type         string   `json:"type"`
	Name         *string  `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
	From         *string  `json:"from"`
	To           *string  `json:"to"`
	RelationType *string  `json:"relationType"`
}

func readMemoryJSONL(path string) (*Input, error) {
	if err := checkFileSize(path, maxFileBytes); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPathError(err))
	}
	mtime := modTime(path)
	base := filepath.Base(path)
	in := &Input{}
	var probs Problems
	probs.Path = path
	entities, relations := 0, 0
	for i, raw := range bytes.Split(data, []byte("\n")) {
		line := i + 1
		where := fmt.Sprintf("%s:%d", base, line)
		raw = bytes.TrimSpace(raw)
		if i == 0 {
			raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
		}
		if len(raw) == 0 {
			continue
		}
		var g graphLine
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&g); err != nil {
			probs.add(inputErr(where, "not a JSON object: %v", jsonMsg(err)))
			continue
		}
		if dec.More() {
			probs.add(inputErr(where, "more than one JSON value on the line; memory.jsonl holds one entity or relation a line"))
			continue
		}
		switch g.Type {
		case "entity":
			if g.Name == nil || oneLine(*g.Name) == "" {
				probs.add(inputErr(where, `an entity needs a "name"`))
				continue
			}
			entities++
			name, typ := oneLine(*g.Name), oneLine(g.EntityType)
			tags := []string{tagOf(name)}
			if typ != "" {
				tags = append(tags, tagOf(typ))
			}
			if len(g.Observations) == 0 {
				text := name
				if typ != "" {
					text = fmt.Sprintf("%s (%s)", name, typ)
				}
				in.Items = append(in.Items, Item{Where: where, Key: "entity\x00" + name, Text: text, Tags: tags, Source: sourceNote, Timestamp: mtime, Category: shorten(typ, maxCategoryLen)})
				continue
			}
			for j, obs := range g.Observations {
				if clean(obs) == "" {
					in.Skipped++
					continue
				}
				in.Items = append(in.Items, Item{
					Where: fmt.Sprintf("%s (observation %d of %q)", where, j+1, snippet(name, 40)),
					Key:   "observation\x00" + name + "\x00" + clean(obs),
					Text:  name + ": " + strings.TrimSpace(obs),
					Tags:  tags, Source: sourceNote, Timestamp: mtime, Category: shorten(typ, maxCategoryLen),
				})
			}
		case "relation":
			if g.From == nil || g.To == nil || g.RelationType == nil || oneLine(*g.From) == "" || oneLine(*g.To) == "" || oneLine(*g.RelationType) == "" {
				probs.add(inputErr(where, `a relation needs "from", "to" and "relationType"`))
				continue
			}
			relations++
			from, to, rel := oneLine(*g.From), oneLine(*g.To), oneLine(*g.RelationType)
			in.Items = append(in.Items, Item{
				Where: where, Key: "relation\x00" + from + "\x00" + rel + "\x00" + to,
				Text: from + " " + rel + " " + to, Tags: []string{tagOf(from), tagOf(to)}, Source: sourceNote, Timestamp: mtime,
			})
		case "":
			probs.add(inputErr(where, `the line has no "type"; memory.jsonl lines are {"type":"entity",…} or {"type":"relation",…}`))
		default:
			probs.add(inputErr(where, `unknown type %q; memory.jsonl lines are entities or relations`, g.Type))
		}
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	in.Units = pluralOf(entities, "entity", "entities") + " and " + plural(relations, "relation")
	return in, nil
}

// jsonMsg is a decoder error without the package prefix.
func jsonMsg(err error) string {
	return strings.TrimPrefix(err.Error(), "json: ")
}
