// Package memfiles is the files of Anthropic's memory tool (view, create,
// str_replace, insert, delete and rename on a virtual /memories
// directory), built over the memory engine's public API: a file is a
// memory with a path (memory.PathWrite), in the same store as every other
// memory.
//
// Design:
//   - A file is one memory in ConversationHistory with source "file", its
//     path in the path field, its whole content as its text, in the Global
//     scope (always searched), so retrieve_memory finds it, and backups,
//     exports, restores and status count it like any memory. A directory
//     is not stored: it exists while a file lives under it; /memories
//     always exists. The engine knows nothing of /memories: this package
//     says which paths are files and what the commands do to them.
//   - Every write is one Engine.WritePaths, which goes through the
//     engine's one write path, so the journal, the index, the embedding
//     and the snapshot stay consistent. Editing a file (create over an
//     existing one, str_replace, insert, rename) updates its memory in
//     place, same id, keeping its last contents in its history.
//   - delete soft-forgets, like delete_memory: the file is gone from view
//     at once (as Anthropic's tool has it), unforget_memory brings it
//     back (unless its path has been taken meanwhile; then the newer file
//     keeps the path), and the maintenance purge removes it for good.
//   - Paths are found in a table kept here (path → memory id and size),
//     built from Engine.PathMemories (the index names the file memories,
//     their documents are read by _id), then kept current by the file
//     commands themselves. Any other change to a file's memory
//     (update_memory, delete_memory, unforget_memory, another device's
//     change, a restore's reload) moves the engine's PathsVersion, and the
//     next command rebuilds the table: no command scans the collection.
//   - The commands on one engine run one at a time (Files.mu), so two
//     clients editing one file never lose an update; a write is made only
//     at the version the table was built at (the engine checks it under
//     its write lock), and otherwise starts again on the rebuilt table.
//   - Files are exact text: what create writes is what view shows (only a
//     NUL character is refused). Maintenance neither merges, archives nor
//     prunes them.
package memfiles

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/infmem/infmem/internal/lookalike"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// FilesRoot is the memory tool's directory.
const FilesRoot = "/memories"

// Limits of the memory tool's files. A file's content is bounded by the
// engine's MaxContentBytes (memory.max_content_bytes), like any memory,
// and it keeps its last 10 contents in its history (the engine's rule for
// a memory with a path).
const (
	// MaxFilePathBytes bounds a path, "/memories/" included.
	MaxFilePathBytes = 256
	// MaxFileSegmentBytes bounds one name in a path.
	MaxFileSegmentBytes = 128
	// MaxFileDepth bounds the names below /memories in a path.
	MaxFileDepth = 8
	// DefaultMaxFiles bounds how many files the directory holds
	// (Files.SetMaxFiles).
	DefaultMaxFiles = 1000
	// fileLineWidth is the width of view's line numbers (Anthropic's).
	fileLineWidth = 6
	// fileAttempts bounds how often a command starts again after another
	// writer changed a file under it.
	fileAttempts = 5
)

// fileEntry is what the path table holds of one file.
type fileEntry struct {
	id   string
	size int
}

// Files runs the memory tool's commands on one engine's files. mu
// serialises the commands and guards the table: byPath, read at the
// engine's PathsVersion ver.
type Files struct {
	e        *memory.Engine
	mu       sync.Mutex
	maxFiles int
	byPath   map[string]fileEntry
	ver      memory.PathsVersion
}

// extKey is the key of an engine's Files (memory.Engine.Extension).
type extKey struct{}

// For returns the Files of engine e: one per engine, shared by every
// caller, so that their commands run one at a time.
func For(e *memory.Engine) *Files {
	return e.Extension(extKey{}, func() any { return &Files{e: e, maxFiles: DefaultMaxFiles} }).(*Files)
}

// SetMaxFiles changes how many files /memories may hold (n ≤ 0:
// DefaultMaxFiles).
func (f *Files) SetMaxFiles(n int) {
	if n <= 0 {
		n = DefaultMaxFiles
	}
	f.mu.Lock()
	f.maxFiles = n
	f.mu.Unlock()
}

