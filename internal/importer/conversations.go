package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Conversation exports (ChatGPT's and Claude.ai's conversations.json) are
// one JSON list of conversations. Each user or assistant message becomes a
// conversation memory with its time, its speaker (user or assistant) and
// its conversation's id, so maintenance can summarise the conversation
// later; system, tool and empty messages are skipped. The list is decoded
// one conversation at a time, and errors name the line the conversation
// starts on.

// conversationsFile opens conversations.json at path: the file, an
// unpacked export folder holding it, or the export's zip archive. name is
// how messages name it. The caller closes rc.
func conversationsFile(path string) (rc io.ReadCloser, name string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot import %s: %w", path, unwrapPathError(err))
	}
	if fi.IsDir() {
		path = filepath.Join(path, "conversations.json")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot import %s: %w", path, unwrapPathError(err))
	}
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if bytes.Equal(head[:n], []byte("PK\x03\x04")) {
		f.Close()
		rc, member, err := openZipMember(path, "conversations.json")
		if err != nil {
			return nil, "", err
		}
		return rc, filepath.Base(path) + ":" + member, nil
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > maxExportBytes {
		f.Close()
		return nil, "", inputErr(filepath.Base(path), "the file is %s; the limit is %s", byteSize(fi.Size()), byteSize(maxExportBytes))
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, "", fmt.Errorf("cannot read %s: %w", path, err)
	}
	return f, filepath.Base(path), nil
}

// errTooBig and errConversationTooBig end reading past the limits.
var (
	errTooBig             = errors.New("input over its size limit")
	errConversationTooBig = errors.New("conversation over its size limit")
)

// lineReader reads a stream for a JSON decoder, refusing to read past
// limit bytes, or further than maxAhead bytes past mark (the start of the
// value being decoded: a decoder buffers a whole value), and counts the
// lines of what was read, so that an offset the decoder reports is named
// by its line without keeping the stream: it keeps only what was read
// since the last offset asked for.
type lineReader struct {
	r               io.Reader
	limit, maxAhead int64
	mark, read      int64
	// pending holds what was read from offset base on; lines counts the
	// newlines before base.
	pending []byte
	base    int64
	lines   int
}

func (l *lineReader) Read(p []byte) (int, error) {
	if l.read >= l.limit {
		return 0, errTooBig
	}
	if l.read-l.mark >= l.maxAhead {
		return 0, errConversationTooBig
	}
	room := min(l.limit-l.read, l.mark+l.maxAhead-l.read)
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.pending = append(l.pending, p[:n]...)
	l.read += int64(n)
	return n, err
}

// lineAt is the line offset off is on; offsets must not go back.
func (l *lineReader) lineAt(off int64) int {
	k := min(max(off-l.base, 0), int64(len(l.pending)))
	l.lines += bytes.Count(l.pending[:k], []byte("\n"))
	l.pending = l.pending[k:]
	if cap(l.pending) > 4*len(l.pending)+(1<<20) {
		l.pending = append([]byte(nil), l.pending...)
	}
	l.base += k
	return l.lines + 1
}

