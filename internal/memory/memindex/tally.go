package memindex

// tally keeps the index's counts as items change, so that counting (status,
// get_memory_stats, the page's header) costs nothing whatever the size:
// every change to an item goes through countLocked, once with -1 before
// and once with +1 after. The +1 also refreshes the item's slotMeta.
type tally struct {
	// byKind counts every item (forgotten and archived included) by kind:
	// the documents of each collection.
	byKind                               [2]int
	live, forgotten, archived, summaries int
	// perScope counts live items by interned scope, perConv by interned
	// conversation; convs is how many conversations have a live item.
	perScope []int
	perConv  []int32
	convs    int
	// convTurns counts the memories (not summaries) of each interned
	// conversation not forgotten, archived included; convArchived the
	// archived ones among them. A search that ranks archived turns sees
	// the conversation's turns as they were before the nightly pass.
	convTurns, convArchived []int32
	// perSource counts memories (not summaries) not forgotten, archived
	// included, by interned source.
	perSource []int
	// perSpeaker counts them by interned speaker.
	perSpeaker []int
}

// slotMeta is what a filter reads of an item (compiled.matchMeta), 16
// bytes a slot instead of the item's 130: a filter's pass over 100k items
// reads 1.6 MB instead of 13.
type slotMeta struct {
	ts    int64
	scope uint32
	flags Flag
	used  bool
}

// countLocked adds d (+1 or -1) of the item in slot to the counts, and on
// +1 copies it to meta. Callers hold mu for writing.
func (ix *Index) countLocked(slot uint32, d int) {
	it := &ix.items[slot]
	if d > 0 {
		for int(slot) >= len(ix.meta) {
			ix.meta = append(ix.meta, slotMeta{})
		}
		ix.meta[slot] = slotMeta{ts: it.ts, scope: it.scope, flags: it.flags, used: it.used}
	} else if int(slot) < len(ix.meta) {
		ix.meta[slot] = slotMeta{}
	}
	if !it.used {
		return
	}
	t := &ix.tally
	if int(it.kind) < len(t.byKind) {
		t.byKind[it.kind] += d
	}
	if it.kind == KindMemory && it.flags&FlagForgotten == 0 {
		for int(it.source) >= len(t.perSource) {
			t.perSource = append(t.perSource, 0)
		}
		t.perSource[it.source] += d
		for int(it.speaker) >= len(t.perSpeaker) {
			t.perSpeaker = append(t.perSpeaker, 0)
		}
		t.perSpeaker[it.speaker] += d
		if it.conv != 0 {
			for int(it.conv) >= len(t.convTurns) {
				t.convTurns, t.convArchived = append(t.convTurns, 0), append(t.convArchived, 0)
			}
			t.convTurns[it.conv] += int32(d)
			if it.flags&FlagArchived != 0 {
				t.convArchived[it.conv] += int32(d)
			}
		}
	}
	switch {
	case it.flags&FlagForgotten != 0:
		t.forgotten += d
	case it.flags&FlagArchived != 0:
		t.archived += d
	default:
		t.live += d
		if it.kind == KindSummary {
			t.summaries += d
		}
		for int(it.scope) >= len(t.perScope) {
			t.perScope = append(t.perScope, 0)
		}
		t.perScope[it.scope] += d
		if it.conv != 0 {
			for int(it.conv) >= len(t.perConv) {
				t.perConv = append(t.perConv, 0)
			}
			before := t.perConv[it.conv]
			t.perConv[it.conv] += int32(d)
			switch after := t.perConv[it.conv]; {
			case before == 0 && after > 0:
				t.convs++
			case before > 0 && after == 0:
				t.convs--
			}
		}
	}
}

// recountLocked derives the counts from the items (after reading a
// snapshot).
func (ix *Index) recountLocked() {
	ix.tally = tally{}
	ix.meta = make([]slotMeta, len(ix.items))
	for i := range ix.items {
		ix.countLocked(uint32(i), 1)
	}
}

// Count returns the counts of the memories the index holds. It costs the
// number of scopes, not of memories.
func (ix *Index) Count() Counts {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	t := &ix.tally
	c := Counts{Live: t.live, Forgotten: t.forgotten, Archived: t.archived, Summaries: t.summaries,
		Conversations: t.convs, PerScope: map[string]int{}, Memories: t.byKind[KindMemory], SummaryDocs: t.byKind[KindSummary],
		PerSource: map[string]int{}}
	for s, n := range t.perScope {
		if n > 0 {
			c.PerScope[ix.scopes.names[s]] = n
		}
	}
	for s, n := range t.perSource {
		if n > 0 {
			c.PerSource[ix.sources.names[s]] = n
		}
	}
	return c
}

// countScan is Count by a pass over every item: the tests' check of the
// kept counts.
func (ix *Index) countScan() Counts {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := Counts{PerScope: map[string]int{}, PerSource: map[string]int{}}
	convs := map[uint32]bool{}
	for i := range ix.items {
		it := &ix.items[i]
		if !it.used {
			continue
		}
		switch it.kind {
		case KindMemory:
			c.Memories++
			if it.flags&FlagForgotten == 0 {
				c.PerSource[ix.sources.names[it.source]]++
			}
		case KindSummary:
			c.SummaryDocs++
		}
		switch {
		case it.flags&FlagForgotten != 0:
			c.Forgotten++
		case it.flags&FlagArchived != 0:
			c.Archived++
		default:
			c.Live++
			c.PerScope[ix.scopes.names[it.scope]]++
			if it.kind == KindSummary {
				c.Summaries++
			}
			if it.conv != 0 {
				convs[it.conv] = true
			}
		}
	}
	c.Conversations = len(convs)
	return c
}
