package backup

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Entry is one backup file in the backups directory.
type Entry struct {
	File string
	Path string
	Size int64
	// CreatedAt comes from the manifest, else from the file name, else
	// from the file's modification time.
	CreatedAt time.Time
	// Encrypted says the file is age-encrypted (by its name).
	Encrypted bool
	// Manifest is nil when the backup has none (or ManifestErr says why
	// it could not be read).
	Manifest    *Manifest
	ManifestErr error
}

// Kind is the manifest's kind, or "" without a manifest.
func (e *Entry) Kind() Kind {
	if e.Manifest == nil {
		return ""
	}
	return e.Manifest.Kind
}

// Encryption is the manifest's encryption, or what the name says.
func (e *Entry) Encryption() string {
	if e.Manifest != nil {
		return e.Manifest.Encryption
	}
	if e.Encrypted {
		return "age"
	}
	return EncryptionNone
}

// ErrNoManifest means a backup has no manifest to check it against.
var ErrNoManifest = errors.New("no manifest")

// Check compares the file with its manifest (size and SHA-256) without
// decrypting it: it catches truncation and any changed byte, but not a
// file replaced together with its manifest. Verify checks everything.
func (e *Entry) Check() error {
	if e.ManifestErr != nil {
		return e.ManifestErr
	}
	if e.Manifest == nil {
		return ErrNoManifest
	}
	if e.Size != e.Manifest.Size {
		if e.Size < e.Manifest.Size {
			return refuse(e.File, ErrTruncated, "the file is truncated: it has %d bytes, its manifest says %d", e.Size, e.Manifest.Size)
		}
		return refuse(e.File, ErrDamaged, "the file has %d bytes, its manifest says %d", e.Size, e.Manifest.Size)
	}
	f, err := os.Open(e.Path)
	if err != nil {
		return fmt.Errorf("cannot read backup: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("cannot read backup %s: %w", e.File, err)
	}
	if hex.EncodeToString(h.Sum(nil)) != e.Manifest.SHA256 {
		return refuse(e.File, ErrDamaged, "the file does not match the checksum in its manifest: it was changed or damaged after it was written")
	}
	return nil
}

// List returns the backups in dir, newest first: every file named
// *.archive.gz or *.archive.gz.age, with its manifest when it has one.
func List(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot list backups: %w", err)
	}
	var out []Entry
	for _, de := range des {
		name := de.Name()
		encrypted := strings.HasSuffix(name, archiveExt+ageExt)
		if strings.HasPrefix(name, ".") || !de.Type().IsRegular() || !(encrypted || strings.HasSuffix(name, archiveExt)) {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // deleted while listing
		}
		e := Entry{File: name, Path: filepath.Join(dir, name), Size: fi.Size(), Encrypted: encrypted, CreatedAt: fi.ModTime().UTC()}
		if t, ok := timeFromName(name); ok {
			e.CreatedAt = t
		}
		e.Manifest, e.ManifestErr = readManifest(e.Path)
		if e.Manifest != nil {
			e.CreatedAt = e.Manifest.CreatedAt
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].File > out[j].File
	})
	return out, nil
}

func timeFromName(name string) (time.Time, bool) {
	if ok, _ := isBackupName(name); !ok {
		return time.Time{}, false
	}
	s := strings.TrimPrefix(name, filePrefix)
	if len(s) < len(timeLayout) {
		return time.Time{}, false
	}
	t, err := time.Parse(timeLayout, s[:len(timeLayout)])
	return t, err == nil
}
