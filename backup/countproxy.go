package backup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// countProxy sits between mongodump and the embedded engine and answers
// one command itself: a count without a query.
//
// mongodump counts every collection before dumping it, for its progress
// display and to schedule big collections first, and there is no option to
// stop it. FerretDB answers such a count by decoding every document of the
// collection, as expensive as dumping it: it made up 38% of a backup's
// time. With one worker (see dumpParallel) the count only sets the maximum
// of mongodump's progress counter, which infmem does not use (Create
// estimates the total from collection statistics instead, see
// expectDocuments), so the proxy answers 0 and forwards everything else,
// byte for byte. It listens on a unix socket in
// a private directory with a lowercase path, which mongo-driver v1 (see
// toolsURI) can reach.
type countProxy struct {
	ln     net.Listener
	dir    string
	target string
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed bool
}

// startCountProxy proxies to the engine at uri, which must be a unix
// socket, and returns the connection string mongodump should use.
func startCountProxy(uri string) (*countProxy, string, error) {
	const scheme = "mongodb://"
	rest, ok := strings.CutPrefix(uri, scheme)
	if !ok {
		return nil, "", fmt.Errorf("the embedded engine's address %q is not a unix socket", uri)
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	host, tail := rest[:end], rest[end:]
	if strings.Contains(host, "@") {
		return nil, "", errors.New("the count proxy does not carry credentials")
	}
	target, err := url.PathUnescape(host)
	if err != nil || !strings.HasPrefix(target, "/") {
		return nil, "", fmt.Errorf("the embedded engine's address %q is not a unix socket", uri)
	}
	base := os.TempDir()
	if strings.ToLower(base) != base {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, "infmem-dump-")
	if err != nil {
		return nil, "", fmt.Errorf("cannot start the backup's connection proxy: %w", err)
	}
	sock := filepath.Join(dir, "db.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", fmt.Errorf("cannot start the backup's connection proxy: %w", err)
	}
	p := &countProxy{ln: ln, dir: dir, target: target, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.serve()
	return p, scheme + url.PathEscape(sock) + tail, nil
}

func (p *countProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.handle(c)
		}()
	}
}

// track registers c for Close; it reports false once the proxy is closed.
func (p *countProxy) track(c net.Conn, add bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if add {
		if p.closed {
			return false
		}
		p.conns[c] = true
	} else {
		delete(p.conns, c)
	}
	return true
}

// Close stops listening, ends every connection, and removes the socket.
func (p *countProxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	os.RemoveAll(p.dir)
}

func (p *countProxy) handle(client net.Conn) {
	server, err := net.Dial("unix", p.target)
	if err != nil {
		client.Close()
		return
	}
	if !p.track(client, true) || !p.track(server, true) {
		client.Close()
		server.Close()
		return
	}
	defer func() {
		client.Close()
		server.Close()
		p.track(client, false)
		p.track(server, false)
	}()
	// Both directions write whole messages to the client under one lock,
	// so an answer made here never splits a message from the engine.
	var wmu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			msg, err := readMessage(server)
			if err != nil {
				client.Close()
				return
			}
			wmu.Lock()
			_, err = client.Write(msg)
			wmu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	for {
		msg, err := readMessage(client)
		if err != nil {
			break
		}
		if reply := countReply(msg); reply != nil {
			wmu.Lock()
			_, err = client.Write(reply)
			wmu.Unlock()
		} else {
			_, err = server.Write(msg)
		}
		if err != nil {
			break
		}
	}
	server.Close()
	<-done
}

// Wire protocol constants.
const (
	opMsg          = 2013
	maxMessageSize = 48 << 20
	headerSize     = 16
)

// readMessage reads one whole wire-protocol message.
func readMessage(r io.Reader) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.LittleEndian.Uint32(h[:])))
	if n < headerSize || n > maxMessageSize {
		return nil, fmt.Errorf("wire message of %d bytes", n)
	}
	msg := make([]byte, n)
	copy(msg, h[:])
	if _, err := io.ReadFull(r, msg[4:]); err != nil {
		return nil, err
	}
	return msg, nil
}

// countReply returns the answer to msg if it is an OP_MSG count command
// without a query (or with an empty one), and nil for anything else.
func countReply(msg []byte) []byte {
	if len(msg) < headerSize+5 || binary.LittleEndian.Uint32(msg[12:]) != opMsg {
		return nil
	}
	flags := binary.LittleEndian.Uint32(msg[16:])
	if flags&^1 != 0 || msg[20] != 0 {
		// Only a plain request (a checksum allowed) with its body first.
		return nil
	}
	body := bson.Raw(msg[21:])
	if len(body) < 5 {
		return nil
	}
	body = body[:binary.LittleEndian.Uint32(body)]
	if body.Validate() != nil {
		return nil
	}
	elems, err := body.Elements()
	if err != nil || len(elems) == 0 || elems[0].Key() != "count" {
		return nil
	}
	if q, err := body.LookupErr("query"); err == nil {
		if doc, ok := q.DocumentOK(); !ok || len(doc) > 5 {
			return nil
		}
	}
	reply, err := bson.Marshal(bson.D{{Key: "n", Value: int32(0)}, {Key: "ok", Value: 1.0}})
	if err != nil {
		return nil
	}
	out := make([]byte, headerSize+4+1+len(reply))
	binary.LittleEndian.PutUint32(out[0:], uint32(len(out)))
	binary.LittleEndian.PutUint32(out[4:], 0x7f000000|binary.LittleEndian.Uint32(msg[4:])&0xffffff)
	copy(out[8:12], msg[4:8]) // responseTo: the request's id
	binary.LittleEndian.PutUint32(out[12:], opMsg)
	out[20] = 0
	copy(out[21:], reply)
	return out
}
