package installer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// This file edits JSON documents in place: it locates values by byte offset
// (json.Decoder tokens and InputOffset) and splices new text in, so every
// byte outside the edited member — other servers, key order, number
// spelling, escapes, tabs, CRLF — stays exactly as it was.

// jnode is one JSON value and its byte span [start, end) in the document.
type jnode struct {
	start, end int
	kind       string // "object", "array", "string", "number", "boolean", "null"
	members    []jmember
}

// jmember is one object member; keyEnd is just past the key's closing quote.
type jmember struct {
	key              string
	keyStart, keyEnd int
	val              *jnode
}

// parseJSONDoc parses doc, which must hold exactly one JSON value.
func parseJSONDoc(doc []byte) (*jnode, error) {
	var raw json.RawMessage // checks syntax only, whatever the numbers hold
	if err := json.Unmarshal(doc, &raw); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			// Offset counts the offending byte as read.
			line, col := lineCol(doc, max(int(syn.Offset)-1, 0))
			return nil, fmt.Errorf("invalid JSON at line %d, column %d: %s", line, col, syn.Error())
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	return parseJSONValue(dec, doc)
}

// lineCol returns the 1-based line and column of the byte at offset off.
func lineCol(doc []byte, off int) (int, int) {
	off = min(off, len(doc))
	line := 1 + bytes.Count(doc[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(doc[:off], '\n')
	return line, col
}

// skipSeparators moves past the whitespace, ',' and ':' that the decoder
// leaves between tokens, to where the next token starts.
func skipSeparators(doc []byte, pos int) int {
	for pos < len(doc) && strings.IndexByte(" \t\r\n,:", doc[pos]) >= 0 {
		pos++
	}
	return pos
}

func parseJSONValue(dec *json.Decoder, doc []byte) (*jnode, error) {
	n := &jnode{start: skipSeparators(doc, int(dec.InputOffset()))}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n.kind = "array"
		if t == '{' {
			n.kind = "object"
		}
		for dec.More() {
			if n.kind == "array" {
				if _, err := parseJSONValue(dec, doc); err != nil {
					return nil, err
				}
				continue
			}
			m := jmember{keyStart: skipSeparators(doc, int(dec.InputOffset()))}
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			m.key, _ = kt.(string)
			m.keyEnd = int(dec.InputOffset())
			if m.val, err = parseJSONValue(dec, doc); err != nil {
				return nil, err
			}
			n.members = append(n.members, m)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		n.kind = "string"
	case json.Number:
		n.kind = "number"
	case bool:
		n.kind = "boolean"
	default:
		n.kind = "null"
	}
	n.end = int(dec.InputOffset())
	return n, nil
}

// member returns the index of key in obj, -1 if absent, and an error if the
// key appears more than once (JSON parsers disagree on which one wins).
func (n *jnode) member(key string) (int, error) {
	found := -1
	for i, m := range n.members {
		if m.key != key {
			continue
		}
		if found >= 0 {
			return -1, fmt.Errorf("%q appears more than once", key)
		}
		found = i
	}
	return found, nil
}

// jsonStyle is how the document lays itself out.
type jsonStyle struct {
	nl   string // "\n" or "\r\n"
	unit string // one level of indentation
}

func detectStyle(doc []byte, root *jnode) jsonStyle {
	st := jsonStyle{nl: "\n", unit: "  "}
	if bytes.Contains(doc, []byte("\r\n")) {
		st.nl = "\r\n"
	}
	if root != nil && len(root.members) > 0 {
		first := root.members[0].keyStart
		if bytes.IndexByte(doc[root.start:first], '\n') >= 0 {
			if ind := lineIndent(doc, first); ind != "" {
				st.unit = ind
			}
		}
	}
	return st
}

// lineIndent returns the leading blanks of the line holding pos.
func lineIndent(doc []byte, pos int) string {
	start := bytes.LastIndexByte(doc[:pos], '\n') + 1
	end := start
	for end < len(doc) && (doc[end] == ' ' || doc[end] == '\t') {
		end++
	}
	return string(doc[start:end])
}

// multiline reports whether obj's members start on their own lines.
func multiline(doc []byte, obj *jnode) bool {
	if len(obj.members) == 0 {
		return true
	}
	return bytes.IndexByte(doc[obj.start:obj.members[0].keyStart], '\n') >= 0
}

// jfield is one member of an object we render; val is a string, a []string
// or a []jfield.
type jfield struct {
	key string
	val any
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep & < > readable in paths
	_ = enc.Encode(s)        // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// render writes v; in multi-line mode nested lines are indented one unit
// deeper than indent, the indentation of the line v starts on.
func (st jsonStyle) render(v any, indent string, multi bool) string {
	var items []string
	open, close := "[", "]"
	switch t := v.(type) {
	case string:
		return jsonString(t)
	case []string:
		for _, s := range t {
			items = append(items, jsonString(s))
		}
	case []jfield:
		open, close = "{", "}"
		for _, f := range t {
			items = append(items, jsonString(f.key)+": "+st.render(f.val, indent+st.unit, multi))
		}
	}
	if len(items) == 0 {
		return open + close
	}
	if !multi {
		return open + strings.Join(items, ", ") + close
	}
	inner := indent + st.unit
	return open + st.nl + inner + strings.Join(items, ","+st.nl+inner) + st.nl + indent + close
}

func splice(doc []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(doc)-(end-start)+len(text))
	out = append(out, doc[:start]...)
	out = append(out, text...)
	return append(out, doc[end:]...)
}

// insertMember appends key: val as the last member of obj, laid out like
// the members already there.
func insertMember(doc []byte, obj *jnode, key string, val any, st jsonStyle) []byte {
	k := jsonString(key)
	if len(obj.members) == 0 {
		base := lineIndent(doc, obj.start)
		inner := base + st.unit
		text := st.nl + inner + k + ": " + st.render(val, inner, true) + st.nl + base
		return splice(doc, obj.start+1, obj.end-1, text)
	}
	last := obj.members[len(obj.members)-1]
	sep := string(doc[last.keyEnd:last.val.start])
	if strings.ContainsAny(sep, "\r\n") {
		sep = ": "
	}
	if !multiline(doc, obj) {
		comma := ", "
		if n := len(obj.members); n >= 2 {
			if c := string(doc[obj.members[n-2].val.end:last.keyStart]); !strings.ContainsAny(c, "\r\n") {
				comma = c
			}
		}
		return splice(doc, last.val.end, last.val.end, comma+k+sep+st.render(val, "", false))
	}
	ind := lineIndent(doc, last.keyStart)
	return splice(doc, last.val.end, last.val.end, ","+st.nl+ind+k+sep+st.render(val, ind, true))
}

// replaceValue puts val in place of member i of obj.
func replaceValue(doc []byte, obj *jnode, i int, val any, st jsonStyle) []byte {
	m := obj.members[i]
	text := st.render(val, "", false)
	if multiline(doc, obj) {
		text = st.render(val, lineIndent(doc, m.keyStart), true)
	}
	return splice(doc, m.val.start, m.val.end, text)
}

// removeMember deletes member i of obj together with one adjacent comma.
func removeMember(doc []byte, obj *jnode, i int) []byte {
	switch {
	case len(obj.members) == 1:
		return splice(doc, obj.start+1, obj.end-1, "")
	case i > 0:
		return splice(doc, obj.members[i-1].val.end, obj.members[i].val.end, "")
	default:
		return splice(doc, obj.members[0].keyStart, obj.members[1].keyStart, "")
	}
}
