package binio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

// encodeAll writes one of everything, through a Writer with the given
// output (nil: in memory).
func encodeAll(out io.Writer, chunk int) *Writer {
	w := &Writer{}
	if out != nil {
		w = NewWriter(out, chunk)
	}
	w.Header(Format{Magic: "MAGC", Version: 7})
	w.Uvarint(300)
	w.Varint(-5)
	w.Uint32(0xdeadbeef)
	w.Uint64(1 << 40)
	w.Float32(1.5)
	w.Float64(math.Pi)
	w.String("héllo")
	w.String("")
	w.Section(func(out io.Writer) error {
		_, err := out.Write([]byte(strings.Repeat("s", 100)))
		return err
	})
	w.Uvarint(math.MaxUint64)
	return w
}

func TestRoundTrip(t *testing.T) {
	var streamed bytes.Buffer
	w := encodeAll(&streamed, 16)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	mem := encodeAll(nil, 0).Bytes()
	if !bytes.Equal(streamed.Bytes(), mem) || w.Len() != int64(len(mem)) {
		t.Fatalf("streamed %d bytes, in memory %d, Len %d", streamed.Len(), len(mem), w.Len())
	}
	// The varints are the standard library's.
	want := binary.AppendUvarint([]byte("MAGC\x07"), 300)
	if !bytes.HasPrefix(mem, want) {
		t.Fatalf("prefix %x, want %x", mem[:len(want)], want)
	}

	r := NewReader(bytes.NewReader(mem), int64(len(mem)), 16)
	if r.Header(Format{Magic: "MAGC", Version: 7}) != nil || r.Uvarint() != 300 || r.Varint() != -5 || r.Uint32() != 0xdeadbeef ||
		r.Uint64() != 1<<40 || r.Float32() != 1.5 || r.Float64() != math.Pi || r.String(10) != "héllo" || r.String(10) != "" {
		t.Fatalf("decoded wrong: %v", r.Err())
	}
	r.Section(func(in io.Reader) error {
		b := make([]byte, 10) // read part of it: the rest is skipped
		_, err := io.ReadFull(in, b)
		return err
	})
	if r.Uvarint() != math.MaxUint64 || r.Err() != nil || r.Remaining() != 0 {
		t.Fatalf("after the section: err %v, remaining %d", r.Err(), r.Remaining())
	}
	if r.Byte(); !errors.Is(r.Err(), io.EOF) {
		t.Fatalf("read past the end: %v", r.Err())
	}
}

// TestCountBounded: a count larger than the input could hold is refused
// before anything is sized for it, and the error sticks.
func TestCountBounded(t *testing.T) {
	data := binary.AppendUvarint(nil, 1<<40)
	data = append(data, make([]byte, 100)...)
	r := NewReader(bytes.NewReader(data), int64(len(data)), 64)
	if n := r.Count(1 << 50); n != 0 || r.Err() == nil {
		t.Fatalf("count %d accepted", n)
	}
	if r.Uvarint() != 0 || r.String(10) != "" || r.Bytes(1) != nil {
		t.Fatal("reads after an error returned data")
	}

	// Within the input but over the caller's limit.
	r = NewReader(bytes.NewReader([]byte{50, 0}), 2, 64)
	if r.Count(10); r.Err() == nil {
		t.Fatal("count over the limit accepted")
	}
	// Bounded by what remains, not by the whole input.
	data = append(binary.AppendUvarint([]byte{9, 9, 9, 9}, 5), 1, 2, 3)
	r = NewReader(bytes.NewReader(data), int64(len(data)), 64)
	r.Full(make([]byte, 4))
	if r.Count(100); r.Err() == nil {
		t.Fatal("count beyond the remaining bytes accepted")
	}
	// A section's size bounds the reader made over it.
	w := &Writer{}
	w.Section(func(out io.Writer) error {
		_, err := out.Write(binary.AppendUvarint(nil, 1000))
		return err
	})
	r = NewReader(bytes.NewReader(w.Bytes()), -1, 64)
	r.Section(func(in io.Reader) error {
		inner := NewReader(in, -1, 64)
		inner.Count(1 << 20)
		return inner.Err()
	})
	if r.Err() == nil {
		t.Fatal("a count larger than its section accepted")
	}
	// A section longer than the input.
	r = NewReader(bytes.NewReader([]byte{100, 1, 2}), 3, 64)
	r.Section(func(io.Reader) error { t.Fatal("section of 100 bytes opened in 3"); return nil })
	if r.Err() == nil {
		t.Fatal("no error")
	}
}

