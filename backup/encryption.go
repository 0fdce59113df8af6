package backup

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"filippo.io/age"

	"github.com/infmem/infmem/internal/config"
)

// Encryption modes recorded in manifests and listings.
const (
	EncryptionNone       = "none"
	EncryptionRecipients = "x25519"
	EncryptionPassphrase = "passphrase"
)

// Encryption says how a new backup is encrypted: to age X25519 recipients
// (what scheduled backups use, so the daemon never holds a secret), with a
// passphrase (scrypt), or not at all when both are empty.
type Encryption struct {
	// Recipients are age X25519 public keys ("age1...").
	Recipients []string
	// Passphrase encrypts with scrypt. age allows no other recipient beside
	// a passphrase, so it cannot be combined with Recipients.
	Passphrase *Passphrase
	// ScryptWorkFactor is log2 of the scrypt cost; zero keeps age's default
	// (2^18, about a second). It exists so tests can lower it.
	ScryptWorkFactor int
	// IdentityFile names the default identity Recipients came from, if
	// they did; NewIdentity says it was made for this backup.
	IdentityFile string
	NewIdentity  bool
}

// Mode is EncryptionNone, EncryptionRecipients or EncryptionPassphrase.
func (e Encryption) Mode() string {
	switch {
	case e.Passphrase != nil:
		return EncryptionPassphrase
	case len(e.Recipients) > 0:
		return EncryptionRecipients
	}
	return EncryptionNone
}

func (e Encryption) recipients() ([]age.Recipient, error) {
	if e.Passphrase != nil {
		if len(e.Recipients) > 0 {
			return nil, errors.New("a passphrase-encrypted backup cannot also have recipients")
		}
		r, err := age.NewScryptRecipient(e.Passphrase.reveal())
		if err != nil {
			return nil, err
		}
		if e.ScryptWorkFactor > 0 {
			r.SetWorkFactor(e.ScryptWorkFactor)
		}
		return []age.Recipient{r}, nil
	}
	var rs []age.Recipient
	for i, s := range e.Recipients {
		r, err := age.ParseX25519Recipient(s)
		if err != nil {
			return nil, fmt.Errorf("recipient %d (%q) is not an age X25519 public key: %w", i+1, s, err)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// ErrNoRecipients means backups must be encrypted but there is no key to
// encrypt them to: no recipients are configured and the default identity
// cannot be found or made.
var ErrNoRecipients = errors.New("backups must be encrypted, but backup.recipients is empty and there is no backup identity to encrypt to")

// ConfiguredEncryption is the encryption of unattended backups (scheduled,
// the backup_memory tool, a restore's safety backup): the configured
// recipients, else the identity in cfg.IdentityFile, which is made on first
// use, so backups are encrypted out of the box. Plaintext only when
// backup.encryption is off.
func ConfiguredEncryption(cfg config.Backup) (Encryption, error) {
	switch {
	case cfg.Encryption == "off":
		return Encryption{}, nil
	case len(cfg.Recipients) > 0:
		return Encryption{Recipients: append([]string(nil), cfg.Recipients...)}, nil
	case cfg.IdentityFile == "":
		return Encryption{}, fmt.Errorf("%w\nhint: run 'infmem backup keygen', keep the identity file it writes somewhere safe, and add the recipient it prints to \"backup.recipients\" in the config", ErrNoRecipients)
	}
	recipient, created, err := EnsureIdentity(cfg.IdentityFile, time.Now())
	if err != nil {
		return Encryption{}, fmt.Errorf("%w: %v", ErrNoRecipients, err)
	}
	return Encryption{Recipients: []string{recipient}, IdentityFile: cfg.IdentityFile, NewIdentity: created}, nil
}

// EnsureIdentity returns the public key of the age identity in path,
// generating the identity (0600) when the file does not exist yet; created
// reports that it did.
func EnsureIdentity(path string, now time.Time) (recipient string, created bool, err error) {
	for range 2 {
		keys, rerr := ReadIdentityFile(path)
		if rerr == nil {
			for _, id := range keys.Identities {
				if x, ok := id.(*age.X25519Identity); ok {
					return x.Recipient().String(), false, nil
				}
			}
			return "", false, fmt.Errorf("identity file %s holds no age X25519 identity", path)
		}
		if _, serr := os.Stat(path); !errors.Is(serr, os.ErrNotExist) {
			return "", false, rerr
		}
		recipient, err = GenerateIdentity(path, now)
		if err == nil {
			return recipient, true, nil
		}
		// Another process may have made it first: read that one.
		if _, serr := os.Stat(path); serr != nil {
			return "", false, err
		}
	}
	return "", false, err
}

// Keys are what a restore or a verification may use to decrypt a backup.
type Keys struct {
	// Identities are age identities, usually from an identity file.
	Identities []age.Identity
	// IdentityFile names where Identities came from, for messages.
	IdentityFile string
	// Passphrase decrypts passphrase-encrypted backups.
	Passphrase *Passphrase
}

func (k Keys) empty() bool { return len(k.Identities) == 0 && k.Passphrase == nil }

func (k Keys) identities() ([]age.Identity, error) {
	ids := append([]age.Identity(nil), k.Identities...)
	if k.Passphrase != nil {
		id, err := age.NewScryptIdentity(k.Passphrase.reveal())
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// ReadIdentityFile reads age identities (AGE-SECRET-KEY-1...) from path.
func ReadIdentityFile(path string) (Keys, error) {
	f, err := os.Open(path)
	if err != nil {
		return Keys{}, fmt.Errorf("cannot open identity file: %w", err)
	}
	defer f.Close()
	// age's parser never quotes key material in its errors.
	ids, err := age.ParseIdentities(f)
	if err != nil {
		return Keys{}, fmt.Errorf("identity file %s: %w\nhint: pass the file 'infmem backup keygen' wrote", path, err)
	}
	return Keys{Identities: ids, IdentityFile: path}, nil
}

// GenerateIdentity writes a new age X25519 identity to path (0600, never
// overwriting an existing file) and returns its public recipient.
func GenerateIdentity(path string, now time.Time) (recipient string, err error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return "", fmt.Errorf("cannot generate a key: %w", err)
	}
	recipient = id.Recipient().String()
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# infmem backup identity, created %s\n", now.UTC().Format(time.RFC3339))
	fmt.Fprintf(&buf, "# Backups encrypted to its public key cannot be restored without this file: keep a copy somewhere safe, away from the backups.\n")
	fmt.Fprintf(&buf, "# public key: %s\n", recipient)
	fmt.Fprintf(&buf, "%s\n", id.String())
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("cannot create the directory for %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("identity file %s already exists; refusing to overwrite a key that backups may need\nhint: choose another path with -o", path)
		}
		return "", fmt.Errorf("cannot create identity file: %w", err)
	}
	if _, err := io.Copy(f, &buf); err != nil {
		f.Close()
		os.Remove(path)
		return "", fmt.Errorf("cannot write identity file %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return "", fmt.Errorf("cannot write identity file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return "", fmt.Errorf("cannot write identity file %s: %w", path, err)
	}
	return recipient, nil
}
