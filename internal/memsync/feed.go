// Package memsync keeps a memory engine's index current when several
// daemons (devices) share one database (docs/SYNC.md). It is built and
// started only with sync on: the daemon gives the engine a *Sync as its
// memory.Options.Follower, the one observer of the engine's write path.
// With sync off the daemon runs only Others, which looks for devices with
// sync on writing to the same database (unsynced.go).
//
// The writer's side (Changed, this file): every change the engine makes
// that another device's index must see carries this device's name in the
// memory's document (the engine stamps it: memory/follower.go) and is
// announced in the change feed (mongostore.Feed) after the database write
// and the index update, before the engine acknowledges it: a change is
// acknowledged only once announced. The device numbers its entries 1, 2,
// 3, ... itself and never leaves a gap (see mongostore's feed.go for why
// that keeps readers from skipping an entry another device writes late):
// an entry whose write fails stays pending and is written again, under
// the same number, before the next one; the change it announces returns
// an error meanwhile (stored here, not yet acknowledged).
//
// The reader's side: follow.go (polling the feed) and follow_stream.go
// (a change stream on it, where the server offers one).
//
// Conflicts are the engine's (memory.ErrConflict): with a Follower an
// edit applies only if the memory is not newer and not forgotten.
package memsync

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
)

// Options turns sync on.
type Options struct {
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

// Sync is one engine's side of sync: it implements memory.Follower.
type Sync struct {
	opts  Options
	store *mongostore.Store
	feed  mongostore.Feed
	// eng is the engine, from its first call (Starting).
	eng atomic.Pointer[memory.Engine]

	// wmu guards the writer's numbering.
	wmu     sync.Mutex
	next    int64                 // number of the next entry
	pending *mongostore.FeedEntry // written to the database, not yet to the feed

	// mu guards the follower's state. The position itself is the
	// engine's (memory.Followed), kept beside its index.
	mu          sync.Mutex
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

var _ memory.Follower = (*Sync)(nil)

// New returns the sync of an engine on store; it does nothing until the
// engine, given it as Options.Follower, starts.
func New(store *mongostore.Store, o Options) *Sync {
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
	return &Sync{opts: o, store: store, feed: store.Feed(), instance: hex.EncodeToString(b), mode: ModeFeedPolling}
}

// Device is this daemon's name in the feed.
func (s *Sync) Device() string { return s.opts.Device }

func (s *Sync) engine() *memory.Engine { return s.eng.Load() }

func (s *Sync) log() *slog.Logger {
	if e := s.engine(); e != nil {
		return e.Logger()
	}
	return slog.Default()
}

// position is the engine's follow position (nil before it starts).
func (s *Sync) position() map[string]int64 {
	if e := s.engine(); e != nil {
		return e.FollowPosition()
	}
	return nil
}

func errIsNotFound(err error) bool { return errors.Is(err, mongostore.ErrNotFound) }

// Changed announces c in the feed, first writing a pending entry: the
// engine's write path calls it after the database write and the index
// update, and acknowledges c only if it returns nil.
func (s *Sync) Changed(ctx context.Context, c memory.Change) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.flushPendingLocked(ctx); err != nil {
		return fmt.Errorf("memory %s was saved on this device, but other devices cannot be told yet: %w", c.ID.Hex(), err)
	}
	entry := &mongostore.FeedEntry{Device: s.opts.Device, Seq: s.next, MemoryID: c.ID, Kind: c.Kind, Op: c.Op, At: c.At}
	s.next++
	if err := s.feed.Append(ctx, entry); err != nil {
		s.pending = entry
		return fmt.Errorf("memory %s was saved on this device, but other devices cannot be told yet: %w", c.ID.Hex(), err)
	}
	return nil
}

func (s *Sync) flushPendingLocked(ctx context.Context) error {
	if s.pending == nil {
		return nil
	}
	if err := s.feed.Append(ctx, s.pending); err != nil {
		return err
	}
	s.pending = nil
	return nil
}

// Starting finds this device's next entry number and records the
// device, before any write: the highest number the record names, then
// the entries written past it. The engine calls it before each attempt
// to load its index.
func (s *Sync) Starting(ctx context.Context, e *memory.Engine) error {
	s.eng.Store(e)
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
		ok, where, err := s.store.ChangeStreamSupport(ctx)
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
func (s *Sync) noteOwnRecord(d *mongostore.DeviceRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.Instance == "" || d.Instance == s.instance || !d.StartedAt.After(s.startedAt) {
		return
	}
	if s.conflict == "" {
		s.log().Error("another daemon uses this device name; give each machine its own sync.device", "device", s.opts.Device, "other_host", d.Host)
	}
	s.conflict = fmt.Sprintf("another daemon (on host %s, started %s) uses device name %s", d.Host, d.StartedAt.Local().Format(time.DateTime), s.opts.Device)
}

// probeHead returns the highest entry number of device from head on.
func (s *Sync) probeHead(ctx context.Context, device string, head int64) (int64, error) {
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

// Heads is, per other device, its highest entry now: the position a full
// load read after starts following from. The engine calls it as a full
// load begins.
func (s *Sync) Heads(ctx context.Context) (map[string]int64, error) {
	s.mu.Lock()
	s.loadedAt = time.Now()
	s.mu.Unlock()
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

// Status is what status shows of sync.
type Status struct {
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

// Status reports sync's state.
func (s *Sync) Status(ctx context.Context) *Status {
	st := &Status{Device: s.opts.Device, Behind: map[string]int64{}}
	s.wmu.Lock()
	st.Next, st.Pending = s.next, s.pending != nil
	s.wmu.Unlock()
	st.Position = s.position()
	s.mu.Lock()
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
