package config

import (
	"reflect"
	"strings"
)

// liveKeys are the top-level keys a running daemon applies when its config
// file changes: what backups, maintenance and the service log read each
// time they run. Every other key (data_dir, database, mongo, time_zone,
// memory, embedding, scopes) shapes the open database or the memory engine
// and takes effect only when the daemon restarts.
var liveKeys = map[string]bool{
	"backup":             true,
	"maintenance":        true,
	"retention":          true,
	"dedup":              true,
	"forget":             true,
	"max_memory_items":   true,
	"max_memory_size_mb": true,
	"logging":            true,
}

// Live reports whether a change to key (a dotted path such as
// "backup.recipients", as Diff returns it) takes effect in a running
// daemon without a restart.
func Live(key string) bool {
	top, _, _ := strings.Cut(key, ".")
	top, _, _ = strings.Cut(top, "[")
	return liveKeys[top]
}

// Diff lists the dotted keys whose values differ between a and b, in the
// order of the Config struct. A nil and an empty list are the same.
func Diff(a, b Config) []string {
	var out []string
	diffValue("", reflect.ValueOf(a), reflect.ValueOf(b), &out)
	return out
}

func diffValue(path string, a, b reflect.Value, out *[]string) {
	if a.Kind() == reflect.Struct {
		t := a.Type()
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			diffValue(join(path, name), a.Field(i), b.Field(i), out)
		}
		return
	}
	if a.Kind() == reflect.Slice && a.Len() == 0 && b.Len() == 0 {
		return
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		*out = append(*out, path)
	}
}

// ApplyLive returns running with the value of every live key (see Live)
// taken from next: what a running daemon runs with after it read next.
func ApplyLive(running, next Config) Config {
	out := running
	ov, nv := reflect.ValueOf(&out).Elem(), reflect.ValueOf(next)
	t := ov.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if liveKeys[name] {
			ov.Field(i).Set(nv.Field(i))
		}
	}
	// The slices must not be shared with next.
	out.Backup.Recipients = append([]string{}, next.Backup.Recipients...)
	return out
}
