package memindex

import (
	"cmp"
	"slices"
	"time"
)

// Conversation describes one conversation's live, unarchived messages.
type Conversation struct {
	ID         string
	Scope      string
	Messages   int
	From, To   time.Time
	Summarized bool
}

// Conversations lists the conversations whose newest live message happened
// before olderThan, oldest first.
func (ix *Index) Conversations(olderThan time.Time) []Conversation {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	limit := olderThan.UnixMilli()
	var out []Conversation
	for conv, slots := range ix.convOrder {
		info := Conversation{ID: ix.convs.names[conv]}
		var from, to int64
		for _, s := range slots {
			it := &ix.items[s]
			if !it.live() {
				continue
			}
			if it.kind == KindSummary {
				info.Summarized = true
				continue
			}
			if it.flags&FlagArchived != 0 {
				continue
			}
			if info.Messages == 0 {
				from, info.Scope = it.ts, ix.scopes.names[it.scope]
			}
			info.Messages++
			to = max(to, it.ts)
		}
		if info.Messages == 0 || to >= limit {
			continue
		}
		info.From, info.To = time.UnixMilli(from).UTC(), time.UnixMilli(to).UTC()
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b Conversation) int {
		if c := a.To.Compare(b.To); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// ConversationHits lists a conversation's live, unarchived messages (not
// its summaries) in the order they happened.
func (ix *Index) ConversationHits(conv string) []Hit {
	return ix.conversationItems(conv, func(it *item) bool { return it.kind == KindMemory && it.flags&FlagArchived == 0 })
}

// SummaryHits lists a conversation's live summaries, archived or not.
func (ix *Index) SummaryHits(conv string) []Hit {
	return ix.conversationItems(conv, func(it *item) bool { return it.kind == KindSummary })
}

func (ix *Index) conversationItems(conv string, keep func(*item) bool) []Hit {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var hits []Hit
	if c, ok := ix.convs.lookup(conv); ok && c != 0 {
		for _, s := range ix.convOrder[c] {
			it := &ix.items[s]
			if it.live() && keep(it) {
				hits = append(hits, Hit{ID: it.id, Kind: it.kind, TS: it.ts})
			}
		}
	}
	return hits
}
