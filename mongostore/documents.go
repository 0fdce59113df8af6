package mongostore

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Collection names, as the spec names them.
const (
	ConversationHistory = "ConversationHistory"
	Summaries           = "Summaries"
	UserProfile         = "UserProfile"
	MemoryIndex         = "MemoryIndex"
	Metadata            = "Metadata"
)

// CollectionNames lists the five collections in a stable order.
var CollectionNames = []string{ConversationHistory, Summaries, UserProfile, MemoryIndex, Metadata}

// Memory is one remembered item in ConversationHistory: a conversation turn,
// a note, a lesson. Times are stored with millisecond precision, in UTC.
type Memory struct {
	ID             bson.ObjectID `bson:"_id"`
	ConversationID string        `bson:"conversation_id,omitempty"`
	// Timestamp is when it happened (given on import), not when it was stored.
	Timestamp time.Time `bson:"timestamp"`
	Speaker   string    `bson:"speaker,omitempty"`
	Text      string    `bson:"text"`
	Scope     string    `bson:"scope"`
	Tags      []string  `bson:"tags"`
	// Source is conversation, note, user_profile, summary, lesson or file.
	Source string `bson:"source"`
	// Path is where a file of the memory tool lives ("/memories/notes.md");
	// set only when Source is file (see internal/memfiles).
	Path       string  `bson:"path,omitempty"`
	Importance float64 `bson:"importance"`
	Category   string  `bson:"category,omitempty"`
	// ContentHash identifies exact duplicates within a scope.
	ContentHash  string     `bson:"content_hash"`
	CreatedAt    time.Time  `bson:"created_at"`
	UpdatedAt    time.Time  `bson:"updated_at"`
	UseCount     int64      `bson:"use_count"`
	LastAccessed *time.Time `bson:"last_accessed,omitempty"`
	// ForgottenAt marks a soft-forgotten memory: excluded from every result, undoable.
	ForgottenAt *time.Time `bson:"forgotten_at,omitempty"`
	// Archived memories are excluded from default retrieval but kept and exported.
	Archived bool `bson:"archived,omitempty"`
	// ArchivedAt and ArchiveReason say when and why maintenance archived it.
	ArchivedAt    *time.Time `bson:"archived_at,omitempty"`
	ArchiveReason string     `bson:"archive_reason,omitempty"`
	// MergedInto names the memory a duplicate was merged into (it is then
	// soft-forgotten; unforgetting it undoes the merge).
	MergedInto string `bson:"merged_into,omitempty"`
	// Pinned memories are never archived or pruned by maintenance.
	Pinned bool `bson:"pinned,omitempty"`
	// History keeps earlier versions, oldest first, when a memory is edited.
	History []Revision `bson:"history,omitempty"`
	// SupersededBy names the newer memory that updates this one (the same
	// fact with a changed value); it counts while that memory is live.
	SupersededBy string `bson:"superseded_by,omitempty"`
	// Contradicts names memories that contradict this one (each names it
	// back).
	Contradicts []string `bson:"contradicts,omitempty"`
	// LinksAbout, when set, limits both to questions that name one of
	// these words (a long message updated in one of its details).
	LinksAbout []string `bson:"links_about,omitempty"`
	// LinksByMeaning: the memory named by SupersededBy was found to
	// update this one by meaning, not by shared words (it says the value
	// changed in other words).
	LinksByMeaning bool `bson:"links_by_meaning,omitempty"`
	// Device is the sync device that made the last change (set only with
	// sync enabled).
	Device string `bson:"device,omitempty"`
}

// Revision is an earlier version of an edited memory.
type Revision struct {
	Text       string    `bson:"text"`
	Tags       []string  `bson:"tags"`
	Importance float64   `bson:"importance"`
	Scope      string    `bson:"scope"`
	Category   string    `bson:"category,omitempty"`
	ChangedAt  time.Time `bson:"changed_at"`
}

// TimeRange is a [From, To] span of time.
type TimeRange struct {
	From time.Time `bson:"from"`
	To   time.Time `bson:"to"`
}

