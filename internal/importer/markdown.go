package importer

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A folder of Markdown notes (basic-memory, Obsidian, any notes app that
// keeps plain files): each note becomes one memory, its title first; a
// long note (over longNote bytes) becomes one memory per heading section,
// each led by the note's title and the section's heading. Tags come from
// the front matter's tags (a list or one string) and from #tags in the
// text; the front matter's date (or created) is when it happened, else the
// file's modification time. Hidden folders (.obsidian, .git, .trash) are
// skipped, and so are links that leave the folder and anything but
// regular files (noteFiles).

// longNote is the size above which a note is split at its headings.
const longNote = 1200

func readMarkdown(ctx context.Context, path string) (*Input, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot import %s: %w", path, unwrapPathError(err))
	}
	root := filepath.Dir(path)
	var files []string
	if fi.IsDir() {
		root = path
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != path && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() && isMarkdownName(d.Name()) && !strings.HasPrefix(d.Name(), ".") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("cannot read the notes in %s: %w", path, err)
		}
	} else {
		files = []string{path}
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no Markdown notes (*.md)", path)
	}
	in := &Input{}
	nf := newNoteFiles(root, in)
	var probs Problems
	probs.Path = path
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(root, f)
		if err != nil {
			rel = f
		}
		rel = filepath.ToSlash(rel)
		if fi.IsDir() && !nf.ok(f, rel) {
			continue
		}
		if !fi.IsDir() {
			// The note named itself: read where it leads, if it is a file.
			if err := checkFileSize(f, maxItemBytes); err != nil {
				return nil, err
			}
		}
		items, perr := readNote(f, rel)
		if perr != nil {
			probs.add(perr)
			continue
		}
		in.Items = append(in.Items, items...)
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	in.Units = plural(len(files), "note")
	return in, nil
}

// readNote turns one note into its items.
func readNote(path, rel string) ([]Item, *InputError) {
	lines, err := readLines(path)
	if err != nil {
		return nil, inputErr(rel, "cannot read: %v", unwrapPathError(err))
	}
	fm, body, bodyLine, err := splitFrontMatter(lines)
	if err != nil {
		return nil, inputErr(rel+":1", "%v", err)
	}
	title := oneLine(fm.first("title"))
	if title == "" {
		title = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	ts := modTime(path)
	for _, k := range []string{"date", "created", "created_at"} {
		v := fm.first(k)
		if v == "" {
			continue
		}
		t, ok := parseDate(v)
		if !ok {
			return nil, inputErr(fmt.Sprintf("%s:%d", rel, fmLine(lines, k)), "%s %q is not a date; write it as 2024-03-01 or 2024-03-01T14:30:00Z", k, v)
		}
		ts = t
		break
	}
	noteTags := fm.tags()
	text := strings.TrimSpace(strings.Join(body, "\n"))
	// A note that starts with its title as a heading keeps it once.
	if lv, h, ok := headingLine(firstLine(text)); ok && lv == 1 && strings.EqualFold(h, title) {
		text = strings.TrimSpace(strings.TrimPrefix(text, firstLine(text)))
		for i, l := range body {
			if strings.TrimSpace(l) != "" {
				body, bodyLine = body[i+1:], bodyLine+i+1
				break
			}
		}
	}
	if text == "" {
		return nil, nil
	}
	mk := func(line int, section, t string) Item {
		tags := append(append([]string(nil), noteTags...), inlineTags(t)...)
		full := title + "\n\n" + t
		if section != "" {
			full = title + " › " + section + "\n\n" + t
		}
		return Item{
			Where: fmt.Sprintf("%s:%d", rel, line),
			Key:   "note\x00" + rel + "\x00" + section + "\x00" + clean(t),
			Text:  full, Tags: tags, Source: sourceNote, Timestamp: ts,
		}
	}
	if len(text) <= longNote {
		return []Item{mk(bodyLine, "", text)}, nil
	}
	var out []Item
	for _, s := range mdSections(body, bodyLine, 3) {
		if s.Body == "" {
			continue
		}
		out = append(out, mk(s.Line, s.Heading, s.Body))
	}
	return out, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// fmLine is the line of key in a note's front matter.
func fmLine(lines []string, key string) int {
	for i, l := range lines {
		if k, _, ok := strings.Cut(l, ":"); ok && strings.EqualFold(strings.TrimSpace(k), key) {
			return i + 1
		}
	}
	return 1
}
