package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// A key starting with this prefix is a comment at any level of the file, so
// config.example.json can document every key in place.
const commentPrefix = "//"

// Parse decodes a config document on top of the defaults, rejecting unknown
// keys and wrong types with the dotted path of the key, then validates it.
// Its errors quote bad values, but never a password: a value holding a
// connection string with credentials (a URI typed into the wrong key) is
// quoted with its password replaced.
func Parse(data []byte) (Config, error) {
	cfg, err := parse(data)
	if err != nil {
		return Config{}, withoutCredentials(err)
	}
	return cfg, nil
}

// credentials matches the user:password@ part of a URI.
var credentials = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s"]*):[^@\s"]*@`)

// redactedError is an error whose text had a password removed.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

func withoutCredentials(err error) error {
	msg := err.Error()
	if !credentials.MatchString(msg) {
		return err
	}
	return redactedError{msg: credentials.ReplaceAllString(msg, "${1}:REDACTED@"), err: err}
}

func parse(data []byte) (Config, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Config{}, errors.New("file is empty; write {} for the defaults")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return Config{}, describeSyntaxError(data, err)
	}
	if dec.More() {
		return Config{}, errors.New("unexpected data after the top-level object")
	}
	if _, ok := tree.(map[string]any); !ok {
		return Config{}, errors.New("top level must be a JSON object")
	}
	if err := checkShape("", tree, reflect.TypeOf(Config{})); err != nil {
		return Config{}, err
	}
	cfg := Defaults()
	if err := json.Unmarshal(data, &cfg); err != nil {
		return Config{}, fmt.Errorf("cannot decode: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// describeSyntaxError turns a decoder error into one naming line and column.
func describeSyntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := position(data, se.Offset)
		return fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, se)
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

func position(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// checkShape walks the decoded document alongside the Go type and reports the
// first unknown key or type mismatch, in a stable (sorted) key order.
func checkShape(path string, v any, t reflect.Type) error {
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return typeError(path, v, "an object")
		}
		fields := jsonFields(t)
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if strings.HasPrefix(k, commentPrefix) {
				continue
			}
			f, ok := fields[k]
			if !ok {
				return fmt.Errorf("key %q is unknown (known keys here: %s)", join(path, k), knownKeys(fields))
			}
			if err := checkShape(join(path, k), obj[k], f.Type); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return typeError(path, v, "an array")
		}
		for i, e := range arr {
			if err := checkShape(fmt.Sprintf("%s[%d]", path, i), e, t.Elem()); err != nil {
				return err
			}
		}
		return nil
	case reflect.String:
		if _, ok := v.(string); !ok {
			return typeError(path, v, "a string")
		}
		return nil
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return typeError(path, v, "true or false")
		}
		return nil
	case reflect.Int, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return typeError(path, v, "a whole number")
		}
		if _, err := n.Int64(); err != nil {
			return typeError(path, v, "a whole number")
		}
		return nil
	case reflect.Float64:
		if _, ok := v.(json.Number); !ok {
			return typeError(path, v, "a number")
		}
		return nil
	}
	return fmt.Errorf("key %q has a type this version cannot read", path)
}

func jsonFields(t reflect.Type) map[string]reflect.StructField {
	fields := make(map[string]reflect.StructField, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		fields[name] = f
	}
	return fields
}

func knownKeys(fields map[string]reflect.StructField) string {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func typeError(path string, v any, want string) error {
	return fmt.Errorf("key %q must be %s, not %s", path, want, describe(v))
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("%t", x)
	case json.Number:
		return "the number " + x.String()
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
