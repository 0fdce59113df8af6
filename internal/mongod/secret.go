package mongod

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
)

const redacted = "REDACTED"

// password holds the generated mongod password. Every way of printing or
// encoding it yields REDACTED, so it cannot reach a log, an error or a
// status report by accident; reveal is the only way to read it.
type password struct{ v string }

func (p password) reveal() string { return p.v }

func (password) String() string               { return redacted }
func (password) GoString() string             { return redacted }
func (password) Format(f fmt.State, _ rune)   { _, _ = io.WriteString(f, redacted) }
func (password) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }
func (password) MarshalText() ([]byte, error) { return []byte(redacted), nil }
func (password) LogValue() slog.Value         { return slog.StringValue(redacted) }

// credential is the mongod user infmem authenticates as.
type credential struct {
	User     string
	Password password
}

// credentialFile is the on-disk form; it exists only inside load and save so
// the plain password never sits in a printable struct.
type credentialFile struct {
	User     string `json:"user"`
	Password string `json:"password"`
}

const adminUser = "infmem"

// newCredential generates a 52-character password (256 random bits, base32)
// from crypto/rand. Base32 needs no escaping in a URI.
func newCredential() credential {
	return credential{User: adminUser, Password: password{rand.Text() + rand.Text()}}
}

// loadCredential reads the credential file. exists is false when there is
// none yet. A file readable by others is tightened to 0600 and reported in
// widened, so the caller can log it.
func loadCredential(path string) (c credential, exists, widened bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return credential{}, false, false, nil
	}
	if err != nil {
		return credential{}, false, false, fmt.Errorf("read mongod credential: %w", err)
	}
	if runtime.GOOS != "windows" {
		if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(path, 0o600); err != nil {
				return credential{}, true, true, fmt.Errorf("restrict mongod credential file permissions: %w", err)
			}
			widened = true
		}
	}
	var f credentialFile
	if err := json.Unmarshal(b, &f); err != nil || f.User == "" || f.Password == "" {
		return credential{}, true, widened, fmt.Errorf("mongod credential file %s is damaged; "+
			"hint: restore it from a backup, or move mongo_data aside to start with an empty database", path)
	}
	return credential{User: f.User, Password: password{f.Password}}, true, widened, nil
}

// saveCredential writes the file 0600 through a temp file and a rename, so a
// crash leaves either no file or a complete one.
func saveCredential(path string, c credential) error {
	b, err := json.MarshalIndent(credentialFile{User: c.User, Password: c.Password.reveal()}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode mongod credential: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".credential-*.tmp")
	if err != nil {
		return fmt.Errorf("save mongod credential: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		tmp.Close()
		return fmt.Errorf("save mongod credential: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("save mongod credential: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save mongod credential: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save mongod credential: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save mongod credential: %w", err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync() // make the rename durable where the OS supports it
		d.Close()
	}
	return nil
}
