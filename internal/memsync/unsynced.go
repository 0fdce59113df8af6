package memsync

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/infmem/infmem/mongostore"
)

// With sync off an engine assumes it is its database's only writer: it
// never reads the change feed, so whatever another device writes to the
// same database never reaches its index. Devices with sync on leave signs
// of themselves in Metadata: a device record each, renewed every few
// seconds while they run, and the maintenance lease, renewed by its
// holder. A daemon with sync off runs Others.Watch, which looks for them
// at start and then every minute; Others.Names names the devices it found
// active, and status and doctor say how to fix it.
//
// It does not turn sync on by itself: sync writes feed entries and a
// device record under a device name (by default the host name, which
// another device may already use), and what this daemon wrote while sync
// was off is in no feed, so the others would not see it either. That is
// the user's decision (sync.enabled and sync.device in config.json,
// docs/SYNC.md); infmem's part is to say, loudly and at once, that the
// index misses changes.

// otherWriterWindow is how recently a device record or lease must have
// been renewed for its device to count as writing now: a running device
// renews its record every few seconds and its lease every third of
// sync.lease_seconds (at most an hour).
const otherWriterWindow = 15 * time.Minute

// Others looks, with sync off, for devices with sync on writing to the
// same database.
type Others struct {
	store *mongostore.Store
	log   *slog.Logger

	mu      sync.Mutex
	names   []string
	checked time.Time
}

// NewOthers returns the check on store; it does nothing until Check or
// Watch runs.
func NewOthers(store *mongostore.Store, log *slog.Logger) *Others {
	return &Others{store: store, log: log}
}

// Names names the devices with sync on that were found writing to the
// database (nil when none was), with when that was last checked.
func (w *Others) Names() ([]string, time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.names...), w.checked
}

// Check looks for other devices' device records and leases.
func (w *Others) Check(ctx context.Context) error {
	now := time.Now()
	devs, err := w.store.Feed().Devices(ctx)
	if err != nil {
		return err
	}
	leases, err := w.store.Leases(ctx)
	if err != nil {
		return err
	}
	var names []string
	seen := map[string]bool{}
	for _, d := range devs {
		if d.Device == mongostore.RestoreDevice || now.Sub(d.UpdatedAt) > otherWriterWindow || seen[d.Device] {
			continue
		}
		seen[d.Device] = true
		name := d.Device
		if d.Host != "" {
			name += " (host " + d.Host + ")"
		}
		names = append(names, fmt.Sprintf("%s, active %s ago", name, now.Sub(d.UpdatedAt).Round(time.Second)))
	}
	for _, l := range leases {
		if seen[l.Holder] || now.Sub(l.RenewedAt) > otherWriterWindow || l.ExpiresAt.Before(now.Add(-otherWriterWindow)) {
			continue
		}
		seen[l.Holder] = true
		names = append(names, fmt.Sprintf("%s (holds the %s lease), active %s ago", l.Holder, l.ID, now.Sub(l.RenewedAt).Round(time.Second)))
	}
	w.mu.Lock()
	was := len(w.names)
	w.names, w.checked = names, now
	w.mu.Unlock()
	if len(names) > 0 && was == 0 {
		w.log.Warn("sync is off but other devices write to this database: this daemon's index misses their changes; set sync.enabled in config.json (docs/SYNC.md)", "devices", names)
	}
	return nil
}

func (w *Others) checkLogged(ctx context.Context) {
	if err := w.Check(ctx); err != nil && ctx.Err() == nil {
		w.log.Warn("cannot check for other devices writing to the database", "err", err)
	}
}

// Watch runs Check at once and then every `every` until ctx ends.
func (w *Others) Watch(ctx context.Context, every time.Duration) {
	w.checkLogged(ctx)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		w.checkLogged(ctx)
	}
}
