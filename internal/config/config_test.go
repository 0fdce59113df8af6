package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestExampleFileIsTheDefaults(t *testing.T) {
	cfg, err := ReadFile(filepath.Join("..", "..", "config.example.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, Defaults()) {
		t.Fatalf("config.example.json differs from Defaults():\n%+v\n%+v", cfg, Defaults())
	}
}

func TestExampleFileDocumentsEveryKey(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "config.example.json"))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for name, f := range jsonFields(typ) {
			if !strings.Contains(string(data), `"// `+name+`"`) && f.Type.Kind() != reflect.Struct {
				t.Errorf("config.example.json has no comment for %s%s", prefix, name)
			}
			if f.Type.Kind() == reflect.Struct {
				walk(prefix+name+".", f.Type)
			}
		}
	}
	walk("", reflect.TypeOf(Config{}))
}

func TestParseOverridesOnlyGivenKeys(t *testing.T) {
	cfg, err := Parse([]byte(`{"mongo": {"mode": "embedded"}, "backup": {"keep_daily": 3}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	want.Mongo.Mode = "embedded"
	want.Backup.KeepDaily = 3
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got %+v, want %+v", cfg, want)
	}
}

func TestParseRejects(t *testing.T) {
	cases := []struct {
		name, doc, want string
	}{
		{"empty", ``, "file is empty"},
		{"syntax", "{\n  \"database\": \"x\",\n}", "line 3"},
		{"not object", `[1]`, "top level must be a JSON object"},
		{"trailing", `{} {}`, "unexpected data"},
		{"unknown top", `{"databse": "x"}`, `key "databse" is unknown`},
		{"unknown nested", `{"mongo": {"mod": "x"}}`, `key "mongo.mod" is unknown`},
		{"wrong type string", `{"database": 5}`, `key "database" must be a string, not the number 5`},
		{"wrong type int", `{"max_memory_items": "many"}`, `key "max_memory_items" must be a whole number`},
		{"fraction", `{"max_memory_items": 1.5}`, `key "max_memory_items" must be a whole number`},
		{"wrong type bool", `{"backup": {"enabled": "yes"}}`, `key "backup.enabled" must be true or false`},
		{"wrong type object", `{"mongo": "embedded"}`, `key "mongo" must be an object`},
		{"wrong array elem", `{"backup": {"recipients": [1]}}`, `key "backup.recipients[0]" must be a string`},
		{"bad mode", `{"mongo": {"mode": "cloud"}}`, `key "mongo.mode" is "cloud"; use one of: auto, embedded, managed, external`},
		{"bad uri", `{"mongo": {"mode": "external", "uri": "http://x"}}`, `key "mongo.uri": must start with mongodb://`},
		{"empty uri", `{"mongo": {"mode": "external", "uri": ""}}`, `key "mongo.uri": must be set`},
		{"bad db", `{"database": "a.b"}`, `key "database": database name "a.b" contains "."`},
		{"zero limit", `{"max_memory_items": 0}`, `key "max_memory_items" must be a positive number`},
		{"bad cron", `{"backup": {"daily_schedule": "every day"}}`, `key "backup.daily_schedule" is not a cron schedule`},
		{"bad keep", `{"backup": {"keep_weekly": 0}}`, `key "backup.keep_weekly" must be at least 1`},
		{"bad recipient", `{"backup": {"recipients": ["age1nope"]}}`, `key "backup.recipients[0]" is not an age X25519 recipient`},
		{"bad model", `{"embedding": {"model": "bert"}}`, `key "embedding.model" is "bert"`},
		{"bad scope", `{"scopes": {"default": "ALL"}}`, `key "scopes.default": invalid scope name`},
		{"bad level", `{"logging": {"level": "loud"}}`, `key "logging.level" is "loud"`},
		{"bad zone", `{"time_zone": "Mars/Olympus"}`, `key "time_zone" is "Mars/Olympus"`},
		{"bad maintenance schedule", `{"maintenance": {"schedule": "nightly"}}`, `key "maintenance.schedule" is not a cron schedule`},
		{"bad summarizer", `{"maintenance": {"summarizer": "gpt"}}`, `key "maintenance.summarizer" is "gpt"`},
		{"ollama without url", `{"maintenance": {"summarizer": "ollama"}}`, `key "maintenance.ollama_url": must be set`},
		{"remote ollama", `{"maintenance": {"summarizer": "ollama", "ollama_url": "http://example.com:11434"}}`, "is not on this machine"},
		{"bad retention", `{"retention": {"mode": "yolo"}}`, `key "retention.mode" is "yolo"`},
		{"zero keep days", `{"retention": {"keep_full_days": 0}}`, `key "retention.keep_full_days" must be at least 1`},
		{"bad dedup", `{"dedup": {"threshold": 0.5}}`, `key "dedup.threshold" must be between 0.8 and 1`},
		{"bad purge", `{"forget": {"purge_after_days": 0}}`, `key "forget.purge_after_days" must be at least 1`},
		{"tiny content", `{"memory": {"max_content_bytes": 10}}`, `key "memory.max_content_bytes" must be between`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Parse(%q) = %v, want an error containing %q", c.doc, err, c.want)
			}
		})
	}
}

