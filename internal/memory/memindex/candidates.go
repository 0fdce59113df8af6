package memindex

import (
	"bytes"
	"cmp"
	"slices"
	"time"
)

// Candidate lists for maintenance jobs. Each returns ids, oldest first;
// keep names sources whose memories a list never holds.

// NoiseCandidates lists live, unarchived, unpinned memories whose content
// key ack admits (an acknowledgement: "ok", "thanks") that happened before
// olderThan.
func (ix *Index) NoiseCandidates(olderThan time.Time, ack func(key [16]byte) bool, keep ...string) []string {
	return ix.oldestFirst(func(it *Entry) bool {
		return it.Live() && !it.Has(FlagArchived|FlagPinned) && it.Kind == KindMemory && !slices.Contains(keep, it.Source) &&
			it.TS < olderThan.UnixMilli() && ack(it.Key)
	})
}

// StaleCandidates lists memories relevance pruning may archive: live,
// unarchived, unpinned memories (not summaries, nor of a source in keep)
// older than olderThan, never recalled, and less important than
// maxImportance (never 0.7 or more).
func (ix *Index) StaleCandidates(olderThan time.Time, maxImportance float64, keep ...string) []string {
	maxImportance = min(maxImportance, 0.7)
	return ix.oldestFirst(func(it *Entry) bool {
		return it.Live() && !it.Has(FlagArchived|FlagPinned) && it.Kind == KindMemory &&
			!slices.Contains(keep, it.Source) && it.UseCount == 0 &&
			float64(it.Importance) < maxImportance && it.TS < olderThan.UnixMilli()
	})
}

// PurgeCandidates lists soft-forgotten memories forgotten before before.
func (ix *Index) PurgeCandidates(before time.Time) []string {
	return ix.oldestFirst(func(it *Entry) bool {
		return !it.Live() && it.ForgottenAt > 0 && it.ForgottenAt < before.UnixMilli()
	})
}

// oldestFirst lists the ids of the memories match admits, oldest first.
func (ix *Index) oldestFirst(match func(*Entry) bool) []string {
	found := ix.Select(match)
	slices.SortFunc(found, func(a, b Hit) int {
		if a.TS != b.TS {
			return cmp.Compare(a.TS, b.TS)
		}
		return bytes.Compare(a.ID[:], b.ID[:])
	})
	out := make([]string, len(found))
	for i, h := range found {
		out[i] = h.ID.Hex()
	}
	return out
}
