// Package logging owns the service log: slog records in text form, written
// to a file that is rotated by size (logs/memory_service.log and its
// numbered predecessors), and echoed to a console when one is watching.
// Nothing here ever writes to stdout, which carries MCP in the processes
// that log.
package logging

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// FileName is the service log's name in the data root's logs/ directory.
const FileName = "memory_service.log"

// Defaults of Options.
const (
	DefaultMaxBytes = 10 << 20
	DefaultKeep     = 5
)

// Options configures a log.
type Options struct {
	// Path is the log file.
	Path string
	// Level is debug, info, warn or error (default info).
	Level string
	// MaxBytes is the size at which the file is rotated (default 10 MB).
	MaxBytes int64
	// Keep is how many rotated files are kept beside the current one
	// (default 5).
	Keep int
	// Console, when set, receives every record too (the daemon passes
	// stderr when it runs in a terminal).
	Console io.Writer
}

// Log is an open service log.
type Log struct {
	// Logger writes to the file (and the console).
	Logger *slog.Logger
	file   *RotatingFile
}

// Open opens (creating, 0600) the log file and builds the logger.
func Open(opts Options) (*Log, error) {
	level, err := ParseLevel(opts.Level)
	if err != nil {
		return nil, err
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Keep <= 0 {
		opts.Keep = DefaultKeep
	}
	f, err := OpenRotating(opts.Path, opts.MaxBytes, opts.Keep)
	if err != nil {
		return nil, err
	}
	var w io.Writer = f
	if opts.Console != nil {
		w = tee{file: f, console: opts.Console}
	}
	return &Log{Logger: slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), file: f}, nil
}

// Close closes the file; records logged afterwards are dropped.
func (l *Log) Close() error { return l.file.Close() }

// ParseLevel reads debug, info, warn or error (any case); "" is info.
func ParseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if s == "" {
		return slog.LevelInfo, nil
	}
	switch strings.ToLower(s) {
	case "debug", "info", "warn", "error":
	default:
		return l, fmt.Errorf("log level %q is not one of debug, info, warn, error", s)
	}
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return l, fmt.Errorf("log level %q: %w", s, err)
	}
	return l, nil
}

// tee writes each record to the file, then to the console; a console that
// went away (a closed terminal) never stops the file from being written.
type tee struct {
	file    io.Writer
	console io.Writer
}

func (t tee) Write(p []byte) (int, error) {
	n, err := t.file.Write(p)
	_, _ = t.console.Write(p)
	return n, err
}
