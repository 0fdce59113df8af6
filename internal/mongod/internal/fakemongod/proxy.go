package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The embedded FerretDB v1 enforces no authentication through its public
// API (its SCRAM support sits behind a flag only its own command line can
// set), so this front end sits between clients and the engine. It forwards
// every message unchanged except the ones that carry mongod's auth contract:
// hello (to advertise SCRAM-SHA-256 for a known user), saslStart and
// saslContinue (answered here), createUser (answered here, with the localhost
// exception), and any other command on an unauthenticated connection while
// --auth is on (refused with Unauthorized, code 13).

const (
	opReply = 1
	opQuery = 2004
	opMsg   = 2013

	maxMessageSize = 48 << 20

	msgChecksumPresent = 1 << 0
	msgMoreToCome      = 1 << 1
)

type proxy struct {
	backend         string
	auth            bool
	localhostBypass bool
	users           *userStore
	log             *slog.Logger
	requestID       atomic.Int32

	mu    sync.Mutex
	conns map[net.Conn]struct{} // open client and engine connections
}

func (p *proxy) track(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		p.conns = map[net.Conn]struct{}{}
	}
	p.conns[c] = struct{}{}
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, c)
	c.Close()
}

// closeAll drops every connection, as mongod does on shutdown; the engine
// would otherwise wait for its clients to leave.
func (p *proxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

func (p *proxy) serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

// session is one client connection and its private connection to the engine,
// so replies stay in order and auth state is per connection, as in mongod.
type session struct {
	p         *proxy
	client    net.Conn
	backend   net.Conn
	localhost bool
	user      string // authenticated user, "" when not authenticated
	scram     *scramConversation
}

func (p *proxy) handle(c net.Conn) {
	p.track(c)
	defer p.untrack(c)
	b, err := net.Dial("tcp", p.backend)
	if err != nil {
		p.log.Error("cannot reach the storage engine", "error", err)
		return
	}
	p.track(b)
	defer p.untrack(b)
	s := &session{p: p, client: c, backend: b, localhost: isLocalhost(c.RemoteAddr())}
	for {
		msg, err := readMessage(c)
		if err != nil {
			return
		}
		reply, err := s.dispatch(msg)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				p.log.Error("closing client connection", "error", err)
			}
			return
		}
		if reply != nil {
			if _, err := c.Write(reply); err != nil {
				return
			}
		}
	}
}

// isLocalhost reports whether mongod would grant the localhost exception to a
// connection from addr: loopback TCP peers and unix-socket peers.
func isLocalhost(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}

// Commands mongod runs for unauthenticated clients under --auth.
var anonymousCommands = map[string]bool{
	"hello": true, "isMaster": true, "ismaster": true, "ping": true,
	"buildInfo": true, "buildinfo": true, "saslStart": true, "saslContinue": true,
	"endSessions": true,
}

func (s *session) dispatch(msg []byte) ([]byte, error) {
	requestID := int32(binary.LittleEndian.Uint32(msg[4:]))
	switch opcode := binary.LittleEndian.Uint32(msg[12:]); opcode {
	case opMsg:
		flags, body, err := parseOpMsg(msg)
		if err != nil {
			return nil, err
		}
		first, err := body.IndexErr(0)
		if err != nil {
			return nil, fmt.Errorf("empty command document: %w", err)
		}
		cmd := first.Key()
		switch {
		case cmd == "hello" || cmd == "isMaster" || cmd == "ismaster":
			reply, err := s.forward(msg)
			if err != nil {
				return nil, err
			}
			return s.rewriteHelloMsg(reply, body)
		case cmd == "saslStart":
			return s.replyMsg(requestID, s.saslStart(body))
		case cmd == "saslContinue":
			return s.replyMsg(requestID, s.saslContinue(body))
		case cmd == "createUser":
			return s.replyMsg(requestID, s.createUser(body))
		case s.p.auth && s.user == "" && !anonymousCommands[cmd]:
			return s.replyMsg(requestID, commandError(13, "Unauthorized", fmt.Sprintf("Command %s requires authentication", cmd)))
		}
		if flags&msgMoreToCome != 0 {
			_, err := s.backend.Write(msg)
			return nil, err
		}
		return s.forward(msg)

	case opQuery:
		// Drivers send their first hello as OP_QUERY; mongod 6+ refuses every
		// other OP_QUERY command.
		query, err := parseOpQuery(msg)
		if err != nil {
			return nil, err
		}
		first, err := query.IndexErr(0)
		if err != nil {
			return nil, fmt.Errorf("empty OP_QUERY document: %w", err)
		}
		if cmd := first.Key(); cmd != "hello" && cmd != "isMaster" && cmd != "ismaster" {
			return s.replyQuery(requestID, commandError(352, "UnsupportedOpQueryCommand",
				fmt.Sprintf("Unsupported OP_QUERY command: %s", cmd)))
		}
		reply, err := s.forward(msg)
		if err != nil {
			return nil, err
		}
		return s.rewriteHelloReply(reply, query)

	default:
		return nil, fmt.Errorf("unsupported opcode %d", opcode)
	}
}