// Summary condenses a conversation or topic in Summaries.
type Summary struct {
	ID             bson.ObjectID   `bson:"_id"`
	ConversationID string          `bson:"conversation_id,omitempty"`
	TopicID        string          `bson:"topic_id,omitempty"`
	SummaryText    string          `bson:"summary_text"`
	TimeRange      *TimeRange      `bson:"time_range,omitempty"`
	MessageRefs    []bson.ObjectID `bson:"message_refs,omitempty"`
	// A summary too long for one document is stored in parts: Whole is
	// the id all its parts share, Part this one's number (1 to Parts).
	// A summary without Parts is whole by itself.
	Whole string   `bson:"whole,omitempty"`
	Part  int      `bson:"part,omitempty"`
	Parts int      `bson:"parts,omitempty"`
	Scope string   `bson:"scope"`
	Tags  []string `bson:"tags"`
	// Method says how the summary was made (extractive, ollama, sampling, client).
	Method       string     `bson:"method,omitempty"`
	Timestamp    time.Time  `bson:"timestamp"`
	Importance   float64    `bson:"importance"`
	ContentHash  string     `bson:"content_hash"`
	CreatedAt    time.Time  `bson:"created_at"`
	UpdatedAt    time.Time  `bson:"updated_at"`
	UseCount     int64      `bson:"use_count"`
	LastAccessed *time.Time `bson:"last_accessed,omitempty"`
	ForgottenAt  *time.Time `bson:"forgotten_at,omitempty"`
	Archived     bool       `bson:"archived,omitempty"`
	MergedInto   string     `bson:"merged_into,omitempty"`
	Pinned       bool       `bson:"pinned,omitempty"`
	History      []Revision `bson:"history,omitempty"`
	Device       string     `bson:"device,omitempty"`
}

// DefaultUserID is the _id of the single user's profile.
const DefaultUserID = "default_user"

// Contact is a person or entity that matters to the user.
type Contact struct {
	Name     string `bson:"name" json:"name"`
	Relation string `bson:"relation,omitempty" json:"relation,omitempty"`
	Notes    string `bson:"notes,omitempty" json:"notes,omitempty"`
}

// Profile is the user's profile document in UserProfile.
type Profile struct {
	ID          string            `bson:"_id"`
	Name        string            `bson:"name,omitempty"`
	Preferences map[string]string `bson:"preferences"`
	Facts       map[string]string `bson:"facts"`
	Contacts    []Contact         `bson:"contacts"`
	Notes       []string          `bson:"notes"`
	CreatedAt   time.Time         `bson:"created_at"`
	UpdatedAt   time.Time         `bson:"updated_at"`
}

// IndexEntry is one memory's embedding in MemoryIndex. Its _id equals the
// source document's _id, so it is found, replaced and deleted by _id.
type IndexEntry struct {
	ID               bson.ObjectID `bson:"_id"`
	SourceCollection string        `bson:"source_collection"`
	SourceID         bson.ObjectID `bson:"source_id"`
	Scope            string        `bson:"scope"`
	// Model identifies the embedder; vectors of different models never mix.
	Model string `bson:"model"`
	Dim   int    `bson:"dim"`
	// Embedding is the vector as BSON binary (little-endian, see Encoding).
	Embedding []byte `bson:"embedding"`
	// Encoding is "f32" (4 bytes per dimension) or "f16" (2 bytes).
	Encoding  string    `bson:"encoding"`
	Metadata  IndexMeta `bson:"metadata"`
	CreatedAt time.Time `bson:"created_at"`
}

// IndexVector is the part of an IndexEntry that loading the in-memory
// index reads: decoding the rest (its scope, metadata and times, which the
// source document holds too) cost about a fifth of that read at 100k.
type IndexVector struct {
	ID        bson.ObjectID `bson:"_id"`
	SourceID  bson.ObjectID `bson:"source_id"`
	Model     string        `bson:"model"`
	Dim       int           `bson:"dim"`
	Embedding []byte        `bson:"embedding"`
	Encoding  string        `bson:"encoding"`
}

// IndexMeta copies the source fields a vector search filters and ranks on.
type IndexMeta struct {
	Timestamp time.Time `bson:"timestamp"`
	Tags      []string  `bson:"tags"`
}

// ScopeType is the Metadata type of scope definitions.
const ScopeType = "scope"

// Scope is a scope definition in Metadata.
type Scope struct {
	ID              bson.ObjectID `bson:"_id"`
	Type            string        `bson:"type"`
	ScopeName       string        `bson:"scope_name"`
	Description     string        `bson:"description,omitempty"`
	CreatedAt       time.Time     `bson:"created_at"`
	Active          bool          `bson:"active"`
	RelatedKeywords []string      `bson:"related_keywords,omitempty"`
	ParentScope     string        `bson:"parent_scope,omitempty"`
}
