package memory

import (
	"context"
	"fmt"
	"maps"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The follower: one goroutine per engine with sync on reads, every Poll,
// each other device's feed entries after the last one it applied (by _id
// equality, entry by entry: see mongostore's feed.go) and makes the index
// match the database for each entry's memory by re-reading it by _id
// (refresh). Applying an entry twice does no harm, so a position that
// lags (a snapshot's, a crash's) only costs re-reading. A device whose
// oldest kept entry is past the follower's position has had entries
// trimmed that the follower never read: the follower then reloads the
// whole index (and status says so). It also trims this device's own old
// entries, retries a pending one, and records its position in the
// device's Metadata record every few seconds for status.

// followBatch bounds the entries applied under one hold of writeMu.
const followBatch = 64

func (e *Engine) runFollower(ctx context.Context) {
	s := e.sync
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := e.pollFeed(ctx)
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
			e.log.Warn("cannot read the change feed", "err", err)
		}
		s.wmu.Lock()
		if err := s.flushPendingLocked(ctx); err != nil && ctx.Err() == nil {
			e.log.Warn("cannot write a pending change feed entry", "err", err)
		}
		s.wmu.Unlock()
		if saveDue {
			e.savePosition(ctx)
		}
		if trimDue {
			if n, err := e.trimFeed(ctx, e.now()); err != nil && ctx.Err() == nil {
				e.log.Warn("cannot trim the change feed", "err", err)
			} else if n > 0 {
				e.log.Info("change feed trimmed", "entries", n)
			}
		}
	}
}

// pollFeed applies every other device's entries written since the last
// poll.
func (e *Engine) pollFeed(ctx context.Context) error {
	s := e.sync
	devs, err := s.feed.Devices(ctx)
	if err != nil {
		return err
	}
	sortedDevices(devs)
	for _, d := range devs {
		if d.Device == s.opts.Device {
			continue
		}
		s.mu.Lock()
		p := s.pos[d.Device]
		s.mu.Unlock()
		if p+1 < d.First {
			why := fmt.Sprintf("behind the change feed of device %s (at entry %d, its oldest kept is %d)", d.Device, p, d.First)
			return e.resync(ctx, why)
		}
		for {
			n, err := e.applyEntries(ctx, d.Device, p)
			if err != nil {
				return err
			}
			if n < followBatch {
				break
			}
			p += int64(n)
		}
	}
	return nil
}

// applyEntries applies up to followBatch entries of device after entry
// p, under writeMu, and returns how many it applied.
func (e *Engine) applyEntries(ctx context.Context, device string, p int64) (int, error) {
	s := e.sync
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	n := 0
	scopesStale, filesStale := false, false
	for ; n < followBatch; n++ {
		entry, err := s.feed.Get(ctx, device, p+1)
		if errIsNotFound(err) {
			break
		}
		if err != nil {
			return n, err
		}
		d, err := e.refreshDoc(ctx, entry.MemoryID)
		if err != nil {
			return n, fmt.Errorf("cannot apply change feed entry %s: %w", entry.ID, err)
		}
		if d.Scope != "" {
			if _, known := e.scopes.Get(d.Scope); !known {
				scopesStale = true
			}
		}
		filesStale = true
		p++
		s.mu.Lock()
		s.pos[device] = p
		s.applied++
		s.mu.Unlock()
	}
	if filesStale {
		e.files.invalidate()
	}
	if scopesStale {
		if err := e.scopes.Reload(ctx); err != nil {
			e.log.Warn("cannot reload the scopes another device created", "err", err)
		}
	}
	return n, nil
}

// resync reloads the whole index when the feed cannot say what changed.
func (e *Engine) resync(ctx context.Context, why string) error {
	e.log.Warn("reloading the whole memory index", "reason", why)
	if err := e.Reload(ctx); err != nil {
		return fmt.Errorf("cannot reload the index (%s): %w", why, err)
	}
	s := e.sync
	s.mu.Lock()
	s.reloads++
	s.reloadWhy, s.reloadAt = why, time.Now()
	s.mu.Unlock()
	return nil
}

// savePosition records this device's head and how far it has read the
// others' feeds in its device record.
func (e *Engine) savePosition(ctx context.Context) {
	s := e.sync
	pos := s.position()
	s.wmu.Lock()
	head := s.next - 1
	s.wmu.Unlock()
	s.mu.Lock()
	same := maps.Equal(pos, s.savedPos) && time.Since(s.lastSavePos) < time.Minute
	s.mu.Unlock()
	if same {
		return
	}
	err := s.feed.SetDevice(ctx, s.opts.Device, bson.D{{Key: "head", Value: head}, {Key: "position", Value: pos}, {Key: "position_at", Value: time.Now().UTC()}})
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("cannot record the change feed position", "err", err)
		}
		return
	}
	s.mu.Lock()
	s.savedPos, s.lastSavePos = pos, time.Now()
	s.mu.Unlock()
}

// trimFeed deletes this device's entries older than KeepFor or further
// back than KeepEntries, oldest first, each by _id, and records the new
// oldest entry before deleting (so a reader never misses the gap).
func (e *Engine) trimFeed(ctx context.Context, now time.Time) (int, error) {
	s := e.sync
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
