package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes, decided here only.
const (
	exitOK      = 0
	exitFailure = 1 // the operation failed
	exitUsage   = 2 // bad command line
	exitConfig  = 3 // bad or unreadable configuration or data root
)

// usageError is a bad command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// configError is a configuration or data-root problem found before any work.
type configError struct{ err error }

func (e configError) Error() string { return e.err.Error() }
func (e configError) Unwrap() error { return e.err }

// report prints err the way every subcommand's errors are printed — to
// stderr, prefixed with the program name, hints on their own lines — and
// returns the exit code for it.
func report(stderr io.Writer, err error) int {
	if err == nil || errors.Is(err, errHelpShown) {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	code := exitFailure
	var ue usageError
	var ce configError
	switch {
	case errors.As(err, &ue):
		code = exitUsage
	case errors.As(err, &ce):
		code = exitConfig
	}
	msg := strings.TrimRight(err.Error(), "\n")
	first, rest, _ := strings.Cut(msg, "\n")
	fmt.Fprintf(stderr, "infmem: %s\n", first)
	if rest != "" {
		fmt.Fprintln(stderr, rest)
	}
	return code
}
