package mongostore

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// FerretDB v1.24 keeps each document of the embedded engine as one JSON
// text in SQLite ("sjson"): a schema under "$s" (each field's type, and the
// order of the fields), then the fields' values as plain JSON. Reading a
// document through FerretDB costs 120–290 µs at 100k memories, most of it
// in FerretDB's own decoding; converting the text to BSON here costs a few
// microseconds. Only whole-collection reads (rawscan.go) use this, and
// RecordUses (rawuses.go) edits two fields of the text in place.
//
// The encoding, as FerretDB v1.24 writes it: a document is
// {"$s":{"p":{FIELD:ELEM,…},"$k":[FIELD,…]},FIELD:VALUE,…}; ELEM is
// {"t":TYPE} plus, for an object, "$s" (its schema); for an array, "i"
// (one ELEM per item); for binData, "s" (the subtype); for a regex, "o"
// (its options). Values: double, int and long as JSON numbers; string as a
// JSON string; objectId as 24 hex digits; binData as base64; bool; date as
// milliseconds since the epoch; timestamp as an unsigned number; regex as
// its pattern; null; an object as {FIELD:VALUE,…} in its schema's order;
// an array as [VALUE,…].

type sjsonSchema struct {
	P map[string]*sjsonElem `json:"p"`
	K []string              `json:"$k"`
}

type sjsonElem struct {
	T string       `json:"t"`
	S *sjsonSchema `json:"$s"`
	O *string      `json:"o"`
	I []*sjsonElem `json:"i"`
	B *int         `json:"s"`
}

// sjsonDecoder converts sjson documents to BSON. Documents of a collection
// mostly share a handful of schemas, which it keeps parsed. Not safe for
// concurrent use.
type sjsonDecoder struct {
	schemas map[string]*sjsonSchema
	// recent holds the schemas of the last documents, by their text:
	// a document whose text starts with one of them has that schema, which
	// then needs neither a pass over its text nor a map lookup by it.
	recent [4]recentSchema
	next   int
	// tmp is the readers' scratch, kept from one document to the next.
	tmp []byte
}

type recentSchema struct {
	raw []byte
	sch *sjsonSchema
}

const maxCachedSchemas = 256

// appendDoc appends the BSON form of the sjson document data to dst.
func (d *sjsonDecoder) appendDoc(dst, data []byte) ([]byte, error) {
	r := sjsonReader{b: data, tmp: d.tmp}
	defer func() { d.tmp = r.tmp }()
	r.ws()
	if !r.eat('{') {
		return nil, r.fail("a document must start with {")
	}
	r.ws()
	key, err := r.str(r.tmp[:0])
	if err == nil {
		r.tmp = key
	}
	if err != nil || string(key) != "$s" {
		return nil, r.fail(`a document must start with its schema "$s"`)
	}
	r.ws()
	if !r.eat(':') {
		return nil, r.fail("expected :")
	}
	r.ws()
	// A schema is one complete JSON object, so a text that starts with a
	// recent one's holds exactly that one there.
	for _, rs := range d.recent {
		if rs.sch != nil && bytes.HasPrefix(data[r.i:], rs.raw) {
			r.i += len(rs.raw)
			return r.fields(dst, rs.sch, true)
		}
	}
	start := r.i
	if err := r.skip(); err != nil {
		return nil, err
	}
	raw := data[start:r.i]
	sch := d.schemas[string(raw)]
	defer func() {
		if sch != nil {
			d.recent[d.next] = recentSchema{raw: bytes.Clone(raw), sch: sch}
			d.next = (d.next + 1) % len(d.recent)
		}
	}()
	if sch == nil {
		sch = new(sjsonSchema)
		if err := json.Unmarshal(raw, sch); err != nil {
			return nil, fmt.Errorf("sjson: bad schema: %w", err)
		}
		if d.schemas == nil || len(d.schemas) >= maxCachedSchemas {
			d.schemas = map[string]*sjsonSchema{}
		}
		d.schemas[string(raw)] = sch
	}
	return r.fields(dst, sch, true)
}

type sjsonReader struct {
	b   []byte
	i   int
	tmp []byte
}

func (r *sjsonReader) fail(msg string) error {
	return fmt.Errorf("sjson: %s at byte %d", msg, r.i)
}

func (r *sjsonReader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *sjsonReader) eat(c byte) bool {
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// fields reads the fields of an object whose schema is sch (the opening {
// already read; with afterSchema, its "$s" too) and appends them as a
// BSON document.
func (r *sjsonReader) fields(dst []byte, sch *sjsonSchema, afterSchema bool) ([]byte, error) {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	n := 0
	first := !afterSchema
	for {
		r.ws()
		if r.eat('}') {
			break
		}
		if !first {
			if !r.eat(',') {
				return nil, r.fail("expected , or }")
			}
			r.ws()
		}
		first = false
		key, err := r.str(r.tmp[:0])
		if err != nil {
			return nil, err
		}
		r.tmp = key
		if n >= len(sch.K) || sch.K[n] != string(key) {
			return nil, r.fail(fmt.Sprintf("field %q is not the schema's next field", key))
		}
		el := sch.P[sch.K[n]]
		if el == nil {
			return nil, r.fail(fmt.Sprintf("field %q has no type", key))
		}
		r.ws()
		if !r.eat(':') {
			return nil, r.fail("expected :")
		}
		r.ws()
		if dst, err = r.value(dst, sch.K[n], el); err != nil {
			return nil, err
		}
		n++
	}
	if n != len(sch.K) {
		return nil, r.fail("fields missing from a document")
	}
	return closeDoc(dst, at)
}

func closeDoc(dst []byte, at int) ([]byte, error) {
	dst = append(dst, 0)
	if len(dst)-at > math.MaxInt32 {
		return nil, errors.New("sjson: document too large")
	}
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at))
	return dst, nil
}

