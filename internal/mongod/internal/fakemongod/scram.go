package main

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// SCRAM-SHA-256 as mongod speaks it (RFC 5802 and RFC 7677 inside the
// saslStart / saslContinue commands). Only SHA-256 is implemented; mongod
// also offers SCRAM-SHA-1, which the supervisor does not use.

const (
	scramMechanism  = "SCRAM-SHA-256"
	scramIterations = 15000 // mongod's default scramSHA256IterationCount
)

var errUserExists = errors.New("user already exists")

// storedUser keeps what mongod keeps in admin.system.users: salted keys,
// never the password.
type storedUser struct {
	DB         string   `json:"db"`
	User       string   `json:"user"`
	Salt       []byte   `json:"salt"`
	Iterations int      `json:"iterations"`
	StoredKey  []byte   `json:"stored_key"`
	ServerKey  []byte   `json:"server_key"`
	Roles      []string `json:"roles"`
}

// userStore persists users in the dbpath so they survive restarts, as
// admin.system.users does.
type userStore struct {
	mu    sync.Mutex
	path  string
	users map[string]storedUser // key: db + "." + user
}

func loadUsers(path string) (*userStore, error) {
	s := &userStore{path: path, users: map[string]storedUser{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &s.users); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return s, nil
}

func (s *userStore) any() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.users) > 0
}

// lookupQualified finds "db.user", the form hello's saslSupportedMechs uses.
func (s *userStore) lookupQualified(q string) (storedUser, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[q]
	return u, ok
}

func (s *userStore) create(db, user, pwd string, roles []string) error {
	for _, r := range pwd {
		// mongod applies SASLprep; for printable ASCII that is the identity,
		// and this stand-in does not implement the rest.
		if r < 0x21 || r > 0x7e {
			return errors.New("fakemongod accepts only printable ASCII passwords")
		}
	}
	salt := make([]byte, 28)
	_, _ = rand.Read(salt)
	salted, err := pbkdf2.Key(sha256.New, pwd, salt, scramIterations, sha256.Size)
	if err != nil {
		return fmt.Errorf("derive key: %w", err)
	}
	clientKey := hmacSHA256(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	u := storedUser{
		DB: db, User: user, Salt: salt, Iterations: scramIterations,
		StoredKey: storedKey[:], ServerKey: hmacSHA256(salted, "Server Key"), Roles: roles,
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	key := db + "." + user
	if _, ok := s.users[key]; ok {
		return errUserExists
	}
	s.users[key] = u
	b, err := json.Marshal(s.users)
	if err != nil {
		delete(s.users, key)
		return err
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		delete(s.users, key)
		return err
	}
	if err := os.Rename(tmp, filepath.Clean(s.path)); err != nil {
		delete(s.users, key)
		return err
	}
	return nil
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// scramConversation is the server side of one authentication attempt.
type scramConversation struct {
	user            storedUser
	clientFirstBare string
	serverFirst     string
	nonce           string
	skipEmpty       bool // the client asked (in saslStart) to finish without the empty last step
	proved          bool // the client proof checked out; waiting for the empty last step
}

func authFailed() bson.D {
	return commandError(18, "AuthenticationFailed", "Authentication failed.")
}

func payloadOf(body bson.Raw) ([]byte, bool) {
	v := body.Lookup("payload")
	if _, data, ok := v.BinaryOK(); ok {
		return data, true
	}
	if s, ok := v.StringValueOK(); ok { // some drivers send base64 text
		b, err := base64.StdEncoding.DecodeString(s)
		return b, err == nil
	}
	return nil, false
}

func (s *session) saslStart(body bson.Raw) bson.D {
	s.scram = nil
	if mech, _ := body.Lookup("mechanism").StringValueOK(); mech != scramMechanism {
		return commandError(334, "MechanismUnavailable",
			fmt.Sprintf("Received authentication for mechanism %s which is not enabled", mech))
	}
	payload, ok := payloadOf(body)
	if !ok {
		return commandError(2, "BadValue", "saslStart needs a payload")
	}
	// client-first-message: gs2-header "n,," then "n=<user>,r=<nonce>"
	msg := string(payload)
	bare, ok := strings.CutPrefix(msg, "n,,")
	if !ok {
		return commandError(2, "BadValue", "channel binding is not supported")
	}
	attrs := scramAttrs(bare)
	name := strings.NewReplacer("=2C", ",", "=3D", "=").Replace(attrs["n"])
	clientNonce := attrs["r"]
	db, _ := body.Lookup("$db").StringValueOK()
	u, ok := s.p.users.lookupQualified(db + "." + name)
	if !ok || clientNonce == "" {
		return authFailed()
	}
	nonce := clientNonce + rand.Text()
	serverFirst := fmt.Sprintf("r=%s,s=%s,i=%d", nonce, base64.StdEncoding.EncodeToString(u.Salt), u.Iterations)
	skip, _ := body.Lookup("options", "skipEmptyExchange").BooleanOK()
	s.scram = &scramConversation{user: u, clientFirstBare: bare, serverFirst: serverFirst, nonce: nonce, skipEmpty: skip}
	return bson.D{
		{Key: "conversationId", Value: int32(1)},
		{Key: "done", Value: false},
		{Key: "payload", Value: bson.Binary{Data: []byte(serverFirst)}},
		{Key: "ok", Value: 1.0},
	}
}

func (s *session) saslContinue(body bson.Raw) bson.D {
	c := s.scram
	if c == nil {
		return commandError(17, "ProtocolError", "No SASL session state found")
	}
	payload, _ := payloadOf(body)
	if c.proved {
		// The client's empty last step when it did not ask to skip it.
		s.scram = nil
		return bson.D{
			{Key: "conversationId", Value: int32(1)},
			{Key: "done", Value: true},
			{Key: "payload", Value: bson.Binary{Data: []byte{}}},
			{Key: "ok", Value: 1.0},
		}
	}
	s.scram = nil
	msg := string(payload)
	withoutProof, proofB64, ok := strings.Cut(msg, ",p=")
	if !ok {
		return authFailed()
	}
	attrs := scramAttrs(withoutProof)
	if attrs["c"] != "biws" || attrs["r"] != c.nonce { // biws = base64("n,,")
		return authFailed()
	}
	proof, err := base64.StdEncoding.DecodeString(proofB64)
	if err != nil || len(proof) != sha256.Size {
		return authFailed()
	}
	authMessage := c.clientFirstBare + "," + c.serverFirst + "," + withoutProof
	clientSig := hmacSHA256(c.user.StoredKey, authMessage)
	clientKey := make([]byte, sha256.Size)
	for i := range clientKey {
		clientKey[i] = proof[i] ^ clientSig[i]
	}
	got := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(got[:], c.user.StoredKey) != 1 {
		return authFailed()
	}
	s.user = c.user.DB + "." + c.user.User
	serverFinal := "v=" + base64.StdEncoding.EncodeToString(hmacSHA256(c.user.ServerKey, authMessage))
	if !c.skipEmpty {
		c.proved = true
		s.scram = c
	}
	return bson.D{
		{Key: "conversationId", Value: int32(1)},
		{Key: "done", Value: c.skipEmpty},
		{Key: "payload", Value: bson.Binary{Data: []byte(serverFinal)}},
		{Key: "ok", Value: 1.0},
	}
}

func scramAttrs(s string) map[string]string {
	m := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(part, "="); ok && len(k) == 1 {
			m[k] = v
		}
	}
	return m
}
