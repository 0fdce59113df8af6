package memory

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
)

// Documents read from the database are data from outside as much as a
// backup is: another device, another program or a damaged file may have
// written them. Every memory and summary the index takes, in the full load
// and from another device's change (refreshDoc), passes the rules a restore
// applies (CheckStoredMemory, CheckStoredSummary; content/validate.go). One that
// breaks them, or does not decode at all, is left out of the index and
// recorded here (status and doctor show it); it never stops the load or
// the follower, and the others are read as usual.

// maxReadText is the longest text a document read from the database may
// hold: memory.max_content_bytes' ceiling, since another device may allow
// longer memories than this one.
const maxReadText = 1 << 20

// maxSkippedKept bounds how many skipped documents are remembered by name.
const maxSkippedKept = 20

// SkippedDoc is a document the index left out.
type SkippedDoc struct {
	Collection string
	ID         string
	Reason     string
	At         time.Time
}

type skippedDocs struct {
	mu     sync.Mutex
	n      int64
	recent []SkippedDoc // the latest maxSkippedKept, oldest first
	seen   map[string]bool
}

// Skipped reports how many documents read from the database the index has
// left out since the engine started (counting each document once), and
// the latest of them.
func (e *Engine) Skipped() (int64, []SkippedDoc) {
	s := &e.skipped
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, append([]SkippedDoc(nil), s.recent...)
}

// skipDoc records that the document coll/id was left out of the index.
func (e *Engine) skipDoc(coll string, id any, reason error) {
	key := fmt.Sprint(id)
	if oid, ok := id.(bson.ObjectID); ok {
		key = oid.Hex()
	} else if rv, ok := id.(bson.RawValue); ok {
		if oid, ok := rv.ObjectIDOK(); ok {
			key = oid.Hex()
		} else {
			key = snippet(rv.String(), 40)
		}
	}
	why := snippet(reason.Error(), 200)
	s := &e.skipped
	s.mu.Lock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	first := !s.seen[coll+"/"+key]
	if first {
		s.seen[coll+"/"+key] = true
		s.n++
	}
	s.recent = append(s.recent, SkippedDoc{Collection: coll, ID: key, Reason: why, At: e.now()})
	if len(s.recent) > maxSkippedKept {
		s.recent = s.recent[len(s.recent)-maxSkippedKept:]
	}
	s.mu.Unlock()
	if first {
		e.log.Warn("a document in the database breaks the rules for a memory; left out of the index", "collection", coll, "id", key, "reason", why)
	}
}

// checkRead applies the restore rules to a memory read from the database.
func (e *Engine) checkRead(m *mongostore.Memory) error {
	return CheckStoredMemory(m, maxReadText, e.now())
}

// errSkipped is what refreshDoc reports for a document it left out.
var errSkipped = errors.New("left out of the index")
