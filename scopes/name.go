package scopes

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/infmem/infmem/internal/lookalike"
)

// Global is the scope every query also searches and that exists from the first start.
const Global = "Global"

// All is the pseudo-scope that searches every scope; it cannot hold memories.
const All = "ALL"

// MaxNameLen bounds a scope name in bytes.
const MaxNameLen = 64

// ErrInvalidName is wrapped by every name validation error.
var ErrInvalidName = errors.New("invalid scope name")

// ValidateName checks that name can be a scope: 1–64 bytes of letters
// (with their combining marks), digits, spaces, and - _ . : / # ( ) & ',
// not starting or ending with a space, no invisible or formatting
// character (lookalike.Invisible), and not the reserved ALL in any spelling
// that folds to it (fullwidth ＡＬＬ, say). Names are stored in NFC, and
// two names that fold alike (lookalike.Fold) are the same scope.
func ValidateName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: a scope name must not be empty", ErrInvalidName)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("%w: %q is %d bytes; the limit is %d", ErrInvalidName, name, len(name), MaxNameLen)
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("%w: scope names must be valid UTF-8", ErrInvalidName)
	}
	if strings.TrimSpace(name) != name {
		return fmt.Errorf("%w: %q starts or ends with a space", ErrInvalidName, name)
	}
	if r, ok := lookalike.FirstInvisible(name); ok {
		return fmt.Errorf("%w: it contains an invisible or formatting character (%U), which would make it look like another name", ErrInvalidName, r)
	}
	if lookalike.Fold(name) == lookalike.Fold(All) {
		return fmt.Errorf("%w: %q is reserved to mean every scope", ErrInvalidName, name)
	}
	for i, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || strings.ContainsRune("-_.:/#()&'", r) || i > 0 && unicode.Is(unicode.M, r) {
			continue
		}
		return fmt.Errorf("%w: %q contains %q; use letters, digits, spaces and - _ . : / # ( ) & '", ErrInvalidName, name, r)
	}
	return nil
}
