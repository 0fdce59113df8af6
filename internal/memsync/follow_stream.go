package memsync

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/mongostore"
)

// The change stream follower. Where the server offers change streams (a
// replica set, Atlas: mongostore's changestream.go) and
// Options.ChangeStreams is set, a goroutine watches the change feed
// with one instead of the follower asking every other device for its next
// entry every Poll. An event only wakes the follower for the device that
// wrote: it then reads that device's entries from its position on, as a
// poll would (followDevice), so the feed stays the one record of what
// changed and positions, snapshots, trimming and restore marks mean the
// same in both modes. Writers write the feed either way.
//
// Opening a stream: resume after the last token (this device's record
// keeps it, savePosition), then catch up from the feed position (a full
// poll: whatever was written before the stream opened), then consume. A
// token the server can no longer resume from (its oplog moved on) falls
// back to a stream without one, after the same catch-up from the feed
// position; a device whose entries were trimmed past the position is
// reloaded whole (pollFeed). Any other failure (the network, no stream
// at all) leaves the follower polling every Poll until a stream opens
// again, retried with a growing delay. While a stream is open the
// follower still polls every device every streamSafetyPoll.
//
// A drop or rename of the memory collections, the feed or Metadata in the
// stream means the data was replaced wholesale (a restore made without
// announcing itself, or by hand): the follower reloads its whole index
// once the events stop for replacedQuiet (a restore renames several
// collections; its own feed mark usually triggers the reload first).

// streamSafetyPoll is how often every device is polled while the stream
// is open.
var streamSafetyPoll = 30 * time.Second

// replacedQuiet is how long after the last collection replaced the
// reload waits.
var replacedQuiet = 2 * time.Second

// streamRetryMax bounds the delay between attempts to open a stream.
const streamRetryMax = 30 * time.Second

func (s *Sync) streaming() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.HasPrefix(s.mode, ModeChangeStream)
}

func (s *Sync) isStreamUp() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streamUp
}

func (s *Sync) resumeToken() bson.Raw {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.token
}

func (s *Sync) setToken(t bson.Raw) {
	s.mu.Lock()
	s.token = append(bson.Raw(nil), t...)
	if len(s.token) == 0 {
		s.token = nil
	}
	s.mu.Unlock()
}

func (s *Sync) setStream(up bool, err error) {
	s.mu.Lock()
	s.streamUp = up
	if err != nil {
		s.streamErr = err.Error()
	} else if up {
		s.streamErr = ""
	}
	s.mu.Unlock()
}

// streamRetry decides what follows a stream's end: drop the token (the
// server cannot resume from it; a new stream and a catch-up from the feed
// position replace it) or retry with the same token after a delay.
func streamRetry(err error, hadToken bool) (dropToken bool) {
	return hadToken && mongostore.IsResumeFailure(err)
}

// errStreamInvalidated ends a stream the server invalidated: it cannot
// be resumed.
var errStreamInvalidated = errors.New("the change stream was invalidated")

// runStream keeps a change stream on the feed open until ctx ends.
func (s *Sync) runStream(ctx context.Context) {
	delay := s.opts.Poll
	for ctx.Err() == nil {
		token := s.resumeToken()
		err := s.streamOnce(ctx, token)
		s.setStream(false, err)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, errStreamInvalidated) {
			s.setToken(nil)
			continue
		}
		if streamRetry(err, len(token) > 0) {
			s.log().Warn("the change stream cannot resume from its token; following from the change feed position", "err", err)
			s.setToken(nil)
			s.mu.Lock()
			s.fallbacks++
			s.mu.Unlock()
			continue
		}
		s.log().Warn("the change stream failed; polling the change feed until it opens again", "err", err, "retry_in", delay)
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(delay*2, streamRetryMax)
	}
}

// streamOnce opens a stream, catches up from the feed position and
// consumes events until the stream ends.
func (s *Sync) streamOnce(ctx context.Context, token bson.Raw) error {
	st, err := s.feed.Watch(ctx, s.opts.Device, token)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		st.Close(cctx)
	}()
	if len(token) == 0 {
		// A stream opened without a token starts now: keep where it stands.
		s.setToken(st.Token())
	}
	if err := s.pollFeed(ctx); err != nil {
		return err
	}
	s.setStream(true, nil)
	s.log().Info("following the other devices through a change stream")
	for {
		ev, err := st.Next(ctx)
		if err != nil {
			return err
		}
		if err := s.applyStreamEvent(ctx, ev); err != nil {
			return err
		}
	}
}

// applyStreamEvent acts on one event and then records its token.
func (s *Sync) applyStreamEvent(ctx context.Context, ev *mongostore.FeedEvent) error {
	switch {
	case ev.Entry != nil:
		if ev.Entry.Device == s.opts.Device {
			break
		}
		if err := s.followDevice(ctx, ev.Entry.Device, 0); err != nil {
			return err
		}
	default:
		s.mu.Lock()
		s.replacedAt, s.replacedWall = time.Now(), ev.At
		if ev.At.IsZero() {
			s.replacedWall = s.replacedAt
		}
		s.replaced = fmt.Sprintf("collection %s was replaced on the server (%s)", ev.Coll, ev.Op)
		if ev.Op == "dropDatabase" || ev.Op == "invalidate" {
			s.replaced = "the database was dropped on the server"
		}
		s.mu.Unlock()
		if ev.Op == "invalidate" {
			return errStreamInvalidated
		}
	}
	s.setToken(ev.Token)
	return nil
}

// reloadIfReplaced reloads the whole index once collections were seen
// replaced in the stream and nothing has reloaded it since.
func (s *Sync) reloadIfReplaced(ctx context.Context) error {
	s.mu.Lock()
	at, wall, why, loaded := s.replacedAt, s.replacedWall, s.replaced, s.loadedAt
	due := !at.IsZero() && time.Since(at) > replacedQuiet
	if due {
		s.replacedAt = time.Time{}
	}
	s.mu.Unlock()
	// A full load that began after the replacement (a restore's own mark
	// triggered it, or this engine started after it) has read it.
	if !due || loaded.After(wall) {
		return nil
	}
	return s.resync(ctx, why)
}
