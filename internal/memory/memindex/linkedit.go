package memindex

import (
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// StoredLinks is what the index keeps of a stored memory's links: its
// superseded_by, contradicts, links_about and links_by_meaning fields (ids
// that do not parse are left out; the lists are cut to MaxContradicts and
// MaxAbout).
func StoredLinks(supersededBy string, contradicts, about []string, byMeaning bool) *Links {
	l := &Links{ByMeaning: byMeaning && supersededBy != ""}
	if id, err := bson.ObjectIDFromHex(supersededBy); err == nil {
		l.SupersededBy = id
	}
	for _, c := range contradicts {
		if id, err := bson.ObjectIDFromHex(c); err == nil && len(l.Contradicts) < MaxContradicts {
			l.Contradicts = append(l.Contradicts, id)
		}
	}
	l.About = about[:min(len(about), MaxAbout)]
	return l
}

// WithAbout adds the words a link is about to the memory's (nil: a link
// about the whole memory, which then ranks for any question); fresh
// drops the words it had.
func (l *Links) WithAbout(about []string, fresh bool) {
	if fresh {
		l.About = nil
	}
	for _, w := range about {
		if !slices.Contains(l.About, w) && len(l.About) < MaxAbout {
			l.About = append(l.About, w)
		}
	}
}

// AddContradiction adds id to the memory's contradictions, keeping the
// newest MaxContradicts.
func (l *Links) AddContradiction(id bson.ObjectID) {
	if slices.Contains(l.Contradicts, id) {
		return
	}
	l.Contradicts = append(l.Contradicts, id)
	if len(l.Contradicts) > MaxContradicts {
		l.Contradicts = l.Contradicts[len(l.Contradicts)-MaxContradicts:]
	}
}
