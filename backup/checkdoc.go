package backup

import (
	"fmt"
	"time"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memfiles"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// Limits a restored document must respect: the ones the tools apply when
// they write, at the most permissive setting the config allows.
const (
	maxRestoredText      = 1 << 20 // memory.max_content_bytes' ceiling
	maxRestoredDoc       = 4 << 20
	maxRestoredEmbedding = 64 << 10
)

// checkDocument applies the tools' rules to one document of a backup
// before any of it is restored: a backup is data from outside, and what
// the tools would refuse to write must not reach the live database through
// a restore either. The error names the rule broken.
func checkDocument(coll string, raw bson.Raw) error {
	if len(raw) > maxRestoredDoc {
		return fmt.Errorf("it is %d bytes; the limit is %d", len(raw), maxRestoredDoc)
	}
	switch coll {
	case mongostore.ConversationHistory:
		var m mongostore.Memory
		if err := bson.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("it is not a memory: %v", err)
		}
		return memfiles.CheckStored(&m, maxRestoredText, time.Now())
	case mongostore.Summaries:
		var s mongostore.Summary
		if err := bson.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("it is not a summary: %v", err)
		}
		return memory.CheckStoredSummary(&s, maxRestoredText)
	case mongostore.Metadata:
		var md struct {
			Type string `bson:"type"`
		}
		if err := bson.Unmarshal(raw, &md); err != nil {
			return fmt.Errorf("it is not a metadata record: %v", err)
		}
		if md.Type == mongostore.ScopeType {
			var sc mongostore.Scope
			if err := bson.Unmarshal(raw, &sc); err != nil {
				return fmt.Errorf("it is not a scope: %v", err)
			}
			if sc.ID.IsZero() {
				return fmt.Errorf("it has no ObjectID _id")
			}
			if err := scopes.ValidateName(sc.ScopeName); err != nil {
				return err
			}
			if len(sc.Description) > 4096 || !utf8.ValidString(sc.Description) {
				return fmt.Errorf("its description is not up to 4096 bytes of UTF-8")
			}
		}
	case mongostore.UserProfile:
		var p mongostore.Profile
		if err := bson.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("it is not a user profile: %v", err)
		}
	case mongostore.MemoryIndex:
		var e mongostore.IndexEntry
		if err := bson.Unmarshal(raw, &e); err != nil {
			return fmt.Errorf("it is not an embedding entry: %v", err)
		}
		if len(e.Embedding) > maxRestoredEmbedding {
			return fmt.Errorf("its embedding is %d bytes; the limit is %d", len(e.Embedding), maxRestoredEmbedding)
		}
		if e.ID.IsZero() {
			return fmt.Errorf("it has no ObjectID _id")
		}
		return checkScope(e.Scope)
	}
	return nil
}

func checkScope(name string) error {
	if err := scopes.ValidateName(name); err != nil {
		return fmt.Errorf("its scope: %w", err)
	}
	return nil
}
