package control

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/infmem/infmem/internal/proc"
)

// Presence is what a probe found.
type Presence string

// Presences.
const (
	// Absent: no daemon.json and no daemon answering.
	Absent Presence = "absent"
	// Running: a daemon answers on the control socket.
	Running Presence = "running"
	// Stale: daemon.json is there but nothing answers (a crashed daemon's
	// leftovers, which the next daemon replaces).
	Stale Presence = "stale"
)

// Probe is the outcome of ProbeDaemon.
type Probe struct {
	Presence Presence
	// Info is daemon.json when it could be read.
	Info *Info
	// Pong is the daemon's answer when it runs.
	Pong *Pong
	// Problem says why a stale daemon looks dead.
	Problem string
}

// ProbeDaemon asks whether a daemon serves the data root of ep, without
// touching its lock (taking it, even briefly, could turn away a daemon that
// is starting at that moment).
func ProbeDaemon(ctx context.Context, ep Endpoints) Probe {
	info, ierr := ReadInfo(ep.Info)
	var p Probe
	if ierr == nil {
		p.Info = info
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := Dial(pctx, ep.Control)
	if err == nil {
		defer c.Close()
		var pong *Pong
		if pong, err = c.Ping(pctx); err == nil {
			p.Presence, p.Pong = Running, pong
			return p
		}
	}
	if errors.Is(ierr, fs.ErrNotExist) {
		p.Presence = Absent
		return p
	}
	p.Presence = Stale
	switch {
	case ierr != nil:
		p.Problem = ierr.Error()
	case !proc.Alive(info.PID):
		p.Problem = fmt.Sprintf("%s names process %d, which is not running", InfoName, info.PID)
	default:
		p.Problem = fmt.Sprintf("process %d named in %s does not answer on %s: %v", info.PID, InfoName, ep.Control, err)
	}
	return p
}
