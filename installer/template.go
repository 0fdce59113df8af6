package installer

import (
	"fmt"
	"strings"
)

// kardianos/service v1.3.0 renders service files with its own small template
// language and, when rendering fails, leaves an empty service file behind. Its
// renderer is unexported, so this file implements the same language (values,
// pipes, if/else, range, whitespace trimming, string or []string values only)
// to let us render, inspect and test our templates before the library ever
// sees them. A cross-check test renders the systemd unit through the library
// itself and compares the bytes.

// tmplFunc is a pipeline function; the library only supports string → string.
type tmplFunc func(string) (string, error)

type tmplNodeKind uint8

const (
	tmplText tmplNodeKind = iota
	tmplValue
	tmplIf
	tmplRange
)

type tmplNode struct {
	kind tmplNodeKind
	text string // literal text, or the key for the other kinds
	pipe []string
	body []tmplNode
	alt  []tmplNode
}

// tmplToken is either literal text or one {{ action }} with its trim markers.
type tmplToken struct {
	action     bool
	text       string
	trimBefore bool
	trimAfter  bool
}

func tokenizeTemplate(src string) ([]tmplToken, error) {
	var toks []tmplToken
	for src != "" {
		open := strings.Index(src, "{{")
		if open < 0 {
			toks = append(toks, tmplToken{text: src})
			break
		}
		if open > 0 {
			toks = append(toks, tmplToken{text: src[:open]})
		}
		end := strings.Index(src[open:], "}}")
		if end < 0 {
			return nil, fmt.Errorf(`unclosed "{{" in template`)
		}
		a := tmplToken{action: true, text: src[open+2 : open+end]}
		if strings.HasPrefix(a.text, "-") {
			a.trimBefore, a.text = true, a.text[1:]
		}
		if strings.HasSuffix(a.text, "-") {
			a.trimAfter, a.text = true, a.text[:len(a.text)-1]
		}
		a.text = strings.TrimSpace(a.text)
		toks = append(toks, a)
		src = src[open+end+2:]
	}
	// Trim markers eat the whitespace of the neighbouring literal in source
	// order, whatever the block structure.
	const ws = " \t\r\n"
	for i, t := range toks {
		if !t.action {
			continue
		}
		if t.trimBefore && i > 0 && !toks[i-1].action {
			toks[i-1].text = strings.TrimRight(toks[i-1].text, ws)
		}
		if t.trimAfter && i+1 < len(toks) && !toks[i+1].action {
			toks[i+1].text = strings.TrimLeft(toks[i+1].text, ws)
		}
	}
	return toks, nil
}

// parseTemplate parses src into a node tree.
func parseTemplate(src string) ([]tmplNode, error) {
	toks, err := tokenizeTemplate(src)
	if err != nil {
		return nil, err
	}
	p := &tmplParser{toks: toks}
	nodes, term, err := p.list()
	if err != nil {
		return nil, err
	}
	if term != "" {
		return nil, fmt.Errorf("unexpected {{%s}} in template", term)
	}
	return nodes, nil
}

type tmplParser struct {
	toks []tmplToken
	pos  int
}

// list parses nodes until the input ends or an {{else}}/{{end}} is met, which
// it returns as term for the caller to judge.
func (p *tmplParser) list() (nodes []tmplNode, term string, err error) {
	for p.pos < len(p.toks) {
		t := p.toks[p.pos]
		p.pos++
		if !t.action {
			if t.text != "" {
				nodes = append(nodes, tmplNode{kind: tmplText, text: t.text})
			}
			continue
		}
		kw, rest := t.text, ""
		if i := strings.IndexAny(t.text, " \t|"); i >= 0 {
			kw, rest = t.text[:i], strings.TrimSpace(t.text[i:])
		}
		switch kw {
		case "end", "else":
			return nodes, kw, nil
		case "if", "range":
			if rest == "" {
				return nil, "", fmt.Errorf("{{%s}} requires a key", kw)
			}
			n := tmplNode{kind: tmplIf, text: rest}
			if kw == "range" {
				n.kind = tmplRange
			}
			var stop string
			if n.body, stop, err = p.list(); err != nil {
				return nil, "", err
			}
			if stop == "else" && kw == "if" {
				if n.alt, stop, err = p.list(); err != nil {
					return nil, "", err
				}
			}
			if stop != "end" {
				return nil, "", fmt.Errorf("{{%s %s}} is not closed by {{end}}", kw, rest)
			}
			nodes = append(nodes, n)
		default:
			parts := strings.Split(t.text, "|")
			n := tmplNode{kind: tmplValue, text: strings.TrimSpace(parts[0])}
			for _, f := range parts[1:] {
				n.pipe = append(n.pipe, strings.TrimSpace(f))
			}
			nodes = append(nodes, n)
		}
	}
	return nodes, "", nil
}

// renderTemplate parses and executes src. Every value in data is a string or
// a []string, as in the library.
func renderTemplate(src string, data map[string]any, funcs map[string]tmplFunc) (string, error) {
	nodes, err := parseTemplate(src)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := execTemplate(&b, nodes, data, nil, funcs); err != nil {
		return "", err
	}
	return b.String(), nil
}

func execTemplate(b *strings.Builder, nodes []tmplNode, data map[string]any, dot any, funcs map[string]tmplFunc) error {
	for _, n := range nodes {
		if n.kind == tmplText {
			b.WriteString(n.text)
			continue
		}
		var v any
		if n.text == "." {
			v = dot
		} else {
			var ok bool
			if v, ok = data[n.text]; !ok {
				return fmt.Errorf("unknown template key %q", n.text)
			}
		}
		switch n.kind {
		case tmplValue:
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("template key %q is not a string", n.text)
			}
			for _, name := range n.pipe {
				f, ok := funcs[name]
				if !ok {
					return fmt.Errorf("unknown template function %q", name)
				}
				var err error
				if s, err = f(s); err != nil {
					return err
				}
			}
			b.WriteString(s)
		case tmplIf:
			branch := n.alt
			if tmplTruthy(v) {
				branch = n.body
			}
			if err := execTemplate(b, branch, data, dot, funcs); err != nil {
				return err
			}
		case tmplRange:
			items, ok := v.([]string)
			if !ok {
				return fmt.Errorf("template key %q is not a list", n.text)
			}
			for _, item := range items {
				if err := execTemplate(b, n.body, data, item, funcs); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func tmplTruthy(v any) bool {
	switch t := v.(type) {
	case string:
		return t != ""
	case []string:
		return len(t) > 0
	}
	return false
}
