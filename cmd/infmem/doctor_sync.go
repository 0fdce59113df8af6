package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/infmem/infmem/internal/control"
	"github.com/infmem/infmem/internal/memsync"
	"github.com/infmem/infmem/mongostore"
)

// The sync checks (sync.enabled; docs/SYNC.md): the server and the way the
// follower hears of the other devices' changes, the device name, the
// maintenance lease and how far behind the follower is.

// syncFacts is what the sync checks judge: a running daemon's report,
// and what the database says when doctor could open it.
type syncFacts struct {
	status *control.SyncStatus
	engine string
	// Read from the database (store set).
	store     bool
	streams   bool
	server    string
	serverErr error
	devices   []mongostore.DeviceRecord
	devErr    error
	lease     *mongostore.Lease
	leaseErr  error
}

// gatherSync reads the sync facts from store (nil: none could be opened)
// beside a running daemon's status (nil: none runs).
func gatherSync(ctx context.Context, store *mongostore.Store, status *control.SyncStatus) syncFacts {
	f := syncFacts{status: status}
	if store == nil {
		return f
	}
	f.store, f.engine = true, store.Engine
	f.streams, f.server, f.serverErr = store.ChangeStreamSupport(ctx)
	f.devices, f.devErr = store.Feed().Devices(ctx)
	f.lease, f.leaseErr = store.ReadLease(ctx, "maintenance")
	return f
}

// checkSyncBesideDaemon runs the sync checks on a running daemon's status;
// on an external database doctor also asks the server itself (the
// embedded engine and a managed mongod admit the daemon only).
func (d *doctor) checkSyncBesideDaemon(ctx context.Context, st *control.SyncStatus, engine string) {
	if st == nil {
		d.add("sync", checkWarn, "sync.enabled is on in the config, but the running daemon does not report sync", "run 'infmem restart' to start it with sync on")
		return
	}
	if engine != mongostore.ModeExternal {
		f := syncFacts{status: st, engine: engine}
		d.checkSync(f)
		return
	}
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	store, err := mongostore.Open(octx, mongostore.Options{
		Mode: d.cfg.Mongo.Mode, URI: d.cfg.Mongo.URI, Root: *d.root, Database: d.cfg.Database, KeepIndexSnapshot: true,
	})
	if err != nil {
		f := syncFacts{status: st, engine: engine, serverErr: err}
		d.checkSync(f)
		return
	}
	defer store.Close(context.WithoutCancel(ctx))
	d.checkSync(gatherSync(octx, store, st))
}

func (d *doctor) checkSync(f syncFacts) {
	d.syncChecked = true
	d.checkSyncServer(f)
	d.checkSyncDevice(f)
	d.checkSyncLease(f)
	d.checkSyncLag(f)
}

// checkSyncServer says which way the follower hears of changes and
// whether the server could do better.
func (d *doctor) checkSyncServer(f syncFacts) {
	const polling = "the follower polls the change feed every 500 ms"
	const replicaFix = "run mongod as a replica set (one member will do: start it with --replSet rs0 and run rs.initiate() once), or use MongoDB Atlas; or set sync.change_streams to \"off\" to poll on purpose"
	st := f.status
	switch {
	case d.cfg.Sync.ChangeStreams == "off":
		d.add("sync server", checkPass, polling+" (sync.change_streams is off)", "")
	case st != nil && st.Streaming:
		d.add("sync server", checkPass, "the follower uses a "+st.FollowMode+" and polls the feed only as a safety net", "")
	case f.engine == mongostore.ModeEmbedded:
		d.add("sync server", checkPass, "the embedded engine offers no change streams: "+polling, "")
	case f.serverErr != nil:
		d.add("sync server", checkFail, "cannot ask the server whether it offers change streams: "+firstLineOf(f.serverErr.Error()), "check mongo.uri and that the server answers")
	case f.store && f.streams && st != nil:
		why := st.StreamError
		if why == "" {
			why = "opening"
		}
		d.add("sync server", checkWarn, fmt.Sprintf("the server is a %s, but the daemon's change stream is not open (%s): %s meanwhile", f.server, why, polling),
			"the database user needs the changeStream and find privileges on the database (readWrite and Atlas's readWriteAnyDatabase include them); see "+d.root.LogsDir())
	case f.store && f.streams:
		d.add("sync server", checkPass, fmt.Sprintf("the server is a %s: the follower will use a change stream", f.server), "")
	case f.store:
		d.add("sync server", checkWarn, fmt.Sprintf("the server is %s, so it offers no change streams: %s", f.server, polling), replicaFix)
	case st != nil && strings.HasPrefix(st.FollowMode, memsync.ModeChangeStream):
		d.add("sync server", checkWarn, "the daemon's "+st.FollowMode+" is not open ("+st.StreamError+"): "+polling+" meanwhile", "see "+d.root.LogsDir())
	case st != nil:
		detail := polling
		if st.StreamError != "" {
			detail += " (" + st.StreamError + ")"
		}
		d.add("sync server", checkWarn, detail, replicaFix)
	default:
		d.add("sync server", checkWarn, "not checked: the database could not be reached", "see the engine check above")
	}
}

