package mongod

import (
	"io"
	"os"
	"strings"
)

const (
	tailLines    = 20
	tailMaxBytes = 64 << 10
	tailLineMax  = 2000 // mongod logs one JSON document per line; startup lines run long
)

// tail returns the last lines of the log file, for error messages that must
// show why mongod would not start or keeps crashing.
func tail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "(log unavailable: " + err.Error() + ")"
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "(log unavailable: " + err.Error() + ")"
	}
	off := max(st.Size()-tailMaxBytes, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return "(log unavailable: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:] // the first line was cut by the window
	}
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	for i, l := range lines {
		if len(l) > tailLineMax {
			lines[i] = l[:tailLineMax] + "…"
		}
	}
	if len(lines) == 1 && lines[0] == "" {
		return "(log is empty)"
	}
	return strings.Join(lines, "\n")
}
