package importer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Claude Code keeps memory in Markdown files: a project's CLAUDE.md (or
// .claude/CLAUDE.md), CLAUDE.local.md and rules (.claude/rules/*.md), the
// user's ~/.claude/CLAUDE.md and ~/.claude/rules/*.md, and the per-project
// auto-memory folders ~/.claude/projects/<project>/memory/*.md, where
// <project> is the project's path with its separators turned into dashes.
// Each top-level list item becomes a memory, prefixed with the heading it
// sits under; the rest of a section's text becomes one memory. Every
// memory is tagged claude-code and with its project (the project folder's
// name); the user's own files have no project.
//
// An auto-memory folder holds MEMORY.md, an index of one line a memory
// ("- [Title](file.md) — hook"), and one file a memory with front matter:
//
//	---
//	name: Logic analyser setup
//	description: How to attach the logic analyser
//	type: reference
//	---
//
// Such a file's memory is led by its name and tagged with its type (user,
// feedback, project or reference); an index line pointing at a file of the
// folder is skipped, as the file itself is imported. Older MEMORY.md files
// hold the facts themselves, one a line: each becomes a memory.

const claudeCodeTag = "claude-code"

var claudeMemoryNames = []string{"CLAUDE.md", "CLAUDE.local.md"}

// isClaudeCodeFile reports whether a Markdown file is a Claude Code
// memory file.
func isClaudeCodeFile(path string) bool {
	base := filepath.Base(path)
	for _, n := range claudeMemoryNames {
		if strings.EqualFold(base, n) {
			return true
		}
	}
	return projectMemoryDir(filepath.Dir(path)) != "" || isRulesDir(filepath.Dir(path))
}

// isRulesDir reports whether dir is a .claude/rules folder.
func isRulesDir(dir string) bool {
	return filepath.Base(dir) == "rules" && filepath.Base(filepath.Dir(dir)) == ".claude"
}

// projectMemoryDir returns the project folder name of a Claude Code
// per-project memory folder (…/.claude/projects/<project>/memory), or "".
func projectMemoryDir(dir string) string {
	if filepath.Base(dir) != "memory" {
		return ""
	}
	proj := filepath.Dir(dir)
	if filepath.Base(filepath.Dir(proj)) != "projects" {
		return ""
	}
	return filepath.Base(proj)
}

