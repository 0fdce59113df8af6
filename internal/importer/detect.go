package importer

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Detect tells the format of path: a file by its first bytes and shape,
// a folder by what it holds.
func Detect(path string) (Format, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("cannot import %s: %w", path, unwrapPathError(err))
	}
	if fi.IsDir() {
		return detectDir(path)
	}
	return detectFile(path)
}

func detectDir(dir string) (Format, error) {
	// An unpacked export: its conversations.json or memory.json decides.
	for _, name := range []string{"memory.json", "conversations.json"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return detectFile(p)
		}
	}
	if isClaudeCodeDir(dir) {
		return FormatClaudeCode, nil
	}
	if hasMarkdown(dir) {
		return FormatMarkdown, nil
	}
	return "", fmt.Errorf("cannot tell what %s holds: it has no conversations.json, memory.json, CLAUDE.md or Markdown notes\nhint: name the format with --format (one of %s)", dir, formatList())
}

func formatList() string {
	var s []string
	for _, f := range Formats {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

func detectFile(path string) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("cannot import %s: %w", path, unwrapPathError(err))
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	base := strings.ToLower(filepath.Base(path))
	switch {
	case isSQLite(head):
		return FormatMCPMS, nil
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return detectZip(path)
	case strings.HasSuffix(base, ".md") || strings.HasSuffix(base, ".markdown"):
		if isClaudeCodeFile(path) {
			return FormatClaudeCode, nil
		}
		return FormatMarkdown, nil
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(trimmed, []byte("[")):
		if f, ok := conversationKind(trimmed); ok {
			return f, nil
		}
	case bytes.HasPrefix(trimmed, []byte("{")):
		line, _, _ := bytes.Cut(trimmed, []byte("\n"))
		var probe struct {
			Type   string `json:"type"`
			Format string `json:"format"`
		}
		if json.Unmarshal(line, &probe) == nil && (probe.Type == "entity" || probe.Type == "relation") {
			return FormatMemoryJSONL, nil
		}
		if bytes.Contains(trimmed, []byte(`"format": "infmem-export"`)) || bytes.Contains(trimmed, []byte(`"format":"infmem-export"`)) {
			return FormatInfmemJSON, nil
		}
	}
	return "", fmt.Errorf("cannot tell the format of %s\nhint: name it with --format (one of %s)", path, formatList())
}

// conversationKind tells a ChatGPT export from a Claude.ai one by the
// fields of its first conversation.
func conversationKind(head []byte) (Format, bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return "", false
	}
	// The first conversation may be longer than head: look at its keys
	// only, as far as they go.
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	depth := 1
	for depth > 0 {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		switch v := t.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 {
				switch v {
				case "mapping":
					return FormatChatGPT, true
				case "chat_messages":
					return FormatClaudeAI, true
				}
				// Skip the value of a key.
				if err := skipValue(dec); err != nil {
					return "", false
				}
			}
		}
	}
	return "", false
}

// skipValue consumes the next JSON value from dec.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// detectZip looks into a data-export archive for its conversations.json
// (its first 64 KiB).
func detectZip(path string) (Format, error) {
	rc, _, err := openZipMember(path, "conversations.json")
	if err != nil {
		return "", err
	}
	defer rc.Close()
	data := make([]byte, 64<<10)
	n, _ := io.ReadFull(rc, data)
	trimmed := bytes.TrimLeft(data[:n], " \t\r\n\ufeff")
	if f, ok := conversationKind(trimmed); ok {
		return f, nil
	}
	return "", fmt.Errorf("cannot tell the format of conversations.json in %s\nhint: name it with --format chatgpt or claude-ai", path)
}

// openZipMember opens the member named name (at any depth) of the zip
// archive at path for reading, returning it and its path inside the
// archive. A member larger than maxExportBytes inflated, or one that
// inflates more than maxZipRatio times (a zip bomb), is refused before a
// byte of it is read; the archive's reader also refuses to inflate more
// than the size the member declares.
func openZipMember(path, name string) (io.ReadCloser, string, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read the archive %s: %w", path, err)
	}
	for _, f := range zr.File {
		if filepath.Base(f.Name) != name || f.FileInfo().IsDir() {
			continue
		}
		where := filepath.Base(path) + ":" + f.Name
		size := min(f.UncompressedSize64, 1<<62)
		if size > zipRatioFloor && size/max(f.CompressedSize64, 1) > maxZipRatio {
			zr.Close()
			return nil, "", inputErr(where, "it inflates %d times (to %s from %s), more than any real export: the archive is damaged or made to exhaust memory",
				size/max(f.CompressedSize64, 1), byteSize(int64(size)), byteSize(int64(f.CompressedSize64)))
		}
		if size > maxExportBytes {
			zr.Close()
			return nil, "", inputErr(where, "it inflates to %s, over the limit of %s", byteSize(int64(size)), byteSize(maxExportBytes))
		}
		rc, err := f.Open()
		if err != nil {
			zr.Close()
			return nil, "", fmt.Errorf("cannot read %s in %s: %w", f.Name, path, err)
		}
		return zipMemberReader{rc, zr}, f.Name, nil
	}
	zr.Close()
	return nil, "", fmt.Errorf("%s holds no %s; is it a ChatGPT or Claude.ai data export?", path, name)
}

// zipMemberReader closes the member and its archive.
type zipMemberReader struct {
	io.ReadCloser
	zr *zip.ReadCloser
}

func (z zipMemberReader) Close() error {
	err := z.ReadCloser.Close()
	if zerr := z.zr.Close(); err == nil {
		err = zerr
	}
	return err
}

// hasMarkdown reports whether dir holds a Markdown file (outside hidden
// folders).
func hasMarkdown(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipDir
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && isMarkdownName(d.Name()) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

func isMarkdownName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".md") || strings.HasSuffix(n, ".markdown")
}

// readLines reads a text file's lines (without their ends).
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
	}
	return lines, sc.Err()
}

// headLines reads at most n lines from the start of a text file.
func headLines(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for len(lines) < n && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}
