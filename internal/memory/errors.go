package memory

import (
	"errors"

	"github.com/infmem/infmem/internal/memory/content"
)

// InputError is a request the engine refuses; its message says what to send
// instead. Tools return it to the model as an isError result.
type InputError = content.InputError

// InputErrorf makes an InputError: packages built over the engine
// (memfiles) refuse requests the way the engine does.
var InputErrorf = content.InputErrorf

// IsInputError reports whether err is a refused request.
func IsInputError(err error) bool { return content.IsInputError(err) }

// ErrLoading means the in-memory index is still being loaded.
var ErrLoading = errors.New("memory is still loading")

// ErrNotFound means no memory has the id.
var ErrNotFound = errors.New("no memory with that id")

// The engine's names for package content's text and field rules.
var (
	inputErrorf      = content.InputErrorf
	normalizeContent = content.Normalize
	normalizeTags    = content.Tags
	contentKey       = content.Key
	keyHex           = content.KeyHex
	snippet          = content.Snippet
	isBidiControl    = content.IsBidiControl
	checkSource      = content.Source
	checkImportance  = content.Importance
	checkSmallFields = content.SmallFields
	checkTimestamp   = content.Timestamp
	checkPath        = content.Path
	// NormalizeContent is normalizeContent for those who prepare text for
	// the engine (the importer), so the sizes they measure are the ones it
	// checks.
	NormalizeContent = content.Normalize
	// FoldContent is the form in which two normalized texts are the same
	// memory (the duplicate rule): case and spacing do not make them
	// differ.
	FoldContent = content.Fold
)

// MaxTags and MaxTagLen bound a memory's tags.
const (
	MaxTags   = content.MaxTags
	MaxTagLen = content.MaxTagLen
)

// CheckStoredMemory and CheckStoredSummary are content's rules for a
// document that arrives another way (a restored backup, a bad document).
var (
	CheckStoredMemory  = content.CheckStoredMemory
	CheckStoredSummary = content.CheckStoredSummary
)