// eachConversation decodes the list r holds one element at a time,
// calling fn with each raw conversation and the line it starts on. It
// stops when ctx ends.
func eachConversation(ctx context.Context, r io.Reader, name string, fn func(i, line int, raw json.RawMessage) error) error {
	br := bufio.NewReader(r)
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\ufeff")) {
		br.Discard(3)
	}
	lr := &lineReader{r: br, limit: maxExportBytes, maxAhead: maxConversationBytes}
	fail := func(err error) error {
		switch {
		case errors.Is(err, errTooBig):
			return inputErr(name, "the file is over %s; the limit is %s", byteSize(maxExportBytes), byteSize(maxExportBytes))
		case errors.Is(err, errConversationTooBig):
			return inputErr(fmt.Sprintf("%s:%d", name, lr.lineAt(lr.mark)), "a conversation is over %s; the limit is %s", byteSize(maxConversationBytes), byteSize(maxConversationBytes))
		}
		return syntaxErrAt(name, lr.lineAt, lr.read, err)
	}
	dec := json.NewDecoder(lr)
	t, err := dec.Token()
	if err != nil {
		return fail(err)
	}
	if t != json.Delim('[') {
		return inputErr(name+":1", "expected a list of conversations")
	}
	for i := 0; dec.More(); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		off := dec.InputOffset()
		lr.mark = off
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fail(err)
		}
		// The value starts after the separators before it.
		if err := fn(i, lr.lineAt(valueStart(lr, off)), raw); err != nil {
			return err
		}
	}
	lr.mark = lr.read
	if _, err := dec.Token(); err != nil {
		return fail(err)
	}
	return nil
}

// valueStart is the offset of the first byte at or after off that is not
// a separator (space, comma): where the value read from off starts.
func valueStart(lr *lineReader, off int64) int64 {
	for k := max(off-lr.base, 0); k < int64(len(lr.pending)) && strings.IndexByte(" \t\r\n,", lr.pending[k]) >= 0; k++ {
		off++
	}
	return off
}

// syntaxErr names the line a JSON decoding error is on.
func syntaxErr(data []byte, name string, err error) error {
	return syntaxErrAt(name, func(off int64) int { return lineAt(data, off) }, int64(len(data)), err)
}

// syntaxErrAt is syntaxErr for a stream: lineOf names an offset's line,
// and end is how much was read.
func syntaxErrAt(name string, lineOf func(int64) int, end int64, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case asErr(err, &se):
		return inputErr(fmt.Sprintf("%s:%d", name, lineOf(se.Offset)), "not valid JSON: %s", jsonMsg(err))
	case asErr(err, &te):
		return inputErr(fmt.Sprintf("%s:%d", name, lineOf(te.Offset)), "%s", jsonMsg(err))
	}
	if err.Error() == "unexpected EOF" {
		return inputErr(fmt.Sprintf("%s:%d", name, lineOf(end)), "the file ends in the middle of the JSON; is it complete?")
	}
	return inputErr(name, "not valid JSON: %s", jsonMsg(err))
}

func asErr[T error](err error, target *T) bool {
	for err != nil {
		if t, ok := err.(T); ok {
			*target = t
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// convWhere names a conversation in messages.
func convWhere(name string, line, i int, title string) string {
	if title = snippet(title, 40); title != "" {
		return fmt.Sprintf("%s:%d (conversation %d, %q)", name, line, i+1, title)
	}
	return fmt.Sprintf("%s:%d (conversation %d)", name, line, i+1)
}

// readConversationExport reads a chat service's conversations file at
// path, calling each for every conversation (its position for messages,
// raw its JSON); each adds items to in and problems to probs, and says
// whether the conversation counts. Any problem refuses the whole input.
func readConversationExport(ctx context.Context, path string, each func(in *Input, probs *Problems, name string, line, i int, raw json.RawMessage) bool) (*Input, error) {
	rc, name, err := conversationsFile(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	in := &Input{}
	probs := &Problems{Path: path}
	convs := 0
	err = eachConversation(ctx, rc, name, func(i, line int, raw json.RawMessage) error {
		if each(in, probs, name, line, i, raw) {
			convs++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := probs.err(); err != nil {
		return nil, err
	}
	in.Units = plural(convs, "conversation")
	return in, nil
}

// checkConvID refuses a conversation without an id (field names where the
// export keeps it) or with one over the engine's limit.
func checkConvID(where, id, field string) *InputError {
	if id == "" {
		return inputErr(where, "the conversation has no %s", field)
	}
	if len(id) > maxConvIDLen {
		return inputErr(where, "the conversation id is %d bytes; the limit is %d", len(id), maxConvIDLen)
	}
	return nil
}