func (s *session) forward(msg []byte) ([]byte, error) {
	if _, err := s.backend.Write(msg); err != nil {
		return nil, fmt.Errorf("write to engine: %w", err)
	}
	reply, err := readMessage(s.backend)
	if err != nil {
		return nil, fmt.Errorf("read from engine: %w", err)
	}
	return reply, nil
}

func readMessage(r io.Reader) ([]byte, error) {
	var hdr [16]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.LittleEndian.Uint32(hdr[:])))
	if n < 16 || n > maxMessageSize {
		return nil, fmt.Errorf("bad message length %d", n)
	}
	msg := make([]byte, n)
	copy(msg, hdr[:])
	if _, err := io.ReadFull(r, msg[16:]); err != nil {
		return nil, err
	}
	return msg, nil
}

// parseOpMsg returns the flags and the body (kind 0) section of an OP_MSG.
func parseOpMsg(msg []byte) (uint32, bson.Raw, error) {
	if len(msg) < 21 {
		return 0, nil, errors.New("short OP_MSG")
	}
	flags := binary.LittleEndian.Uint32(msg[16:])
	end := len(msg)
	if flags&msgChecksumPresent != 0 {
		end -= 4
	}
	for i := 20; i < end; {
		kind := msg[i]
		i++
		if i+4 > end {
			return 0, nil, errors.New("truncated OP_MSG section")
		}
		size := int(int32(binary.LittleEndian.Uint32(msg[i:])))
		if size < 5 || i+size > end {
			return 0, nil, errors.New("bad OP_MSG section size")
		}
		if kind == 0 {
			return flags, bson.Raw(msg[i : i+size]), nil
		}
		i += size
	}
	return 0, nil, errors.New("OP_MSG without a body section")
}

// parseOpQuery returns the query document of an OP_QUERY.
func parseOpQuery(msg []byte) (bson.Raw, error) {
	i := 20 // header + flags
	for i < len(msg) && msg[i] != 0 {
		i++ // fullCollectionName
	}
	i += 1 + 8 // NUL, numberToSkip, numberToReturn
	if i+4 > len(msg) {
		return nil, errors.New("short OP_QUERY")
	}
	size := int(int32(binary.LittleEndian.Uint32(msg[i:])))
	if size < 5 || i+size > len(msg) {
		return nil, errors.New("bad OP_QUERY document size")
	}
	return bson.Raw(msg[i : i+size]), nil
}

func (s *session) header(buf []byte, responseTo int32, opcode uint32) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, 0) // length, patched by finish
	buf = binary.LittleEndian.AppendUint32(buf, uint32(s.p.requestID.Add(1)))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(responseTo))
	return binary.LittleEndian.AppendUint32(buf, opcode)
}

func finish(buf []byte) []byte {
	binary.LittleEndian.PutUint32(buf, uint32(len(buf)))
	return buf
}

func (s *session) replyMsg(responseTo int32, doc bson.D) ([]byte, error) {
	body, err := bson.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode reply: %w", err)
	}
	buf := s.header(make([]byte, 0, 21+len(body)), responseTo, opMsg)
	buf = binary.LittleEndian.AppendUint32(buf, 0) // flags
	buf = append(buf, 0)                           // section kind 0
	return finish(append(buf, body...)), nil
}

func (s *session) replyQuery(responseTo int32, doc bson.D) ([]byte, error) {
	body, err := bson.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode reply: %w", err)
	}
	buf := s.header(make([]byte, 0, 36+len(body)), responseTo, opReply)
	buf = binary.LittleEndian.AppendUint32(buf, 0) // responseFlags
	buf = binary.LittleEndian.AppendUint64(buf, 0) // cursorID
	buf = binary.LittleEndian.AppendUint32(buf, 0) // startingFrom
	buf = binary.LittleEndian.AppendUint32(buf, 1) // numberReturned
	return finish(append(buf, body...)), nil
}

