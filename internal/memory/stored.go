package memory

import "strings"

// Stored reports whether a live memory of scope already says text, as
// Store would find it (the same text once normalised, letter case and
// spacing aside), and that memory's id. An empty scope is the default
// scope; a scope that does not exist holds nothing. It changes nothing:
// an import's dry run asks it of every item.
func (e *Engine) Stored(scope, text string) (string, bool) {
	scope = strings.TrimSpace(scope)
	if scope == "" {
		scope = e.opts.DefaultScope
	}
	s, ok := e.scopes.Get(scope)
	if !ok {
		return "", false
	}
	text = normalizeContent(text)
	if text == "" {
		return "", false
	}
	id, ok := e.index().Duplicate(s.Name, contentKey(text))
	if !ok {
		return "", false
	}
	return id.Hex(), true
}
