package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/infmem/infmem/internal/facts"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/memory/recall"
)

// updatesSet is the built-in set of knowledge updates: an older fact, the
// fact that replaces it, and a question about it.
//
//go:embed testdata/updates.json
var updatesSet []byte

type updatePairs struct {
	Pairs []struct {
		ID   string `json:"id"`
		Kind string `json:"kind"`
		Old  string `json:"old"`
		New  string `json:"new"`
		Q    string `json:"q"`
	} `json:"pairs"`
	Lookalikes []struct {
		First  string `json:"first"`
		Second string `json:"second"`
	} `json:"lookalikes"`
	Background []struct {
		Text    string `json:"text"`
		DaysAgo int    `json:"days_ago"`
	} `json:"background"`
}

// Days before the run at which the set's older and newer facts are stored.
const (
	updateOldDays = 40
	updateNewDays = 3
)

// reportingStorer stores a memory and says which memories the store
// result names as updated by it.
type reportingStorer interface {
	storeReport(ctx context.Context, content string, meta map[string]any) (id string, updates []string, err error)
}

func (s engineStorer) storeReport(ctx context.Context, content string, meta map[string]any) (string, []string, error) {
	req := memory.StoreRequest{Content: content}
	if v, ok := meta["timestamp"].(string); ok {
		ts, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return "", nil, err
		}
		req.Timestamp = ts
	}
	req.Scope, _ = meta["scope"].(string)
	req.Source, _ = meta["source"].(string)
	req.ConversationID, _ = meta["conversation_id"].(string)
	req.Speaker, _ = meta["speaker"].(string)
	res, err := s.eng.Store(ctx, req)
	if err != nil {
		return "", nil, err
	}
	var ups []string
	for _, u := range res.Updates {
		ups = append(ups, u.ID)
	}
	return res.ID, ups, nil
}

func (s mcpStorer) storeReport(ctx context.Context, content string, meta map[string]any) (string, []string, error) {
	res, err := storeWhenReady(ctx, s.c, map[string]any{"content": content, "metadata": meta})
	if err != nil {
		return "", nil, err
	}
	var out struct {
		MemoryID string `json:"memory_id"`
		Updates  []struct {
			MemoryID string `json:"memory_id"`
		} `json:"updates"`
	}
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil || out.MemoryID == "" {
		return "", nil, fmt.Errorf("unexpected answer %s", text(res))
	}
	var ups []string
	for _, u := range out.Updates {
		ups = append(ups, u.MemoryID)
	}
	return out.MemoryID, ups, nil
}