// checkSyncDevice checks that no other machine writes under this device
// name.
func (d *doctor) checkSyncDevice(f syncFacts) {
	dev := d.cfg.DeviceName()
	host, _ := os.Hostname()
	names := map[string]bool{dev: true}
	var mine *mongostore.DeviceRecord
	for i, r := range f.devices {
		names[r.Device] = true
		if r.Device == dev {
			mine = &f.devices[i]
		}
	}
	if f.status != nil {
		for n := range f.status.Position {
			names[n] = true
		}
	}
	all := make([]string, 0, len(names))
	for n := range names {
		if n != mongostore.RestoreDevice {
			all = append(all, n)
		}
	}
	sort.Strings(all)
	fix := fmt.Sprintf("give each machine its own sync.device in %s (letters, digits, '.', '_', '-'), then 'infmem restart'", d.src.Path)
	switch {
	case f.status != nil && f.status.DeviceConflict != "":
		d.add("sync device", checkFail, f.status.DeviceConflict+": their changes and feed entries collide", fix)
	case f.devErr != nil:
		d.add("sync device", checkWarn, "cannot read the device records: "+firstLineOf(f.devErr.Error()), "see the engine check above")
	case mine != nil && mine.Host != "" && host != "" && mine.Host != host:
		d.add("sync device", checkWarn, fmt.Sprintf("device name %s was last used by host %s, not this one (%s); if infmem still runs there, two machines share the name", dev, mine.Host, host), fix)
	default:
		d.add("sync device", checkPass, fmt.Sprintf("%s; devices seen in the change feed: %s", dev, strings.Join(all, ", ")), "")
	}
}

// checkSyncLease names the daemon that runs scheduled maintenance and
// backups.
func (d *doctor) checkSyncLease(f syncFacts) {
	dev := d.cfg.DeviceName()
	holder, until := "", time.Time{}
	if f.lease != nil {
		holder, until = f.lease.Holder, f.lease.ExpiresAt
	}
	if st := f.status; st != nil && st.LeaseHolder != "" {
		holder, until = st.LeaseHolder, st.LeaseExpiresAt
	}
	who := holder
	if holder == dev {
		who = "this device (" + dev + ")"
	}
	switch {
	case f.status != nil && f.status.LeaseError != "":
		d.add("maintainer", checkFail, "cannot take or renew the maintenance lease: "+firstLineOf(f.status.LeaseError),
			"check the connection to the database and that its user may write the Metadata collection")
	case holder == "" && (f.status != nil || f.store):
		d.add("maintainer", checkWarn, "no daemon holds the maintenance lease: scheduled maintenance and backups run nowhere", "start a daemon with sync on ('infmem start'); it takes the lease at once")
	case holder == "":
		d.add("maintainer", checkWarn, "not checked: the database could not be reached", "see the engine check above")
	case until.Before(time.Now()):
		d.add("maintainer", checkWarn, fmt.Sprintf("the lease of %s expired at %s and nobody renewed it: scheduled maintenance and backups wait", who, until.Local().Format(time.DateTime)),
			"start a daemon with sync on ('infmem start'); it takes the lease within a few seconds")
	default:
		d.add("maintainer", checkPass, fmt.Sprintf("%s runs scheduled maintenance and backups (lease until %s)", who, until.Local().Format(time.TimeOnly)), "")
	}
}

// checkSyncLag says how far behind the other devices the follower is.
func (d *doctor) checkSyncLag(f syncFacts) {
	st := f.status
	if st == nil {
		d.add("sync lag", checkPass, "no daemon runs here: when one starts it catches up from the change feed", "")
		return
	}
	var behind []string
	worst := int64(0)
	for _, dev := range slices.Sorted(maps.Keys(st.Behind)) {
		if n := st.Behind[dev]; n > 0 {
			behind = append(behind, fmt.Sprintf("%s by %d", dev, n))
			worst = max(worst, n)
		}
	}
	age := time.Since(st.LastPoll)
	reloads := ""
	if st.Reloads > 0 {
		reloads = fmt.Sprintf("; reloaded the whole index %s, last: %s", plural(int(st.Reloads), "time", "times"), st.ReloadReason)
	}
	switch {
	case st.Error != "":
		d.add("sync lag", checkFail, "the follower cannot read the change feed: "+firstLineOf(st.Error), "check the connection to the database; see "+d.root.LogsDir())
	case st.LastPoll.IsZero() || age > 30*time.Second:
		d.add("sync lag", checkWarn, fmt.Sprintf("the follower has not read the change feed for %s", roundAge(age, st.LastPoll)), "see "+d.root.LogsDir()+"; 'infmem restart' if it stays so")
	case worst > 1000:
		d.add("sync lag", checkWarn, "the follower is behind "+strings.Join(behind, ", ")+" entries"+reloads, "wait: it applies about 500 entries a second; see "+d.root.LogsDir()+" if it does not shrink")
	case len(behind) > 0:
		d.add("sync lag", checkPass, "catching up with "+strings.Join(behind, ", ")+" entries"+reloads, "")
	default:
		d.add("sync lag", checkPass, fmt.Sprintf("caught up with every other device (%s applied since start)%s", plural(int(st.Applied), "change", "changes"), reloads), "")
	}
}

func roundAge(age time.Duration, at time.Time) string {
	if at.IsZero() {
		return "ever"
	}
	return age.Round(time.Second).String()
}
