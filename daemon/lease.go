package daemon

import (
	"context"
	"sync"
	"time"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/control"
)

// With sync enabled several daemons share one database, and scheduled
// maintenance and backups must run on one of them only: the one holding
// the "maintenance" lease (mongostore.Lease). Every daemon tries to take
// or renew it every third of its length (sync.lease_seconds, 60 s); the
// holder runs the scheduler, the others keep theirs built but stopped
// (on-demand runs, `infmem maintain`, work everywhere). A holder that
// crashed stops renewing, and another daemon takes the lease once it has
// expired, within its length plus one try.
// A daemon that closes its memory gives the lease up at once.

// LeaseName is the lease scheduled maintenance and backups run under.
const LeaseName = "maintenance"

// leaseTTLOf is how long a taken lease lasts without renewal:
// sync.lease_seconds (default 60).
func leaseTTLOf(cfg config.Config) time.Duration {
	if cfg.Sync.LeaseSeconds <= 0 {
		return 60 * time.Second
	}
	return time.Duration(cfg.Sync.LeaseSeconds) * time.Second
}

// leaseState is this daemon's side of the maintenance lease.
type leaseState struct {
	device string
	ttl    time.Duration
	mu     sync.Mutex
	held   bool
	holder string
	until  time.Time
	err    string
}

func (l *leaseState) status() (held bool, holder string, until time.Time, err string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held, l.holder, l.until, l.err
}

// runLease keeps trying to hold the lease on st's database until ctx ends,
// starting the scheduler while it holds it and stopping it when it does
// not.
func (m *maintenanceService) runLease(ctx context.Context, st *Stack, done chan<- struct{}) {
	defer close(done)
	l := m.lease
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		lease, held, err := st.Store.AcquireLease(ctx, LeaseName, l.device, time.Now(), l.ttl)
		if ctx.Err() != nil {
			break
		}
		l.mu.Lock()
		was := l.held
		l.held = held && err == nil
		if err != nil {
			l.err = err.Error()
		} else {
			l.err, l.holder, l.until = "", lease.Holder, lease.ExpiresAt
		}
		now := l.held
		l.mu.Unlock()
		switch {
		case now && !was:
			m.log.Info("this device now runs scheduled maintenance and backups", "device", l.device)
			m.setRunning(ctx, true)
		case !now && was:
			m.log.Warn("another device runs scheduled maintenance and backups now", "device", l.device, "err", err)
			m.setRunning(ctx, false)
		}
		select {
		case <-ctx.Done():
		case <-t.C:
			continue
		}
		break
	}
	l.mu.Lock()
	held := l.held
	l.held = false
	l.mu.Unlock()
	if held {
		m.setRunning(context.Background(), false)
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := st.Store.ReleaseLease(rctx, LeaseName, l.device); err != nil {
			m.log.Warn("cannot give up the maintenance lease; another device takes it when it expires", "err", err)
		}
	}
}

// setRunning starts or stops the current scheduler.
func (m *maintenanceService) setRunning(ctx context.Context, on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sched == nil || m.schedOn == on {
		return
	}
	if on {
		m.sched.Start(context.WithoutCancel(ctx))
		m.ensureBackupKey()
	} else {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := m.sched.Stop(sctx); err != nil {
			m.log.Warn("the scheduler did not stop cleanly", "err", err)
		}
	}
	m.schedOn = on
}

// leaseStatus is the lease part of status (nil without sync).
func (m *maintenanceService) leaseStatus(ctx context.Context, st *Stack, s *control.SyncStatus) {
	if m.lease == nil {
		return
	}
	held, holder, until, err := m.lease.status()
	s.HoldsLease, s.LeaseError = held, err
	if l, rerr := st.Store.ReadLease(ctx, LeaseName); rerr == nil {
		holder, until = l.Holder, l.ExpiresAt
	}
	s.LeaseHolder, s.LeaseExpiresAt = holder, until
}
