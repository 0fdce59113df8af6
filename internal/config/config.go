// Package config owns infmem's configuration: its keys and defaults, where the
// file is looked up, and strict validation that names the offending key and file.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Config is the whole configuration. Every key is documented, with its
// default, in config.example.json at the repository root.
type Config struct {
	// DataDir is the data root; empty means the OS default (see dataroot).
	DataDir string `json:"data_dir"`
	// Database is the MongoDB database holding the memory.
	Database string `json:"database"`

	Mongo Mongo `json:"mongo"`

	// MaxMemoryItems and MaxMemorySizeMB are soft limits that trigger
	// summarization and archival when exceeded.
	MaxMemoryItems  int `json:"max_memory_items"`
	MaxMemorySizeMB int `json:"max_memory_size_mb"`

	// TimeZone is the IANA zone time phrases ("yesterday") are read in;
	// empty means the system's.
	TimeZone string `json:"time_zone"`

	Memory      Memory      `json:"memory"`
	Backup      Backup      `json:"backup"`
	Maintenance Maintenance `json:"maintenance"`
	Retention   Retention   `json:"retention"`
	Dedup       Dedup       `json:"dedup"`
	Forget      Forget      `json:"forget"`
	Embedding   Embedding   `json:"embedding"`
	Scopes      Scopes      `json:"scopes"`
	Logging     Logging     `json:"logging"`
	Sync        Sync        `json:"sync"`
}

// Mongo selects and reaches the database engine.
type Mongo struct {
	// Mode is auto, embedded, managed or external.
	Mode string `json:"mode"`
	// URI is used by the external mode only.
	URI string `json:"uri"`
	// MongodPath is the mongod binary for the managed mode; empty means PATH.
	MongodPath string `json:"mongod_path"`
}

// Sync configures several daemons sharing one database (docs/SYNC.md).
type Sync struct {
	// Enabled turns on the change feed, the maintenance lease and the
	// per-device index snapshot. Off (the default), a daemon assumes it is
	// the database's only writer and pays nothing for sync.
	Enabled bool `json:"enabled"`
	// Device names this daemon in the feed, the lease and status; empty
	// means the host name (DeviceName).
	Device string `json:"device"`
	// FeedKeepDays and FeedKeepEntries bound this device's entries in the
	// change feed: older or further back entries are trimmed, and a
	// daemon that has not read that far reloads its whole index.
	FeedKeepDays    int `json:"feed_keep_days"`
	FeedKeepEntries int `json:"feed_keep_entries"`
	// LeaseSeconds is how long the maintenance lease lasts without renewal
	// (default 60; its holder renews it every third of that): a crashed
	// holder is replaced within about 4/3 of it. Tests shorten it.
	LeaseSeconds int `json:"lease_seconds"`
	// ChangeStreams is how a daemon hears of the others' changes: "auto"
	// (the default) watches the memory collections with a change stream
	// when the server offers them (a replica set or Atlas) and polls the
	// change feed otherwise; "off" always polls the feed.
	ChangeStreams string `json:"change_streams"`
}

// DeviceName is the device this daemon writes as: sync.device, else the
// host name made valid, else "device".
func (c Config) DeviceName() string {
	if c.Sync.Device != "" {
		return c.Sync.Device
	}
	h, _ := os.Hostname()
	h = strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return r
		}
		return '-'
	}, h)
	if len(h) > 64 {
		h = h[:64]
	}
	if ValidDeviceName(h) != nil {
		return "device"
	}
	return h
}

// Memory configures what a memory may hold.
type Memory struct {
	// MaxContentBytes bounds one memory's text.
	MaxContentBytes int `json:"max_content_bytes"`
	// GCPercent is the server's garbage-collection target once its index
	// is loaded (Go's GOGC: the heap may grow by this share of the live
	// data before a collection), and GCLimitMB the soft limit of the Go
	// runtime's memory (heap, stacks, runtime data; not the index's
	// vectors and keyword lists, which are mapped outside it) that caps
	// that growth, 0 for none. The limit never holds the heap below the
	// live data plus a quarter (the old fixed target, 25), so a larger
	// memory is not collected without end. The GOGC and GOMEMLIMIT
	// environment variables, when set, win.
	GCPercent int `json:"gc_percent"`
	GCLimitMB int `json:"gc_limit_mb"`
}

// Backup configures scheduled backups.
type Backup struct {
	Enabled bool `json:"enabled"`
	// DailySchedule and WeeklySchedule are five-field cron expressions, or "off".
	DailySchedule  string `json:"daily_schedule"`
	KeepDaily      int    `json:"keep_daily"`
	WeeklySchedule string `json:"weekly_schedule"`
	KeepWeekly     int    `json:"keep_weekly"`
	// Encryption is auto or required (both encrypt: to Recipients, else to
	// the identity in IdentityFile), or off (plaintext, by explicit choice).
	Encryption string `json:"encryption"`
	// Recipients are age X25519 public keys ("age1...") scheduled backups are encrypted to.
	Recipients []string `json:"recipients"`
	// IdentityFile is the age identity backups are encrypted to when
	// Recipients is empty; it is created (0600) on first use. Empty means
	// the default, which the command line fills in: $INFMEM_BACKUP_IDENTITY,
	// else backup-identity.txt in the user config directory's infmem folder.
	IdentityFile string `json:"identity_file,omitempty"`
}

