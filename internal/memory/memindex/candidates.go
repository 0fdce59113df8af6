package memory

// Candidate lists for maintenance jobs. Each returns ids, oldest first.

// ackKeys are the content keys of acknowledgements worth no memory.
var ackKeys = func() map[[16]byte]bool {
	m := map[[16]byte]bool{}
	for _, a := range []string{"ok", "okay", "ok!", "ok.", "k", "kk", "thanks", "thanks!", "thank you", "thank you!", "thx", "ty",
		"sure", "sure!", "got it", "got it!", "cool", "cool!", "great", "great!", "nice", "nice!", "yes", "no", "yep", "nope",
		"lol", "haha", "sounds good", "sounds good!", "perfect", "perfect!", "alright", "np", "no problem", "👍", "🙏", "ok thanks",
		"okay thanks", "thanks a lot", "awesome", "awesome!", "noted", "understood", "will do", "done"} {
		m[contentKey(a)] = true
	}
	return m
}()

// isAck reports whether a memory's text is only an acknowledgement.
func isAck(key [16]byte) bool { return ackKeys[key] }

// NoiseCandidates lists live, unpinned acknowledgements ("ok", "thanks")
// that happened before olderThan.
func (e *Engine) NoiseCandidates(olderThan time.Time) []string {
	return e.candidates(func(it *memindex.Entry) bool {
		return it.Live() && !it.Has(memindex.FlagArchived|memindex.FlagPinned) && it.Kind == memindex.KindMemory && it.Source != sourceFile &&
			it.TS < olderThan.UnixMilli() && isAck(it.Key)
	})
}

// StaleCandidates lists memories relevance pruning may archive: live,
// unarchived, unpinned raw memories (not notes, profile facts, files or summaries)
// older than olderThan, never recalled, and less important than
// maxImportance (never 0.7 or more).
func (e *Engine) StaleCandidates(olderThan time.Time, maxImportance float64) []string {
	maxImportance = min(maxImportance, 0.7)
	return e.candidates(func(it *memindex.Entry) bool {
		return it.Live() && !it.Has(memindex.FlagArchived|memindex.FlagPinned) && it.Kind == memindex.KindMemory &&
			it.Source != sourceNote && it.Source != sourceUserProfile && it.Source != sourceFile && it.UseCount == 0 &&
			float64(it.Importance) < maxImportance && it.TS < olderThan.UnixMilli()
	})
}

// PurgeCandidates lists soft-forgotten memories forgotten before before.
func (e *Engine) PurgeCandidates(before time.Time) []string {
	return e.candidates(func(it *memindex.Entry) bool {
		return !it.Live() && it.ForgottenAt > 0 && it.ForgottenAt < before.UnixMilli()
	})
}

// candidates lists the ids of the memories match admits, oldest first.
func (e *Engine) candidates(match func(*memindex.Entry) bool) []string {
	found := e.index().Select(match)
	slices.SortFunc(found, func(a, b memindex.Hit) int {
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