// runUpdates stores the update set (background, then every older fact 40
// days ago, then every newer one 3 days ago, in the default scope) and
// asks each pair's question as Claude would (retrieve_memory, the query
// alone: top 5): how often the newer fact comes first, how often the
// older ranks above the newer, and how often storing the newer named the
// older among its updates; for the look-alikes (both still true), how
// often storing the second called the first updated.
func runUpdates(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("updates", flag.ContinueOnError)
	bin := fs.String("mcp", "", "drive this infmem binary over stdio (`infmem mcp`, default settings) instead of the engine")
	verbose := fs.Bool("v", false, "print every miss")
	beam := fs.String("beam", "", "instead, BEAM's knowledge_update and contradiction_resolution questions (the recall harness's loader; \"default\" for the shared copy, or a folder)")
	fs.StringVar(&benchModel, "embedding", benchModel, "embedding model (engine only): use-lite, hash or none")
	fs.Float64Var(&recall.MeaningCos, "relate-meaning-cos", recall.MeaningCos, "engine only: the least cosine at which the closest earlier note is updated by a newer one saying in other words that its value changed (0: off)")
	fs.BoolVar(&recall.MeaningOutright, "relate-meaning-outright", recall.MeaningOutright, "engine: mark an update found by meaning as such (the lower bar of --rank sameqm) only when the newer says the change outright (\"moved to\", \"instead\", \"now\"); false: every update by meaning")
	fs.BoolVar(&recall.MeaningGate, "relate-meaning-gate", recall.MeaningGate, "engine: offer the reading of an update said in other words also to the note nearest by cosine, and at --relate-meaning-cos-outright (from under the candidate floor) where the newer says the change outright; false: the closest note at --relate-meaning-cos only")
	fs.BoolVar(&recall.MeaningGateThing, "relate-meaning-gate-thing", recall.MeaningGateThing, "engine: with --relate-meaning-gate, a link only the gate finds needs the newer, where it names the thing that changed, to name one the older meets (the word, a synonym, the nearest kind); false: off")
	fs.Float64Var(&recall.MeaningCosOutright, "relate-meaning-cos-outright", recall.MeaningCosOutright, "engine: the least cosine of --relate-meaning-gate's outright reading")
	fs.BoolVar(&facts.FrameRule, "relate-frames", facts.FrameRule, "engine: read an update said plainly: the older's sentence said again with one value in another place of the frame, no word of change (\"The team lead is Ms Okafor\" / \"… is Mr Lindqvist from this quarter\"), and amounts written \"R9,500\", \"4 500 kr\", \"CHF 1'850\"; false: off")
	fs.BoolVar(&facts.ValueForms, "relate-value-forms", facts.ValueForms, "engine: read times and amounts written \"8.30pm\", \"20h00\", \"half seven\", \"quarter to six\", \"5k\", \"R19 200\", \"a hundred and seventy quid\"")
	fs.BoolVar(&facts.SubsetRule, "relate-subset", facts.SubsetRule, "engine: read an update that says nothing but the older's thing and a new value (\"Gym up to R720\" after \"… the gym … costs R650 a month\"; \"I'm on MTN now for my phone\" after \"My phone contract is with Vodacom\")")
	fs.BoolVar(&facts.OtherSubjectRule, "relate-other-subject", facts.OtherSubjectRule, "engine: a newer sharing one word with an older, with a word of change, does not update it when its subject holds a word the older lacks (\"The school's aftercare closes at 5:30pm now\" after \"School starts at 7:45am\"), or only a name changed and its predicate says what the older never does")
	fs.BoolVar(&facts.SlotRules, "relate-slot-rules", facts.SlotRules, "engine: read an update said in other words also by who made the change (\"Finance cut the budget to…\"), \"from X to Y\", and a verb ending a thing the older names (\"Cancelled FitLife\", \"left Acme\"); false: off")
	fs.StringVar(&rankSpec, "rank", "", "engine only: ranking options over the defaults, name=value as in recall --grid (e.g. sameq=0.3)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *beam != "" {
		return runBeamUpdates(ctx, *bin, *beam, *verbose)
	}
	raw := updatesSet
	if fs.NArg() == 1 {
		var err error
		if raw, err = os.ReadFile(fs.Arg(0)); err != nil {
			return err
		}
	}
	var set updatePairs
	if err := json.Unmarshal(raw, &set); err != nil {
		return fmt.Errorf("cannot read the update set: %w", err)
	}
	tmp, err := os.MkdirTemp("", "infmem-updates")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "root")

	var st reportingStorer
	var r retriever
	if *bin != "" {
		var c *client.Client
		var done func()
		if c, done, err = startMCP(ctx, dir, *bin); err != nil {
			return err
		}
		defer done()
		st, r = mcpStorer{c}, mcpRetriever{c}
	} else {
		eng, done, err := openBenchEngine(ctx, dir)
		if err != nil {
			return err
		}
		defer done()
		if rankSpec != "" {
			o, _, err := rankGrid(rankSpec, eng.RankOptions())
			if err != nil {
				return err
			}
			if len(o) != 1 {
				return fmt.Errorf("--rank %q: one value per name", rankSpec)
			}
			eng.SetRankOptions(o[0])
		}
		st, r = engineStorer{eng}, engineRetriever{eng: eng, mode: memory.ModeHybrid}
	}

	now := time.Now()
	at := func(days int) map[string]any {
		return map[string]any{"timestamp": now.AddDate(0, 0, -days).UTC().Format(time.RFC3339)}
	}
	store := func(text string, days int) (string, []string, error) {
		id, ups, err := st.storeReport(ctx, text, at(days))
		if err != nil {
			return "", nil, fmt.Errorf("store %q: %w", text, err)
		}
		return id, ups, nil
	}
	texts := map[string]string{}
	for _, b := range set.Background {
		id, _, err := store(b.Text, b.DaysAgo)
		if err != nil {
			return err
		}
		texts[id] = b.Text
	}
	oldIDs := make([]string, len(set.Pairs))
	firstIDs := make([]string, len(set.Lookalikes))
	for i, p := range set.Pairs {
		if oldIDs[i], _, err = store(p.Old, updateOldDays); err != nil {
			return err
		}
		texts[oldIDs[i]] = p.Old
	}
	for i, l := range set.Lookalikes {
		if firstIDs[i], _, err = store(l.First, updateOldDays); err != nil {
			return err
		}
		texts[firstIDs[i]] = l.First
	}
	newIDs := make([]string, len(set.Pairs))
	// wrongNamed counts the memories a store result names that are not
	// the older of its pair: a link to another fact (it would demote
	// that fact below this one).
	named, falseUpdates, wrongNamed := 0, 0, 0
	for i, p := range set.Pairs {
		id, ups, err := store(p.New, updateNewDays)
		if err != nil {
			return err
		}
		newIDs[i] = id
		texts[id] = p.New
		for _, u := range ups {
			if u != oldIDs[i] {
				wrongNamed++
			}
		}
		if slices.Contains(ups, oldIDs[i]) {
			named++
			if *verbose {
				for _, u := range ups {
					if u != oldIDs[i] {
						fmt.Printf("  %s named another memory besides its older: %q → %q\n", p.ID, texts[u], p.New)
					}
				}
			}
		} else if *verbose {
			var others []string
			for _, u := range ups {
				others = append(others, fmt.Sprintf("%q", texts[u]))
			}
			fmt.Printf("  store did not name the older: %s (%q → %q) named %v\n", p.ID, p.Old, p.New, others)
		}
	}
	for i, l := range set.Lookalikes {
		_, ups, err := store(l.Second, updateNewDays)
		if err != nil {
			return err
		}
		for _, u := range ups {
			if u != firstIDs[i] {
				wrongNamed++
			}
		}
		if slices.Contains(ups, firstIDs[i]) {
			falseUpdates++
			if *verbose {
				fmt.Printf("  look-alike called an update: %q → %q\n", l.First, l.Second)
			}
		}
		if *verbose {
			for _, u := range ups {
				if u != firstIDs[i] {
					fmt.Printf("  look-alike's second named another memory: %q → %q\n", texts[u], l.Second)
				}
			}
		}
	}
	newFirst, oldAbove, newIn5 := 0, 0, 0
	for i, p := range set.Pairs {
		res, err := r.retrieve(ctx, "", p.Q, 5)
		if err != nil {
			return err
		}
		rn, ro := slices.Index(res.ids, newIDs[i]), slices.Index(res.ids, oldIDs[i])
		if rn == 0 {
			newFirst++
		}
		if rn >= 0 {
			newIn5++
		}
		if ro >= 0 && (rn < 0 || ro < rn) {
			oldAbove++
		}
		if *verbose && rn != 0 {
			fmt.Printf("  %s: %q newer at %d, older at %d (of %d)\n", p.ID, p.Q, rn, ro, len(res.ids))
		}
	}
	via := "the engine"
	if *bin != "" {
		via = "infmem mcp (store_memory with a timestamp; retrieve_memory with the query alone)"
	}
	n, nl := float64(len(set.Pairs)), float64(max(len(set.Lookalikes), 1))
	fmt.Printf("update set through %s: %d pairs, %d look-alikes, %d background memories\n", via, len(set.Pairs), len(set.Lookalikes), len(set.Background))
	fmt.Printf("  newer first %.1f%%, older above newer %.1f%%, newer in top 5 %.1f%%\n", 100*float64(newFirst)/n, 100*float64(oldAbove)/n, 100*float64(newIn5)/n)
	fmt.Printf("  store result names the older %.1f%% (%d of %d); look-alikes called updates %.1f%% (%d of %d)\n",
		100*float64(named)/n, named, len(set.Pairs), 100*float64(falseUpdates)/nl, falseUpdates, len(set.Lookalikes))
	fmt.Printf("  other memories named as updated (not the pair's older): %d\n", wrongNamed)
	return nil
}