// BSON element types.
const (
	bsonDouble    = 0x01
	bsonString    = 0x02
	bsonDocument  = 0x03
	bsonArray     = 0x04
	bsonBinary    = 0x05
	bsonObjectID  = 0x07
	bsonBool      = 0x08
	bsonDate      = 0x09
	bsonNull      = 0x0A
	bsonRegex     = 0x0B
	bsonInt32     = 0x10
	bsonTimestamp = 0x11
	bsonInt64     = 0x12
)

func appendKey(dst []byte, t byte, key string) []byte {
	dst = append(dst, t)
	dst = append(dst, key...)
	return append(dst, 0)
}

// value reads one value of type el and appends it as the BSON element key.
func (r *sjsonReader) value(dst []byte, key string, el *sjsonElem) ([]byte, error) {
	if r.i+4 <= len(r.b) && string(r.b[r.i:r.i+4]) == "null" {
		r.i += 4
		return appendKey(dst, bsonNull, key), nil
	}
	switch el.T {
	case "null":
		return nil, r.fail("expected null")
	case "double":
		tok := r.number()
		f, err := strconv.ParseFloat(string(tok), 64)
		if err != nil {
			return nil, r.fail("bad double")
		}
		dst = appendKey(dst, bsonDouble, key)
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f)), nil
	case "int":
		v, err := strconv.ParseInt(string(r.number()), 10, 32)
		if err != nil {
			return nil, r.fail("bad int")
		}
		dst = appendKey(dst, bsonInt32, key)
		return binary.LittleEndian.AppendUint32(dst, uint32(int32(v))), nil
	case "long", "date":
		v, err := strconv.ParseInt(string(r.number()), 10, 64)
		if err != nil {
			return nil, r.fail("bad " + el.T)
		}
		t := byte(bsonInt64)
		if el.T == "date" {
			t = bsonDate
		}
		dst = appendKey(dst, t, key)
		return binary.LittleEndian.AppendUint64(dst, uint64(v)), nil
	case "timestamp":
		v, err := strconv.ParseUint(string(r.number()), 10, 64)
		if err != nil {
			return nil, r.fail("bad timestamp")
		}
		dst = appendKey(dst, bsonTimestamp, key)
		return binary.LittleEndian.AppendUint64(dst, v), nil
	case "bool":
		var v byte
		switch {
		case r.i+4 <= len(r.b) && string(r.b[r.i:r.i+4]) == "true":
			r.i, v = r.i+4, 1
		case r.i+5 <= len(r.b) && string(r.b[r.i:r.i+5]) == "false":
			r.i += 5
		default:
			return nil, r.fail("bad bool")
		}
		return append(appendKey(dst, bsonBool, key), v), nil
	case "string":
		dst = appendKey(dst, bsonString, key)
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst, err := r.str(dst)
		if err != nil {
			return nil, err
		}
		dst = append(dst, 0)
		binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
		return dst, nil
	case "objectId":
		s, err := r.str(r.tmp[:0])
		if err != nil {
			return nil, err
		}
		r.tmp = s
		if len(s) != 24 {
			return nil, r.fail("bad objectId")
		}
		dst = appendKey(dst, bsonObjectID, key)
		at := len(dst)
		dst = append(dst, make([]byte, 12)...)
		if _, err := hex.Decode(dst[at:], s); err != nil {
			return nil, r.fail("bad objectId")
		}
		return dst, nil
	case "binData":
		if el.B == nil || *el.B < 0 || *el.B > 255 {
			return nil, r.fail("binData without a subtype")
		}
		s, err := r.str(r.tmp[:0])
		if err != nil {
			return nil, err
		}
		r.tmp = s
		dst = appendKey(dst, bsonBinary, key)
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0, byte(*el.B))
		n := base64.StdEncoding.DecodedLen(len(s))
		dst = append(dst, make([]byte, n)...)
		m, err := base64.StdEncoding.Decode(dst[at+5:], s)
		if err != nil {
			return nil, r.fail("bad binData")
		}
		dst = dst[:at+5+m]
		binary.LittleEndian.PutUint32(dst[at:], uint32(m))
		return dst, nil
	case "regex":
		if el.O == nil {
			return nil, r.fail("regex without options")
		}
		dst = appendKey(dst, bsonRegex, key)
		dst, err := r.str(dst)
		if err != nil {
			return nil, err
		}
		dst = append(dst, 0)
		dst = append(dst, *el.O...)
		return append(dst, 0), nil
	case "object":
		if el.S == nil {
			return nil, r.fail("object without a schema")
		}
		if !r.eat('{') {
			return nil, r.fail("expected {")
		}
		dst = appendKey(dst, bsonDocument, key)
		return r.fields(dst, el.S, false)
	case "array":
		if !r.eat('[') {
			return nil, r.fail("expected [")
		}
		dst = appendKey(dst, bsonArray, key)
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		var kb [20]byte
		r.ws()
		if !r.eat(']') {
			for n := 0; ; n++ {
				if n >= len(el.I) || el.I[n] == nil {
					return nil, r.fail("array longer than its schema")
				}
				var err error
				if dst, err = r.value(dst, string(strconv.AppendInt(kb[:0], int64(n), 10)), el.I[n]); err != nil {
					return nil, err
				}
				r.ws()
				if r.eat(']') {
					if n+1 != len(el.I) {
						return nil, r.fail("array shorter than its schema")
					}
					break
				}
				if !r.eat(',') {
					return nil, r.fail("expected , or ]")
				}
				r.ws()
			}
		} else if len(el.I) != 0 {
			return nil, r.fail("array shorter than its schema")
		}
		return closeDoc(dst, at)
	}
	return nil, r.fail(fmt.Sprintf("unknown type %q", el.T))
}