// inputErrorf is a refused request, as the engine words one.
func inputErrorf(format string, args ...any) error { return memory.InputErrorf(format, args...) }

// invalidate makes the next command read the table again.
func (f *Files) invalidate() { f.byPath = nil }

// filesLocked returns the path table, read again when a memory with a
// path may have changed since. The caller holds f.mu.
func (f *Files) filesLocked(ctx context.Context) (map[string]fileEntry, error) {
	if f.byPath != nil && f.ver == f.e.PathsVersion() {
		return f.byPath, nil
	}
	ms, ver, err := f.e.PathMemories(ctx)
	if err != nil {
		f.byPath = nil
		if memory.IsInputError(err) {
			return nil, err
		}
		return nil, fmt.Errorf("cannot read the memory files: %w", err)
	}
	byPath := make(map[string]fileEntry, len(ms))
	newest := map[string]time.Time{}
	for _, m := range ms {
		p, err := cleanFilePath("path", m.Path)
		if err != nil || p == FilesRoot || m.ForgottenAt != nil {
			if m.ForgottenAt == nil {
				f.e.Logger().Warn("a memory file has an invalid path; it is left out of /memories", "memory_id", m.ID, "path", snippet(m.Path, 80))
			}
			continue
		}
		if at, ok := newest[p]; ok {
			// Two live files claim one path (one was unforgotten after
			// the path was taken): the one created last keeps it.
			f.e.Logger().Warn("two memory files have the same path; the newer is shown", "path", p)
			if !m.CreatedAt.After(at) {
				continue
			}
		}
		newest[p] = m.CreatedAt
		byPath[p] = fileEntry{id: m.ID, size: len(m.Text)}
	}
	f.byPath, f.ver = byPath, ver
	return byPath, nil
}

// FileRequest is one command of the memory tool. Which fields a command
// takes is Anthropic's: view (Path, ViewRange), create (Path, FileText),
// str_replace (Path, OldStr, NewStr), insert (Path, InsertLine,
// InsertText), delete (Path), rename (OldPath, NewPath).
type FileRequest struct {
	Command    string
	Path       string
	ViewRange  []int
	FileText   *string
	OldStr     *string
	NewStr     *string
	InsertLine *int
	InsertText *string
	OldPath    string
	NewPath    string
}

// FileResult is a command's outcome.
type FileResult struct {
	// Text is what Anthropic's memory tool answers: a listing, a file with
	// line numbers, or a confirmation.
	Text string
	// Path is the file or directory the command acted on (rename: the new
	// path).
	Path string
	// IDs are the memories of the files written or deleted: a deleted
	// file comes back with unforget_memory.
	IDs []string
	// HasContent: Text carries what was stored (a listing's names, a
	// file's content, the snippet of an edit).
	HasContent bool
}

// FileCommands lists the commands File takes.
var FileCommands = []string{"view", "create", "str_replace", "insert", "delete", "rename"}

