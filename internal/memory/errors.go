package memory

import (
	"errors"
	"fmt"
)

// InputError is a request the engine refuses; its message says what to send
// instead. Tools return it to the model as an isError result.
type InputError struct{ msg string }

func (e *InputError) Error() string { return e.msg }

func inputErrorf(format string, args ...any) error {
	return &InputError{msg: fmt.Sprintf(format, args...)}
}

// InputErrorf makes an InputError: packages built over the engine
// (memfiles) refuse requests the way the engine does.
func InputErrorf(format string, args ...any) error {
	return &InputError{msg: fmt.Sprintf(format, args...)}
}

// IsInputError reports whether err is a refused request.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// ErrLoading means the in-memory index is still being loaded.
var ErrLoading = errors.New("memory is still loading")

// ErrNotFound means no memory has the id.
var ErrNotFound = errors.New("no memory with that id")
