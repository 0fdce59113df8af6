package backup

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// File names. A backup is backup_<UTC time>.archive.gz, or .archive.gz.age
// when encrypted; its manifest sits beside it as backup_<UTC time>.manifest.json.
const (
	filePrefix     = "backup_"
	archiveExt     = ".archive.gz"
	ageExt         = ".age"
	manifestExt    = ".manifest.json"
	timeLayout     = "2006-01-02T15-04-05Z"
	manifestFormat = "infmem-backup-manifest"
)

// Kind says why a backup was made. Retention deletes only the kinds it
// creates (daily and weekly); manual and safety backups are the user's.
type Kind string

const (
	KindManual Kind = "manual"
	KindDaily  Kind = "daily"
	KindWeekly Kind = "weekly"
	// KindSafety is the copy of the live data a restore takes first.
	KindSafety Kind = "safety"
)

// Manifest describes one backup. It is written beside the archive (plain
// JSON, so listing and retention work without the key) and holds no
// memory content: counts, versions and the checksum of the archive file.
type Manifest struct {
	Format        string    `json:"format"`
	FormatVersion int       `json:"format_version"`
	File          string    `json:"file"`
	CreatedAt     time.Time `json:"created_at"`
	Kind          Kind      `json:"kind"`
	InfmemVersion string    `json:"infmem_version"`
	SchemaVersion int       `json:"schema_version"`
	Database      string    `json:"database"`
	Engine        string    `json:"engine"`
	ServerVersion string    `json:"server_version"`
	ToolVersion   string    `json:"tool_version"`
	// Encryption is none, x25519 or passphrase; Recipients are the public keys.
	Encryption string   `json:"encryption"`
	Recipients []string `json:"recipients,omitempty"`
	// Collections holds each collection's document count.
	Collections map[string]int64 `json:"collections"`
	// ArchiveBytes is the size of the uncompressed mongodump archive.
	ArchiveBytes int64 `json:"archive_bytes"`
	// Size and SHA256 describe the backup file exactly as written.
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// manifestPath is where the manifest of the backup file at path lives.
func manifestPath(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, strings.TrimSuffix(strings.TrimSuffix(base, ageExt), archiveExt)+manifestExt)
}

// readManifest reads the manifest beside path; (nil, nil) when there is none.
func readManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(manifestPath(path))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the manifest of %s: %w", filepath.Base(path), err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil || m.Format != manifestFormat {
		return nil, fmt.Errorf("its manifest %s is damaged", manifestPath(path))
	}
	if m.File != filepath.Base(path) {
		// A manifest describes one file; a renamed archive has none.
		return nil, nil
	}
	return &m, nil
}

// backupName is the archive file name for a backup made at t.
func backupName(t time.Time, suffix int, encrypted bool) string {
	name := filePrefix + t.UTC().Format(timeLayout)
	if suffix > 0 {
		name += fmt.Sprintf("-%d", suffix)
	}
	name += archiveExt
	if encrypted {
		name += ageExt
	}
	return name
}

// isBackupName reports whether name is an archive this package names, and
// whether it is encrypted.
func isBackupName(name string) (ok, encrypted bool) {
	if !strings.HasPrefix(name, filePrefix) {
		return false, false
	}
	switch {
	case strings.HasSuffix(name, archiveExt+ageExt):
		return true, true
	case strings.HasSuffix(name, archiveExt):
		return true, false
	}
	return false, false
}
