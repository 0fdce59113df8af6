package mongostore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// SocketPath is where the unix socket called name for the data root whose
// run directory is runDir lives: in runDir itself, or, when that path would
// pass the OS's sun_path limit, in a private (0700) per-root directory under
// the temp dir. Every socket of one root (the embedded engine's, the
// daemon's) lands in the same place, and the same root always maps to the
// same directory, so other processes find it by the same rule.
func SocketPath(runDir, name string) (string, error) {
	p := filepath.Join(runDir, name)
	if len(p) <= maxSocketPath {
		return p, nil
	}
	sum := sha256.Sum256([]byte(runDir))
	dir := filepath.Join(os.TempDir(), "infmem-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("cannot create socket directory %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("cannot secure socket directory %s: %w", dir, err)
	}
	return filepath.Join(dir, name), nil
}
