package mcptools

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/mark3labs/mcp-go/mcp"
)

// Schemas are generated from the input and output structs, then made
// plain: the generator marks slices, maps and pointers nullable
// (["null", "array"]), which strict validators warn about and some clients
// reject. Here an optional argument is one left out of "required", never a
// null type; outputs never carry null (see nonNil).

// plainTool makes a tool's generated schemas plain; the input schema keeps
// its property order (the struct's field order).
func plainTool(t *mcp.Tool) {
	if len(t.RawInputSchema) > 0 {
		if plain, err := plainJSON(t.RawInputSchema); err == nil {
			t.RawInputSchema = plain
		}
	}
	if len(t.RawOutputSchema) > 0 {
		if plain, err := plainJSON(t.RawOutputSchema); err == nil {
			t.RawOutputSchema = plain
		}
	}
	// Output objects are not closed ("additionalProperties": false): the
	// server writes them, so the clause only lengthens the tool list.
	if t.OutputSchema.AdditionalProperties == false {
		t.OutputSchema.AdditionalProperties = nil
	}
	for _, p := range t.OutputSchema.Properties {
		plainValue(p)
		dropClosed(p)
	}
}

// dropClosed removes "additionalProperties": false from a decoded schema.
func dropClosed(v any) {
	switch x := v.(type) {
	case map[string]any:
		if x["additionalProperties"] == false {
			delete(x, "additionalProperties")
		}
		for _, sub := range x {
			dropClosed(sub)
		}
	case []any:
		for _, e := range x {
			dropClosed(e)
		}
	}
}

// plainJSON rewrites a schema's nullable types ("type": ["null", "array"])
// to the plain type, keeping the order of object keys.
func plainJSON(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return raw, nil
	}
	switch raw[0] {
	case '{':
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		var out bytes.Buffer
		out.WriteByte('{')
		for i := 0; dec.More(); i++ {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := tok.(string)
			var val json.RawMessage
			if err := dec.Decode(&val); err != nil {
				return nil, err
			}
			if key == "type" {
				val = plainType(val)
			} else if val, err = plainJSON(val); err != nil {
				return nil, err
			}
			if i > 0 {
				out.WriteByte(',')
			}
			k, _ := json.Marshal(key)
			out.Write(k)
			out.WriteByte(':')
			out.Write(val)
		}
		out.WriteByte('}')
		return out.Bytes(), nil
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
		var out bytes.Buffer
		out.WriteByte('[')
		for i, it := range items {
			p, err := plainJSON(it)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				out.WriteByte(',')
			}
			out.Write(p)
		}
		out.WriteByte(']')
		return out.Bytes(), nil
	}
	return raw, nil
}

// plainType turns ["null", "array"] into "array".
func plainType(val json.RawMessage) json.RawMessage {
	var types []string
	if json.Unmarshal(val, &types) != nil {
		return val
	}
	var kept []string
	for _, ty := range types {
		if ty != "null" {
			kept = append(kept, ty)
		}
	}
	var b []byte
	if len(kept) == 1 {
		b, _ = json.Marshal(kept[0])
	} else {
		b, _ = json.Marshal(kept)
	}
	return b
}

// plainValue does what plainJSON does on a decoded schema.
func plainValue(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if types, ok := sub.([]any); ok && k == "type" {
				var kept []any
				for _, ty := range types {
					if ty != "null" {
						kept = append(kept, ty)
					}
				}
				if len(kept) == 1 {
					x[k] = kept[0]
				} else {
					x[k] = kept
				}
				continue
			}
			plainValue(sub)
		}
	case []any:
		for _, e := range x {
			plainValue(e)
		}
	}
}

// nonNil returns a copy of a tool's output with every nil slice and map
// made empty, so that results match their schema ("array", never null).
// Slices and maps are copied before they are changed: they may be shared
// with the engine.
func nonNil(v any) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return v
	}
	cp := reflect.New(rv.Type()).Elem()
	cp.Set(rv)
	fillNil(cp)
	return cp.Interface()
}

// fillNil makes the nil slices and maps in the settable value v empty.
func fillNil(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			// An embedded struct's own fields are settable even when the
			// embedded type is unexported.
			if f := v.Field(i); f.CanSet() || (v.Type().Field(i).Anonymous && f.Kind() == reflect.Struct) {
				fillNil(f)
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		if needsFill(v.Type().Elem()) {
			cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(cp, v)
			for i := 0; i < cp.Len(); i++ {
				fillNil(cp.Index(i))
			}
			v.Set(cp)
		}
	case reflect.Map:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
			return
		}
		if needsFill(v.Type().Elem()) {
			cp := reflect.MakeMapWithSize(v.Type(), v.Len())
			for it := v.MapRange(); it.Next(); {
				e := reflect.New(v.Type().Elem()).Elem()
				e.Set(it.Value())
				fillNil(e)
				cp.SetMapIndex(it.Key(), e)
			}
			v.Set(cp)
		}
	}
}

// needsFill reports whether values of type t can hold a nil slice or map.
func needsFill(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Slice, reflect.Map:
		return true
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); (f.IsExported() || f.Anonymous) && needsFill(f.Type) {
				return true
			}
		}
	}
	return false
}
