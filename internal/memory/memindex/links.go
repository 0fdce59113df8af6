package memindex

import (
	"errors"
	"io"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/binio"
	"github.com/infmem/infmem/internal/textindex"
)

// Links tie a memory to others: the newer memory that supersedes it (an
// update of the same fact) and the memories that contradict it. A link
// counts only while the memory it names is live: forgetting the newer
// memory makes the older current again, unforgetting it superseded again.
type Links struct {
	// SupersededBy is the newer memory; zero when none.
	SupersededBy bson.ObjectID
	Contradicts  []bson.ObjectID
	// About, when set, holds the analysed words a question must name
	// for the links to change its ranking (a long message updated in
	// one of its details); they are shown in results whatever the
	// question.
	About []string
	// ByMeaning: the newer memory was found to update this one by meaning,
	// not by shared words (it says the value changed in other words:
	// facts.ChangedInOtherWords); the ranking may hold such a successor
	// to a lower bar (a newer fact in other words scores low on a
	// question in the older's words).
	ByMeaning bool
}

func (l *Links) empty() bool { return l.SupersededBy.IsZero() && len(l.Contradicts) == 0 }

// Empty reports whether l links to nothing.
func (l *Links) Empty() bool { return l.empty() }

// MaxAbout bounds a link's words.
const MaxAbout = 16

// MaxContradicts bounds the contradictions one memory keeps.
const MaxContradicts = 4

// setLinksLocked replaces the links of slot (and the reverse entry of its
// successor).
func (ix *Index) setLinksLocked(slot uint32, l Links) {
	ix.dropLinksLocked(slot)
	if l.empty() {
		return
	}
	if ix.links == nil {
		ix.links, ix.supersedes = map[uint32]*Links{}, map[bson.ObjectID][]uint32{}
	}
	l.Contradicts, l.About = slices.Clone(l.Contradicts), slices.Clone(l.About)
	ix.links[slot] = &l
	if !l.SupersededBy.IsZero() {
		ix.supersedes[l.SupersededBy] = append(ix.supersedes[l.SupersededBy], slot)
	}
}

func (ix *Index) dropLinksLocked(slot uint32) {
	l, ok := ix.links[slot]
	if !ok {
		return
	}
	delete(ix.links, slot)
	if s := l.SupersededBy; !s.IsZero() {
		rest := slices.DeleteFunc(ix.supersedes[s], func(x uint32) bool { return x == slot })
		if len(rest) == 0 {
			delete(ix.supersedes, s)
		} else {
			ix.supersedes[s] = rest
		}
	}
}

// SetLinks replaces the links of id.
func (ix *Index) SetLinks(id bson.ObjectID, l Links) {
	ix.mu.Lock()
	ix.gen++
	defer ix.mu.Unlock()
	if slot, ok := ix.byID[id]; ok {
		ix.setLinksLocked(slot, l)
		ix.reviseAllowedLocked(slot)
	}
}

// LinksOf returns the links id holds, whether or not the memories they
// name are live.
func (ix *Index) LinksOf(id bson.ObjectID) Links {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if slot, ok := ix.byID[id]; ok {
		if l := ix.links[slot]; l != nil {
			return Links{SupersededBy: l.SupersededBy, Contradicts: slices.Clone(l.Contradicts), About: slices.Clone(l.About), ByMeaning: l.ByMeaning}
		}
	}
	return Links{}
}

// Related is what a memory's links mean now: the live memory that
// supersedes it, the live memories it supersedes, and the live memories
// that contradict it (either side may have recorded the contradiction).
type Related struct {
	SupersededBy bson.ObjectID
	Supersedes   []bson.ObjectID
	Contradicts  []bson.ObjectID
}

// Empty reports whether r names nothing.
func (r *Related) Empty() bool {
	return r.SupersededBy.IsZero() && len(r.Supersedes) == 0 && len(r.Contradicts) == 0
}

// RelatedOf returns what the links of id mean now.
func (ix *Index) RelatedOf(id bson.ObjectID) Related {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	slot, ok := ix.byID[id]
	if !ok {
		return Related{}
	}
	var r Related
	if s, ok := ix.successorLocked(slot); ok {
		r.SupersededBy = ix.items[s].id
	}
	if ix.items[slot].live() {
		for _, o := range ix.supersedes[id] {
			if it := &ix.items[o]; it.live() {
				r.Supersedes = append(r.Supersedes, it.id)
			}
		}
	}
	for _, o := range ix.contradictionsLocked(slot) {
		r.Contradicts = append(r.Contradicts, ix.items[o].id)
	}
	return r
}

// successorLocked returns the live memory that supersedes slot.
func (ix *Index) successorLocked(slot uint32) (uint32, bool) {
	l := ix.links[slot]
	if l == nil || l.SupersededBy.IsZero() {
		return 0, false
	}
	s, ok := ix.byID[l.SupersededBy]
	if !ok || !ix.items[s].live() {
		return 0, false
	}
	return s, true
}

