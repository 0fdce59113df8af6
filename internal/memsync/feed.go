package memory

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"sort"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory/memindex"
	"github.com/infmem/infmem/mongostore"
)

// This file and follow.go keep the index current when several daemons
// (devices) share one database (docs/SYNC.md). Sync is off unless
// Options.Sync is set; off, apply pays one nil check.
//
// The writer's side: every change apply makes that another device's
// index must see (insert, edit, forget, unforget, flag, embed, delete;
// not opUse, whose counts each device keeps for itself, nor
// opDropEmbedding) carries this device's name in the memory's document
// ("device") and is announced in the change feed (mongostore.Feed) after
// the database write and the index update, before apply returns: a
// change is acknowledged only once announced. The device numbers its
// entries 1, 2, 3, ... itself and never leaves a gap (see mongostore's
// feed.go for why that keeps readers from skipping an entry another
// device writes late): an entry whose write fails stays pending and is
// written again, under the same number, before the next one; the change
// it announces returns an error meanwhile (stored here, not yet
// acknowledged).
//
// Conflicts: an edit of a memory only applies if the memory's updated_at
// is not newer than the edit's and it is not forgotten; otherwise it
// fails with ErrConflict and changes nothing. So among concurrent edits
// the newest updated_at wins, and a forget wins over any edit made
// without knowing of it. Nothing is lost without the caller hearing of it.

// SyncOptions turns sync on.
type SyncOptions struct {
	// Device is this daemon's name in the feed.
	Device string
	// Poll is how often the feed is read (default 500 ms).
	Poll time.Duration
	// KeepFor and KeepEntries bound this device's entries in the feed
	// (default 7 days, 1,000,000); older ones are trimmed.
	KeepFor     time.Duration
	KeepEntries int64
	// TrimEvery is how often trimming runs (default 10 minutes).
	TrimEvery time.Duration
	// ChangeStreams: hear of the others' entries through a change stream
	// on the feed when the server offers one (follow_stream.go), instead
	// of polling every Poll.
	ChangeStreams bool
	// Host is this machine's name, recorded with the device so that a
	// name two machines use can be told (default os.Hostname).
	Host string

	// assumeStreams (tests) takes the server to offer change streams.
	assumeStreams bool
}

// ErrConflict means another device changed or forgot the memory first;
// this change was not made.
var ErrConflict = errors.New("the memory was changed or forgotten on another device at the same time; this change was not made: read it again and retry")

// syncState is the engine's side of sync.
type syncState struct {
	opts SyncOptions
	feed mongostore.Feed

	// wmu guards the writer's numbering.
	wmu     sync.Mutex
	next    int64                 // number of the next entry
	pending *mongostore.FeedEntry // written to the database, not yet to the feed

	// mu guards the follower's state. pos changes only under writeMu too,
	// so a snapshot (which holds writeMu) sees a position matching its
	// index.
	mu          sync.Mutex
	pos         map[string]int64
	first       int64 // this device's lowest untrimmed entry
	applied     int64 // entries of other devices applied since start
	lastPoll    time.Time
	lastErr     string
	reloads     int
	reloadWhy   string
	reloadAt    time.Time
	savedPos    map[string]int64
	savedTok    bson.Raw
	lastTrim    time.Time
	lastSavePos time.Time

	// instance identifies this engine in its device record: another
	// value there means another daemon started under the same name.
	instance  string
	startedAt time.Time
	conflict  string

	// The change stream (follow_stream.go). mode is how the follower
	// hears of changes; streamUp says the stream is open and caught up.
	mode         string
	streamUp     bool
	streamErr    string
	fallbacks    int
	token        bson.Raw
	replacedAt   time.Time // when the follower saw collections replaced
	replacedWall time.Time // when the server replaced them
	replaced     string
	loadedAt     time.Time // when the last full load began
}

func newSyncState(o SyncOptions, feed mongostore.Feed) *syncState {
	if o.Poll <= 0 {
		o.Poll = 500 * time.Millisecond
	}
	if o.KeepFor <= 0 {
		o.KeepFor = 7 * 24 * time.Hour
	}
	if o.KeepEntries <= 0 {
		o.KeepEntries = 1_000_000
	}
	if o.TrimEvery <= 0 {
		o.TrimEvery = 10 * time.Minute
	}
	if o.Host == "" {
		o.Host, _ = os.Hostname()
	}
	b := make([]byte, 8)
	rand.Read(b)
	return &syncState{opts: o, feed: feed, pos: map[string]int64{}, instance: hex.EncodeToString(b), mode: ModeFeedPolling}
}

