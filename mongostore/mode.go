package mongostore

import (
	"errors"
	"fmt"
	"os/exec"
)

// chooseMode resolves auto: managed when a mongod is configured or on PATH,
// embedded otherwise.
func chooseMode(opts Options) (mode, reason string, err error) {
	switch opts.Mode {
	case ModeEmbedded:
		return ModeEmbedded, "mongo.mode is embedded", nil
	case ModeManaged:
		return ModeManaged, "mongo.mode is managed", nil
	case ModeExternal:
		if opts.URI == "" {
			return "", "", errors.New("mongo.mode is external but mongo.uri is empty\nhint: set mongo.uri, e.g. mongodb://localhost:27017/claude_memory")
		}
		return ModeExternal, "mongo.mode is external", nil
	case ModeAuto, "":
		if opts.MongodPath != "" {
			return ModeManaged, fmt.Sprintf("mongo.mode is auto and mongo.mongod_path is %s", opts.MongodPath), nil
		}
		if p, err := exec.LookPath("mongod"); err == nil {
			return ModeManaged, fmt.Sprintf("mongo.mode is auto and mongod was found at %s", p), nil
		}
		return ModeEmbedded, "mongo.mode is auto and no mongod is configured or on PATH", nil
	}
	return "", "", fmt.Errorf("mongo.mode %q is not one of auto, embedded, managed, external", opts.Mode)
}