// helloDoc replaces the engine's answer to saslSupportedMechs ("PLAIN", which
// the engine only pretends to accept) with what mongod answers: the user's
// SCRAM mechanisms, or nothing for an unknown user.
func (s *session) helloDoc(reply, request bson.Raw) (bson.D, error) {
	elems, err := reply.Elements()
	if err != nil {
		return nil, fmt.Errorf("decode hello reply: %w", err)
	}
	doc := make(bson.D, 0, len(elems)+1)
	for _, e := range elems {
		if e.Key() != "saslSupportedMechs" {
			doc = append(doc, bson.E{Key: e.Key(), Value: e.Value()})
		}
	}
	if want, ok := request.Lookup("saslSupportedMechs").StringValueOK(); ok {
		if _, known := s.p.users.lookupQualified(want); known {
			doc = append(doc, bson.E{Key: "saslSupportedMechs", Value: bson.A{scramMechanism}})
		}
	}
	return doc, nil
}

func (s *session) rewriteHelloMsg(reply []byte, request bson.Raw) ([]byte, error) {
	if binary.LittleEndian.Uint32(reply[12:]) != opMsg {
		return nil, errors.New("engine answered hello with an unexpected opcode")
	}
	_, body, err := parseOpMsg(reply)
	if err != nil {
		return nil, err
	}
	doc, err := s.helloDoc(body, request)
	if err != nil {
		return nil, err
	}
	return s.replyMsg(int32(binary.LittleEndian.Uint32(reply[8:])), doc)
}

func (s *session) rewriteHelloReply(reply []byte, request bson.Raw) ([]byte, error) {
	if binary.LittleEndian.Uint32(reply[12:]) != opReply || len(reply) < 41 {
		return nil, errors.New("engine answered OP_QUERY hello with an unexpected message")
	}
	doc, err := s.helloDoc(bson.Raw(reply[36:]), request)
	if err != nil {
		return nil, err
	}
	return s.replyQuery(int32(binary.LittleEndian.Uint32(reply[8:])), doc)
}

func commandError(code int32, codeName, msg string) bson.D {
	return bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: msg}, {Key: "code", Value: code}, {Key: "codeName", Value: codeName}}
}

// createUser follows mongod: allowed for an authenticated user, or, through
// the localhost exception, for a local connection while no user exists.
func (s *session) createUser(body bson.Raw) bson.D {
	db, _ := body.Lookup("$db").StringValueOK()
	if s.p.auth && s.user == "" {
		exception := s.p.localhostBypass && s.localhost && !s.p.users.any() && db == "admin"
		if !exception {
			return commandError(13, "Unauthorized", "Command createUser requires authentication")
		}
	}
	name, ok := body.Lookup("createUser").StringValueOK()
	if !ok || name == "" {
		return commandError(2, "BadValue", "createUser must be a non-empty string")
	}
	pwd, ok := body.Lookup("pwd").StringValueOK()
	if !ok || pwd == "" {
		return commandError(2, "BadValue", "pwd must be a non-empty string")
	}
	if mechs, ok := body.Lookup("mechanisms").ArrayOK(); ok {
		vals, err := mechs.Values()
		if err != nil {
			return commandError(2, "BadValue", "mechanisms must be an array of strings")
		}
		for _, v := range vals {
			if m, _ := v.StringValueOK(); m != scramMechanism {
				return commandError(2, "BadValue", fmt.Sprintf("fakemongod supports only %s, not %q", scramMechanism, m))
			}
		}
	}
	var roles []string
	if arr, ok := body.Lookup("roles").ArrayOK(); ok {
		vals, _ := arr.Values()
		for _, v := range vals {
			if r, ok := v.StringValueOK(); ok {
				roles = append(roles, r+"@"+db)
			} else if d, ok := v.DocumentOK(); ok {
				r, _ := d.Lookup("role").StringValueOK()
				rdb, _ := d.Lookup("db").StringValueOK()
				roles = append(roles, r+"@"+rdb)
			}
		}
	}
	if err := s.p.users.create(db, name, pwd, roles); err != nil {
		if errors.Is(err, errUserExists) {
			return commandError(51003, "Location51003", fmt.Sprintf("User \"%s@%s\" already exists", name, db))
		}
		return commandError(2, "BadValue", err.Error())
	}
	s.p.log.Info("Created user", "user", name, "db", db, "roles", roles)
	return bson.D{{Key: "ok", Value: 1.0}}
}
