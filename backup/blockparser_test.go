package backup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/mongodb/mongo-tools/common/archive"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// recorder is a ParserConsumer that writes down every call, and fails the
// failAt-th one (0: none).
type recorder struct {
	calls  []string
	failAt int
}

func (r *recorder) call(kind string, b []byte) error {
	r.calls = append(r.calls, fmt.Sprintf("%s %x", kind, b))
	if len(r.calls) == r.failAt {
		return fmt.Errorf("consumer refuses call %d", r.failAt)
	}
	return nil
}
func (r *recorder) HeaderBSON(b []byte) error { return r.call("header", b) }
func (r *recorder) BodyBSON(b []byte) error   { return r.call("body", b) }
func (r *recorder) End() error                { return r.call("end", nil) }

// TestBlockParserMatchesTools: blockParser makes the same consumer calls
// with the same bytes and returns the same error as mongo-tools'
// archive.Parser, on a well-formed stream of blocks (documents small and
// past the first buffer's size), on every truncation of it, on damaged
// bytes and with a consumer that refuses a call.
func TestBlockParserMatchesTools(t *testing.T) {
	doc := func(kv ...any) []byte {
		d := bson.D{}
		for i := 0; i < len(kv); i += 2 {
			d = append(d, bson.E{Key: kv[i].(string), Value: kv[i+1]})
		}
		b, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	term := []byte{0xff, 0xff, 0xff, 0xff}
	var stream []byte
	for i, n := range []int{3, 0, 2} {
		stream = append(stream, doc("db", "d", "collection", fmt.Sprint("c", i))...)
		for j := range n {
			stream = append(stream, doc("_id", int32(j), "text", string(bytes.Repeat([]byte{'a' + byte(j)}, 10+j*40000)))...)
		}
		stream = append(stream, term...)
	}
	run := func(in []byte, failAt int) (calls []string, err error) {
		r := &recorder{failAt: failAt}
		err = (&blockParser{in: bytes.NewReader(in)}).readAllBlocks(r)
		return r.calls, err
	}
	tools := func(in []byte, failAt int) (calls []string, err error) {
		r := &recorder{failAt: failAt}
		err = (&archive.Parser{In: bytes.NewReader(in)}).ReadAllBlocks(r)
		return r.calls, err
	}
	errText := func(err error) string {
		if err == nil {
			return "<nil>"
		}
		return fmt.Sprintf("%s (EOF %v, unexpected EOF %v)", err, err == io.EOF, errors.Is(err, io.ErrUnexpectedEOF))
	}
	compare := func(what string, in []byte, failAt int) {
		t.Helper()
		gc, ge := run(in, failAt)
		wc, we := tools(in, failAt)
		if fmt.Sprint(gc) != fmt.Sprint(wc) || errText(ge) != errText(we) {
			t.Fatalf("%s: blockParser %d calls, %s; archive.Parser %d calls, %s", what, len(gc), errText(ge), len(wc), errText(we))
		}
	}
	compare("whole", stream, 0)
	if c, err := run(stream, 0); err != nil || len(c) != 9 {
		t.Fatalf("whole stream: %d calls, %v", len(c), err)
	}
	for n := range len(stream) {
		if n < 64 || n%1999 == 0 || n > len(stream)-64 {
			compare(fmt.Sprintf("truncated to %d", n), stream[:n], 0)
		}
	}
	for k := 1; k <= 9; k++ {
		compare(fmt.Sprintf("consumer refuses call %d", k), stream, k)
	}
	compare("two terminators", append(append([]byte{}, term...), stream...), 0)
	compare("size past the limit", append([]byte{0, 0, 0, 2}, stream...), 0)
	compare("size too small", append([]byte{4, 0, 0, 0}, stream...), 0)
	noNull := bytes.Clone(stream)
	noNull[int(noNull[0])|int(noNull[1])<<8-1] = 1 // the first header's last byte
	compare("a header without its null byte", noNull, 0)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 60 {
		d := bytes.Clone(stream)
		for range 1 + rng.IntN(3) {
			d[rng.IntN(len(d))] = byte(rng.IntN(256))
		}
		compare("damaged", d, 0)
	}
}

// TestReadPreludeMatchesTools: blockParser.readPrelude reads what
// mongo-tools' Prelude.Read reads, with the same error (or the same
// panic: readArchive recovers from both), on a real archive's prelude, on
// every truncation of it and on damaged bytes; and leaves the reader where
// the blocks begin.
func TestReadPreludeMatchesTools(t *testing.T) {
	env := openTestStore(t)
	populate(t, env.store, 20)
	var buf bytes.Buffer
	must(t, writeArchive(context.Background(), env.store, &buf, newReporter(nil, "backup")))
	data := buf.Bytes()
	read := func(in []byte, ours bool) (p archive.Prelude, rest int, res string) {
		defer func() {
			if r := recover(); r != nil {
				res = fmt.Sprint("panic: ", r)
			}
		}()
		r := bytes.NewReader(in)
		var err error
		if ours {
			err = (&blockParser{in: r}).readPrelude(&p)
		} else {
			err = p.Read(r)
		}
		return p, r.Len(), fmt.Sprint(err)
	}
	compare := func(what string, in []byte) string {
		t.Helper()
		gp, gr, ge := read(in, true)
		wp, wr, we := read(in, false)
		if ge != we || gr != wr || !reflect.DeepEqual(gp, wp) {
			t.Fatalf("%s: readPrelude %s, %d bytes left, %+v; Prelude.Read %s, %d left, %+v", what, ge, gr, gp, we, wr, wp)
		}
		return ge
	}
	if res := compare("whole", data); res != "<nil>" {
		t.Fatal(res)
	}
	p, rest, _ := read(data, true)
	if len(p.NamespaceMetadatas) != 5 || rest == 0 || rest == len(data) {
		t.Fatalf("prelude of %d collections, %d of %d bytes left", len(p.NamespaceMetadatas), rest, len(data))
	}
	end := len(data) - rest
	// Each Prelude.Read zeroes a 16 MB parser: every length near the
	// prelude's ends, every 23rd between.
	for n := range end + 8 {
		if n < 48 || n%23 == 0 || n > end-48 {
			compare(fmt.Sprintf("truncated to %d", n), data[:n])
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 60 {
		d := bytes.Clone(data[:end+64])
		for range 1 + rng.IntN(3) {
			d[rng.IntN(end)] = byte(rng.IntN(256))
		}
		compare("damaged", d)
	}
}
