package daemon

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/infmem/infmem/internal/memory"
)

// JobLessons lists the lessons models proposed and the user has not
// confirmed, or confirms one ('infmem lessons [confirm ID]'); its
// arguments are LessonsJobArgs and its result a LessonsResult.
const JobLessons = "lessons"

// LessonsJobArgs are the arguments of the lessons job.
type LessonsJobArgs struct {
	// Confirm, when set, is the id of a proposed lesson to confirm.
	Confirm string `json:"confirm,omitempty"`
}

// LessonsResult is the lessons job's answer.
type LessonsResult struct {
	// Proposed are the proposed lessons, newest first (at most 100).
	Proposed []ProposedLesson `json:"proposed"`
	// Confirmed is the lesson confirmed, when Confirm was given.
	Confirmed *ProposedLesson `json:"confirmed,omitempty"`
	// Already is true when it was a lesson already.
	Already bool `json:"already,omitempty"`
}

// ProposedLesson is one lesson: its id, text, scope, when it was stored
// and where it came from.
type ProposedLesson struct {
	ID     string `json:"id"`
	Text   string `json:"text"`
	Scope  string `json:"scope"`
	Stored string `json:"stored"`
	Origin string `json:"origin,omitempty"`
}

func lessonOf(m memory.Memory) ProposedLesson {
	return ProposedLesson{ID: m.ID, Text: m.Text, Scope: m.Scope, Stored: m.CreatedAt.UTC().Format("2006-01-02 15:04 MST"), Origin: m.Speaker}
}

func lessonsJob(ctx context.Context, s *Stack, raw json.RawMessage) (any, error) {
	var args LessonsJobArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("the lessons request is malformed: %w", err)
	}
	out := &LessonsResult{Proposed: []ProposedLesson{}}
	if args.Confirm != "" {
		m, confirmed, err := s.Memory.ConfirmLesson(ctx, args.Confirm)
		if err != nil {
			return nil, err
		}
		l := lessonOf(m)
		out.Confirmed, out.Already = &l, !confirmed
	}
	res, err := s.Memory.List(ctx, memory.ListRequest{Scope: "ALL", Source: memory.SourceProposedLesson, Sort: "newest", Limit: 100})
	if err != nil {
		return nil, err
	}
	for _, m := range res.Memories {
		out.Proposed = append(out.Proposed, lessonOf(m))
	}
	return out, nil
}
