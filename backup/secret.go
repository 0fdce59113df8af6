package backup

import (
	"errors"
	"log/slog"
)

// redacted is what a secret prints as, wherever it ends up.
const redacted = "[REDACTED]"

// Passphrase is a backup passphrase. It prints, logs and marshals as
// [REDACTED], so passing one to a logger or an error never reveals it.
type Passphrase struct{ s string }

// NewPassphrase wraps s; an empty passphrase is refused.
func NewPassphrase(s string) (*Passphrase, error) {
	if s == "" {
		return nil, errors.New("the passphrase is empty")
	}
	return &Passphrase{s: s}, nil
}

func (p *Passphrase) String() string               { return redacted }
func (p *Passphrase) GoString() string             { return redacted }
func (p *Passphrase) LogValue() slog.Value         { return slog.StringValue(redacted) }
func (p *Passphrase) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// reveal returns the passphrase for the KDF; nothing else may call it.
func (p *Passphrase) reveal() string { return p.s }
