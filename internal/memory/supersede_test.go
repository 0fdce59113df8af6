package memory

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/infmem/infmem/internal/dataroot"
	"github.com/infmem/infmem/internal/memory/recall"
	"github.com/infmem/infmem/internal/testenv"
)

func daysAgo(n int) time.Time { return time.Now().AddDate(0, 0, -n).UTC().Truncate(time.Millisecond) }

// searchIDs asks q as the tools do and returns the result ids.
func searchIDs(t *testing.T, e *Engine, q string) ([]string, SearchResult) {
	t.Helper()
	res, err := e.Search(testenv.Context(t), SearchRequest{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range res.Results {
		ids = append(ids, m.ID)
	}
	return ids, res
}

// TestStoreNamesTheFactItUpdates: storing a changed fact names the older
// memory in its result, marks it superseded (kept, not forgotten), and a
// question about the fact gets the newer first, saying what it replaced.
// Forgetting the newer makes the older current again; update_memory's
// superseded_by "" undoes the mark.
func TestStoreNamesTheFactItUpdates(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	ctx := testenv.Context(t)
	mustStore(t, e, StoreRequest{Content: "The Apollo team uses Jira for tracking.", Timestamp: daysAgo(90)})
	oldDeadline := mustStore(t, e, StoreRequest{Content: "The Apollo launch deadline is December 12.", Timestamp: daysAgo(40)})
	oldManager := mustStore(t, e, StoreRequest{Content: "Dan is my manager.", Timestamp: daysAgo(40)})
	mustStore(t, e, StoreRequest{Content: "My manager at the old job was strict about reviews.", Timestamp: daysAgo(200)})

	newDeadline := mustStore(t, e, StoreRequest{Content: "The Apollo launch has been moved to December 19.", Timestamp: daysAgo(3)})
	if len(newDeadline.Updates) != 1 || newDeadline.Updates[0].ID != oldDeadline.ID || !slices.Equal(newDeadline.Updates[0].DiffersIn, []string{"date"}) {
		t.Fatalf("deadline update: %+v", newDeadline.Updates)
	}
	newManager := mustStore(t, e, StoreRequest{Content: "After the reorg my new manager is Sofia.", Timestamp: daysAgo(3)})
	if len(newManager.Updates) != 1 || newManager.Updates[0].ID != oldManager.ID || !slices.Equal(newManager.Updates[0].DiffersIn, []string{"name"}) {
		t.Fatalf("manager update: %+v", newManager.Updates)
	}
	for _, sm := range newDeadline.Similar {
		if sm.ID == oldDeadline.ID {
			t.Errorf("the update is listed again among similar memories: %+v", sm)
		}
	}

	// Kept, marked, stored in the database.
	old, err := e.Get(ctx, oldDeadline.ID)
	if err != nil || old.ForgottenAt != nil || old.SupersededBy == nil || old.SupersededBy.ID != newDeadline.ID {
		t.Fatalf("older memory: %+v, %v", old, err)
	}
	doc, err := e.store.Memories.Get(ctx, mustOID(t, oldDeadline.ID))
	if err != nil || doc.SupersededBy != newDeadline.ID {
		t.Fatalf("stored superseded_by %q, %v", doc.SupersededBy, err)
	}

	// The newer first, saying what it replaced; the older below it.
	for _, c := range []struct{ q, newer, older string }{
		{"When is the Apollo launch deadline?", newDeadline.ID, oldDeadline.ID},
		{"Who is my manager?", newManager.ID, oldManager.ID},
	} {
		ids, res := searchIDs(t, e, c.q)
		if len(ids) == 0 || ids[0] != c.newer {
			t.Fatalf("%q: %v first, want the newer %s", c.q, texts(res.Results), c.newer)
		}
		if top := res.Results[0]; len(top.Supersedes) != 1 || top.Supersedes[0].ID != c.older || top.Supersedes[0].Text == "" {
			t.Fatalf("%q: newer result supersedes %+v", c.q, top.Supersedes)
		}
		if i := slices.Index(ids, c.older); i >= 0 && (i < 1 || res.Results[i].SupersededBy == nil || res.Results[i].SupersededBy.ID != c.newer) {
			t.Fatalf("%q: older at %d, superseded by %+v", c.q, i, res.Results[i].SupersededBy)
		}
		if res.NothingRelevant {
			t.Fatalf("%q: nothing relevant", c.q)
		}
	}

	// Forgetting the newer makes the older current again.
	if _, err := e.Forget(ctx, ForgetRequest{ID: newDeadline.ID}); err != nil {
		t.Fatal(err)
	}
	ids, res := searchIDs(t, e, "When is the Apollo launch deadline?")
	if len(ids) == 0 || ids[0] != oldDeadline.ID || res.Results[0].SupersededBy != nil {
		t.Fatalf("newer forgotten: %v", texts(res.Results))
	}
	if _, err := e.Unforget(ctx, []string{newDeadline.ID}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := searchIDs(t, e, "When is the Apollo launch deadline?"); len(ids) == 0 || ids[0] != newDeadline.ID {
		t.Fatalf("newer unforgotten: %v", ids)
	}

	// The mark can be cleared, and set by hand.
	empty := ""
	up, err := e.Update(ctx, UpdateRequest{ID: oldManager.ID, SupersededBy: &empty})
	if err != nil || !slices.Equal(up.Changed, []string{"superseded_by"}) {
		t.Fatalf("clear: %+v %v", up, err)
	}
	if m, _ := e.Get(ctx, oldManager.ID); m.SupersededBy != nil {
		t.Fatalf("still superseded: %+v", m.SupersededBy)
	}
	if m, _ := e.Get(ctx, newManager.ID); len(m.Supersedes) != 0 {
		t.Fatalf("newer still supersedes %+v", m.Supersedes)
	}
	if _, err := e.Update(ctx, UpdateRequest{ID: oldManager.ID, SupersededBy: &oldManager.ID}); !IsInputError(err) {
		t.Fatalf("superseded by itself: %v", err)
	}
	if _, err := e.Update(ctx, UpdateRequest{ID: oldManager.ID, SupersededBy: &newManager.ID}); err != nil {
		t.Fatal(err)
	}
	if m, _ := e.Get(ctx, oldManager.ID); m.SupersededBy == nil || m.SupersededBy.ID != newManager.ID {
		t.Fatalf("marked by hand: %+v", m.SupersededBy)
	}
}

// TestStoreLeavesLookalikesAlone: facts that read alike but are both still
// true (another person's, another month's) are never marked.
func TestStoreLeavesLookalikesAlone(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	for _, p := range [][2]string{
		{"Paid the electricity bill of 84 euros in October.", "Paid the electricity bill of 97 euros in November."},
		{"Alice's birthday is January 20.", "Bob's birthday is March 2."},
		{"Leo's swimming lesson is on Tuesdays at 5 pm.", "Nora's swimming lesson moved to Thursdays at 4 pm."},
		{"The kitchen tap is dripping.", "The bathroom tap is now fixed."},
	} {
		mustStore(t, e, StoreRequest{Content: p[0], Timestamp: daysAgo(40)})
		if got := mustStore(t, e, StoreRequest{Content: p[1], Timestamp: daysAgo(3)}); len(got.Updates)+len(got.Contradicts) != 0 || got.SupersededBy != nil {
			t.Errorf("%q then %q: updates %+v, contradicts %+v", p[0], p[1], got.Updates, got.Contradicts)
		}
	}
}

// TestStoreAnOlderFactLate: a fact stored after the one that replaced it
// (an import of old notes) is stored superseded.
func TestStoreAnOlderFactLate(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	newer := mustStore(t, e, StoreRequest{Content: "Our rent went up to $1,975 a month.", Timestamp: daysAgo(3)})
	older := mustStore(t, e, StoreRequest{Content: "Our rent is $1,850 a month.", Timestamp: daysAgo(40)})
	if older.SupersededBy == nil || older.SupersededBy.ID != newer.ID || len(older.Updates) != 0 {
		t.Fatalf("older stored late: superseded by %+v, updates %+v", older.SupersededBy, older.Updates)
	}
	if ids, _ := searchIDs(t, e, "How much is our rent?"); len(ids) < 2 || ids[0] != newer.ID || ids[1] != older.ID {
		t.Fatalf("rent: %v, want %s then %s", ids, newer.ID, older.ID)
	}
}

// TestContradictionsComeBackTogether: a memory that denies what an older
// one states, without saying anything changed, is linked to it both ways,
// and a question about either gets both.
func TestContradictionsComeBackTogether(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	mustStore(t, e, StoreRequest{Content: "The login page uses the Flask session cookie.", Timestamp: daysAgo(60)})
	first := mustStore(t, e, StoreRequest{Content: "I wrote the Flask routes for the login page.", Timestamp: daysAgo(50)})
	mustStore(t, e, StoreRequest{Content: "Deployed the project to a small VPS with nginx.", Timestamp: daysAgo(30)})
	second := mustStore(t, e, StoreRequest{Content: "I have never written any Flask routes for this project.", Timestamp: daysAgo(10)})
	if len(second.Contradicts) != 1 || second.Contradicts[0].ID != first.ID || len(second.Updates) != 0 {
		t.Fatalf("contradicts %+v, updates %+v", second.Contradicts, second.Updates)
	}
	ids, res := searchIDs(t, e, "Have I written Flask routes in this project?")
	i, j := slices.Index(ids, first.ID), slices.Index(ids, second.ID)
	if i < 0 || j < 0 || i-j > 1 || j-i > 1 {
		t.Fatalf("both statements, side by side: %v", texts(res.Results))
	}
	for _, k := range []int{i, j} {
		if m := res.Results[k]; len(m.Contradicts) != 1 || m.SupersededBy != nil {
			t.Fatalf("%q: contradicts %+v, superseded by %+v", m.Text, m.Contradicts, m.SupersededBy)
		}
	}
}

// TestLinksSurviveRestarts: the marks are in the database, the change
// journal and the index snapshot: a start after a crash, from a snapshot
// or from the database keeps them.
func TestLinksSurviveRestarts(t *testing.T) {
	env := snapEnv{t: t, root: testenv.Root(t), emb: useLite(t)}
	store, e := env.open()
	older := mustStore(t, e, StoreRequest{Content: "Pilates class is on Thursdays at 6:30 pm.", Timestamp: daysAgo(40)})
	env.close(store, e)
	store, e = env.open()
	newer := mustStore(t, e, StoreRequest{Content: "Pilates class moved to Thursdays at 7:15 pm.", Timestamp: daysAgo(3)})
	if len(newer.Updates) != 1 || newer.Updates[0].ID != older.ID {
		t.Fatalf("updates %+v", newer.Updates)
	}
	e.stop() // a crash after the mark
	store.Close(context.Background())
	check := func(how, from string) {
		t.Helper()
		store, e := env.open()
		defer env.close(store, e)
		if got := source(t, e); got != from {
			t.Fatalf("%s: index from %s", how, got)
		}
		m, err := e.Get(testenv.Context(t), older.ID)
		if err != nil || m.SupersededBy == nil || m.SupersededBy.ID != newer.ID {
			t.Fatalf("%s: %+v %v", how, m.SupersededBy, err)
		}
		// A crash may cost the newest memory its embedding, written after
		// the store was acknowledged: it is embedded again.
		waitFor(t, "both embeddings", func() bool { return e.index().VectorCount() == 2 })
		if ids, _ := searchIDs(t, e, "What time is pilates?"); len(ids) == 0 || ids[0] != newer.ID {
			t.Fatalf("%s: %v", how, ids)
		}
	}
	check("after a crash (snapshot and journal)", "snapshot")
	check("after a clean stop (snapshot)", "snapshot")
	if err := os.Remove(env.root.Path(dataroot.MongoData, SnapshotFile)); err != nil {
		t.Fatal(err)
	}
	check("without a snapshot", "database")
}

// TestStoreTurnUpdateNotAnchored: between the user's turns, a changed time
// that stands next to no shared word ("it's rescheduled to March 22 at
// 4:30 PM") still names the earlier turn when that turn is the closest to
// the new one and the two share four words; not between the assistant's
// turns, not when the newer denies it, not when only a state changed or
// fewer words are shared, and not when another earlier turn is closer.
func TestStoreTurnUpdateNotAnchored(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	const (
		older = "I have a Zoom meeting with Professor Danielle on March 22 at 3 PM to review my draft, what should I bring up with her?"
		newer = "I'm worried about missing the Zoom meeting with Professor Danielle, so can you remind me that it's rescheduled to March 22 at 4:30 PM?"
	)
	background := []string{
		"Can you suggest a reading order for the three papers on soil erosion I saved last week?",
		"My thesis chapter on river sediment is at about 9,000 words now.",
	}
	for _, c := range []struct {
		name, speaker, older, closer, newer string
		link                                bool
	}{
		{name: "user", speaker: "user", older: older, newer: newer, link: true},
		{name: "assistant", speaker: "assistant", older: older, newer: newer},
		{name: "denied", speaker: "user", older: older, newer: "I'm worried about missing the Zoom meeting with Professor Danielle, so can you remind me that it was never rescheduled to March 22 at 4:30 PM?"},
		{name: "state only", speaker: "user", older: "I'm considering a career pivot into data journalism after finishing my thesis draft with Professor Danielle.", newer: "I'm considering shifting my career focus to science writing after finishing my thesis draft with Professor Danielle."},
		{name: "three words", speaker: "user", older: "I have a Zoom meeting on March 22 at 3 PM to review my draft, what should I bring up?", newer: "I'm worried about missing the Zoom meeting, so can you remind me that it's rescheduled to March 22 at 4:30 PM?"},
		{name: "another closer", speaker: "user", older: older, closer: "I'm worried about missing the Zoom meeting with Professor Danielle, so can you help me set a reminder on my phone?", newer: newer},
	} {
		scope := "turns-" + strings.ReplaceAll(c.name, " ", "-")
		turn := func(text string, days int) StoreResult {
			return mustStore(t, e, StoreRequest{Content: text, Scope: scope, Source: "conversation", ConversationID: "c1", Speaker: c.speaker, Timestamp: daysAgo(days)})
		}
		for _, b := range background {
			turn(b, 30)
		}
		old := turn(c.older, 20)
		if c.closer != "" {
			turn(c.closer, 19)
		}
		got := turn(c.newer, 18)
		named := slices.ContainsFunc(got.Updates, func(u Update) bool { return u.ID == old.ID })
		if named != c.link || (!c.link && len(got.Updates) != 0) {
			t.Errorf("%s: updates %+v, want the earlier turn named: %v", c.name, got.Updates, c.link)
		}
	}
}

// TestStoreTurnUpdateChangePhrase: between turns, a new value joined to
// the shared word by a phrase saying it changed ("the deadline was
// extended to May 20") names the earlier turn; the same phrase about
// another thing's deadline ("the deadline for the portfolio review Greg
// runs") does not.
func TestStoreTurnUpdateChangePhrase(t *testing.T) {
	e := semanticEngine(t, testenv.Store(t), useLite(t))
	const older = "I'm considering applying for a senior producer role at Montserrat Media Corp, but I'm not sure I'm ready for the challenge, especially with the application deadline being May 10"
	background := []string{
		"Can you suggest a reading order for the three papers on soil erosion I saved last week?",
		"My thesis chapter on river sediment is at about 9,000 words now.",
	}
	for _, c := range []struct {
		name, newer string
		link        bool
	}{
		{"extended", "I'm kinda stressed about this senior producer role application, and I just found out the deadline was extended to May 20, so how can I use this extra time?", true},
		{"another deadline", "I'm kinda stressed about this senior producer role application, and I just found out the deadline for the portfolio review Greg runs was extended to May 20, so how can I use this extra time?", false},
	} {
		scope := "phrase-" + strings.ReplaceAll(c.name, " ", "-")
		turn := func(text string, days int) StoreResult {
			return mustStore(t, e, StoreRequest{Content: text, Scope: scope, Source: "conversation", ConversationID: "c1", Speaker: "user", Timestamp: daysAgo(days)})
		}
		for _, b := range background {
			turn(b, 30)
		}
		old := turn(older, 20)
		got := turn(c.newer, 18)
		named := slices.ContainsFunc(got.Updates, func(u Update) bool { return u.ID == old.ID })
		if named != c.link || (!c.link && len(got.Updates) != 0) {
			t.Errorf("%s: updates %+v, want the earlier turn named: %v", c.name, got.Updates, c.link)
		}
	}
}

// TestStoreUpdateInOtherWords: a note saying a value changed, the thing
// named in other words ("the morning meeting" for "the daily stand-up"),
// names the earlier note closest to it in meaning and marks it
// superseded; the same texts as conversation
// turns, or a note about another thing ("the design team's stand-up"),
// name nothing; with recall.MeaningCos 0 the rule is off.
func TestStoreUpdateInOtherWords(t *testing.T) {
	const (
		older = "The daily stand-up is at 9:30 every morning."
		newer = "From Monday the morning meeting starts at 9:00 instead."
	)
	background := []string{"User's partner Sam works as a nurse on night shifts.", "The car's insurance renews on 2 February."}
	for _, c := range []struct {
		name, speaker, newer string
		off, link, byWords   bool
		allMeaning           bool
	}{
		{name: "note", newer: newer, link: true},
		{name: "same words", newer: "The daily stand-up moved to 9:00.", link: true, byWords: true},
		{name: "turn", speaker: "user", newer: newer},
		{name: "another thing", newer: "The design team's stand-up moved to 10:00."},
		// Found by meaning, but "finished" may tell of an event: linked,
		// not marked by meaning (recall.MeaningOutright), so ranked at
		// the bar of a link by words.
		{name: "no outright change", newer: "Actually the morning meeting starts at 9:00.", link: true, byWords: true},
		{name: "no outright change, every meaning link marked", newer: "Actually the morning meeting starts at 9:00.", link: true, allMeaning: true},
		{name: "off", newer: newer, off: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.off {
				defer func(v float64) { recall.MeaningCos = v }(recall.MeaningCos)
				recall.MeaningCos = 0
			}
			if c.allMeaning {
				defer func(v bool) { recall.MeaningOutright = v }(recall.MeaningOutright)
				recall.MeaningOutright = false
			}
			e := semanticEngine(t, testenv.Store(t), useLite(t))
			store := func(text string, days int) StoreResult {
				req := StoreRequest{Content: text, Timestamp: daysAgo(days)}
				if c.speaker != "" {
					req.Source, req.ConversationID, req.Speaker = "conversation", "c1", c.speaker
				}
				return mustStore(t, e, req)
			}
			for _, b := range background {
				store(b, 60)
			}
			old := store(older, 40)
			got := store(c.newer, 3)
			named := slices.ContainsFunc(got.Updates, func(u Update) bool { return u.ID == old.ID })
			if named != c.link || !c.link && len(got.Updates) != 0 {
				t.Fatalf("updates %+v, want the older named: %v", got.Updates, c.link)
			}
			if !c.link {
				return
			}
			m, err := e.Get(testenv.Context(t), old.ID)
			if err != nil || m.SupersededBy == nil || m.SupersededBy.ID != got.ID {
				t.Fatalf("older memory: %+v, %v", m, err)
			}
			// The link's kind, in the index and in the stored document.
			id, _ := bson.ObjectIDFromHex(old.ID)
			doc, err := e.store.Memories.Get(testenv.Context(t), id)
			if l := e.index().LinksOf(id); err != nil || l.ByMeaning == c.byWords || doc.LinksByMeaning == c.byWords {
				t.Fatalf("link by meaning: index %v, document %v (%v); want %v", l.ByMeaning, doc.LinksByMeaning, err, !c.byWords)
			}
		})
	}
}

// TestStoreUpdateMeaningGate: the reading of an update said in other
// words reaches the note nearest by cosine when another shares more
// words, and, where the newer says the change outright, a note under
// the candidate floor (recall.MeaningGate); a newer that does not say
// the change outright, a look-alike, or the gate off name nothing.
func TestStoreUpdateMeaningGate(t *testing.T) {
	background := []string{"User's partner Sam works as a nurse on night shifts.", "The car's insurance renews on 2 February.",
		"We are planning a two-week trip to Portugal in July.", "User prefers aisle seats on flights."}
	for _, c := range []struct {
		name, older, newer string
		off, link          bool
	}{
		{name: "nearest by cosine", older: "Holiday budget for Portugal is €2,000.", newer: "We've cut what we'll spend on the Portugal trip to €1,600.", link: true},
		{name: "nearest by cosine off", older: "Holiday budget for Portugal is €2,000.", newer: "We've cut what we'll spend on the Portugal trip to €1,600.", off: true},
		// cosine 0.385, no word in common: under the floor.
		{name: "under the floor outright", older: "We pay for Netflix every month.", newer: "Cancelled that and went with Disney+ instead.", link: true},
		{name: "under the floor off", older: "We pay for Netflix every month.", newer: "Cancelled that and went with Disney+ instead.", off: true},
		// cosine 0.458: the closest, under MeaningCos.
		{name: "switched", older: "I use a Samsung Galaxy S21.", newer: "Switched to a Pixel 8 last week.", link: true},
		{name: "switched off", older: "I use a Samsung Galaxy S21.", newer: "Switched to a Pixel 8 last week.", off: true},
		{name: "not outright", older: "I use a Samsung Galaxy S21.", newer: "Actually I got a Pixel 8 last week."},
		{name: "look-alike", older: "We pay for Netflix every month.", newer: "Signed up for Disney+ for the kids last week."},
		{name: "look-alike elsewhere", older: "Our broadband provider is BT.", newer: "Signed up for Virgin Media at the office now."},
		{name: "another thing switched", older: "Car insurance is with Aviva and renews on 4 March.", newer: "Switched electricity to Bord Gais in May; the bill comes monthly."},
		{name: "look-alike another thing", older: "Holiday budget for Portugal is €2,000.", newer: "We've spent €1,600 on the new sofa."},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func(v bool) { recall.MeaningGate = v }(recall.MeaningGate)
			recall.MeaningGate = !c.off
			e := semanticEngine(t, testenv.Store(t), useLite(t))
			store := func(text string, days int) StoreResult {
				return mustStore(t, e, StoreRequest{Content: text, Timestamp: daysAgo(days)})
			}
			for _, b := range background {
				store(b, 60)
			}
			old := store(c.older, 40)
			got := store(c.newer, 3)
			named := slices.ContainsFunc(got.Updates, func(u Update) bool { return u.ID == old.ID })
			if named != c.link || !c.link && len(got.Updates) != 0 {
				t.Fatalf("updates %+v, want the older named: %v", got.Updates, c.link)
			}
		})
	}
}
