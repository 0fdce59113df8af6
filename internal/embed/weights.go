package embed

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The USE-lite weights (model/use-lite.bin, 14 MB) reach the model in one
// of two ways, chosen at build time:
//
//   - by default they are embedded in the binary with go:embed
//     (weights_embedded.go): `go build ./cmd/infmem` is self-contained;
//   - a build with the tag infmem_external_model (weights_external.go)
//     leaves them out and reads them from a file when the model loads:
//     $INFMEM_MODEL if set, else ../model/use-lite.bin from the directory
//     of the executable (symbolic links resolved). The Claude Desktop
//     bundle is built so: its binaries sit in server/<platform>/ and share
//     one server/model/use-lite.bin.
//
// A file is used only if it has exactly WeightsSize bytes and the SHA-256
// WeightsSHA256 (weights_sum.go, compiled into every build): the model
// never runs with weights other than those it was built and tested with.

// ModelEnv names the environment variable that, in a build without
// embedded weights, gives the weight file's path.
const ModelEnv = "INFMEM_MODEL"

// WeightsFile is the weight file's name, in the repository
// (internal/embed/model/) and beside a build without embedded weights
// (../model/ from the executable's directory).
const WeightsFile = "use-lite.bin"

// WeightsExternal reports whether this binary was built without embedded
// weights (-tags infmem_external_model) and reads them from WeightsPath.
func WeightsExternal() bool { return externalWeights }

// WeightsPath returns the weight file a build without embedded weights
// loads, and how it was chosen (for messages): $INFMEM_MODEL if set, else
// ../model/use-lite.bin from the executable's directory.
func WeightsPath() (path, how string, err error) {
	if p := os.Getenv(ModelEnv); p != "" {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		return p, "named by $" + ModelEnv, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", "", &WeightsError{Problem: "cannot locate the weight file: the executable's path is unknown: " + err.Error(),
			Fix: "set " + ModelEnv + " to the path of " + WeightsFile}
	}
	path, how = weightsBeside(exe)
	return path, how, nil
}

// weightsBeside is ../model/use-lite.bin from the directory of exe, after
// resolving symbolic links (a link to the binary in a PATH directory still
// finds the file beside the binary itself).
func weightsBeside(exe string) (path, how string) {
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Join(filepath.Dir(exe), "..", "model", WeightsFile),
		"found from the executable " + exe + "; $" + ModelEnv + " is not set"
}

// WeightsSource says where NewUSELite takes the weights from, without
// reading them: "embedded in the binary", or the file WeightsPath names.
func WeightsSource() string {
	if !externalWeights {
		return "embedded in the binary"
	}
	path, _, err := WeightsPath()
	if err != nil {
		return err.Error()
	}
	return path
}

// CheckWeights checks, without building the model, the weights NewUSELite
// would load, and says where they are: "embedded in the binary", or the
// file (its SHA-256 read with a small buffer, not the whole file in
// memory). The error is a *WeightsError.
func CheckWeights() (where string, err error) {
	if !externalWeights {
		return WeightsSource(), nil
	}
	path, how, err := WeightsPath()
	if err != nil {
		return "", err
	}
	if _, err := verifyWeights(path, how, false); err != nil {
		return "", err
	}
	return path + " (" + how + ")", nil
}

// WeightsError says why the weight file cannot be used and what to do.
// Its message ends in "; hint: <fix>", as the CLI's errors do.
type WeightsError struct {
	Path    string // the file, "" if none could be named
	How     string // how Path was chosen
	Problem string
	Fix     string
}

func (e *WeightsError) Error() string {
	msg := "cannot load the USE-lite weights: "
	if e.Path != "" {
		msg += e.Path + " (" + e.How + ") "
	}
	return msg + e.Problem + "; hint: " + e.Fix
}

// The fixes the weight errors suggest.
const (
	fixMissing = "this infmem has no embedded weights (built with -tags infmem_external_model) and reads them from that file: " +
		"reinstall the Claude Desktop extension (its server/model/" + WeightsFile + " is the file), " +
		"or set " + ModelEnv + " to the " + WeightsFile + " of this infmem version, or use an infmem built without the tag"
	fixWrong = "the file is damaged or belongs to another infmem version: reinstall the Claude Desktop extension, " +
		"or set " + ModelEnv + " to the " + WeightsFile + " of this version (sha256 " + WeightsSHA256 + ")"
)

// readWeights reads and checks the weight file: one buffer of exactly
// WeightsSize bytes, hashed in place.
func readWeights(path, how string) ([]byte, error) {
	return verifyWeights(path, how, true)
}

// verifyWeights opens path, checks its size and SHA-256 against the
// compiled-in ones and, if keep, returns its content (otherwise nil).
func verifyWeights(path, how string, keep bool) ([]byte, error) {
	fail := func(fix, format string, a ...any) error {
		return &WeightsError{Path: path, How: how, Problem: fmt.Sprintf(format, a...), Fix: fix}
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fail(fixMissing, "does not exist")
		}
		return nil, fail(fixMissing, "cannot be opened: %v", unwrapPath(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fail(fixMissing, "cannot be read: %v", unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fail(fixMissing, "is not a regular file (%v)", fi.Mode().Type())
	}
	if fi.Size() != WeightsSize {
		head := make([]byte, 64)
		n, _ := io.ReadFull(f, head)
		if bytes.HasPrefix(head[:n], []byte("version https://git-lfs")) {
			return nil, fail(fixWrong, "is a Git LFS pointer (%d bytes), not the weights (%d bytes)", fi.Size(), WeightsSize)
		}
		return nil, fail(fixWrong, "is %d bytes, want %d (truncated, or of another version)", fi.Size(), WeightsSize)
	}
	h := sha256.New()
	var data []byte
	if keep {
		data = make([]byte, WeightsSize)
		if _, err := io.ReadFull(f, data); err != nil {
			return nil, fail(fixWrong, "cannot be read in full: %v", unwrapPath(err))
		}
		h.Write(data)
	} else if n, err := io.Copy(h, io.LimitReader(f, WeightsSize)); err != nil || n != WeightsSize {
		return nil, fail(fixWrong, "cannot be read in full: %d of %d bytes: %v", n, WeightsSize, unwrapPath(err))
	}
	// A file that grew after the size check is not the one checked.
	if n, _ := f.Read(make([]byte, 1)); n != 0 {
		return nil, fail(fixWrong, "changed while it was read")
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != WeightsSHA256 {
		return nil, fail(fixWrong, "has SHA-256 %s, want %s", got, WeightsSHA256)
	}
	return data, nil
}

// unwrapPath drops the *fs.PathError wrapper, whose path the message
// already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