// number returns the JSON number at the reader.
func (r *sjsonReader) number() []byte {
	start := r.i
	for r.i < len(r.b) {
		switch c := r.b[r.i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			r.i++
		default:
			return r.b[start:r.i]
		}
	}
	return r.b[start:r.i]
}

// str reads a JSON string and appends its UTF-8 text to dst.
func (r *sjsonReader) str(dst []byte) ([]byte, error) {
	if !r.eat('"') {
		return nil, r.fail("expected a string")
	}
	for {
		start := r.i
		r.i += plainRun(r.b[r.i:])
		dst = append(dst, r.b[start:r.i]...)
		if r.i >= len(r.b) {
			return nil, r.fail("unterminated string")
		}
		switch r.b[r.i] {
		case '"':
			r.i++
			return dst, nil
		case '\\':
		default:
			return nil, r.fail("control character in a string")
		}
		if r.i+1 >= len(r.b) {
			return nil, r.fail("unterminated string")
		}
		c := r.b[r.i+1]
		r.i += 2
		switch c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			u, ok := r.hex4()
			if !ok {
				return nil, r.fail("bad \\u escape")
			}
			ru := rune(u)
			if utf16.IsSurrogate(ru) {
				ru = utf8.RuneError
				if r.i+1 < len(r.b) && r.b[r.i] == '\\' && r.b[r.i+1] == 'u' {
					save := r.i
					r.i += 2
					if u2, ok := r.hex4(); ok {
						if dec := utf16.DecodeRune(rune(u), rune(u2)); dec != utf8.RuneError {
							ru = dec
						} else {
							r.i = save
						}
					} else {
						r.i = save
					}
				}
			}
			dst = utf8.AppendRune(dst, ru)
		default:
			return nil, r.fail("bad escape")
		}
	}
}

// plainRun returns the length of b's leading run of bytes a JSON string
// holds as they are: up to its first '"', '\\' or control character.
func plainRun(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	// Eight bytes at a time while none of them ends the run: a byte of
	// v is zero (or of x below 0x20) iff (v-1)&^v has its high bit set.
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		if ((q-ones)&^q|(bs-ones)&^bs|(x-ones*0x20)&^x)&highs != 0 {
			break
		}
	}
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
		i++
	}
	return i
}

func (r *sjsonReader) hex4() (uint16, bool) {
	if r.i+4 > len(r.b) {
		return 0, false
	}
	var v uint16
	for _, c := range r.b[r.i : r.i+4] {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= uint16(c - '0')
		case c >= 'a' && c <= 'f':
			v |= uint16(c-'a') + 10
		case c >= 'A' && c <= 'F':
			v |= uint16(c-'A') + 10
		default:
			return 0, false
		}
	}
	r.i += 4
	return v, true
}

// skip passes over one JSON value.
func (r *sjsonReader) skip() error {
	r.ws()
	if r.i >= len(r.b) {
		return r.fail("unexpected end")
	}
	switch r.b[r.i] {
	case '"':
		return r.skipStr()
	case '{', '[':
		depth := 0
		for r.i < len(r.b) {
			switch r.b[r.i] {
			case '"':
				if err := r.skipStr(); err != nil {
					return err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					r.i++
					return nil
				}
			}
			r.i++
		}
		return r.fail("unterminated object")
	default:
		for r.i < len(r.b) {
			switch r.b[r.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return nil
			}
			r.i++
		}
		return nil
	}
}

// skipStr passes over a JSON string, checking it as str does.
func (r *sjsonReader) skipStr() error {
	s, err := r.str(r.tmp[:0])
	if err == nil {
		r.tmp = s
	}
	return err
}
