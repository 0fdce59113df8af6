package config

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"

	"filippo.io/age"
	"github.com/robfig/cron/v3"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/infmem/infmem/scopes"
)

// Modes lists the valid values of mongo.mode.
var Modes = []string{"auto", "embedded", "managed", "external"}

// Validate checks every value and returns an error naming the first bad key.
func (c Config) Validate() error {
	if err := ValidDatabaseName(c.Database); err != nil {
		return fmt.Errorf("key %q: %w", "database", err)
	}
	if err := oneOf("mongo.mode", c.Mongo.Mode, Modes...); err != nil {
		return err
	}
	if c.Mongo.Mode == "external" || c.Mongo.URI != "" {
		if err := validURI(c.Mongo.URI); err != nil {
			return fmt.Errorf("key %q: %w", "mongo.uri", err)
		}
	}
	if c.MaxMemoryItems <= 0 {
		return fmt.Errorf("key %q must be a positive number, not %d", "max_memory_items", c.MaxMemoryItems)
	}
	if c.MaxMemorySizeMB <= 0 {
		return fmt.Errorf("key %q must be a positive number, not %d", "max_memory_size_mb", c.MaxMemorySizeMB)
	}
	if c.TimeZone != "" {
		if _, err := time.LoadLocation(c.TimeZone); err != nil {
			return fmt.Errorf("key %q is %q, which is not an IANA time zone like Europe/Paris or America/New_York", "time_zone", c.TimeZone)
		}
	}
	if c.Memory.MaxContentBytes < 256 || c.Memory.MaxContentBytes > 1<<20 {
		return fmt.Errorf("key %q must be between 256 and 1048576 bytes, not %d", "memory.max_content_bytes", c.Memory.MaxContentBytes)
	}
	if c.Memory.GCPercent < 25 || c.Memory.GCPercent > 1000 {
		return fmt.Errorf("key %q must be between 25 and 1000 percent, not %d", "memory.gc_percent", c.Memory.GCPercent)
	}
	if c.Memory.GCLimitMB != 0 && (c.Memory.GCLimitMB < 32 || c.Memory.GCLimitMB > 1<<20) {
		return fmt.Errorf("key %q must be 0 (no limit) or between 32 and 1048576 MB, not %d", "memory.gc_limit_mb", c.Memory.GCLimitMB)
	}
	if err := validSchedule("backup.daily_schedule", c.Backup.DailySchedule); err != nil {
		return err
	}
	if err := validSchedule("backup.weekly_schedule", c.Backup.WeeklySchedule); err != nil {
		return err
	}
	if c.Backup.KeepDaily < 1 {
		return fmt.Errorf("key %q must be at least 1, not %d", "backup.keep_daily", c.Backup.KeepDaily)
	}
	if c.Backup.KeepWeekly < 1 {
		return fmt.Errorf("key %q must be at least 1, not %d", "backup.keep_weekly", c.Backup.KeepWeekly)
	}
	if err := oneOf("backup.encryption", c.Backup.Encryption, "auto", "required", "off"); err != nil {
		return err
	}
	for i, r := range c.Backup.Recipients {
		if _, err := age.ParseX25519Recipient(r); err != nil {
			return fmt.Errorf("key \"backup.recipients[%d]\" is not an age X25519 recipient (age1...): %q; hint: run 'infmem backup keygen' to make one", i, r)
		}
	}
	if err := validSchedule("maintenance.schedule", c.Maintenance.Schedule); err != nil {
		return err
	}
	if err := oneOf("maintenance.summarizer", c.Maintenance.Summarizer, "extractive", "ollama"); err != nil {
		return err
	}
	if c.Maintenance.Summarizer == "ollama" || c.Maintenance.OllamaURL != "" {
		if err := loopbackURL(c.Maintenance.OllamaURL); err != nil {
			return fmt.Errorf("key %q: %w", "maintenance.ollama_url", err)
		}
	}
	if c.Retention.KeepFullDays < 1 {
		return fmt.Errorf("key %q must be at least 1 day, not %d", "retention.keep_full_days", c.Retention.KeepFullDays)
	}
	if err := oneOf("retention.mode", c.Retention.Mode, "keep", "moderate", "aggressive"); err != nil {
		return err
	}
	if !(c.Dedup.Threshold >= 0.8 && c.Dedup.Threshold <= 1) {
		return fmt.Errorf("key %q must be between 0.8 and 1, not %v", "dedup.threshold", c.Dedup.Threshold)
	}
	if c.Forget.PurgeAfterDays < 1 {
		return fmt.Errorf("key %q must be at least 1 day, not %d", "forget.purge_after_days", c.Forget.PurgeAfterDays)
	}
	if err := oneOf("embedding.model", c.Embedding.Model, "use-lite", "hash", "none"); err != nil {
		return err
	}
	if c.Embedding.CacheEntries < 0 {
		return fmt.Errorf("key %q must not be negative", "embedding.cache_entries")
	}
	if err := scopes.ValidateName(c.Scopes.Default); err != nil {
		return fmt.Errorf("key %q: %w", "scopes.default", err)
	}
	if c.Sync.Device != "" {
		if err := ValidDeviceName(c.Sync.Device); err != nil {
			return fmt.Errorf("key %q: %w", "sync.device", err)
		}
	}
	if c.Sync.FeedKeepDays < 1 {
		return fmt.Errorf("key %q must be at least 1 day, not %d", "sync.feed_keep_days", c.Sync.FeedKeepDays)
	}
	if c.Sync.FeedKeepEntries < 1000 {
		return fmt.Errorf("key %q must be at least 1000, not %d", "sync.feed_keep_entries", c.Sync.FeedKeepEntries)
	}
	if c.Sync.LeaseSeconds < 3 || c.Sync.LeaseSeconds > 3600 {
		return fmt.Errorf("key %q must be between 3 and 3600 seconds, not %d", "sync.lease_seconds", c.Sync.LeaseSeconds)
	}
	if err := oneOf("sync.change_streams", c.Sync.ChangeStreams, "auto", "off"); err != nil {
		return err
	}
	return oneOf("logging.level", c.Logging.Level, "debug", "info", "warn", "error")
}

var deviceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidDeviceName accepts 1 to 64 letters, digits, '.', '_' and '-',
// starting with a letter or digit: a device name goes into feed keys and
// Metadata ids.
func ValidDeviceName(name string) error {
	if !deviceName.MatchString(name) {
		return fmt.Errorf("device name %q must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

func oneOf(key, v string, valid ...string) error {
	for _, ok := range valid {
		if v == ok {
			return nil
		}
	}
	return fmt.Errorf("key %q is %q; use one of: %s", key, v, strings.Join(valid, ", "))
}

// loopbackURL accepts only http(s) URLs on this machine: memories never
// leave it.
func loopbackURL(s string) error {
	if s == "" {
		return fmt.Errorf("must be set when maintenance.summarizer is ollama, e.g. http://127.0.0.1:11434")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http URL like http://127.0.0.1:11434", s)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%q is not on this machine; infmem sends memories only to localhost or 127.0.0.1", s)
	}
	return nil
}

// ValidDatabaseName applies MongoDB's database naming rules.
func ValidDatabaseName(name string) error {
	if name == "" {
		return fmt.Errorf("database name must not be empty")
	}
	if len(name) > 63 {
		return fmt.Errorf("database name %q is longer than 63 bytes", name)
	}
	if i := strings.IndexAny(name, "/\\. \"$*<>:|?\x00"); i >= 0 {
		return fmt.Errorf("database name %q contains %q, which MongoDB does not allow", name, string(name[i]))
	}
	return nil
}

func validURI(s string) error {
	if s == "" {
		return fmt.Errorf("must be set for mongo.mode external")
	}
	if !strings.HasPrefix(s, "mongodb://") && !strings.HasPrefix(s, "mongodb+srv://") {
		return fmt.Errorf("must start with mongodb:// or mongodb+srv://")
	}
	cs, err := parseConnString(s)
	if err != nil {
		// Its errors may quote the input, which may hold a password.
		return fmt.Errorf("is not a valid MongoDB connection string: %s", redactIn(err.Error(), s))
	}
	if len(cs.Hosts) == 0 {
		return fmt.Errorf("names no host")
	}
	return nil
}

var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseSchedule parses a five-field cron expression; "off", "0" and "" disable the job (nil, nil).
func ParseSchedule(expr string) (cron.Schedule, error) {
	switch strings.TrimSpace(expr) {
	case "", "off", "0":
		return nil, nil
	}
	return cronParser.Parse(expr)
}

func validSchedule(key, expr string) error {
	if _, err := ParseSchedule(expr); err != nil {
		return fmt.Errorf("key %q is not a cron schedule (minute hour day month weekday, or \"off\"): %v", key, err)
	}
	return nil
}

// redactIn removes from msg the password of the connection string s, as
// written and unescaped, and any user:password@ part.
func redactIn(msg, s string) string {
	if _, rest, ok := strings.Cut(s, "://"); ok {
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok && pw != "" {
				msg = strings.ReplaceAll(msg, pw, "REDACTED")
				if u, err := url.PathUnescape(pw); err == nil && u != "" {
					msg = strings.ReplaceAll(msg, u, "REDACTED")
				}
			}
		}
	}
	return credentials.ReplaceAllString(msg, "${1}:REDACTED@")
}

// parseConnString parses and validates a connection string with the
// driver's own parser, which accepts what the driver will connect to
// (several hosts, a unix socket host such as
// mongodb://%2Frun%2Fmongo.sock/db, TLS options) where net/url does not.
// A mongodb+srv string is checked as the mongodb:// string of its seed
// host: the driver would look its hosts up in DNS, which validation must
// not.
func parseConnString(s string) (*connstring.ConnString, error) {
	if rest, ok := strings.CutPrefix(s, "mongodb+srv://"); ok {
		cs, err := connstring.ParseAndValidate("mongodb://" + rest)
		if err == nil && (len(cs.Hosts) != 1 || strings.Contains(cs.Hosts[0], ":")) {
			err = fmt.Errorf("a mongodb+srv:// connection string names one host and no port")
		}
		return cs, err
	}
	return connstring.ParseAndValidate(s)
}