func TestHeader(t *testing.T) {
	var w Writer
	w.Header(Format{Magic: "ABCD", Version: 2})
	w.Byte(1)
	read := func(f Format) (*Reader, error) {
		r := NewReader(bytes.NewReader(w.Bytes()), int64(len(w.Bytes())), 16)
		return r, r.Header(f)
	}
	if r, err := read(Format{Magic: "ABCD", Version: 2}); err != nil || r.Byte() != 1 {
		t.Fatalf("own header: %v", err)
	}
	var ve *VersionError
	if r, err := read(Format{Magic: "ABCD", Version: 3}); !errors.As(err, &ve) || ve.Got != 2 || ve.Want != 3 || r.Err() != err {
		t.Fatalf("other version: %v", err)
	}
	for _, f := range []Format{{Magic: "ABCE", Version: 2}, {Magic: "ABCDEFGH", Version: 2}} {
		if r, err := read(f); !errors.Is(err, ErrFormat) || r.Byte() != 0 {
			t.Fatalf("magic %q: %v", f.Magic, err)
		}
	}
}

func TestVarintOverflow(t *testing.T) {
	for _, data := range [][]byte{
		bytes.Repeat([]byte{0xff}, 11),
		append(bytes.Repeat([]byte{0xff}, 9), 0x02),
	} {
		r := NewReader(bytes.NewReader(data), -1, 64)
		if r.Uvarint(); r.Err() == nil {
			t.Fatalf("%x accepted", data)
		}
		_, err := binary.ReadUvarint(bytes.NewReader(data))
		if err == nil {
			t.Fatalf("the standard library accepts %x", data)
		}
	}
	r := NewReader(bytes.NewReader([]byte{0x80}), -1, 64)
	if r.Uvarint(); !errors.Is(r.Err(), io.ErrUnexpectedEOF) {
		t.Fatalf("truncated varint: %v", r.Err())
	}
}

type failing struct{ after int }

func (f *failing) Write(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return len(p), nil
}

func TestWriterStickyError(t *testing.T) {
	w := encodeAll(&failing{after: 1}, 8)
	if w.Flush() == nil || w.Err() == nil {
		t.Fatal("a failed write was not reported")
	}
	w = &Writer{}
	w.Section(func(io.Writer) error { return errors.New("cannot encode") })
	w.Uvarint(1)
	if w.Err() == nil {
		t.Fatal("a failed section was not reported")
	}
	calls := 0
	w = &Writer{}
	w.Section(func(out io.Writer) error {
		calls++
		_, err := out.Write(make([]byte, calls))
		return err
	})
	if w.Err() == nil {
		t.Fatal("a section that wrote differently the second time was accepted")
	}
}

// FuzzReader: any input is decoded or refused without a panic, and no read
// allocates more than the input holds.
func FuzzReader(f *testing.F) {
	f.Add(encodeAll(nil, 0).Bytes())
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), int64(len(data)), 16)
		for r.Err() == nil {
			switch r.Byte() % 4 {
			case 0:
				if s := r.String(1 << 30); len(s) > len(data) {
					t.Fatalf("string of %d bytes from %d", len(s), len(data))
				}
			case 1:
				r.Section(func(in io.Reader) error {
					inner := NewReader(in, -1, 16)
					if n := inner.Count(1 << 30); n > len(data) {
						t.Fatalf("count %d from %d bytes", n, len(data))
					}
					return inner.Err()
				})
			case 2:
				r.Varint()
			default:
				if n := r.Count(1 << 30); n > len(data) {
					t.Fatalf("count %d from %d bytes", n, len(data))
				}
			}
		}
	})
}
