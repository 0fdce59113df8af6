package memory

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/lookalike"
	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// The files of Anthropic's memory tool (view, create, str_replace, insert,
// delete and rename on a virtual /memories directory) live in the same
// store as every other memory.
//
// Design:
//   - A file is one memory in ConversationHistory with source "file", its
//     path in the path field, its whole content as its text, in the Global
//     scope (always searched), so retrieve_memory finds it, and backups,
//     exports, restores and status count it like any memory. A directory
//     is not stored: it exists while a file lives under it; /memories
//     always exists.
//   - Every write goes through apply (write.go), so the journal, the
//     index, the embedding and the snapshot stay consistent. Editing a
//     file (create over an existing one, str_replace, insert, rename)
//     updates its memory in place, same id, keeping the last
//     fileHistoryKeep contents in its history.
//   - delete soft-forgets, like delete_memory: the file is gone from view
//     at once (as Anthropic's tool has it), unforget_memory brings it
//     back (unless its path has been taken meanwhile; then the newer file
//     keeps the path), and the maintenance purge removes it for good.
//   - Paths are found in a table kept here (path → memory id and size),
//     built once from the in-memory index (the file memories' ids) and
//     their documents read by _id, then kept current by the file commands
//     themselves. Any other change to a file's memory (update_memory,
//     delete_memory, unforget_memory, an import, a restore's reload) marks
//     the table stale in apply, and the next command rebuilds it: no
//     command scans the collection.
//   - The commands run one at a time (filesMu), so two clients editing
//     one file never lose an update; a write checks under the engine's
//     write lock that no other writer changed a file since the table was
//     built, and otherwise starts again on the rebuilt table.
//   - Files are exact text: what create writes is what view shows (only a
//     NUL character is refused). Maintenance neither merges, archives nor
//     prunes them.

// FilesRoot is the memory tool's directory.
const FilesRoot = "/memories"

// Limits of the memory tool's files. A file's content is bounded by the
// engine's MaxContentBytes (memory.max_content_bytes), like any memory.
const (
	// MaxFilePathBytes bounds a path, "/memories/" included.
	MaxFilePathBytes = 256
	// MaxFileSegmentBytes bounds one name in a path.
	MaxFileSegmentBytes = 128
	// MaxFileDepth bounds the names below /memories in a path.
	MaxFileDepth = 8
	// DefaultMaxFiles bounds how many files the directory holds
	// (Options.MaxFiles).
	DefaultMaxFiles = 1000
	// fileHistoryKeep is how many earlier contents a file's memory keeps.
	fileHistoryKeep = 10
	// fileLineWidth is the width of view's line numbers (Anthropic's).
	fileLineWidth = 6
	// fileAttempts bounds how often a command starts again after another
	// writer changed a file under it.
	fileAttempts = 5
)

// fileEntry is what the path table holds of one file.
type fileEntry struct {
	id   bson.ObjectID
	size int
}

// fileTable maps paths to files. mu serialises the file commands and
// guards byPath and ix; stale is set by apply (under the engine's write
// lock) when a file's memory changes another way.
type fileTable struct {
	mu     sync.Mutex
	stale  atomic.Bool
	byPath map[string]fileEntry
	// ix is the index the table was built from: a reload replaces it.
	ix *memindex.Index
}

func (t *fileTable) invalidate() { t.stale.Store(true) }

// touchesFile reports whether a change made outside the file commands
// changes a file's memory: its text, its path or whether it is live.
func (e *Engine) touchesFile(c *change) bool {
	if c.file || c.op == opUse || c.op == opEmbed || c.op == opDropEmbedding {
		return false
	}
	if c.op == opInsert || c.op == opEdit {
		if c.doc.Source == sourceFile {
			return true
		}
	}
	it, ok := e.index().Lookup(c.id)
	return ok && it.Source == sourceFile
}