// isClaudeCodeDir reports whether dir is a project with Claude Code memory,
// a .claude folder, or a per-project memory folder.
func isClaudeCodeDir(dir string) bool {
	if filepath.Base(dir) == ".claude" || projectMemoryDir(dir) != "" || isRulesDir(dir) {
		return true
	}
	for _, n := range claudeMemoryNames {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	_, err := os.Stat(filepath.Join(dir, ".claude", "CLAUDE.md"))
	return err == nil
}

// claudeFile is one memory file and the project it belongs to.
type claudeFile struct {
	path, project string
}

func readClaudeCode(path string) (*Input, error) {
	files, err := claudeFiles(path)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no Claude Code memory file (CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md or .claude/projects/*/memory/*.md)", path)
	}
	root := path
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		root = filepath.Dir(path)
	}
	in := &Input{}
	nf := newNoteFiles(root, in)
	for _, f := range files {
		rel, err := filepath.Rel(root, f.path)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = f.path
		}
		// Links leaving the folder and what is not a regular file are
		// skipped (noteFiles), except a file named on the command line.
		if f.path != path && !nf.ok(f.path, rel) {
			continue
		}
		if err := checkFileSize(f.path, maxItemBytes); err != nil {
			return nil, err
		}
		lines, err := readLines(f.path)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", f.path, unwrapPathError(err))
		}
		mtime := modTime(f.path)
		tags := []string{claudeCodeTag}
		if f.project != "" {
			tags = append(tags, tagOf(f.project))
		}
		// A memory file may start with front matter (the memory folder's
		// topic files do): its tags count, the rest is not memory.
		fm, body, bodyLine, ferr := splitFrontMatter(lines)
		if ferr != nil {
			return nil, &InputError{Where: rel + ":1", Msg: ferr.Error()}
		}
		tags = append(tags, fm.tags()...)
		autoMemory := projectMemoryDir(filepath.Dir(f.path)) != ""
		// An auto-memory file's name leads its memory; its type tags it.
		name := oneLine(fm.first("name"))
		if typ := oneLine(fm.first("type")); autoMemory && typ != "" {
			tags = append(tags, typ)
		}
		units := mdUnits(body, bodyLine)
		if desc := strings.TrimSpace(fm.first("description")); len(units) == 0 && desc != "" {
			units = []mdUnit{{Line: fmLine(lines, "description"), Text: desc}}
		}
		for _, u := range units {
			if autoMemory && u.Bullet && indexLine(f.path, u.Text) {
				in.Skipped++
				continue
			}
			if u.Heading == "" {
				u.Heading = name
			}
			text := u.Text
			switch {
			case u.Bullet && u.Heading != "":
				text = u.Heading + ": " + text
			case !u.Bullet && u.Heading != "":
				text = u.Heading + "\n\n" + text
			}
			in.Items = append(in.Items, Item{
				Where: fmt.Sprintf("%s:%d", rel, u.Line),
				Key:   "claude-code\x00" + f.project + "\x00" + clean(text),
				Text:  text, Tags: append(append([]string(nil), tags...), inlineTags(u.Text)...),
				Source: sourceNote, Timestamp: mtime,
			})
		}
	}
	in.Units = plural(len(files), "memory file")
	return in, nil
}

// claudeFiles finds the memory files under path and their projects.
func claudeFiles(path string) ([]claudeFile, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot import %s: %w", path, unwrapPathError(err))
	}
	if !fi.IsDir() {
		return []claudeFile{{path: path, project: projectOfFile(path)}}, nil
	}
	var out []claudeFile
	add := func(p string) {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			out = append(out, claudeFile{path: p, project: projectOfFile(p)})
		}
	}
	switch {
	case projectMemoryDir(path) != "":
		addMarkdownFiles(path, &out)
	case isRulesDir(path):
		addMarkdownFiles(path, &out)
	case filepath.Base(path) == ".claude":
		add(filepath.Join(path, "CLAUDE.md"))
		add(filepath.Join(path, "CLAUDE.local.md"))
		addMarkdownFiles(filepath.Join(path, "rules"), &out)
		// The user's folder holds every project's memory folder.
		dirs, _ := filepath.Glob(filepath.Join(path, "projects", "*", "memory"))
		sort.Strings(dirs)
		for _, d := range dirs {
			addMarkdownFiles(d, &out)
		}
	default:
		for _, n := range claudeMemoryNames {
			add(filepath.Join(path, n))
		}
		add(filepath.Join(path, ".claude", "CLAUDE.md"))
		add(filepath.Join(path, ".claude", "CLAUDE.local.md"))
		addMarkdownFiles(filepath.Join(path, ".claude", "rules"), &out)
	}
	return out, nil
}

// indexLinkRE is an auto-memory index line: a link to a file, then
// perhaps a hook.
var indexLinkRE = regexp.MustCompile(`^\[[^\]]*\]\(([^)\s]+\.md)\)`)

// indexLine reports whether a list item of the memory file at path is an
// index line pointing at another Markdown file of its folder.
func indexLine(path, text string) bool {
	m := indexLinkRE.FindStringSubmatch(text)
	if m == nil || strings.ContainsAny(m[1], `/\`) || strings.EqualFold(m[1], filepath.Base(path)) {
		return false
	}
	st, err := os.Stat(filepath.Join(filepath.Dir(path), m[1]))
	return err == nil && !st.IsDir()
}

func addMarkdownFiles(dir string, out *[]claudeFile) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && isMarkdownName(e.Name()) {
			p := filepath.Join(dir, e.Name())
			*out = append(*out, claudeFile{path: p, project: projectOfFile(p)})
		}
	}
}

// projectOfFile names the project a memory file belongs to: the folder it
// is in (or the one holding its .claude folder); for a per-project memory
// folder, the project its name encodes; "" for the user's own
// ~/.claude/CLAUDE.md.
func projectOfFile(path string) string {
	dir := filepath.Dir(path)
	if projectMemoryDir(dir) != "" {
		return projectFromSlug(filepath.Dir(dir))
	}
	if isRulesDir(dir) {
		dir = filepath.Dir(dir)
	}
	if filepath.Base(dir) == ".claude" {
		parent := filepath.Dir(dir)
		if home, err := os.UserHomeDir(); err == nil && sameDir(parent, home) {
			return ""
		}
		if _, err := os.Stat(filepath.Join(dir, "projects")); err == nil {
			// A user's .claude folder (of another home, or a copy).
			return ""
		}
		return filepath.Base(parent)
	}
	return filepath.Base(dir)
}

func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// projectFromSlug recovers a project's folder name from the folder Claude
// Code keeps it under, named "-home-alice-src-my-app" for
// /home/alice/src/my-app. Dashes are ambiguous, so the session
// transcripts beside the memory folder are asked first (each line names
// its working directory), then the path is looked up on this machine,
// folder by folder; failing both, the part after the user's home folder
// (or the whole name) is the best guess.
func projectFromSlug(slugDir string) string {
	slug := filepath.Base(slugDir)
	if cwd := transcriptCwd(slugDir); cwd != "" && strings.Trim(slugOf(cwd), "-") == strings.Trim(slug, "-") {
		return filepath.Base(cwd)
	}
	if p := resolveSlug(string(filepath.Separator), strings.TrimPrefix(slug, "-")); p != "" {
		return filepath.Base(p)
	}
	rest := strings.TrimPrefix(slug, "-")
	if home, err := os.UserHomeDir(); err == nil {
		h := strings.Trim(slugOf(home), "-") + "-"
		if strings.HasPrefix(rest, h) {
			rest = rest[len(h):]
		}
	}
	if rest == "" {
		return slug
	}
	return rest
}

// slugOf is Claude Code's folder name for a path.
func slugOf(p string) string {
	return strings.NewReplacer("/", "-", "\\", "-", ".", "-", ":", "-").Replace(p)
}

// resolveSlug finds a folder under dir whose path below dir encodes as
// rest; "" when there is none.
func resolveSlug(dir, rest string) string {
	if rest == "" {
		return dir
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		s := slugOf(e.Name())
		if s == rest {
			return filepath.Join(dir, e.Name())
		}
		if strings.HasPrefix(rest, s+"-") {
			if p := resolveSlug(filepath.Join(dir, e.Name()), rest[len(s)+1:]); p != "" {
				return p
			}
		}
	}
	return ""
}

// pluralOf is "1 memory", "2 memories".
func pluralOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// transcriptCwd reads the working directory a session transcript
// (<project folder>/*.jsonl) records, or "".
func transcriptCwd(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	sort.Strings(files)
	for _, f := range files {
		for _, l := range headLines(f, 50) {
			var rec struct {
				Cwd string `json:"cwd"`
			}
			if json.Unmarshal([]byte(l), &rec) == nil && rec.Cwd != "" {
				return rec.Cwd
			}
		}
	}
	return ""
}
