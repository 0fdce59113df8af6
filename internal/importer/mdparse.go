package importer

import (
	"os"
	"regexp"
	"strings"
	"time"
)

// This file reads the Markdown that memory files and notes are written in,
// as far as importing needs: headings, list items, paragraphs and fenced
// code, each with the line it starts on.

// mdUnit is a piece of a Markdown document that can become a memory: a
// top-level list item (with what is nested under it) or the prose of a
// section.
type mdUnit struct {
	// Heading is the innermost heading above the unit ("" before any).
	Heading string
	// Path is every heading above it, outermost first.
	Path   []string
	Line   int
	Bullet bool
	Text   string
}

// mdSection is the text under one heading, up to the next heading of any
// level.
type mdSection struct {
	Heading string
	Level   int
	Line    int
	Body    string
}

var (
	headingRE = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$`)
	bulletRE  = regexp.MustCompile(`^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)`)
	fenceRE   = regexp.MustCompile("^ {0,3}(```+|~~~+)")
)

// heading parses a heading line.
func heading(line string) (level int, text string, ok bool) {
	m := headingRE.FindStringSubmatch(line)
	if m == nil {
		return 0, "", false
	}
	return len(m[1]), strings.TrimSpace(m[2]), true
}

// mdLines walks lines, calling fn for each with whether it is inside a
// fenced code block (fence lines included).
func mdLines(lines []string, fn func(i int, line string, inCode bool)) {
	fence := ""
	for i, l := range lines {
		if m := fenceRE.FindStringSubmatch(l); m != nil {
			switch {
			case fence == "":
				fence = m[1][:1]
				fn(i, l, true)
				continue
			case strings.HasPrefix(m[1], fence):
				fence = ""
				fn(i, l, true)
				continue
			}
		}
		fn(i, l, fence != "")
	}
}

// mdUnits splits a memory file into units: each top-level list item with
// its continuation lines and nested items, and the other text of each
// section as one unit. first is the line number of lines[0].
func mdUnits(lines []string, first int) []mdUnit {
	var out []mdUnit
	var path []string
	var levels []int
	var prose, bullet []string
	proseLine, bulletLine := 0, 0
	heading := func() string {
		if len(path) == 0 {
			return ""
		}
		return path[len(path)-1]
	}
	flushBullet := func() {
		if t := strings.TrimSpace(strings.Join(bullet, "\n")); t != "" {
			out = append(out, mdUnit{Heading: heading(), Path: append([]string(nil), path...), Line: bulletLine, Bullet: true, Text: t})
		}
		bullet = nil
	}
	flushProse := func() {
		if t := strings.TrimSpace(strings.Join(prose, "\n")); t != "" {
			out = append(out, mdUnit{Heading: heading(), Path: append([]string(nil), path...), Line: proseLine, Text: t})
		}
		prose = nil
	}
	blank := false
	mdLines(lines, func(i int, l string, inCode bool) {
		n := first + i
		if !inCode {
			if lv, text, ok := headingLine(l); ok {
				flushBullet()
				flushProse()
				for len(levels) > 0 && levels[len(levels)-1] >= lv {
					levels, path = levels[:len(levels)-1], path[:len(path)-1]
				}
				levels, path = append(levels, lv), append(path, text)
				blank = false
				return
			}
		}
		trimmed := strings.TrimSpace(l)
		indented := len(l)-len(strings.TrimLeft(l, " \t")) >= 2
		switch {
		case !inCode && bulletRE.MatchString(l) && !indented:
			flushBullet()
			bullet, bulletLine = []string{strings.TrimSpace(bulletRE.ReplaceAllString(l, ""))}, n
		case bullet != nil && (inCode || indented || (trimmed != "" && !blank)):
			// Nested items, continuation lines and code under an item
			// stay with it.
			bullet = append(bullet, strings.TrimRight(l, " \t"))
		case trimmed == "":
			if bullet == nil && prose != nil {
				prose = append(prose, "")
			}
		default:
			flushBullet()
			if prose == nil {
				proseLine = n
			}
			prose = append(prose, strings.TrimRight(l, " \t"))
		}
		blank = trimmed == ""
	})
	flushBullet()
	flushProse()
	return out
}

// headingLine is heading without the empty "#" lines a note may hold.
func headingLine(l string) (int, string, bool) {
	lv, text, ok := heading(l)
	if !ok || text == "" {
		return 0, "", false
	}
	return lv, text, true
}