// filesLocked returns the path table, rebuilt when stale. The caller holds
// e.files.mu.
func (e *Engine) filesLocked(ctx context.Context) (map[string]fileEntry, error) {
	t := &e.files
	ix := e.index()
	if t.byPath != nil && t.ix == ix && !t.stale.Load() {
		return t.byPath, nil
	}
	// Cleared before reading: a change after this point marks it again.
	t.stale.Store(false)
	found := ix.Select(func(it *memindex.Entry) bool {
		return it.Kind == memindex.KindMemory && it.Live() && it.Source == sourceFile
	})
	ms, err := e.fetch(ctx, asHits(found))
	if err != nil {
		t.byPath = nil
		return nil, fmt.Errorf("cannot read the memory files: %w", err)
	}
	byPath := make(map[string]fileEntry, len(ms))
	newest := map[string]time.Time{}
	for _, m := range ms {
		p, err := cleanFilePath("path", m.Path)
		if err != nil || p == FilesRoot || m.ForgottenAt != nil {
			if m.ForgottenAt == nil {
				e.log.Warn("a memory file has an invalid path; it is left out of /memories", "memory_id", m.ID, "path", snippet(m.Path, 80))
			}
			continue
		}
		id, _ := bson.ObjectIDFromHex(m.ID)
		if at, ok := newest[p]; ok {
			// Two live files claim one path (one was unforgotten after
			// the path was taken): the one created last keeps it.
			e.log.Warn("two memory files have the same path; the newer is shown", "path", p)
			if !m.CreatedAt.After(at) {
				continue
			}
		}
		newest[p] = m.CreatedAt
		byPath[p] = fileEntry{id: id, size: len(m.Text)}
	}
	t.byPath, t.ix = byPath, ix
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

// File runs one command of the memory tool.
func (e *Engine) File(ctx context.Context, req FileRequest) (FileResult, error) {
	if err := e.wait(ctx); err != nil {
		return FileResult{}, err
	}
	cmd := strings.TrimSpace(req.Command)
	if !slices.Contains(FileCommands, cmd) {
		return FileResult{}, inputErrorf("command %q is not one of: %s", snippet(req.Command, 40), strings.Join(FileCommands, ", "))
	}
	if err := checkFileArgs(cmd, req); err != nil {
		return FileResult{}, err
	}
	e.files.mu.Lock()
	defer e.files.mu.Unlock()
	switch cmd {
	case "view":
		return e.viewFile(ctx, req)
	case "delete":
		return e.deleteFiles(ctx, req.Path)
	case "rename":
		return e.renameFiles(ctx, req.OldPath, req.NewPath)
	}
	return e.editFile(ctx, cmd, req)
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

// checkFileText checks a file's new content against the limits.
func (e *Engine) checkFileText(p, text string) error {
	if len(text) > e.opts.MaxContentBytes {
		return inputErrorf("%s would be %d bytes; the limit for one memory file is %d bytes (%d KiB): keep it shorter, or split it into several files", p, len(text), e.opts.MaxContentBytes, e.opts.MaxContentBytes>>10)
	}
	if !utf8.ValidString(text) {
		return inputErrorf("the content for %s is not valid UTF-8", p)
	}
	if strings.ContainsRune(text, 0) {
		return inputErrorf("the content for %s contains a NUL character; memory files hold text", p)
	}
	return nil
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
func (e *Engine) viewFile(ctx context.Context, req FileRequest) (FileResult, error) {
	p, err := cleanFilePath("path", req.Path)
	if err != nil {
		return FileResult{}, err
	}
	files, err := e.filesLocked(ctx)
	if err != nil {
		return FileResult{}, err
	}
	f, ok := files[p]
	if !ok {
		if !isDir(files, p) {
			return FileResult{}, notExist(p)
		}
		if req.ViewRange != nil {
			return FileResult{}, inputErrorf("%s is a directory; view_range applies to files", p)
		}
		return FileResult{Text: listDir(files, p), Path: p, HasContent: true}, nil
	}
	m, err := e.get(ctx, f.id, memindex.KindMemory)
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
	for p, f := range files {
		if !strings.HasPrefix(p, dir+"/") {
			continue
		}
		sizes[dir] += f.size
		names := strings.Split(strings.TrimPrefix(p, dir+"/"), "/")
		if slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, ".") }) {
			continue
		}
		for depth := 1; depth <= len(names) && depth <= 2; depth++ {
			q := dir + "/" + strings.Join(names[:depth], "/")
			sizes[q] += f.size
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
// its new content, embed it, then write it under the write lock unless
// another writer changed a file meanwhile (then start again).
func (e *Engine) editFile(ctx context.Context, cmd string, req FileRequest) (FileResult, error) {
	p, err := cleanFilePath("path", req.Path)
	if err != nil {
		return FileResult{}, err
	}
	for range fileAttempts {
		files, err := e.filesLocked(ctx)
		if err != nil {
			return FileResult{}, err
		}
		f, exists := files[p]
		var cur Memory
		switch {
		case p == FilesRoot || !exists && isDir(files, p):
			return FileResult{}, inputErrorf("%s is a directory; %s works on a file inside it, e.g. %s/notes.md", p, cmd, p)
		case exists:
			if cur, err = e.get(ctx, f.id, memindex.KindMemory); err != nil {
				return FileResult{}, fmt.Errorf("cannot read %s: %w", p, err)
			}
		case cmd != "create":
			return FileResult{}, notExist(p)
		default:
			if a, ok := fileAncestor(files, p); ok {
				return FileResult{}, inputErrorf("%s is a file, so %s cannot be created beneath it", a, p)
			}
			if len(files) >= e.opts.MaxFiles {
				return FileResult{}, inputErrorf("%s holds %d files, the limit; delete or merge some before creating another", FilesRoot, e.opts.MaxFiles)
			}
		}
		text, res, err := fileEdit(cmd, p, cur.Text, exists, req)
		if err != nil {
			return FileResult{}, err
		}
		if err := e.checkFileText(p, text); err != nil {
			return FileResult{}, err
		}
		if exists && text == cur.Text {
			// Nothing changes: no write, no revision.
			res.Path, res.IDs = p, []string{cur.ID}
			return res, nil
		}
		vec := e.embedText(ctx, text)
		id, done, err := e.writeFile(ctx, p, text, vec, exists, cur, time.Time{})
		if err != nil {
			return FileResult{}, err
		}
		if !done {
			continue
		}
		res.Path, res.IDs = p, []string{id.Hex()}
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

// fileKey is a file's content key: its path and text, so that two files
// with the same text, or a file and a note, are never taken for
// duplicates of each other.
func fileKey(p, text string) [16]byte { return contentKey("\x00file\x00" + p + "\x00" + text) }

// writeFile writes a file's new content, as a new memory or over cur
// (exists), unless another writer changed a file since the table was
// built (done false). ts is when it happened (zero: now). The caller holds
// e.files.mu.
func (e *Engine) writeFile(ctx context.Context, p, text string, vec []float32, exists bool, cur Memory, ts time.Time) (bson.ObjectID, bool, error) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if e.files.stale.Load() || e.files.ix != e.index() {
		return bson.ObjectID{}, false, nil
	}
	now := e.now()
	if ts.IsZero() {
		ts = now
	}
	key := fileKey(p, text)
	doc := memindex.Doc{Text: text, Source: sourceFile, Scope: scopes.Global, Tags: []string{}, TS: ts, Created: now,
		Importance: 0.5, Key: key, Vec: vec}
	c := change{op: opInsert, kind: memindex.KindMemory, file: true}
	if exists {
		c.id, _ = bson.ObjectIDFromHex(cur.ID)
		it, ok := e.index().Lookup(c.id)
		if !ok || !it.Live() {
			return bson.ObjectID{}, false, nil
		}
		doc.Scope, doc.Tags, doc.Created, doc.Importance = cur.Scope, cur.Tags, cur.CreatedAt, cur.Importance
		doc.UseCount, doc.Archived, doc.Pinned, doc.Conv, doc.Speaker = it.UseCount, cur.Archived, cur.Pinned, cur.ConversationID, cur.Speaker
		history := append(slices.Clone(cur.History), mongostore.Revision{Text: cur.Text, Tags: cur.Tags, Importance: cur.Importance,
			Scope: cur.Scope, Category: cur.Category, ChangedAt: now})
		if len(history) > fileHistoryKeep {
			history = history[len(history)-fileHistoryKeep:]
		}
		c.op = opEdit
		c.update = bson.D{{Key: "$set", Value: bson.D{
			{Key: "text", Value: text}, {Key: "path", Value: p}, {Key: "content_hash", Value: keyHex(key)},
			{Key: "timestamp", Value: ts}, {Key: "updated_at", Value: now}, {Key: "history", Value: history},
		}}}
		if text == cur.Text {
			doc.Vec, doc.KeepVec = nil, true
		}
	} else {
		c.id = e.newID()
		c.insert = &mongostore.Memory{ID: c.id, Timestamp: ts, Text: text, Scope: scopes.Global, Tags: []string{}, Source: sourceFile,
			Path: p, Importance: 0.5, ContentHash: keyHex(key), CreatedAt: now, UpdatedAt: now}
	}
	c.doc = doc
	if err := e.apply(ctx, &c); err != nil {
		return bson.ObjectID{}, false, fmt.Errorf("cannot write %s: %w", p, err)
	}
	e.files.byPath[p] = fileEntry{id: c.id, size: len(text)}
	return c.id, true, nil
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
func (e *Engine) deleteFiles(ctx context.Context, path string) (FileResult, error) {
	p, err := cleanFilePath("path", path)
	if err != nil {
		return FileResult{}, err
	}
	if p == FilesRoot {
		return FileResult{}, inputErrorf("cannot delete the %s directory itself; delete the files or directories inside it", FilesRoot)
	}
	for range fileAttempts {
		files, err := e.filesLocked(ctx)
		if err != nil {
			return FileResult{}, err
		}
		paths := under(files, p)
		if len(paths) == 0 {
			return FileResult{}, notExist(p)
		}
		ids := make([]bson.ObjectID, len(paths))
		for i, q := range paths {
			ids[i] = files[q].id
		}
		done, ok, err := e.writeFiles(ctx, ids, func(_ int, id bson.ObjectID, now time.Time) (*change, error) {
			return &change{op: opForget, id: id, kind: memindex.KindMemory, at: now, file: true}, nil
		})
		for _, c := range done {
			for _, q := range paths {
				if files[q].id == c.id {
					delete(files, q)
				}
			}
		}
		if ok && err == nil && len(done) < len(paths) {
			// Some were gone already: read the table again next time.
			e.files.invalidate()
		}
		if err != nil {
			return FileResult{}, fmt.Errorf("cannot delete %s: %w", p, err)
		}
		if !ok {
			continue
		}
		res := FileResult{Text: "Successfully deleted " + p, Path: p}
		if len(paths) > 1 || paths[0] != p {
			res.Text += " (" + plural(len(paths), "file", "files") + ")"
		}
		for _, c := range done {
			res.IDs = append(res.IDs, c.id.Hex())
		}
		return res, nil
	}
	return FileResult{}, fmt.Errorf("%s kept changing while it was deleted; try again", p)
}

// writeFiles makes a change to each of ids under the write lock, unless
// another writer changed a file since the table was built (ok false).
func (e *Engine) writeFiles(ctx context.Context, ids []bson.ObjectID, changeFor func(i int, id bson.ObjectID, now time.Time) (*change, error)) ([]*change, bool, error) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if e.files.stale.Load() || e.files.ix != e.index() {
		return nil, false, nil
	}
	now := e.now()
	done, err := e.writeBatch(ctx, ids, func(i int, id bson.ObjectID) (*change, error) { return changeFor(i, id, now) },
		func(c *change, n int, err error) error {
			return fmt.Errorf("memory %s (after %d): %w", c.id.Hex(), n, err)
		})
	return done, true, err
}

// renameFiles moves a file, or a directory with every file beneath it.
func (e *Engine) renameFiles(ctx context.Context, oldPath, newPath string) (FileResult, error) {
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
		files, err := e.filesLocked(ctx)
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
		dest := make([]string, len(paths))
		ids := make([]bson.ObjectID, len(paths))
		curs := make([]Memory, len(paths))
		for i, q := range paths {
			if dest[i], err = cleanFilePath("new_path", to+strings.TrimPrefix(q, from)); err != nil {
				return FileResult{}, inputErrorf("moving %s to %s would give %s a path beyond the limits: %v", from, to, q, err)
			}
			ids[i] = files[q].id
			if curs[i], err = e.get(ctx, ids[i], memindex.KindMemory); err != nil {
				return FileResult{}, fmt.Errorf("cannot read %s: %w", q, err)
			}
		}
		done, ok, err := e.writeFiles(ctx, ids, func(i int, id bson.ObjectID, now time.Time) (*change, error) {
			m := curs[i]
			it, ok := e.index().Lookup(id)
			if !ok {
				return nil, nil
			}
			key := fileKey(dest[i], m.Text)
			return &change{op: opEdit, id: id, kind: memindex.KindMemory, file: true,
				update: bson.D{{Key: "$set", Value: bson.D{{Key: "path", Value: dest[i]}, {Key: "content_hash", Value: keyHex(key)}, {Key: "updated_at", Value: now}}}},
				doc: memindex.Doc{Text: m.Text, Source: sourceFile, Scope: m.Scope, Conv: m.ConversationID, Speaker: m.Speaker, Tags: m.Tags,
					TS: m.Timestamp, Created: m.CreatedAt, Importance: m.Importance, UseCount: it.UseCount, Key: key,
					Archived: m.Archived, Pinned: m.Pinned, KeepVec: true}}, nil
		})
		for _, c := range done {
			for i, q := range paths {
				if ids[i] == c.id {
					files[dest[i]] = files[q]
					delete(files, q)
				}
			}
		}
		if err != nil {
			return FileResult{}, fmt.Errorf("cannot rename %s: %w", from, err)
		}
		if !ok {
			continue
		}
		res := FileResult{Text: fmt.Sprintf("Successfully renamed %s to %s", from, to), Path: to}
		for _, c := range done {
			res.IDs = append(res.IDs, c.id.Hex())
		}
		return res, nil
	}
	return FileResult{}, fmt.Errorf("%s kept changing while it was renamed; try again", from)
}

// FileCount is how many files /memories holds, from the index.
func (e *Engine) FileCount() int {
	return e.index().Count().PerSource[sourceFile]
}

// storeFile stores an imported file (Store with source file and a path):
// the same content at the same path is a duplicate; a path taken by other
// content puts the import beside it, at path.imported (or
// path.imported-2, …), so that nothing in /memories is overwritten.
func (e *Engine) storeFile(ctx context.Context, req StoreRequest) (StoreResult, error) {
	p, err := cleanFilePath("path", req.Path)
	if err != nil {
		return StoreResult{}, err
	}
	if p == FilesRoot {
		return StoreResult{}, inputErrorf("path %s is the directory itself; a file needs a name", p)
	}
	text := req.Content
	if err := e.checkFileText(p, text); err != nil {
		return StoreResult{}, err
	}
	var ts time.Time
	if !req.Timestamp.IsZero() {
		if ts, err = checkTimestamp(req.Timestamp, e.now()); err != nil {
			return StoreResult{}, err
		}
	}
	vec := e.embedText(ctx, text)
	e.files.mu.Lock()
	defer e.files.mu.Unlock()
	for range fileAttempts {
		files, err := e.filesLocked(ctx)
		if err != nil {
			return StoreResult{}, err
		}
		at := p
		for n := 1; ; n++ {
			f, taken := files[at]
			if taken {
				m, err := e.get(ctx, f.id, memindex.KindMemory)
				if err != nil {
					return StoreResult{}, fmt.Errorf("cannot read %s: %w", at, err)
				}
				if m.Text == text {
					return StoreResult{ID: m.ID, Scope: m.Scope, DuplicateOf: m.ID, Collection: mongostore.ConversationHistory}, nil
				}
			} else if _, fileAbove := fileAncestor(files, at); !fileAbove && !isDir(files, at) {
				break
			}
			if n > 20 {
				return StoreResult{}, inputErrorf("%s and its .imported alternatives are all taken", p)
			}
			at = p + ".imported"
			if n > 1 {
				at += fmt.Sprintf("-%d", n)
			}
			if at, err = cleanFilePath("path", at); err != nil {
				return StoreResult{}, err
			}
		}
		if len(files) >= e.opts.MaxFiles {
			return StoreResult{}, inputErrorf("%s holds %d files, the limit; %s was not imported", FilesRoot, e.opts.MaxFiles, p)
		}
		id, done, err := e.writeFile(ctx, at, text, vec, false, Memory{}, ts)
		if err != nil {
			return StoreResult{}, err
		}
		if done {
			return StoreResult{ID: id.Hex(), Scope: scopes.Global, Collection: mongostore.ConversationHistory}, nil
		}
	}
	return StoreResult{}, fmt.Errorf("%s kept changing while it was imported; try again", p)
}

// checkStoredFile is CheckStoredMemory's rule for a file: a valid path
// and text within the limit (it may be empty).
func checkStoredFile(m *mongostore.Memory, maxText int) error {
	p, err := cleanFilePath("path", m.Path)
	if err != nil {
		return fmt.Errorf("its path: %v", err)
	}
	if p == FilesRoot || p != m.Path {
		return fmt.Errorf("its path %q does not name a file in %s", snippet(m.Path, 60), FilesRoot)
	}
	switch {
	case !utf8.ValidString(m.Text):
		return fmt.Errorf("its text is not valid UTF-8")
	case len(m.Text) > maxText:
		return fmt.Errorf("its text is %d bytes; the limit is %d", len(m.Text), maxText)
	}
	return nil
}