var opNames = map[op]string{opInsert: "insert", opEdit: "edit", opForget: "forget", opUnforget: "unforget",
	opFlag: "flag", opEmbed: "embed", opDelete: "delete", opLink: "link"}

// announced reports whether other devices hear of changes of this op.
func announced(o op) bool { _, ok := opNames[o]; return ok }

// stampDevice puts this device's name into the change's database write.
func (s *syncState) stampDevice(c *change) {
	switch d := c.insert.(type) {
	case *mongostore.Memory:
		d.Device = s.opts.Device
	case *mongostore.Summary:
		d.Device = s.opts.Device
	}
	if c.op == opForget && c.update == nil {
		c.update = bson.D{{Key: "$set", Value: bson.D{{Key: "forgotten_at", Value: c.at.UTC()}, {Key: "updated_at", Value: c.at.UTC()}}}}
	}
	if c.update == nil {
		return
	}
	for i, el := range c.update {
		if el.Key == "$set" {
			if set, ok := el.Value.(bson.D); ok {
				c.update[i].Value = append(set[:len(set):len(set)], bson.E{Key: "device", Value: s.opts.Device})
				return
			}
		}
	}
	c.update = append(c.update[:len(c.update):len(c.update)], bson.E{Key: "$set", Value: bson.D{{Key: "device", Value: s.opts.Device}}})
}

// editCondition is the filter an edit under sync must also match: not
// forgotten, and not changed after the edit's own updated_at.
func editCondition(update bson.D) bson.D {
	cond := bson.D{{Key: "forgotten_at", Value: bson.D{{Key: "$exists", Value: false}}}}
	for _, el := range update {
		if el.Key != "$set" {
			continue
		}
		set, _ := el.Value.(bson.D)
		for _, f := range set {
			if f.Key == "updated_at" {
				cond = append(cond, bson.E{Key: "updated_at", Value: bson.D{{Key: "$lte", Value: f.Value}}})
			}
		}
	}
	return cond
}

// announce appends c to the feed, first writing a pending entry.
func (e *Engine) announce(ctx context.Context, c *change) error {
	s := e.sync
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.flushPendingLocked(ctx); err != nil {
		return fmt.Errorf("memory %s was saved on this device, but other devices cannot be told yet: %w", c.id.Hex(), err)
	}
	kind := "memory"
	if c.kind == memindex.KindSummary {
		kind = "summary"
	}
	entry := &mongostore.FeedEntry{Device: s.opts.Device, Seq: s.next, MemoryID: c.id, Kind: kind, Op: opNames[c.op], At: e.now()}
	s.next++
	if err := s.feed.Append(ctx, entry); err != nil {
		s.pending = entry
		return fmt.Errorf("memory %s was saved on this device, but other devices cannot be told yet: %w", c.id.Hex(), err)
	}
	return nil
}

func (s *syncState) flushPendingLocked(ctx context.Context) error {
	if s.pending == nil {
		return nil
	}
	if err := s.feed.Append(ctx, s.pending); err != nil {
		return err
	}
	s.pending = nil
	return nil
}

// startSync finds this device's next entry number and records the device,
// before any write: the highest number the record names, then the
// entries written past it.
func (e *Engine) startSync(ctx context.Context) error {
	s := e.sync
	first, head := int64(1), int64(0)
	rec, err := s.feed.Device(ctx, s.opts.Device)
	switch {
	case err == nil:
		first = max(rec.First, 1)
		head = max(rec.Head, first-1)
		s.setToken(rec.ResumeToken)
	case !errIsNotFound(err):
		return err
	}
	if s.opts.ChangeStreams {
		ok, where, err := e.store.ChangeStreamSupport(ctx)
		if s.opts.assumeStreams {
			ok, where, err = true, "assumed by a test", nil
		}
		s.mu.Lock()
		switch {
		case err != nil:
			s.streamErr = err.Error()
		case ok:
			s.mode = ModeChangeStream + " (" + where + ")"
		default:
			s.streamErr = "the server offers no change streams: " + where
		}
		s.mu.Unlock()
	}
	head, err = s.probeHead(ctx, s.opts.Device, head)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	s.next = head + 1
	s.wmu.Unlock()
	started := time.Now().UTC().Truncate(time.Millisecond)
	s.mu.Lock()
	s.first, s.lastTrim, s.startedAt = first, time.Now(), started
	s.mu.Unlock()
	return s.feed.SetDevice(ctx, s.opts.Device, bson.D{{Key: "first", Value: first}, {Key: "head", Value: head}, {Key: "started_at", Value: started},
		{Key: "host", Value: s.opts.Host}, {Key: "instance", Value: s.instance}})
}

