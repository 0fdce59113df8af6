package memsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/mongostore"
)

// The follower: one goroutine per engine with sync on (Follow) reads, every Poll,
// each other device's feed entries after the last one it applied (by _id
// equality, entry by entry: see mongostore's feed.go) and makes the index
// match the database for each entry's memory by re-reading it by _id
// (memory.Followed.Refresh, under the engine's write lock). Applying an entry twice does no harm, so a position that
// lags (a snapshot's, a crash's) only costs re-reading. A device whose
// oldest kept entry is past the follower's position has had entries
// trimmed that the follower never read: the follower then reloads the
// whole index (and status says so); so does one that meets an entry
// announcing a restore (mongostore.OpRestore: backup/restore.go), which
// replaced the whole database. It also trims this device's own old
// entries, retries a pending one, and records its position in the
// device's Metadata record every few seconds for status.

// followBatch bounds the entries applied under one hold of the engine's
// write lock.
const followBatch = 64

// Follow runs the follower until ctx ends; the engine starts it once its
// index is loaded.
func (s *Sync) Follow(ctx context.Context) {
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	if s.streaming() {
		go s.runStream(ctx)
	}
	var lastFull time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// With the stream open, a poll of every device only now and then
		// (it also notices trim points and a pending entry the stream
		// saw before it could be read).
		var err error
		if !s.isStreamUp() || time.Since(lastFull) > streamSafetyPoll {
			err = s.pollFeed(ctx)
			lastFull = time.Now()
		}
		if err == nil {
			err = s.reloadIfReplaced(ctx)
		}
		s.mu.Lock()
		s.lastPoll = time.Now()
		if err != nil {
			s.lastErr = err.Error()
		} else {
			s.lastErr = ""
		}
		trimDue := time.Since(s.lastTrim) > s.opts.TrimEvery
		saveDue := time.Since(s.lastSavePos) > 5*time.Second
		s.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			s.log().Warn("cannot read the change feed", "err", err)
		}
		s.wmu.Lock()
		if err := s.flushPendingLocked(ctx); err != nil && ctx.Err() == nil {
			s.log().Warn("cannot write a pending change feed entry", "err", err)
		}
		s.wmu.Unlock()
		if saveDue {
			s.savePosition(ctx)
		}
		if trimDue {
			if n, err := s.trimFeed(ctx, s.engine().Now()); err != nil && ctx.Err() == nil {
				s.log().Warn("cannot trim the change feed", "err", err)
			} else if n > 0 {
				s.log().Info("change feed trimmed", "entries", n)
			}
		}
	}
}

// pollFeed applies every other device's entries written since the last
// poll.
func (s *Sync) pollFeed(ctx context.Context) error {
	devs, err := s.feed.Devices(ctx)
	if err != nil {
		return err
	}
	sortedDevices(devs)
	for _, d := range devs {
		if d.Device == s.opts.Device {
			s.noteOwnRecord(&d)
			continue
		}
		if err := s.followDevice(ctx, d.Device, d.First); err != nil {
			return err
		}
	}
	return nil
}

// followDevice applies device's entries after the follower's position;
// first is the device's oldest kept entry (0: not known).
func (s *Sync) followDevice(ctx context.Context, device string, first int64) error {
	p := s.position()[device]
	if p+1 < first {
		why := fmt.Sprintf("behind the change feed of device %s (at entry %d, its oldest kept is %d)", device, p, first)
		return s.resync(ctx, why)
	}
	for {
		n, err := s.applyEntries(ctx, device, p)
		var mark *restoreMark
		if errors.As(err, &mark) {
			// Every device's changes before the restore are gone with
			// the data they changed; the reload reads past them all.
			return s.resync(ctx, fmt.Sprintf("device %s restored a backup at %s (feed entry %d)", mark.device, mark.at.Local().Format(time.DateTime), mark.seq))
		}
		if err != nil {
			return err
		}
		if n < followBatch {
			return nil
		}
		p = s.position()[device]
	}
}

