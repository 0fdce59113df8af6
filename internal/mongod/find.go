package mongod

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
)

// ErrNotFound means no usable mongod binary was found.
var ErrNotFound = errors.New("mongod not found")

// Find returns the absolute path of the mongod binary: configured (the
// mongo.mongod_path setting; a bare name is looked up on PATH) or, when that
// is empty, "mongod" on PATH. The error wraps ErrNotFound and says how to
// fix it.
func Find(configured string) (string, error) {
	const hint = "hint: install MongoDB Community Server and put mongod on PATH, " +
		"set mongo.mongod_path to the mongod binary, or set mongo.mode=embedded to use the built-in engine"
	name, where := "mongod", "on PATH"
	if configured != "" {
		name, where = configured, fmt.Sprintf("at mongo.mongod_path %q", configured)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w %s (%v); %s", ErrNotFound, where, err, hint)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("resolve mongod path %q: %w", p, err)
	}
	return abs, nil
}
