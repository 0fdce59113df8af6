package memindex

// ConversationAll lists every memory and summary of a conversation,
// forgotten and archived ones included, in the order they happened: what
// a memory's page shows of its conversation (a message's summaries, a
// summary's messages). It reads the conversation's own order, not every
// item.
func (ix *Index) ConversationAll(conv string) []Hit {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c, ok := ix.convs.lookup(conv)
	if !ok || c == 0 {
		return nil
	}
	slots := ix.convOrder[c]
	hits := make([]Hit, 0, len(slots))
	for _, s := range slots {
		it := &ix.items[s]
		if it.used {
			hits = append(hits, Hit{ID: it.id, Kind: it.kind, TS: it.ts})
		}
	}
	return hits
}