// applyEntries applies up to followBatch entries of device after entry
// p, under the engine's write lock, and returns how many it applied.
func (s *Sync) applyEntries(ctx context.Context, device string, p int64) (int, error) {
	n := 0
	err := s.engine().Follow(ctx, func(f *memory.Followed) error {
		// The stream and the poll may both follow a device: never step
		// back.
		p = max(p, f.Position(device))
		for ; n < followBatch; n++ {
			entry, err := s.feed.Get(ctx, device, p+1)
			if errIsNotFound(err) {
				break
			}
			if err != nil {
				return err
			}
			if entry.Op == mongostore.OpRestore {
				return &restoreMark{device: device, seq: entry.Seq, at: entry.At}
			}
			// A document that breaks the rules is recorded and left out
			// of the index: the entry is applied.
			if err := f.Refresh(ctx, entry.MemoryID); err != nil {
				return fmt.Errorf("cannot apply change feed entry %s: %w", entry.ID, err)
			}
			p++
			f.Advance(device, p)
			s.mu.Lock()
			s.applied++
			s.mu.Unlock()
		}
		return nil
	})
	return n, err
}

// restoreMark is a feed entry announcing a restore (mongostore.OpRestore):
// the database was replaced, so the follower reloads the whole index.
type restoreMark struct {
	device string
	seq    int64
	at     time.Time
}

func (m *restoreMark) Error() string {
	return fmt.Sprintf("device %s restored a backup (feed entry %d)", m.device, m.seq)
}

// resync reloads the whole index when the feed cannot say what changed.
func (s *Sync) resync(ctx context.Context, why string) error {
	s.log().Warn("reloading the whole memory index", "reason", why)
	if err := s.engine().Reload(ctx); err != nil {
		return fmt.Errorf("cannot reload the index (%s): %w", why, err)
	}
	s.mu.Lock()
	s.reloads++
	s.reloadWhy, s.reloadAt = why, time.Now()
	s.mu.Unlock()
	return nil
}

// savePosition records this device's head and how far it has read the
// others' feeds in its device record.
func (s *Sync) savePosition(ctx context.Context) {
	pos := s.position()
	s.wmu.Lock()
	head := s.next - 1
	s.wmu.Unlock()
	tok := s.resumeToken()
	s.mu.Lock()
	same := maps.Equal(pos, s.savedPos) && bytes.Equal(tok, s.savedTok) && time.Since(s.lastSavePos) < time.Minute
	s.mu.Unlock()
	if same {
		return
	}
	fields := bson.D{{Key: "head", Value: head}, {Key: "position", Value: pos}, {Key: "position_at", Value: time.Now().UTC()}}
	if len(tok) > 0 {
		fields = append(fields, bson.E{Key: "resume_token", Value: tok})
	}
	err := s.feed.SetDevice(ctx, s.opts.Device, fields)
	if err != nil {
		if ctx.Err() == nil {
			s.log().Warn("cannot record the change feed position", "err", err)
		}
		return
	}
	s.mu.Lock()
	s.savedPos, s.savedTok, s.lastSavePos = pos, tok, time.Now()
	s.mu.Unlock()
}

// trimFeed deletes this device's entries older than KeepFor or further
// back than KeepEntries, oldest first, each by _id, and records the new
// oldest entry before deleting (so a reader never misses the gap).
func (s *Sync) trimFeed(ctx context.Context, now time.Time) (int, error) {
	s.mu.Lock()
	s.lastTrim = now
	first := s.first
	s.mu.Unlock()
	s.wmu.Lock()
	head := s.next - 1
	s.wmu.Unlock()
	// Find the new first entry: the oldest one to keep.
	newFirst := first
	for newFirst <= head {
		if head-newFirst+1 > s.opts.KeepEntries {
			newFirst = head - s.opts.KeepEntries + 1
			continue
		}
		entry, err := s.feed.Get(ctx, s.opts.Device, newFirst)
		if err != nil && !errIsNotFound(err) {
			return 0, err
		}
		if err == nil && now.Sub(entry.At) < s.opts.KeepFor {
			break
		}
		newFirst++
	}
	if newFirst == first {
		return 0, nil
	}
	if err := s.feed.SetDevice(ctx, s.opts.Device, bson.D{{Key: "first", Value: newFirst}}); err != nil {
		return 0, err
	}
	s.mu.Lock()
	s.first = newFirst
	s.mu.Unlock()
	n := 0
	for seq := first; seq < newFirst; seq++ {
		if err := s.feed.Delete(ctx, s.opts.Device, seq); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