// runBeamUpdates stores BEAM (as the recall harness does: a scope per
// conversation, each message with its batch's time) and asks its
// knowledge_update questions (the updated message above the original?
// did storing it name the original?) and contradiction_resolution
// questions (both statements among the results? linked as contradicting?).
func runBeamUpdates(ctx context.Context, bin, path string, verbose bool) error {
	spec := "beam"
	if path != "default" {
		spec += "=" + path
	}
	s, err := loadSet(spec)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "infmem-updates-beam")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "root")
	var st reportingStorer
	var r retriever
	var links func(id string) []string // contradicting memory ids (engine only)
	if bin != "" {
		c, done, err := startMCP(ctx, dir, bin)
		if err != nil {
			return err
		}
		defer done()
		st, r = mcpStorer{c}, mcpRetriever{c}
	} else {
		eng, done, err := openBenchEngine(ctx, dir)
		if err != nil {
			return err
		}
		defer done()
		st, r = engineStorer{eng}, engineRetriever{eng: eng, mode: memory.ModeHybrid}
		links = func(id string) []string {
			m, err := eng.Get(ctx, id)
			if err != nil {
				return nil
			}
			var out []string
			for _, l := range m.Contradicts {
				out = append(out, l.ID)
			}
			return out
		}
	}
	start := time.Now()
	idOf := map[string]string{}    // message id -> memory id
	owner := map[string]string{}   // memory id -> message id
	named := map[string][]string{} // message id -> message ids its store named as updated
	for _, m := range s.Messages {
		meta := map[string]any{"timestamp": m.TS.UTC().Format(time.RFC3339)}
		for k, v := range map[string]string{"scope": m.Scope, "source": m.Source, "conversation_id": m.Conv, "speaker": m.Speaker} {
			if v != "" {
				meta[k] = v
			}
		}
		id, ups, err := st.storeReport(ctx, m.Content, meta)
		if err != nil {
			return fmt.Errorf("store %s: %w", m.ID, err)
		}
		idOf[m.ID], owner[id] = id, m.ID
		for _, u := range ups {
			named[m.ID] = append(named[m.ID], owner[u])
		}
	}
	stored := time.Since(start)
	linked := 0
	for _, ids := range named {
		linked += len(ids)
	}
	var ku, newerFirst, newerAbove, olderAbove, namedOlder int
	var cr, both, bothLinked int
	for _, q := range s.Questions {
		switch q.Kind {
		case "knowledge_update":
			if len(q.Newer) == 0 || len(q.Older) == 0 {
				continue
			}
		case "contradiction_resolution":
			if len(q.Gold) < 2 {
				continue
			}
		default:
			continue
		}
		res, err := r.retrieve(ctx, q.Scope, q.Text, s.TopK)
		if err != nil {
			return err
		}
		rank := func(msgs []string) int {
			best := -1
			for _, m := range msgs {
				if i := slices.Index(res.ids, idOf[m]); i >= 0 && (best < 0 || i < best) {
					best = i
				}
			}
			return best
		}
		if q.Kind == "knowledge_update" {
			ku++
			rn, ro := rank(q.Newer), rank(q.Older)
			if rn == 0 {
				newerFirst++
			}
			if rn >= 0 && (ro < 0 || rn < ro) {
				newerAbove++
			}
			if ro >= 0 && (rn < 0 || ro < rn) {
				olderAbove++
			}
			hit := false
			for _, n := range q.Newer {
				for _, o := range q.Older {
					hit = hit || slices.Contains(named[n], o)
				}
			}
			if hit {
				namedOlder++
			}
			if verbose {
				fmt.Printf("  KU %s %q: newer at %d, older at %d, store named the older %v\n", q.ID, q.Text, rn, ro, hit)
			}
			continue
		}
		cr++
		var gold []string
		for g := range q.Gold {
			gold = append(gold, g)
		}
		all := true
		for _, g := range gold {
			all = all && slices.Contains(res.ids, idOf[g])
		}
		if all {
			both++
		}
		isLinked := false
		if links != nil {
			for _, a := range gold {
				for _, b := range gold {
					isLinked = isLinked || slices.Contains(links(idOf[a]), idOf[b])
				}
			}
		}
		if isLinked {
			bothLinked++
		}
		if verbose {
			fmt.Printf("  CR %s %q: all statements in the top %d %v, linked %v\n", q.ID, q.Text, s.TopK, all, isLinked)
		}
	}
	via := "the engine"
	if bin != "" {
		via = "infmem mcp"
	}
	fmt.Printf("BEAM through %s: %d messages stored in %v, %d update links made\n", via, len(s.Messages), stored.Round(time.Second), linked)
	fmt.Printf("  knowledge_update (%d with both messages): newer first %.1f%%, newer above older %.1f%%, older above newer %.1f%%, store named the older %.1f%%\n",
		ku, share100(newerFirst, ku), share100(newerAbove, ku), share100(olderAbove, ku), share100(namedOlder, ku))
	fmt.Printf("  contradiction_resolution (%d): every statement in the top %d %.1f%%", cr, s.TopK, share100(both, cr))
	if links != nil {
		fmt.Printf(", linked as contradicting %.1f%%", share100(bothLinked, cr))
	}
	fmt.Println()
	return nil
}