// contradictionsLocked returns the live memories that contradict slot
// (the engine records a contradiction on both memories).
func (ix *Index) contradictionsLocked(slot uint32) []uint32 {
	var out []uint32
	add := func(s uint32) {
		if s != slot && ix.items[s].live() && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if l := ix.links[slot]; l != nil {
		for _, id := range l.Contradicts {
			if s, ok := ix.byID[id]; ok {
				add(s)
			}
		}
	}
	return out
}

// linkedLocked adds to the pool the live successors and contradicting
// memories of the slots already in it that admit accepts, so that an
// update is ranked against the memory it replaces.
func (ix *Index) linkedLocked(pos map[uint32]int32, admit func(*item) bool) {
	if len(ix.links) == 0 {
		return
	}
	var more []uint32
	for slot := range pos {
		if s, ok := ix.successorLocked(slot); ok && admit(&ix.items[s]) {
			more = append(more, s)
		}
		for _, s := range ix.contradictionsLocked(slot) {
			if admit(&ix.items[s]) {
				more = append(more, s)
			}
		}
	}
	for _, s := range more {
		pos[s] = 0
	}
}

// setCandidateLinks sets each candidate's successor and contradicting
// memory among the pool's positions, when its links concern the question
// (terms: the question's keyword terms).
func (ix *Index) setCandidateLinks(pool []Candidate, pos map[uint32]int32, terms textindex.Query) {
	for i := range pool {
		pool[i].Successor, pool[i].Contradicts = -1, -1
	}
	if len(ix.links) == 0 {
		return
	}
	words := map[string]bool{}
	for _, t := range terms.Terms() {
		words[t] = true
	}
	for i := range pool {
		cd := &pool[i]
		l := ix.links[cd.slot]
		if l == nil || !l.concerns(words) {
			continue
		}
		cd.Scoped = len(l.About) > 0
		if s, ok := ix.successorLocked(cd.slot); ok {
			if p, in := pos[s]; in {
				cd.Successor, cd.ByMeaning = p, l.ByMeaning
			}
		}
		for _, s := range ix.contradictionsLocked(cd.slot) {
			if p, in := pos[s]; in {
				cd.Contradicts = p
				break
			}
		}
	}
}

// concerns reports whether a question with these analysed words is one
// the links may rank: any, unless About limits them.
func (l *Links) concerns(words map[string]bool) bool {
	if len(l.About) == 0 {
		return true
	}
	for _, w := range l.About {
		if words[w] {
			return true
		}
	}
	return false
}

// writeLinks encodes the links of every slot, in slot order.
func (ix *Index) writeLinks(out io.Writer) error {
	w := binio.NewWriter(out, 1<<16)
	slots := make([]uint32, 0, len(ix.links))
	for s := range ix.links {
		slots = append(slots, s)
	}
	slices.Sort(slots)
	w.Uvarint(uint64(len(slots)))
	for _, s := range slots {
		l := ix.links[s]
		w.Uvarint(uint64(s))
		w.Write(l.SupersededBy[:])
		w.Uvarint(uint64(len(l.Contradicts)))
		for _, c := range l.Contradicts {
			w.Write(c[:])
		}
		w.Uvarint(uint64(len(l.About)))
		for _, a := range l.About {
			w.String(a)
		}
	}
	return w.Flush()
}

// writeLinkKinds encodes the slots whose successor was found by meaning
// (Links.ByMeaning), in slot order: a section after the links', written
// when there are any, so that a snapshot without it reads as before (every
// link by words) and a reader that predates it skips it.
func (ix *Index) writeLinkKinds(out io.Writer) error {
	w := binio.NewWriter(out, 1<<12)
	slots := ix.meaningSlotsLocked()
	w.Uvarint(uint64(len(slots)))
	for _, s := range slots {
		w.Uvarint(uint64(s))
	}
	return w.Flush()
}

// meaningSlotsLocked returns the slots whose links are ByMeaning, in order.
func (ix *Index) meaningSlotsLocked() []uint32 {
	var out []uint32
	for s, l := range ix.links {
		if l.ByMeaning {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// readLinkKinds decodes what writeLinkKinds wrote; every slot must hold
// links read before.
func (ix *Index) readLinkKinds(in io.Reader) error {
	r := binio.NewReader(in, -1, 1<<12)
	n := r.Count(1 << 26)
	for i := 0; i < n && r.Err() == nil; i++ {
		slot := r.Uvarint()
		l := ix.links[uint32(slot)]
		if r.Err() == nil && (slot >= uint64(len(ix.items)) || l == nil) {
			r.Fail(errors.New("a link kind of a slot that holds no links"))
		}
		if r.Err() == nil {
			l.ByMeaning = true
		}
	}
	return r.Err()
}

// readLinks decodes what writeLinks wrote; every slot must hold a memory.
func (ix *Index) readLinks(in io.Reader) error {
	r := binio.NewReader(in, -1, 1<<16)
	n := r.Count(1 << 26)
	for i := 0; i < n && r.Err() == nil; i++ {
		slot := r.Uvarint()
		var l Links
		r.Full(l.SupersededBy[:])
		l.Contradicts = make([]bson.ObjectID, r.Count(MaxContradicts))
		for j := range l.Contradicts {
			r.Full(l.Contradicts[j][:])
		}
		if n := r.Count(MaxAbout); n > 0 {
			l.About = make([]string, n)
			for j := range l.About {
				l.About[j] = r.String(256)
			}
		}
		if r.Err() == nil && (slot >= uint64(len(ix.items)) || !ix.items[slot].used) {
			r.Fail(errors.New("links of a slot that holds no memory"))
		}
		if r.Err() == nil {
			ix.setLinksLocked(uint32(slot), l)
		}
	}
	return r.Err()
}
