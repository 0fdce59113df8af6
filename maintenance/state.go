package maintenance

import (
	"context"
	"time"

	"github.com/infmem/infmem/mongostore"
)

// State is the maintenance section of status: the nightly schedule, the
// job running now, and each job's last run.
type State struct {
	Schedule string              `json:"schedule"`
	Running  string              `json:"running,omitempty"`
	Runs     map[string]StateRun `json:"runs"`
}

// StateRun is a job's last run (Run) as status shows it.
type StateRun struct {
	Job      string         `json:"job"`
	LastRun  time.Time      `json:"last_run"`
	Duration time.Duration  `json:"duration_ns"`
	Outcome  string         `json:"outcome"`
	Error    string         `json:"error,omitempty"`
	Counts   map[string]int `json:"counts,omitempty"`
	Warnings []string       `json:"warnings,omitempty"`
}

// ReadState reads each job's last run from store; schedule and running
// (the job running now, if any) come from the caller.
func ReadState(ctx context.Context, store *mongostore.Store, schedule, running string) (*State, error) {
	runs, err := Runs(ctx, store)
	if err != nil {
		return nil, err
	}
	out := &State{Schedule: schedule, Running: running, Runs: make(map[string]StateRun, len(runs))}
	for name, r := range runs {
		out.Runs[name] = StateRun{Job: r.Job, LastRun: r.LastRun, Duration: r.Duration, Outcome: r.Outcome,
			Error: r.Error, Counts: r.Counts, Warnings: r.Warnings}
	}
	return out, nil
}
