package webui

import (
	"context"
	"net/http"
	"time"

	"github.com/infmem/infmem/internal/memory"
)

// maxBuckets bounds the bars of the timeline.
const maxBuckets = 60

type bucketOut struct {
	From  time.Time `json:"from"`
	To    time.Time `json:"to"`
	Count int       `json:"count"`
}

// timeline counts the live memories (with the browse filters) per day,
// week or month, from the oldest to the newest, for the chart the page
// draws. The counts come from one pass over the in-memory index
// (Engine.TimeSpread), and each equals the total of an Engine.List over
// the bucket's period, so it matches what browsing that period shows.
func (s *Server) timeline(ctx context.Context, eng *memory.Engine, r *http.Request) (any, error) {
	loc := userLocation(ctx, eng)
	f, err := readFilters(r, loc)
	if err != nil {
		return nil, err
	}
	spread, err := eng.TimeSpread(ctx, memory.ListRequest{Scope: f.scope, Tags: f.tags, Source: f.source, From: f.from, To: f.to})
	if err != nil || spread.Len() == 0 {
		return map[string]any{"unit": "day", "buckets": []bucketOut{}}, err
	}
	lo, hi := spread.Oldest().In(loc), spread.Newest().In(loc)
	unit, start, step := bucketing(lo, hi)
	buckets := []bucketOut{}
	for from := start; !from.After(hi) && len(buckets) < maxBuckets; from = step(from) {
		to := step(from)
		buckets = append(buckets, bucketOut{From: from, To: to, Count: spread.Count(from, to)})
	}
	return map[string]any{"unit": unit, "buckets": buckets}, nil
}

// bucketing picks days, weeks or months so that the span fits in
// maxBuckets bars, and the start of the first.
func bucketing(lo, hi time.Time) (unit string, start time.Time, step func(time.Time) time.Time) {
	dayStart := time.Date(lo.Year(), lo.Month(), lo.Day(), 0, 0, 0, 0, lo.Location())
	span := hi.Sub(dayStart)
	switch {
	case span <= maxBuckets*24*time.Hour:
		return "day", dayStart, func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }
	case span <= maxBuckets*7*24*time.Hour:
		monday := dayStart.AddDate(0, 0, -((int(dayStart.Weekday()) + 6) % 7))
		return "week", monday, func(t time.Time) time.Time { return t.AddDate(0, 0, 7) }
	}
	month := time.Date(lo.Year(), lo.Month(), 1, 0, 0, 0, 0, lo.Location())
	months := (hi.Year()-lo.Year())*12 + int(hi.Month()-lo.Month()) + 1
	if months > maxBuckets {
		// Show the most recent maxBuckets months.
		month = time.Date(hi.Year(), hi.Month()-maxBuckets+1, 1, 0, 0, 0, 0, hi.Location())
	}
	return "month", month, func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }
}
