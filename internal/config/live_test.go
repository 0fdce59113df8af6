package config

import (
	"reflect"
	"strings"
	"testing"
)

// A running daemon takes the live keys of a changed config and keeps the
// rest; Diff names what still differs, which needs a restart.
func TestDiffAndApplyLive(t *testing.T) {
	running := Defaults()
	next := Defaults()
	if d := Diff(running, next); len(d) != 0 {
		t.Fatalf("defaults differ from themselves: %v", d)
	}
	next.Backup.Recipients = []string{"age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"}
	next.Backup.DailySchedule = "0 4 * * *"
	next.Maintenance.Schedule = "off"
	next.Retention.Mode = "moderate"
	next.Logging.Level = "debug"
	next.Mongo.Mode = "external"
	next.Embedding.Model = "hash"
	next.DataDir = "/elsewhere"
	next.TimeZone = "Europe/Paris"

	want := []string{"data_dir", "mongo.mode", "time_zone", "backup.daily_schedule", "backup.recipients",
		"maintenance.schedule", "retention.mode", "embedding.model", "logging.level"}
	if d := Diff(running, next); !reflect.DeepEqual(d, want) {
		t.Fatalf("Diff = %v, want %v", d, want)
	}
	applied := ApplyLive(running, next)
	if !reflect.DeepEqual(applied.Backup, next.Backup) || applied.Maintenance != next.Maintenance ||
		applied.Retention != next.Retention || applied.Logging != next.Logging {
		t.Fatalf("live keys not applied: %+v", applied)
	}
	rest := []string{"data_dir", "mongo.mode", "time_zone", "embedding.model"}
	if d := Diff(applied, next); !reflect.DeepEqual(d, rest) {
		t.Fatalf("after ApplyLive, Diff = %v, want the restart-only keys %v", d, rest)
	}
	for _, k := range rest {
		if Live(k) {
			t.Errorf("%s reported live", k)
		}
	}
	for _, k := range []string{"backup.recipients", "backup.recipients[0]", "maintenance.schedule", "logging.level", "max_memory_items"} {
		if !Live(k) {
			t.Errorf("%s not reported live", k)
		}
	}
	// The applied config does not share next's recipients.
	next.Backup.Recipients[0] = "changed"
	if applied.Backup.Recipients[0] == "changed" {
		t.Fatal("ApplyLive shares the recipients slice")
	}
	// A nil and an empty list are the same setting.
	a, b := Defaults(), Defaults()
	a.Backup.Recipients, b.Backup.Recipients = nil, []string{}
	if d := Diff(a, b); len(d) != 0 {
		t.Fatalf("nil and empty recipients differ: %v", d)
	}
}

// A connection string typed into the wrong key is refused without its
// password in the error.
func TestParseErrorsHideCredentials(t *testing.T) {
	for _, doc := range []string{
		`{"mongo": {"mode": "mongodb://admin:s3cret-pw@db.example:27017/x"}}`,
		`{"maintenance": {"summarizer": "ollama", "ollama_url": "http://u:s3cret-pw@example.com:11434"}}`,
		`{"database": "mongodb+srv://admin:s3cret-pw@cluster0.example.net"}`,
	} {
		_, err := Parse([]byte(doc))
		if err == nil || strings.Contains(err.Error(), "s3cret-pw") || !strings.Contains(err.Error(), "REDACTED") {
			t.Errorf("Parse(%s) = %v", doc, err)
		}
	}
}