func TestScheduleOff(t *testing.T) {
	for _, s := range []string{"off", "0", ""} {
		sch, err := ParseSchedule(s)
		if err != nil || sch != nil {
			t.Errorf("ParseSchedule(%q) = %v, %v; want disabled", s, sch, err)
		}
	}
	if _, err := Parse([]byte(`{"backup": {"weekly_schedule": "off"}}`)); err != nil {
		t.Fatal(err)
	}
}

func TestReadFileNamesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cfg.json")
	if err := os.WriteFile(p, []byte(`{"bogus": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(p)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), `"bogus"`) {
		t.Fatalf("err = %v; want it to name %s and the key", err, p)
	}
	_, err = ReadFile(filepath.Join(t.TempDir(), "missing.json"))
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestLocateOrder(t *testing.T) {
	dir := t.TempDir()
	userDir := func() (string, error) { return dir, nil }
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }

	src, err := Locate("", getenv, userDir)
	if err != nil || src.Path != "" || src.How != "built-in defaults" {
		t.Fatalf("no file anywhere: %+v %v", src, err)
	}
	def := filepath.Join(dir, "infmem", "config.json")
	os.MkdirAll(filepath.Dir(def), 0o700)
	os.WriteFile(def, []byte(`{}`), 0o600)
	if src, _ = Locate("", getenv, userDir); src.Path != def {
		t.Fatalf("default location not used: %+v", src)
	}
	env[EnvConfig] = "/from/env.json"
	if src, _ = Locate("", getenv, userDir); src.Path != "/from/env.json" || src.How != EnvConfig {
		t.Fatalf("env not preferred: %+v", src)
	}
	if src, _ = Locate("/from/flag.json", getenv, userDir); src.Path != "/from/flag.json" {
		t.Fatalf("flag not preferred: %+v", src)
	}
	if src, _ = Locate("", func(string) string { return "" }, func() (string, error) { return "", errors.New("no home") }); src.How != "built-in defaults" {
		t.Fatalf("no user dir: %+v", src)
	}
}

func TestURIErrorDoesNotLeakPassword(t *testing.T) {
	_, err := Parse([]byte(`{"mongo": {"mode": "external", "uri": "mongodb://u:s3cret@%zz"}}`))
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("err = %v", err)
	}
}

// TestConfigWithPasswordMustBePrivate: a config whose mongo.uri carries a
// password is refused while group or others can read it (issue 13).
func TestConfigWithPasswordMustBePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no unix modes")
	}
	p := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(p, []byte(`{"mongo": {"mode": "external", "uri": "mongodb://ann:s3cret-pw@localhost:27017"}}`), 0o644)
	_, err := ReadFile(p)
	if !errors.Is(err, ErrConfigReadable) || !strings.Contains(err.Error(), "chmod 600 "+p) || strings.Contains(err.Error(), "s3cret-pw") {
		t.Fatalf("readable config with a password: %v", err)
	}
	os.Chmod(p, 0o600)
	if _, err := ReadFile(p); err != nil {
		t.Fatalf("private config: %v", err)
	}
	os.WriteFile(p, []byte(`{"mongo": {"mode": "external", "uri": "mongodb://localhost:27017"}}`), 0o644)
	if _, err := ReadFile(p); err != nil {
		t.Fatalf("readable config without a password: %v", err)
	}
}

// TestMongoURIAcceptedByDriverParser: mongo.uri is checked with the
// driver's own parser, so what the driver connects to is accepted (a unix
// socket host, several hosts, TLS options, SRV) and what it refuses is
// refused, without quoting a password.
func TestMongoURIAcceptedByDriverParser(t *testing.T) {
	for _, uri := range []string{
		"mongodb://%2Ftmp%2Finfmem%2Frun%2Fmongo.sock/claude_memory",
		"mongodb://%2Ftmp%2Fmongo.sock",
		"mongodb://ann:pw@a.example:27017,b.example:27017,c.example/claude_memory?replicaSet=rs0&tls=true&authSource=admin",
		"mongodb+srv://ann:pw@cluster0.example.mongodb.net/claude_memory?retryWrites=true&w=majority",
		"mongodb://localhost:27017/claude_memory?tls=true&tlsCAFile=%2Fetc%2Fca.pem",
	} {
		if _, err := Parse([]byte(`{"mongo": {"mode": "external", "uri": "` + uri + `"}}`)); err != nil {
			t.Errorf("%s refused: %v", uri, err)
		}
	}
	for _, tc := range []struct{ uri, want string }{
		{"mongodb://ann:s3cret@localhost:27017/db?tls=maybe", "not a valid MongoDB connection string"},
		{"mongodb://ann:s3cret@localhost:99999/db", "not a valid MongoDB connection string"},
		{"mongodb://ann:s3cret@localhost/db?directConnection=true&replicaSet=a&connect=x", "not a valid MongoDB connection string"},
		{"mongodb+srv://ann:s3cret@host:27017/db", "not a valid MongoDB connection string"},
		{"mongodb://", "not a valid MongoDB connection string"},
	} {
		_, err := Parse([]byte(`{"mongo": {"mode": "external", "uri": "` + tc.uri + `"}}`))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: err = %v, want %q without the password", tc.uri, err, tc.want)
		}
	}
}

func TestSyncConfig(t *testing.T) {
	cfg, err := Parse([]byte(`{"sync": {"enabled": true, "device": "laptop-1"}}`))
	if err != nil || !cfg.Sync.Enabled || cfg.DeviceName() != "laptop-1" {
		t.Fatalf("sync config: %+v, %v", cfg.Sync, err)
	}
	if cfg.Sync.LeaseSeconds != 60 || cfg.Sync.ChangeStreams != "auto" {
		t.Fatalf("sync defaults: %+v", cfg.Sync)
	}
	if d := Defaults(); d.Sync.Enabled || ValidDeviceName(d.DeviceName()) != nil {
		t.Fatalf("default device %q invalid or sync on by default", d.DeviceName())
	}
	for _, bad := range []string{`{"sync": {"device": "a:b"}}`, `{"sync": {"device": "-x"}}`, `{"sync": {"feed_keep_days": 0}}`, `{"sync": {"feed_keep_entries": 10}}`,
		`{"sync": {"lease_seconds": 1}}`, `{"sync": {"change_streams": "always"}}`} {
		if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "sync.") {
			t.Errorf("%s accepted: %v", bad, err)
		}
	}
}