// mdSections splits a document at its headings of level maxLevel or
// higher (1 is highest); text before the first heading is a section with
// no heading.
func mdSections(lines []string, first, maxLevel int) []mdSection {
	var out []mdSection
	cur := mdSection{Line: first}
	var body []string
	flush := func() {
		cur.Body = strings.TrimSpace(strings.Join(body, "\n"))
		if cur.Body != "" || cur.Heading != "" {
			out = append(out, cur)
		}
		body = nil
	}
	mdLines(lines, func(i int, l string, inCode bool) {
		if !inCode {
			if lv, text, ok := headingLine(l); ok && lv <= maxLevel {
				flush()
				cur = mdSection{Heading: text, Level: lv, Line: first + i}
				return
			}
		}
		body = append(body, strings.TrimRight(l, " \t"))
	})
	flush()
	return out
}

// inlineTagRE finds #tags in prose: a # after a space or at a line start,
// then a letter or underscore, then letters, digits, _ - and /.
var inlineTagRE = regexp.MustCompile(`(?:^|[\s(\[,;])#([\p{L}_][\p{L}\p{N}_/-]*)`)

// inlineTags finds the #tags of text, outside code blocks, inline code
// and headings.
func inlineTags(text string) []string {
	var out []string
	mdLines(strings.Split(text, "\n"), func(_ int, l string, inCode bool) {
		if inCode {
			return
		}
		if _, _, ok := heading(l); ok {
			return
		}
		l = stripInlineCode(l)
		for _, m := range inlineTagRE.FindAllStringSubmatch(l, -1) {
			out = append(out, strings.TrimRight(m[1], "/-"))
		}
	})
	return out
}

var inlineCodeRE = regexp.MustCompile("`[^`]*`")

func stripInlineCode(l string) string { return inlineCodeRE.ReplaceAllString(l, "") }

// frontMatter is a note's YAML front matter, as far as importing reads
// it: scalar values, inline lists and block lists.
type frontMatter map[string][]string

// splitFrontMatter separates a "---" front matter block from the body;
// bodyLine is the line number of the first body line.
func splitFrontMatter(lines []string) (fm frontMatter, body []string, bodyLine int, err error) {
	if len(lines) == 0 || strings.TrimSpace(strings.TrimPrefix(lines[0], "\ufeff")) != "---" {
		return nil, lines, 1, nil
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if t := strings.TrimSpace(lines[i]); t == "---" || t == "..." {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, nil, 0, errFrontMatterOpen
	}
	fm = frontMatter{}
	key := ""
	for _, l := range lines[1:end] {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if strings.HasPrefix(t, "- ") || t == "-" {
			if key != "" {
				if v := yamlScalar(strings.TrimSpace(strings.TrimPrefix(t, "-"))); v != "" {
					fm[key] = append(fm[key], v)
				}
			}
			continue
		}
		if l != strings.TrimLeft(l, " \t") {
			// A nested mapping: not something importing reads.
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		fm[key] = nil
		switch {
		case v == "":
		case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"):
			for _, e := range strings.Split(v[1:len(v)-1], ",") {
				if e = yamlScalar(strings.TrimSpace(e)); e != "" {
					fm[key] = append(fm[key], e)
				}
			}
		default:
			fm[key] = []string{yamlScalar(v)}
		}
	}
	return fm, lines[end+1:], end + 2, nil
}

type fmError string

func (e fmError) Error() string { return string(e) }

const errFrontMatterOpen = fmError("the front matter opened with --- is never closed")

// yamlScalar unquotes a YAML scalar and drops a trailing comment.
func yamlScalar(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v
}

// first is the first value of key.
func (fm frontMatter) first(keys ...string) string {
	for _, k := range keys {
		if v := fm[k]; len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// tags reads the tags key: a list, or one string of tags separated by
// commas or spaces.
func (fm frontMatter) tags() []string {
	var out []string
	for _, k := range []string{"tags", "tag"} {
		vs := fm[k]
		if len(vs) == 1 {
			vs = strings.FieldsFunc(vs[0], func(r rune) bool { return r == ',' || r == ' ' })
		}
		for _, v := range vs {
			if v = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(v), "#")); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// The date layouts front matter uses.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"}

// parseDate reads a front-matter date; times without a zone are local.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		if t, err := time.ParseInLocation(l, s, time.Local); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// modTime is a file's modification time (zero when it cannot be read).
func modTime(path string) time.Time {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}
