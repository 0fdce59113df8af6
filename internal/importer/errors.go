package importer

import (
	"errors"
	"fmt"
	"strings"
)

// InputError is input that cannot be imported: bad syntax, a record of the
// wrong shape, a value beyond the engine's limits. Where names the file and
// the line or record.
type InputError struct {
	Where string
	Msg   string
}

func (e *InputError) Error() string {
	if e.Where == "" {
		return e.Msg
	}
	return e.Where + ": " + e.Msg
}

func inputErr(where, format string, args ...any) *InputError {
	return &InputError{Where: where, Msg: fmt.Sprintf(format, args...)}
}

// Problems are every InputError found in an input before anything was
// written; nothing was imported.
type Problems struct {
	Path string
	List []*InputError
	// More counts problems found beyond List.
	More int
}

// maxProblems bounds the problems a refusal lists.
const maxProblems = 10

func (p *Problems) add(e *InputError) {
	if len(p.List) < maxProblems {
		p.List = append(p.List, e)
	} else {
		p.More++
	}
}

func (p *Problems) err() error {
	if len(p.List) == 0 {
		return nil
	}
	return p
}

func (p *Problems) Error() string {
	var b strings.Builder
	n := len(p.List) + p.More
	if n == 1 {
		fmt.Fprintf(&b, "%s; nothing was imported", p.List[0].Error())
		return b.String()
	}
	fmt.Fprintf(&b, "%d problems in %s; nothing was imported:", n, p.Path)
	for _, e := range p.List {
		fmt.Fprintf(&b, "\n  %s", e.Error())
	}
	if p.More > 0 {
		fmt.Fprintf(&b, "\n  … and %d more", p.More)
	}
	return b.String()
}

// IsInputError reports whether err is about the input (its syntax, shape
// or values), not about infmem.
func IsInputError(err error) bool {
	var ie *InputError
	var p *Problems
	return errors.As(err, &ie) || errors.As(err, &p)
}