// noteOwnRecord checks this device's record, as the follower read it, for
// another daemon writing under the same name: one that started after this
// one and wrote its own instance there. (An older record of another
// instance is a previous daemon's, brought back for a moment by a
// restore.)
func (e *Engine) noteOwnRecord(d *mongostore.DeviceRecord) {
	s := e.sync
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.Instance == "" || d.Instance == s.instance || !d.StartedAt.After(s.startedAt) {
		return
	}
	if s.conflict == "" {
		e.log.Error("another daemon uses this device name; give each machine its own sync.device", "device", s.opts.Device, "other_host", d.Host)
	}
	s.conflict = fmt.Sprintf("another daemon (on host %s, started %s) uses device name %s", d.Host, d.StartedAt.Local().Format(time.DateTime), s.opts.Device)
}

// probeHead returns the highest entry number of device from head on.
func (s *syncState) probeHead(ctx context.Context, device string, head int64) (int64, error) {
	for {
		_, err := s.feed.Get(ctx, device, head+1)
		if errIsNotFound(err) {
			return head, nil
		}
		if err != nil {
			return 0, err
		}
		head++
	}
}

// heads is, per other device, its highest entry now: the position a full
// load read after starts following from.
func (s *syncState) heads(ctx context.Context) (map[string]int64, error) {
	devs, err := s.feed.Devices(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, d := range devs {
		if d.Device == s.opts.Device {
			continue
		}
		h, err := s.probeHead(ctx, d.Device, max(d.Head, d.First-1))
		if err != nil {
			return nil, err
		}
		out[d.Device] = h
	}
	return out, nil
}

// position is a copy of the follower's position. Callers that need it to
// match the index hold writeMu.
func (s *syncState) position() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.pos)
}

func (s *syncState) setPosition(p map[string]int64) {
	s.mu.Lock()
	s.pos = maps.Clone(p)
	if s.pos == nil {
		s.pos = map[string]int64{}
	}
	s.mu.Unlock()
}

// SyncStatus is what status shows of sync.
type SyncStatus struct {
	Device string
	// Position is, per other device, the last of its feed entries applied.
	Position map[string]int64
	// Behind is, per other device, how many of its entries are not applied
	// yet, as of the last read.
	Behind map[string]int64
	// Next is this device's next feed entry number; Pending says one
	// waits to be written again.
	Next     int64
	Pending  bool
	Applied  int64
	LastPoll time.Time
	LastErr  string
	// Reloads counts full index reloads because the feed could not say
	// what changed (a follower behind the trim point); ReloadReason says
	// why the last one happened.
	Reloads      int
	ReloadReason string
	ReloadAt     time.Time
	// Mode is how the follower hears of the others' changes:
	// ModeChangeStream (with the server) or ModeFeedPolling; Streaming
	// says the stream is open now. StreamError says why there is none or
	// why the last one ended; Fallbacks counts streams that could not
	// resume from their token.
	Mode        string
	Streaming   bool
	StreamError string
	Fallbacks   int
	// Conflict names another daemon using this device name.
	Conflict string
}

// How the follower hears of changes.
const (
	ModeChangeStream = "change stream"
	ModeFeedPolling  = "feed polling"
)

// SyncStatus reports sync's state; nil when sync is off.
func (e *Engine) SyncStatus(ctx context.Context) *SyncStatus {
	s := e.sync
	if s == nil {
		return nil
	}
	st := &SyncStatus{Device: s.opts.Device, Behind: map[string]int64{}}
	s.wmu.Lock()
	st.Next, st.Pending = s.next, s.pending != nil
	s.wmu.Unlock()
	s.mu.Lock()
	st.Position = maps.Clone(s.pos)
	st.Applied, st.LastPoll, st.LastErr = s.applied, s.lastPoll, s.lastErr
	st.Reloads, st.ReloadReason, st.ReloadAt = s.reloads, s.reloadWhy, s.reloadAt
	st.Mode, st.Streaming, st.StreamError, st.Fallbacks, st.Conflict = s.mode, s.streamUp, s.streamErr, s.fallbacks, s.conflict
	s.mu.Unlock()
	if devs, err := s.feed.Devices(ctx); err == nil {
		for _, d := range devs {
			if d.Device == s.opts.Device {
				continue
			}
			if h := d.Head - st.Position[d.Device]; h > 0 {
				st.Behind[d.Device] = h
			} else {
				st.Behind[d.Device] = 0
			}
		}
	}
	return st
}

func sortedDevices(devs []mongostore.DeviceRecord) {
	sort.Slice(devs, func(i, j int) bool { return devs[i].Device < devs[j].Device })
}
