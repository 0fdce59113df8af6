package memory

// storedLinks is what the index keeps of a stored memory's links.
func storedLinks(m *mongostore.Memory) *memindex.Links {
	l := &memindex.Links{}
	if id, err := bson.ObjectIDFromHex(m.SupersededBy); err == nil {
		l.SupersededBy = id
	}
	for _, c := range m.Contradicts {
		if id, err := bson.ObjectIDFromHex(c); err == nil && len(l.Contradicts) < memindex.MaxContradicts {
			l.Contradicts = append(l.Contradicts, id)
		}
	}
	l.About = m.LinksAbout[:min(len(m.LinksAbout), memindex.MaxAbout)]
	return l
}

// withAbout adds the words a link is about to a memory's (nil: a link
// about the whole memory, which then ranks for any question).
func withAbout(l *memindex.Links, about []string, fresh bool) {
	if about == nil {
		if fresh {
			l.About = nil
		}
		return
	}
	if fresh {
		l.About = nil
	}
	for _, w := range about {
		if !slices.Contains(l.About, w) && len(l.About) < memindex.MaxAbout {
			l.About = append(l.About, w)
		}
	}
}

// addLink adds id to a memory's contradictions, keeping the newest
// memindex.MaxContradicts.
func addLink(list []bson.ObjectID, id bson.ObjectID) []bson.ObjectID {
	if slices.Contains(list, id) {
		return list
	}
	list = append(list, id)
	if len(list) > memindex.MaxContradicts {
		list = list[len(list)-memindex.MaxContradicts:]
	}
	return list
}

