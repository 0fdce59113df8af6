package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Imports run in the daemon, on files that may come from anywhere (a
// downloaded export, a cloned notes folder): what they read is bounded
// whatever the input holds, and only what the user pointed at is read.
const (
	// maxExportBytes bounds a conversations.json, decompressed (50,000
	// messages take about 27 MB). It is read as a stream, one
	// conversation at a time.
	maxExportBytes = 1 << 30
	// maxConversationBytes bounds one conversation of it.
	maxConversationBytes = 64 << 20
	// maxZipRatio bounds how much a zip member may grow when inflated, for
	// members over zipRatioFloor (JSON compresses about 5 to 20 times; a
	// zip bomb, a thousand).
	maxZipRatio   = 100
	zipRatioFloor = 16 << 20
	// maxFileBytes bounds a file read whole (memory.jsonl, memory.json).
	maxFileBytes = 256 << 20
	// maxItemBytes bounds one note, one Claude Code memory file, one
	// mcp-memory-service row (the engine splits texts over
	// memory.max_content_bytes into parts anyway).
	maxItemBytes = 16 << 20
)

// checkFileSize refuses a file over limit, or one that is not a regular
// file (a device, a pipe: endless), before it is read.
func checkFileSize(path string, limit int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", path, unwrapPathError(err))
	}
	if !fi.Mode().IsRegular() {
		return inputErr(filepath.Base(path), "not a regular file")
	}
	if fi.Size() > limit {
		return inputErr(filepath.Base(path), "the file is %s; the limit is %s", byteSize(fi.Size()), byteSize(limit))
	}
	return nil
}

// byteSize writes a size for people.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// noteFiles decides which files found in an import folder are read. Each
// is looked at with Lstat, never followed blindly: a regular file is read;
// a symbolic link only when it leads to a regular file inside the folder
// (a link to ~/.ssh/id_ed25519 or /dev/urandom in a downloaded notes
// folder is not a note); anything else (a device, a pipe, a socket) is
// skipped. What is skipped is said in the import's warnings.
type noteFiles struct {
	// root is the folder, its links resolved.
	root string
	in   *Input
}

func newNoteFiles(root string, in *Input) noteFiles {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return noteFiles{root: root, in: in}
}

// ok reports whether path (rel: how messages name it) may be read, and
// records why not when it may not.
func (n noteFiles) ok(path, rel string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return true // reading it reports the error
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			n.skip(rel, "a link that leads nowhere")
			return false
		}
		if !within(n.root, target) {
			n.skip(rel, "a link to "+target+", outside the folder imported")
			return false
		}
		if fi, err = os.Stat(target); err != nil {
			return true
		}
	}
	if !fi.Mode().IsRegular() {
		n.skip(rel, "not a regular file")
		return false
	}
	if fi.Size() > maxItemBytes {
		n.skip(rel, fmt.Sprintf("%s; the limit is %s", byteSize(fi.Size()), byteSize(maxItemBytes)))
		return false
	}
	return true
}

func (n noteFiles) skip(rel, why string) {
	n.in.Skipped++
	n.in.Warnings = append(n.in.Warnings, fmt.Sprintf("%s skipped: %s", rel, why))
}

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
