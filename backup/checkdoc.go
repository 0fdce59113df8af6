package backup

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

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
		return firstErr(checkID(m.ID), checkText(m.Text), checkTags(m.Tags), checkScope(m.Scope))
	case mongostore.Summaries:
		var s mongostore.Summary
		if err := bson.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("it is not a summary: %v", err)
		}
		return firstErr(checkID(s.ID), checkText(s.SummaryText), checkTags(s.Tags), checkScope(s.Scope))
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
			return firstErr(checkID(sc.ID), scopes.ValidateName(sc.ScopeName), checkLen("description", sc.Description, 4096))
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
		return firstErr(checkID(e.ID), checkScope(e.Scope), checkTags(e.Metadata.Tags))
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func checkID(id bson.ObjectID) error {
	if id.IsZero() {
		return fmt.Errorf("it has no ObjectID _id")
	}
	return nil
}

func checkText(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("its text is not valid UTF-8")
	}
	return checkLen("text", s, maxRestoredText)
}

func checkLen(what, s string, limit int) error {
	if len(s) > limit {
		return fmt.Errorf("its %s is %d bytes; the limit is %d", what, len(s), limit)
	}
	return nil
}

func checkTags(tags []string) error {
	if len(tags) > memory.MaxTags {
		return fmt.Errorf("it has %d tags; the limit is %d", len(tags), memory.MaxTags)
	}
	for _, t := range tags {
		switch {
		case strings.TrimSpace(t) == "":
			return fmt.Errorf("it has an empty tag")
		case len(t) > memory.MaxTagLen:
			return fmt.Errorf("tag %.20q… is %d bytes; the limit is %d", t, len(t), memory.MaxTagLen)
		case strings.ContainsRune(t, '\n') || !utf8.ValidString(t):
			return fmt.Errorf("tag %.20q is not a single line of UTF-8", t)
		}
	}
	return nil
}

func checkScope(name string) error {
	if err := scopes.ValidateName(name); err != nil {
		return fmt.Errorf("its scope: %w", err)
	}
	return nil
}
