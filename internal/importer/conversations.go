package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// conversationsFile reads conversations.json from path: the file, an
// unpacked export folder holding it, or the export's zip archive. name is
// how messages name it.
func conversationsFile(path string) (data []byte, name string, err error) {
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
	n, _ := f.Read(head)
	f.Close()
	if bytes.Equal(head[:n], []byte("PK\x03\x04")) {
		data, member, err := zipMember(path, "conversations.json")
		if err != nil {
			return nil, "", err
		}
		return data, filepath.Base(path) + ":" + member, nil
	}
	data, err = os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read %s: %w", path, unwrapPathError(err))
	}
	return data, filepath.Base(path), nil
}

// eachConversation decodes the list in data one element at a time,
// calling fn with each raw conversation and the line it starts on.
func eachConversation(data []byte, name string, fn func(i, line int, raw json.RawMessage) error) error {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	dec := json.NewDecoder(bytes.NewReader(data))
	t, err := dec.Token()
	if err != nil {
		return syntaxErr(data, name, err)
	}
	if t != json.Delim('[') {
		return inputErr(name+":1", "expected a list of conversations")
	}
	for i := 0; dec.More(); i++ {
		off := dec.InputOffset()
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
			off++
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return syntaxErr(data, name, err)
		}
		if err := fn(i, lineAt(data, off), raw); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return syntaxErr(data, name, err)
	}
	return nil
}

// syntaxErr names the line a JSON decoding error is on.
func syntaxErr(data []byte, name string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case asErr(err, &se):
		return inputErr(fmt.Sprintf("%s:%d", name, lineAt(data, se.Offset)), "not valid JSON: %s", jsonMsg(err))
	case asErr(err, &te):
		return inputErr(fmt.Sprintf("%s:%d", name, lineAt(data, te.Offset)), "%s", jsonMsg(err))
	}
	if err.Error() == "unexpected EOF" {
		return inputErr(fmt.Sprintf("%s:%d", name, lineAt(data, int64(len(data)))), "the file ends in the middle of the JSON; is it complete?")
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
func readConversationExport(path string, each func(in *Input, probs *Problems, name string, line, i int, raw json.RawMessage) bool) (*Input, error) {
	data, name, err := conversationsFile(path)
	if err != nil {
		return nil, err
	}
	in := &Input{}
	probs := &Problems{Path: path}
	convs := 0
	err = eachConversation(data, name, func(i, line int, raw json.RawMessage) error {
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