// Run runs one command of the memory tool.
func (f *Files) Run(ctx context.Context, req FileRequest) (FileResult, error) {
	cmd := strings.TrimSpace(req.Command)
	if !slices.Contains(FileCommands, cmd) {
		return FileResult{}, inputErrorf("command %q is not one of: %s", snippet(req.Command, 40), strings.Join(FileCommands, ", "))
	}
	if err := checkFileArgs(cmd, req); err != nil {
		return FileResult{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch cmd {
	case "view":
		return f.viewFile(ctx, req)
	case "delete":
		return f.deleteFiles(ctx, req.Path)
	case "rename":
		return f.renameFiles(ctx, req.OldPath, req.NewPath)
	}
	return f.editFile(ctx, cmd, req)
}

// checkFileArgs refuses the arguments a command does not take, and asks
// for those it needs.
func checkFileArgs(cmd string, r FileRequest) error {
	given := map[string]bool{
		"path": r.Path != "", "view_range": r.ViewRange != nil, "file_text": r.FileText != nil, "old_str": r.OldStr != nil,
		"new_str": r.NewStr != nil, "insert_line": r.InsertLine != nil, "insert_text": r.InsertText != nil,
		"old_path": r.OldPath != "", "new_path": r.NewPath != "",
	}
	takes := map[string][]string{
		"view": {"path", "view_range"}, "create": {"path", "file_text"}, "str_replace": {"path", "old_str", "new_str"},
		"insert": {"path", "insert_line", "insert_text"}, "delete": {"path"}, "rename": {"old_path", "new_path"},
	}[cmd]
	needs := map[string][]string{
		"view": {"path"}, "create": {"path", "file_text"}, "str_replace": {"path", "old_str"},
		"insert": {"path", "insert_line", "insert_text"}, "delete": {"path"}, "rename": {"old_path", "new_path"},
	}[cmd]
	for _, name := range []string{"path", "view_range", "file_text", "old_str", "new_str", "insert_line", "insert_text", "old_path", "new_path"} {
		if given[name] && !slices.Contains(takes, name) {
			return inputErrorf("%s does not take %s; it takes: %s", cmd, name, strings.Join(takes, ", "))
		}
	}
	for _, name := range needs {
		if !given[name] {
			return inputErrorf("%s needs %s (it takes: %s)", cmd, name, strings.Join(takes, ", "))
		}
	}
	return nil
}

// pctEscape matches a percent-encoded byte ("%2e").
var pctEscape = regexp.MustCompile(`%[0-9a-fA-F]{2}`)

// cleanFilePath checks a path sent as arg and returns it without a
// trailing slash. It must be /memories or lie beneath it, spelt plainly:
// no "." or ".." names, no empty names ("//"), no backslashes, no
// percent-encoding, no control or direction-changing characters, within
// the length and depth limits.
func cleanFilePath(arg, p string) (string, error) {
	switch {
	case p == "":
		return "", inputErrorf("%s is empty; send a path under %s, e.g. %s/notes.md", arg, FilesRoot, FilesRoot)
	case len(p) > MaxFilePathBytes:
		return "", inputErrorf("%s is %d bytes; the limit is %d", arg, len(p), MaxFilePathBytes)
	case !utf8.ValidString(p):
		return "", inputErrorf("%s is not valid UTF-8", arg)
	}
	// NFC, so that a name spelt decomposed is the same file; and nothing
	// that looks like another character (issue 22: "‥", fullwidth dots,
	// "∕", zero-width and no-break spaces).
	p = lookalike.NFC(p)
	switch {
	case strings.ContainsRune(p, '\\'):
		return "", inputErrorf("%s %q contains a backslash; separate names with /", arg, p)
	case pctEscape.MatchString(p):
		return "", inputErrorf("%s %q contains percent-encoding (like %%2e); write the path plainly", arg, p)
	}
	for _, r := range p {
		if lookalike.Invisible(r) || isBidiControl(r) || r == utf8.RuneError {
			return "", inputErrorf("%s contains a control or invisible formatting character (%U); paths are plain text", arg, r)
		}
		if lookalike.SlashLike(r) {
			return "", inputErrorf("%s contains %U, which looks like a slash; separate names with / and use plain characters", arg, r)
		}
	}
	if !lookalike.Compatible(p) {
		return "", inputErrorf("%s %q contains characters that stand for others (it reads as %q); write the path with plain characters", arg, snippet(p, 60), snippet(lookalike.NFKC(p), 60))
	}
	if p != FilesRoot && !strings.HasPrefix(p, FilesRoot+"/") {
		return "", inputErrorf("%s %q is outside %s; every path starts with %s/, e.g. %s/notes.md", arg, snippet(p, 60), FilesRoot, FilesRoot, FilesRoot)
	}
	if len(p) > len(FilesRoot)+1 {
		p = strings.TrimSuffix(p, "/")
	}
	if p == FilesRoot+"/" {
		return FilesRoot, nil
	}
	rest := strings.TrimPrefix(p, FilesRoot)
	if rest == "" {
		return FilesRoot, nil
	}
	names := strings.Split(rest[1:], "/")
	if len(names) > MaxFileDepth {
		return "", inputErrorf("%s %q is %d levels deep; the limit is %d below %s", arg, snippet(p, 60), len(names), MaxFileDepth, FilesRoot)
	}
	for _, n := range names {
		switch {
		case n == "":
			return "", inputErrorf("%s %q has an empty name (//); separate names with a single /", arg, p)
		case n == "." || n == "..":
			return "", inputErrorf("%s %q contains %q; paths must stay inside %s, so . and .. are not allowed", arg, p, n, FilesRoot)
		case len(n) > MaxFileSegmentBytes:
			return "", inputErrorf("%s has a name of %d bytes; the limit is %d", arg, len(n), MaxFileSegmentBytes)
		}
	}
	return p, nil
}

// isDir reports whether a directory p holds files (/memories always
// exists).
func isDir(files map[string]fileEntry, p string) bool {
	if p == FilesRoot {
		return true
	}
	for q := range files {
		if strings.HasPrefix(q, p+"/") {
			return true
		}
	}
	return false
}

// fileAncestor returns the first ancestor of p that is a file, if any.
func fileAncestor(files map[string]fileEntry, p string) (string, bool) {
	for i := len(FilesRoot) + 1; i < len(p); i++ {
		if p[i] == '/' {
			if _, ok := files[p[:i]]; ok {
				return p[:i], true
			}
		}
	}
	return "", false
}

func notExist(p string) error {
	return inputErrorf("the path %s does not exist; view %s lists the files", p, FilesRoot)
}

// viewFile lists a directory or shows a file with line numbers.
func (f *Files) viewFile(ctx context.Context, req FileRequest) (FileResult, error) {
	p, err := cleanFilePath("path", req.Path)
	if err != nil {
		return FileResult{}, err
	}
	files, err := f.filesLocked(ctx)
	if err != nil {
		return FileResult{}, err
	}
	fe, ok := files[p]
	if !ok {
		if !isDir(files, p) {
			return FileResult{}, notExist(p)
		}
		if req.ViewRange != nil {
			return FileResult{}, inputErrorf("%s is a directory; view_range applies to files", p)
		}
		return FileResult{Text: listDir(files, p), Path: p, HasContent: true}, nil
	}
	m, err := f.e.Get(ctx, fe.id)
	if err != nil {
		return FileResult{}, fmt.Errorf("cannot read %s: %w", p, err)
	}
	lines := strings.Split(m.Text, "\n")
	from, to := 1, len(lines)
	if r := req.ViewRange; r != nil {
		if len(r) != 2 {
			return FileResult{}, inputErrorf("view_range must be two line numbers [start, end] (end -1: to the end), not %d", len(r))
		}
		from, to = r[0], r[1]
		if to == -1 {
			to = len(lines)
		}
		if from < 1 || from > len(lines) || to < from || to > len(lines) {
			return FileResult{}, inputErrorf("invalid view_range [%d, %d]: %s has %d lines; send [start, end] with 1 ≤ start ≤ end ≤ %d, or end -1 for the rest", r[0], r[1], p, len(lines), len(lines))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Here's the content of %s with line numbers:\n", p)
	writeNumbered(&b, lines[from-1:to], from)
	return FileResult{Text: strings.TrimSuffix(b.String(), "\n"), Path: p, IDs: []string{m.ID}, HasContent: true}, nil
}

// writeNumbered writes lines as Anthropic's tool shows them: the line
// number right-aligned in six columns, a tab, the line.
func writeNumbered(b *strings.Builder, lines []string, first int) {
	for i, l := range lines {
		fmt.Fprintf(b, "%*d\t%s\n", fileLineWidth, first+i, l)
	}
}

// listDir lists the files and directories up to two levels below dir, as
// Anthropic's tool does: a header line, then size, a tab and the path,
// the directory itself first; a directory's size is what its files hold;
// hidden names (a leading dot) are left out.
func listDir(files map[string]fileEntry, dir string) string {
	sizes := map[string]int{dir: 0}
	isDir := map[string]bool{}
	for p, fe := range files {
		if !strings.HasPrefix(p, dir+"/") {
			continue
		}
		sizes[dir] += fe.size
		names := strings.Split(strings.TrimPrefix(p, dir+"/"), "/")
		if slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, ".") }) {
			continue
		}
		for depth := 1; depth <= len(names) && depth <= 2; depth++ {
			q := dir + "/" + strings.Join(names[:depth], "/")
			sizes[q] += fe.size
			if depth < len(names) {
				isDir[q] = true
			}
		}
	}
	var entries []string
	for q := range sizes {
		if q != dir {
			entries = append(entries, q)
		}
	}
	slices.Sort(entries)
	var b strings.Builder
	fmt.Fprintf(&b, "Here're the files and directories up to 2 levels deep in %s, excluding hidden items:\n", dir)
	fmt.Fprintf(&b, "%s\t%s", humanSize(sizes[dir]), dir)
	for _, q := range entries {
		name := q
		if isDir[q] {
			name += "/"
		}
		fmt.Fprintf(&b, "\n%s\t%s", humanSize(sizes[q]), name)
	}
	return b.String()
}

// humanSize writes a size as Anthropic's tool does: 0B, 512B, 1.5K, 12K.
func humanSize(n int) string {
	units := []string{"B", "K", "M", "G"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d%s", int64(v), units[i])
	}
	return fmt.Sprintf("%.1f%s", v, units[i])
}

// editFile runs create, str_replace and insert: read the file, compute
// its new content, then write it (the engine embeds it first) unless
// another writer changed a file meanwhile (then start again).
func (f *Files) editFile(ctx context.Context, cmd string, req FileRequest) (FileResult, error) {
	p, err := cleanFilePath("path", req.Path)
	if err != nil {
		return FileResult{}, err
	}
	for range fileAttempts {
		files, err := f.filesLocked(ctx)
		if err != nil {
			return FileResult{}, err
		}
		fe, exists := files[p]
		var cur memory.Memory
		switch {
		case p == FilesRoot || !exists && isDir(files, p):
			return FileResult{}, inputErrorf("%s is a directory; %s works on a file inside it, e.g. %s/notes.md", p, cmd, p)
		case exists:
			if cur, err = f.e.Get(ctx, fe.id); err != nil {
				return FileResult{}, fmt.Errorf("cannot read %s: %w", p, err)
			}
		case cmd != "create":
			return FileResult{}, notExist(p)
		default:
			if a, ok := fileAncestor(files, p); ok {
				return FileResult{}, inputErrorf("%s is a file, so %s cannot be created beneath it", a, p)
			}
			if len(files) >= f.maxFiles {
				return FileResult{}, inputErrorf("%s holds %d files, the limit; delete or merge some before creating another", FilesRoot, f.maxFiles)
			}
		}
		text, res, err := fileEdit(cmd, p, cur.Text, exists, req)
		if err != nil {
			return FileResult{}, err
		}
		if exists && text == cur.Text {
			// Nothing changes: no write, no revision.
			res.Path, res.IDs = p, []string{cur.ID}
			return res, nil
		}
		w := memory.PathWrite{Path: p, Text: &text}
		if exists {
			w.ID = cur.ID
		}
		ids, done, err := f.write(ctx, []string{p}, []memory.PathWrite{w})
		if err != nil {
			return FileResult{}, fmt.Errorf("cannot write %s: %w", p, err)
		}
		if !done {
			continue
		}
		res.Path, res.IDs = p, ids
		return res, nil
	}
	return FileResult{}, fmt.Errorf("%s kept changing while %s ran; try again", p, cmd)
}

// fileEdit computes a file's new content and the command's answer.
func fileEdit(cmd, p, old string, exists bool, req FileRequest) (string, FileResult, error) {
	switch cmd {
	case "create":
		if exists {
			return *req.FileText, FileResult{Text: "File overwritten successfully at: " + p}, nil
		}
		return *req.FileText, FileResult{Text: "File created successfully at: " + p}, nil
	case "str_replace":
		o, n := *req.OldStr, ""
		if req.NewStr != nil {
			n = *req.NewStr
		}
		if o == "" {
			return "", FileResult{}, inputErrorf("old_str is empty; send the exact text to replace, which must appear once in %s", p)
		}
		switch c := strings.Count(old, o); {
		case c == 0:
			return "", FileResult{}, inputErrorf("No replacement was performed: old_str was not found in %s; it must match the file exactly, whitespace included (view the file to copy it)", p)
		case c > 1:
			var lines []string
			for off := 0; ; {
				j := strings.Index(old[off:], o)
				if j < 0 {
					break
				}
				lines = append(lines, fmt.Sprint(strings.Count(old[:off+j], "\n")+1))
				off += j + len(o)
			}
			return "", FileResult{}, inputErrorf("No replacement was performed: old_str appears %d times (lines %s) in %s; include more of the surrounding text so that it appears exactly once", c, strings.Join(lines, ", "), p)
		}
		at := strings.Index(old, o)
		text := old[:at] + n + old[at+len(o):]
		line := strings.Count(old[:at], "\n")
		all := strings.Split(text, "\n")
		from, to := max(0, line-2), min(len(all), line+strings.Count(n, "\n")+3)
		var b strings.Builder
		b.WriteString("The memory file has been edited. Here is the snippet showing the change (with line numbers):\n")
		writeNumbered(&b, all[from:to], from+1)
		return text, FileResult{Text: strings.TrimSuffix(b.String(), "\n"), HasContent: true}, nil
	case "insert":
		var lines []string
		if old != "" {
			lines = strings.Split(strings.TrimSuffix(old, "\n"), "\n")
		}
		n := *req.InsertLine
		if n < 0 || n > len(lines) {
			return "", FileResult{}, inputErrorf("Invalid insert_line %d: %s has %d lines, so insert_line must be within [0, %d] (0: at the top, %d: at the end)", n, p, len(lines), len(lines), len(lines))
		}
		lines = slices.Insert(lines, n, strings.TrimSuffix(*req.InsertText, "\n"))
		return strings.Join(lines, "\n") + "\n", FileResult{Text: fmt.Sprintf("The file %s has been edited.", p)}, nil
	}
	return "", FileResult{}, fmt.Errorf("unknown edit %q", cmd)
}

// write makes ws at the version the table was read at, unless another
// writer changed a file since (done false), and keeps the table current:
// paths[i] is ws[i]'s file before the write (a rename moves it to
// ws[i].Path). It returns the ids of the memories written (a file gone
// meanwhile is left out, and the table read again next time). The caller
// holds f.mu.
func (f *Files) write(ctx context.Context, paths []string, ws []memory.PathWrite) ([]string, bool, error) {
	ids, ver, ok, err := f.e.WritePaths(ctx, f.ver, ws)
	if !ok && err == nil {
		f.invalidate()
		return nil, false, nil
	}
	var out []string
	for i, id := range ids {
		switch {
		case id == "":
			f.invalidate()
			continue
		case f.byPath == nil:
		case ws[i].Forget:
			delete(f.byPath, paths[i])
		default:
			size := f.byPath[paths[i]].size
			if ws[i].Text != nil {
				size = len(*ws[i].Text)
			}
			delete(f.byPath, paths[i])
			f.byPath[ws[i].Path] = fileEntry{id: id, size: size}
		}
		out = append(out, id)
	}
	if err != nil {
		// What was written is in the table; the rest is read again.
		f.invalidate()
		return out, true, err
	}
	if f.byPath != nil {
		f.ver = ver
	}
	return out, true, nil
}

// under returns the files at p: the file itself, or every file beneath
// the directory p, sorted.
func under(files map[string]fileEntry, p string) []string {
	if _, ok := files[p]; ok {
		return []string{p}
	}
	var out []string
	for q := range files {
		if strings.HasPrefix(q, p+"/") {
			out = append(out, q)
		}
	}
	slices.Sort(out)
	return out
}

// deleteFiles soft-forgets a file, or every file of a directory.
func (f *Files) deleteFiles(ctx context.Context, path string) (FileResult, error) {
	p, err := cleanFilePath("path", path)
	if err != nil {
		return FileResult{}, err
	}
	if p == FilesRoot {
		return FileResult{}, inputErrorf("cannot delete the %s directory itself; delete the files or directories inside it", FilesRoot)
	}
	for range fileAttempts {
		files, err := f.filesLocked(ctx)
		if err != nil {
			return FileResult{}, err
		}
		paths := under(files, p)
		if len(paths) == 0 {
			return FileResult{}, notExist(p)
		}
		ws := make([]memory.PathWrite, len(paths))
		for i, q := range paths {
			ws[i] = memory.PathWrite{ID: files[q].id, Forget: true}
		}
		ids, ok, err := f.write(ctx, paths, ws)
		if err != nil {
			return FileResult{}, fmt.Errorf("cannot delete %s: %w", p, err)
		}
		if !ok {
			continue
		}
		res := FileResult{Text: "Successfully deleted " + p, Path: p, IDs: ids}
		if len(paths) > 1 || paths[0] != p {
			res.Text += " (" + plural(len(paths), "file", "files") + ")"
		}
		return res, nil
	}
	return FileResult{}, fmt.Errorf("%s kept changing while it was deleted; try again", p)
}

// renameFiles moves a file, or a directory with every file beneath it.
func (f *Files) renameFiles(ctx context.Context, oldPath, newPath string) (FileResult, error) {
	from, err := cleanFilePath("old_path", oldPath)
	if err != nil {
		return FileResult{}, err
	}
	to, err := cleanFilePath("new_path", newPath)
	if err != nil {
		return FileResult{}, err
	}
	switch {
	case from == FilesRoot || to == FilesRoot:
		return FileResult{}, inputErrorf("cannot rename %s itself; rename the files or directories inside it", FilesRoot)
	case from == to:
		return FileResult{}, inputErrorf("old_path and new_path are both %s; send a different new_path", from)
	case strings.HasPrefix(to, from+"/"):
		return FileResult{}, inputErrorf("cannot move %s into itself (%s)", from, to)
	}
	for range fileAttempts {
		files, err := f.filesLocked(ctx)
		if err != nil {
			return FileResult{}, err
		}
		paths := under(files, from)
		if len(paths) == 0 {
			return FileResult{}, notExist(from)
		}
		if _, ok := files[to]; ok || isDir(files, to) {
			return FileResult{}, inputErrorf("the destination %s already exists; delete it first or choose another new_path", to)
		}
		if a, ok := fileAncestor(files, to); ok {
			return FileResult{}, inputErrorf("%s is a file, so nothing can be moved beneath it", a)
		}
		ws := make([]memory.PathWrite, len(paths))
		for i, q := range paths {
			dest, err := cleanFilePath("new_path", to+strings.TrimPrefix(q, from))
			if err != nil {
				return FileResult{}, inputErrorf("moving %s to %s would give %s a path beyond the limits: %v", from, to, q, err)
			}
			ws[i] = memory.PathWrite{ID: files[q].id, Path: dest}
		}
		ids, ok, err := f.write(ctx, paths, ws)
		if err != nil {
			return FileResult{}, fmt.Errorf("cannot rename %s: %w", from, err)
		}
		if !ok {
			continue
		}
		return FileResult{Text: fmt.Sprintf("Successfully renamed %s to %s", from, to), Path: to, IDs: ids}, nil
	}
	return FileResult{}, fmt.Errorf("%s kept changing while it was renamed; try again", from)
}

// Import stores a file that arrives from outside (an import of infmem's
// export) at path p: the same content at the same path is a duplicate; a
// path taken by other content puts the import beside it, at p.imported
// (or p.imported-2, …), so that nothing in /memories is overwritten. ts is
// when it was written (zero: now); r (may be nil) is what the export
// carried beyond that: the file's id (kept unless a memory here has it),
// created and updated times, earlier versions, use and pin.
func (f *Files) Import(ctx context.Context, path, text string, ts time.Time, r *memory.Restored) (memory.StoreResult, error) {
	p, err := importPath(path)
	if err != nil {
		return memory.StoreResult{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for range fileAttempts {
		files, err := f.filesLocked(ctx)
		if err != nil {
			return memory.StoreResult{}, err
		}
		at := p
		for n := 1; ; n++ {
			fe, taken := files[at]
			if taken {
				m, err := f.e.Get(ctx, fe.id)
				if err != nil {
					return memory.StoreResult{}, fmt.Errorf("cannot read %s: %w", at, err)
				}
				if m.Text == text {
					return memory.StoreResult{ID: m.ID, Scope: m.Scope, DuplicateOf: m.ID, Collection: mongostore.ConversationHistory}, nil
				}
			} else if _, fileAbove := fileAncestor(files, at); !fileAbove && !isDir(files, at) {
				break
			}
			if n > 20 {
				return memory.StoreResult{}, inputErrorf("%s and its .imported alternatives are all taken", p)
			}
			at = p + ".imported"
			if n > 1 {
				at += fmt.Sprintf("-%d", n)
			}
			if at, err = cleanFilePath("path", at); err != nil {
				return memory.StoreResult{}, err
			}
		}
		if len(files) >= f.maxFiles {
			return memory.StoreResult{}, inputErrorf("%s holds %d files, the limit; %s was not imported", FilesRoot, f.maxFiles, p)
		}
		ids, done, err := f.write(ctx, []string{at}, []memory.PathWrite{{Path: at, Text: &text, At: ts, Restore: r}})
		if err != nil {
			return memory.StoreResult{}, err
		}
		if done && len(ids) == 1 {
			return memory.StoreResult{ID: ids[0], Scope: scopes.Global, Collection: mongostore.ConversationHistory}, nil
		}
	}
	return memory.StoreResult{}, fmt.Errorf("%s kept changing while it was imported; try again", p)
}

// importPath is the file an import names at path, refused when it is
// not a file in /memories.
func importPath(path string) (string, error) {
	p, err := cleanFilePath("path", path)
	if err != nil {
		return "", err
	}
	if p == FilesRoot {
		return "", inputErrorf("path %s is the directory itself; a file needs a name", p)
	}
	return p, nil
}

// CheckImport checks a file Import would store (its path, text, time and
// what it restores) without storing it, so that an import refuses a bad
// input before it stores anything.
func (f *Files) CheckImport(path, text string, ts time.Time, r *memory.Restored) error {
	p, err := importPath(path)
	if err != nil {
		return err
	}
	return f.e.CheckPathWrite(memory.PathWrite{Path: p, Text: &text, At: ts, Restore: r})
}

// CheckRoom checks that importing files (path → text) keeps /memories
// within its limit, counting as new only those Import would add (a file
// at the same path with the same text adds nothing), so that an import
// over the limit is refused before it stores anything rather than
// stopping half way.
func (f *Files) CheckRoom(ctx context.Context, files map[string]string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	here, err := f.filesLocked(ctx)
	if err != nil {
		return err
	}
	added := 0
	for path, text := range files {
		p, err := importPath(path)
		if err != nil {
			return err
		}
		if fe, ok := here[p]; ok && fe.size == len(text) {
			m, err := f.e.Get(ctx, fe.id)
			if err != nil {
				return fmt.Errorf("cannot read %s: %w", p, err)
			}
			if m.Text == text {
				continue
			}
		}
		added++
	}
	if len(here)+added > f.maxFiles {
		return inputErrorf("the input adds %d files to the %d in %s; the limit is %d files", added, len(here), FilesRoot, f.maxFiles)
	}
	return nil
}

// Count is how many files /memories holds, from the index.
func Count(e *memory.Engine) int { return e.PathCount() }

// CheckStored applies to a document that arrives another way (a restored
// backup) the rules of memory.CheckStoredMemory and, for a file (source
// file), this package's: its path names a file in /memories, spelt as the
// memory tool writes it.
func CheckStored(m *mongostore.Memory, maxText int, now time.Time) error {
	if err := memory.CheckStoredMemory(m, maxText, now); err != nil {
		return err
	}
	if m.Source != sourceFile {
		return nil
	}
	p, err := cleanFilePath("path", m.Path)
	if err != nil {
		return fmt.Errorf("its path: %v", err)
	}
	if p == FilesRoot || p != m.Path {
		return fmt.Errorf("its path %q does not name a file in %s", snippet(m.Path, 60), FilesRoot)
	}
	return nil
}

// sourceFile is a file's source (the engine's for a memory with a path).
const sourceFile = "file"

// snippet shortens text for messages.
func snippet(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// plural is "1 file", "2 files".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// isBidiControl reports a character that changes the direction of text.
func isBidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C
}