// Maintenance configures scheduled upkeep.
type Maintenance struct {
	// Schedule is a cron expression for the nightly maintenance pass, or "off".
	Schedule string `json:"schedule"`
	// Summarizer is extractive (offline) or ollama (a local Ollama, falling
	// back to extractive when unreachable).
	Summarizer  string `json:"summarizer"`
	OllamaURL   string `json:"ollama_url"`
	OllamaModel string `json:"ollama_model"`
}

// Retention configures how long raw memories stay in full.
type Retention struct {
	// KeepFullDays: conversations older than this are summarized and their
	// raw messages archived.
	KeepFullDays int `json:"keep_full_days"`
	// Mode is keep (no relevance pruning), moderate or aggressive.
	Mode string `json:"mode"`
}

// Dedup configures near-duplicate merging.
type Dedup struct {
	// Threshold is the cosine from which two memories of a scope are merged.
	Threshold float64 `json:"threshold"`
}

// Forget configures soft-forgotten memories.
type Forget struct {
	// PurgeAfterDays: soft-forgotten memories older than this are deleted
	// for good, once a backup includes them.
	PurgeAfterDays int `json:"purge_after_days"`
}

// Embedding configures the sentence embedder.
type Embedding struct {
	// Model is use-lite, hash or none.
	Model string `json:"model"`
	// CacheEntries bounds the LRU cache of query embeddings (default 256:
	// each entry holds ~2.5 KB of heap, ~3.5 KB of the server's RSS).
	CacheEntries int `json:"cache_entries"`
}

// Scopes configures scope behaviour.
type Scopes struct {
	// Default is the scope used when a request names none and the session has no active scope.
	Default string `json:"default"`
	// AutoCreate creates a scope on its first use instead of rejecting the request.
	AutoCreate bool `json:"auto_create"`
}

// Logging configures the service log.
type Logging struct {
	// Level is debug, info, warn or error.
	Level string `json:"level"`
}

// Defaults returns the built-in configuration; zero config runs on it.
func Defaults() Config {
	return Config{
		Database: "claude_memory",
		Mongo: Mongo{
			Mode: "auto",
			URI:  "mongodb://localhost:27017/claude_memory",
		},
		MaxMemoryItems:  100000,
		MaxMemorySizeMB: 500,
		Memory:          Memory{MaxContentBytes: 32 << 10, GCPercent: 100, GCLimitMB: 95},
		Backup: Backup{
			Enabled:        true,
			DailySchedule:  "0 3 * * *",
			KeepDaily:      7,
			WeeklySchedule: "0 0 * * 0",
			KeepWeekly:     4,
			Encryption:     "auto",
			Recipients:     []string{},
		},
		Maintenance: Maintenance{Schedule: "30 3 * * *", Summarizer: "extractive", OllamaModel: "llama3.2"},
		Retention:   Retention{KeepFullDays: 180, Mode: "keep"},
		Dedup:       Dedup{Threshold: 0.95},
		Forget:      Forget{PurgeAfterDays: 30},
		Embedding:   Embedding{Model: "use-lite", CacheEntries: 256},
		Scopes:      Scopes{Default: "Global", AutoCreate: true},
		Logging:     Logging{Level: "info"},
		Sync:        Sync{FeedKeepDays: 7, FeedKeepEntries: 1000000, LeaseSeconds: 60, ChangeStreams: "auto"},
	}
}

// EnvConfig names the environment variable that points at a config file.
const EnvConfig = "INFMEM_CONFIG"

// Source says where a configuration came from.
type Source struct {
	// Path is the file read, or empty when the built-in defaults are used.
	Path string
	// How is "--config", EnvConfig, "default location" or "built-in defaults".
	How string
}

// Locate applies the lookup order: the --config flag, INFMEM_CONFIG, the
// user config dir, then the built-in defaults. A file named by the flag or
// the variable must exist; the default location may be absent.
func Locate(flagPath string, getenv func(string) string, userConfigDir func() (string, error)) (Source, error) {
	if flagPath != "" {
		return Source{Path: flagPath, How: "--config"}, nil
	}
	if p := getenv(EnvConfig); p != "" {
		return Source{Path: p, How: EnvConfig}, nil
	}
	dir, err := userConfigDir()
	if err != nil {
		return Source{How: "built-in defaults"}, nil
	}
	p := filepath.Join(dir, "infmem", "config.json")
	if _, err := os.Stat(p); err == nil {
		return Source{Path: p, How: "default location"}, nil
	} else if !os.IsNotExist(err) {
		return Source{}, fmt.Errorf("cannot read config %s: %w", p, err)
	}
	return Source{How: "built-in defaults"}, nil
}

// ReadFile reads and validates one config file on top of the defaults.
func ReadFile(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("cannot read config %s: %w", path, err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if err := checkSecretFileMode(path, cfg.Mongo.URI); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// ErrConfigReadable means the config holds a password that other users
// can read.
var ErrConfigReadable = errors.New("the config holds a password and other users can read it")

// checkSecretFileMode refuses, as ssh does with a private key, a config
// whose mongo.uri carries a password when group or others may read it.
func checkSecretFileMode(path, uri string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	cs, err := parseConnString(uri)
	if err != nil || !cs.PasswordSet {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	return fmt.Errorf("config %s: %w (mode %04o)\nhint: chmod 600 %s", path, ErrConfigReadable, fi.Mode().Perm(), path)
}
