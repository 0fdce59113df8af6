package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/infmem/infmem/cmd/infmem-bench/internal/messy"
	"github.com/infmem/infmem/internal/facts"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/memory/recall"
	"github.com/infmem/infmem/mongostore"
	"github.com/infmem/infmem/scopes"
)

// answer is one question's answer as the recall bench scores it.
type answer struct {
	// msgs are the returned memories, best first, each as the set's
	// message ids it stands for (a memory stored twice stands for both).
	msgs    [][]string
	conf    []float64
	nothing bool
	// nothingBy: the step that made nothing (engine only)
	nothingBy string
	asked     bool
	evidence  []*memory.Evidence
}

// setRun is one set stored and asked.
type setRun struct {
	set       *benchSet
	sessionOf map[string]string
	// answers per asker (a ranking mode, a grid point, "mcp"), per
	// question; bm25 is the baseline's.
	answers map[string][]answer
	askers  []string
	bm25    []answer
	took    time.Duration
}

// rankSpec is --rank: the modes' askers' ranking options over the
// defaults.
var rankSpec string

// recallConfig is how runRecall stores and asks.
type recallConfig struct {
	bin       string
	modes     []string
	bm25      bool
	grid      []memory.RankOptions
	gridNames []string
	dataDir   string
	// distractors is a data root (e.g. a 100k seed) copied into each
	// set's root before it is stored: every question is then asked
	// across all scopes, against the set and every memory of the copy.
	distractors string
	keepGoing   bool
	printKinds  bool
}

// runRecall stores every set and asks its questions (through the engine,
// or through BIN's `infmem mcp` with default arguments as Claude calls
// it), and prints one table: per set and ranking mode R@1/R@5/R@10, how
// often an answerable question was told nothing_relevant, how often an
// abstention or never-stored question was (as it should be), the expected
// calibration error of the confidences, and plain BM25 on the same set.
func runRecall(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("recall", flag.ContinueOnError)
	bin := fs.String("mcp", "", "drive this infmem binary over stdio (`BIN mcp`, default settings) instead of the engine")
	setList := fs.String("sets", "locomo,messy,beam,realmem,everyday", "comma-separated sets (name or name=path): "+strings.Join(recallSetOrder, ", "))
	modes := fs.String("modes", "hybrid", "comma-separated ranking modes (engine only): keyword, vector, hybrid")
	bm25 := fs.Bool("bm25", true, "also score plain BM25 (k1 1.2, b 0.75, no stemming) on every set")
	fs.BoolVar(&bm25Global, "bm25-global", false, "plain BM25 with document frequencies over every scope of the set, not per scope")
	crossValidate := fs.Bool("cross-validate", false, "engine: ask every point of --grid too (in the first of --modes) and report leave-one-conversation-out and leave-one-dataset-out")
	fs.StringVar(&gridSpec, "grid", gridSpec, "ranking grid for --cross-validate: semicolon-separated name=v1,v2 lists over kw, vw, ns, spk, time, dated")
	fs.StringVar(&datasetsDir, "datasets", datasetsDir, "folder of the shared datasets")
	fs.StringVar(&benchModel, "embedding", benchModel, "embedding model (engine only): use-lite, hash or none")
	cache := fs.String("embed-cache", "default", "engine: file of embeddings by text hash kept between runs (\"default\": in the user cache folder; \"none\": off)")
	fs.Uint64Var(&messy.Seed, "messy-seed", messy.Seed, "seed of the messy set's perturbation")
	kinds := fs.Bool("kinds", false, "also print every set's rows per question kind")
	misses := fs.Int("misses", 0, "print up to N questions per set where plain BM25 found more in the top 5 than the first mode")
	sample := fs.Int("scopes", 0, "keep only the first N scopes (conversations, people) of each set, to iterate faster")
	calibrate := fs.Bool("calibrate", false, "engine: fit each mode's confidence on every set at once and report its calibration per set")
	dump := fs.String("dump", "", "engine: write every answer's results with their evidence to this file (JSON lines), to study the relevance bar")
	dumpAll := fs.Bool("dump-all", false, "with --dump: write every ranking mode's, grid point's (grid#N) and plain BM25's (bm25) answers, each line naming its Asker")
	bars := fs.Bool("bars", false, "also print, per set, what other relevance bars would say (from the best confidence of each answer)")
	distractors := fs.String("distractors", "", "data root (e.g. a seed of 100k memories, `infmem-bench seed`) copied under each set before it is stored; every question is then asked in every scope (ALL), so the set's memories compete with the copy's: recall at scale")
	fs.BoolVar(&recall.MeaningOutright, "relate-meaning-outright", recall.MeaningOutright, "engine: mark an update found by meaning as such (the lower bar of --rank sameqm) only when the newer says the change outright (\"moved to\", \"instead\", \"now\"); false: every update by meaning")
	fs.BoolVar(&recall.MeaningGate, "relate-meaning-gate", recall.MeaningGate, "engine: offer the reading of an update said in other words also to the note nearest by cosine, and at --relate-meaning-cos-outright (from under the candidate floor) where the newer says the change outright; false: the closest note at --relate-meaning-cos only")
	fs.BoolVar(&recall.MeaningGateThing, "relate-meaning-gate-thing", recall.MeaningGateThing, "engine: with --relate-meaning-gate, a link only the gate finds needs the newer, where it names the thing that changed, to name one the older meets (the word, a synonym, the nearest kind); false: off")
	fs.Float64Var(&recall.MeaningCosOutright, "relate-meaning-cos-outright", recall.MeaningCosOutright, "engine: the least cosine of --relate-meaning-gate's outright reading")
	fs.BoolVar(&facts.FrameRule, "relate-frames", facts.FrameRule, "engine: read an update said plainly: the older's sentence said again with one value in another place of the frame, no word of change (\"The team lead is Ms Okafor\" / \"… is Mr Lindqvist from this quarter\"), and amounts written \"R9,500\", \"4 500 kr\", \"CHF 1'850\"; false: off")
	fs.BoolVar(&facts.ValueForms, "relate-value-forms", facts.ValueForms, "engine: read times and amounts written \"8.30pm\", \"20h00\", \"half seven\", \"quarter to six\", \"5k\", \"R19 200\", \"a hundred and seventy quid\"")
	fs.BoolVar(&facts.SubsetRule, "relate-subset", facts.SubsetRule, "engine: read an update that says nothing but the older's thing and a new value (\"Gym up to R720\" after \"… the gym … costs R650 a month\"; \"I'm on MTN now for my phone\" after \"My phone contract is with Vodacom\")")
	fs.BoolVar(&facts.OtherSubjectRule, "relate-other-subject", facts.OtherSubjectRule, "engine: a newer sharing one word with an older, with a word of change, does not update it when its subject holds a word the older lacks (\"The school's aftercare closes at 5:30pm now\" after \"School starts at 7:45am\"), or only a name changed and its predicate says what the older never does")
	fs.BoolVar(&facts.SlotRules, "relate-slot-rules", facts.SlotRules, "engine: read an update said in other words also by who made the change (\"Finance cut the budget to…\"), \"from X to Y\", and a verb ending a thing the older names (\"Cancelled FitLife\", \"left Acme\"); false: off")
	fs.StringVar(&rankSpec, "rank", "", "engine: ranking options of the modes' askers, over the defaults: semicolon-separated name=value as in --grid (e.g. other=-1: the other-thing bar off)")
	lowerNotes := fs.Bool("lower-notes", false, "store every message lower-cased (questions as written): a writer who uses no capitals")
	lowerContacts := fs.Bool("lower-contacts", false, "with the profile's contacts' names lower-cased too")
	ranksOut := fs.String("ranks", "", "write every question's results (the set's message ids each stands for, or d:ID for a memory of --distractors) to this file, one JSON line per question, to compare two builds' rankings")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("usage: infmem-bench recall [flags] (sets by --sets)")
	}
	cfg := recallConfig{bin: *bin, bm25: *bm25, printKinds: *kinds, distractors: *distractors}
	if cfg.distractors != "" {
		if st, err := os.Stat(filepath.Join(cfg.distractors, "mongo_data")); err != nil || !st.IsDir() {
			return fmt.Errorf("--distractors %s: not a data root (no mongo_data folder)", cfg.distractors)
		}
	}
	if *bin == "" {
		for _, m := range strings.Split(*modes, ",") {
			if m = strings.TrimSpace(m); m != "" {
				cfg.modes = append(cfg.modes, m)
			}
		}
		switch *cache {
		case "none", "":
		case "default":
			benchEmbedCache = defaultEmbedCache(benchModel)
		default:
			benchEmbedCache = *cache
		}
		defer closeCache()
	} else if *crossValidate {
		return fmt.Errorf("--cross-validate works through the engine only (no --mcp)")
	}
	sets, err := loadSets(*setList, *sample)
	if err != nil {
		return err
	}
	for _, s := range sets {
		lowerSet(s, *lowerNotes, *lowerContacts)
	}
	tmp, err := os.MkdirTemp("", "infmem-recall")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var runs []*setRun
	for i, s := range sets {
		cfg.dataDir = filepath.Join(tmp, fmt.Sprintf("root%d", i))
		if *crossValidate && cfg.grid == nil {
			// The grid varies the engine's defaults; its first point is
			// the defaults themselves.
			grid, names, err := rankGrid(gridSpec, memory.RankOptions{})
			if err != nil {
				return err
			}
			cfg.grid = append([]memory.RankOptions{{}}, grid...)
			cfg.gridNames = append([]string{""}, names...)
		}
		run, err := recallSet(ctx, s, cfg)
		if err != nil {
			// Report the sets that were measured before failing.
			printRecallTable(runs, cfg)
			return err
		}
		runs = append(runs, run)
		fmt.Fprintf(os.Stderr, "%s: %d messages, %d questions in %v\n", s.Name, len(s.Messages), len(s.Questions), run.took.Round(time.Second))
		os.RemoveAll(cfg.dataDir)
	}
	printRecallTable(runs, cfg)
	if *misses > 0 && len(cfg.modes) > 0 {
		printMisses(runs, cfg.modes[0], *misses)
	}
	if *bars {
		printBars(runs)
	}
	if *ranksOut != "" {
		if err := writeRanks(runs, *ranksOut); err != nil {
			return err
		}
	}
	if *dump != "" && len(cfg.modes) > 0 {
		askers := cfg.modes[:1]
		if *dumpAll && len(runs) > 0 {
			askers = append(slices.Clone(runs[0].askers), "bm25")
		}
		if err := dumpAnswers(runs, askers, *dump); err != nil {
			return err
		}
	}
	if *calibrate {
		for _, m := range cfg.modes {
			printCalibration(runs, m)
		}
	}
	if *crossValidate {
		printCrossValidation(runs, cfg)
	}
	return nil
}

// recallSet stores one set in a fresh data root and asks its questions,
// each at its point of the replay.
func recallSet(ctx context.Context, s *benchSet, cfg recallConfig) (*setRun, error) {
	start := time.Now()
	run := &setRun{set: s, sessionOf: s.sessionOf(), answers: map[string][]answer{}}
	var st storer
	type asker struct {
		name string
		opts *memory.RankOptions
		r    retriever
		// answerableOnly: a grid point is scored on recall alone.
		answerableOnly bool
	}
	var askers []asker
	var eng *memory.Engine
	var mcpc *client.Client
	if cfg.distractors != "" {
		// cp -a keeps the root's modes, which the data root checks.
		if out, err := exec.CommandContext(ctx, "cp", "-a", cfg.distractors, cfg.dataDir).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("copy %s: %v: %s", cfg.distractors, err, out)
		}
		os.Remove(filepath.Join(cfg.dataDir, "run", "daemon.json"))
	}
	if cfg.bin != "" {
		c, done, err := startMCP(ctx, cfg.dataDir, cfg.bin)
		if err != nil {
			return nil, err
		}
		defer done()
		mcpc = c
		st = mcpStorer{c}
		askers = append(askers, asker{name: "mcp", r: mcpRetriever{c}})
	} else {
		var done func()
		var err error
		if eng, done, err = openBenchEngine(ctx, cfg.dataDir); err != nil {
			return nil, err
		}
		defer done()
		if cfg.distractors != "" {
			select { // the copy's memories load in the background
			case <-eng.Loaded():
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		st = engineStorer{eng}
		def := eng.RankOptions()
		if rankSpec != "" {
			o, _, err := rankGrid(rankSpec, def)
			if err != nil {
				return nil, err
			}
			if len(o) != 1 {
				return nil, fmt.Errorf("--rank %q: one value per name", rankSpec)
			}
			def = o[0]
			eng.SetRankOptions(def)
		}
		for _, m := range cfg.modes {
			askers = append(askers, asker{name: m, opts: &def, r: engineRetriever{eng: eng, mode: m}})
		}
		gridMode := memory.ModeHybrid
		if len(cfg.modes) > 0 {
			gridMode = cfg.modes[0]
		}
		for i := range cfg.grid {
			askers = append(askers, asker{name: gridAsker(i), opts: &cfg.grid[i], r: engineRetriever{eng: eng, mode: gridMode}, answerableOnly: true})
		}
	}
	if len(s.Contacts) > 0 {
		if err := setContacts(ctx, eng, mcpc, s.Contacts); err != nil {
			return nil, fmt.Errorf("%s: profile: %w", s.Name, err)
		}
	}
	for _, a := range askers {
		run.askers = append(run.askers, a.name)
		run.answers[a.name] = make([]answer, len(s.Questions))
	}
	run.bm25 = make([]answer, len(s.Questions))
	bm := newPlainBM25()
	owners := map[string][]string{} // memory id -> message ids
	byAt := map[int][]int{}
	for qi, q := range s.Questions {
		byAt[q.At] = append(byAt[q.At], qi)
	}
	ask := func(at int) error {
		for _, qi := range byAt[at] {
			q := s.Questions[qi]
			for _, a := range askers {
				if a.answerableOnly && q.Abstain {
					continue
				}
				if a.opts != nil {
					eng.SetRankOptions(*a.opts)
				}
				scope := q.Scope
				if cfg.distractors != "" {
					scope = scopes.All
				}
				res, err := a.r.retrieve(ctx, scope, q.Text, s.TopK)
				if err != nil {
					return fmt.Errorf("%s %s: %w", s.Name, q.ID, err)
				}
				ans := answer{conf: res.confidences, nothing: res.nothingRelevant, nothingBy: res.nothingBy, asked: true, evidence: res.evidence}
				for i := range res.ids {
					// A result stands for its own messages and those of the
					// turns it shows as its context.
					msgs := []string{}
					for n, id := range res.shown(i) {
						o := owners[id]
						if len(o) == 0 && n == 0 && cfg.distractors != "" {
							o = []string{"d:" + id} // one of the copy's memories
						}
						msgs = append(msgs, o...)
					}
					ans.msgs = append(ans.msgs, msgs)
				}
				run.answers[a.name][qi] = ans
			}
			if cfg.bm25 {
				ans := answer{asked: true}
				for _, id := range bm.search(q.Scope, q.Text, s.TopK) {
					ans.msgs = append(ans.msgs, []string{id})
				}
				run.bm25[qi] = ans
			}
		}
		return nil
	}
	for i, m := range s.Messages {
		if err := ask(i); err != nil {
			return nil, err
		}
		meta := map[string]any{"timestamp": m.TS.UTC().Format(time.RFC3339)}
		for k, v := range map[string]string{"scope": m.Scope, "source": m.Source, "conversation_id": m.Conv, "speaker": m.Speaker} {
			if v != "" {
				meta[k] = v
			}
		}
		id, err := st.store(ctx, m.Content, meta)
		if err != nil {
			return nil, fmt.Errorf("%s: store %s: %w", s.Name, m.ID, err)
		}
		owners[id] = append(owners[id], m.ID)
		bm.add(m.Scope, m.ID, m.Content)
	}
	for at := len(s.Messages); ; at++ {
		if _, ok := byAt[at]; !ok {
			break
		}
		if err := ask(at); err != nil {
			return nil, err
		}
	}
	run.took = time.Since(start)
	return run, nil
}

// setContacts gives the user profile its contacts, through the engine or
// with update_user_profile.
func setContacts(ctx context.Context, eng *memory.Engine, c *client.Client, contacts []mongostore.Contact) error {
	if c == nil {
		_, _, err := eng.UpdateProfile(ctx, memory.ProfileUpdate{AddContacts: contacts})
		return err
	}
	list := make([]any, len(contacts))
	for i, ct := range contacts {
		list[i] = map[string]any{"name": ct.Name, "relation": ct.Relation}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		res, _, err := callTool(ctx, c, "update_user_profile", map[string]any{"add_contacts": list})
		if err != nil {
			return err
		}
		if !res.IsError {
			return nil
		}
		if !strings.Contains(text(res), "still loading") || time.Now().After(deadline) {
			return fmt.Errorf("update_user_profile: %s", text(res))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func gridAsker(i int) string { return fmt.Sprintf("grid#%d", i) }

// recallKs are the k of the scores: R@1, R@3 (the everyday set's hit@3),
// R@5 and R@10.
var recallKs = [4]int{1, 3, 5, 10}

// setScore sums one asker's answers over a set's questions.
type setScore struct {
	n          int        // answerable questions asked
	r          [4]float64 // summed recall at recallKs
	ansNothing int        // answerable told nothing_relevant
	abst       int        // abstention (never-stored) questions asked
	abstNR     int        // of them told nothing_relevant
	// calibration bins over the results scored: count, confidence sum,
	// relevant count
	binN   [10]int
	binC   [10]float64
	binRel [10]int
	// newer/older: knowledge updates where both rank, newer first / older first
	updates, newerFirst, olderAbove int
}

func (sc setScore) rk(i int) float64 { return 100 * sc.r[i] / float64(max(sc.n, 1)) }

// ece is the expected calibration error over the scored results: the
// mean gap between confidence and observed precision, weighted by bin.
func (sc *setScore) ece() (float64, int) {
	total, gap := 0, 0.0
	for b := range sc.binN {
		if sc.binN[b] == 0 {
			continue
		}
		total += sc.binN[b]
		gap += math.Abs(sc.binC[b] - float64(sc.binRel[b])) // n × |mean conf − precision|
	}
	if total == 0 {
		return math.NaN(), 0
	}
	return gap / float64(total), total
}

// eceDepth is how many results of each answer the calibration error
// counts: a confidence is read most on the first few.
const eceDepth = 5

// scoreSet scores answers over the questions keep admits.
func scoreSet(run *setRun, answers []answer, keep func(q *benchQuestion) bool) setScore {
	var sc setScore
	s := run.set
	for qi := range s.Questions {
		q := &s.Questions[qi]
		a := answers[qi]
		if !a.asked || (keep != nil && !keep(q)) {
			continue
		}
		if q.Abstain {
			sc.abst++
			if a.nothing {
				sc.abstNR++
			}
		} else {
			sc.n++
			if a.nothing {
				sc.ansNothing++
			}
			for i, k := range recallKs {
				sc.r[i] += q.recallAtAliases(a.msgs, k, run.sessionOf)
			}
		}
		for j := range min(len(a.conf), eceDepth) {
			rel := false
			for _, id := range a.msgs[j] {
				rel = rel || q.relevant(id, run.sessionOf)
			}
			b := min(int(a.conf[j]*10), 9)
			sc.binN[b]++
			sc.binC[b] += a.conf[j]
			if rel {
				sc.binRel[b]++
			}
		}
		if len(q.Newer) > 0 && len(q.Older) > 0 {
			newer, older := rankOf(a.msgs, q.Newer), rankOf(a.msgs, q.Older)
			sc.updates++
			if newer >= 0 && (older < 0 || newer < older) {
				sc.newerFirst++
			}
			if older >= 0 && (newer < 0 || older < newer) {
				sc.olderAbove++
			}
		}
	}
	return sc
}

// rankOf is the position of the first result standing for one of ids (-1: none).
func rankOf(msgs [][]string, ids []string) int {
	for i, list := range msgs {
		for _, m := range list {
			for _, id := range ids {
				if m == id {
					return i
				}
			}
		}
	}
	return -1
}

// recallAtAliases is recallAt over results that each stand for one or
// more messages.
func (q *benchQuestion) recallAtAliases(msgs [][]string, k int, sessionOf map[string]string) float64 {
	var flat []string
	for j, list := range msgs {
		if j >= k {
			break
		}
		flat = append(flat, list...)
	}
	return q.recallAt(flat, len(flat), sessionOf)
}

func printRecallTable(runs []*setRun, cfg recallConfig) {
	via := "the engine (in process)"
	if cfg.bin != "" {
		via = cfg.bin + " mcp, retrieve_memory with query, filter.scope and top_k, default settings"
	}
	fmt.Printf("recall through %s\n", via)
	fmt.Printf("%-10s %-8s %5s %6s %6s %6s | %7s %15s %6s | %6s %6s %6s\n", "set", "mode", "n", "R@1", "R@5", "R@10", "ans→NR", "abstain→NR (n)", "ECE", "BM25@1", "@5", "@10")
	for _, run := range runs {
		bm := scoreSet(run, run.bm25, nil)
		for _, a := range run.askers {
			if strings.HasPrefix(a, "grid#") {
				continue
			}
			printRow(run.set.Name, a, run, scoreSet(run, run.answers[a], nil), bm, cfg.bm25)
			if cfg.printKinds {
				for _, kind := range kindsOf(run.set) {
					keep := func(q *benchQuestion) bool { return q.Kind == kind }
					printRow("  "+kind, "", run, scoreSet(run, run.answers[a], keep), scoreSet(run, run.bm25, keep), cfg.bm25)
				}
			}
		}
	}
	// What the table cannot show: the everyday set's hit@3 and BEAM's updates.
	for _, run := range runs {
		for _, a := range run.askers {
			if strings.HasPrefix(a, "grid#") {
				continue
			}
			sc := scoreSet(run, run.answers[a], nil)
			if strings.HasPrefix(run.set.Name, "everyday") {
				fmt.Printf("%s %s: hit@1 %.1f, hit@3 %.1f, never-stored told nothing_relevant %.1f %%, answerable told nothing_relevant %.1f %%\n",
					run.set.Name, a, sc.rk(0), sc.rk(1), share100(sc.abstNR, sc.abst), share100(sc.ansNothing, sc.n))
			}
			if sc.updates > 0 {
				fmt.Printf("%s %s: updates (newer and older gold) %d: newer ranked first %.1f %%, older above newer %.1f %%\n",
					run.set.Name, a, sc.updates, share100(sc.newerFirst, sc.updates), share100(sc.olderAbove, sc.updates))
			}
		}
	}
}

func printRow(set, mode string, run *setRun, sc, bm setScore, withBM25 bool) {
	abst := "-"
	if sc.abst > 0 {
		abst = fmt.Sprintf("%5.1f %% (%d)", share100(sc.abstNR, sc.abst), sc.abst)
	}
	ece, _ := sc.ece()
	r10, b10 := fmt.Sprintf("%6.1f", sc.rk(3)), fmt.Sprintf("%6.1f", bm.rk(3))
	if run.set.TopK < 10 {
		r10, b10 = "     -", "     -"
	}
	line := fmt.Sprintf("%-10s %-8s %5d %6.1f %6.1f %s | %5.1f %% %15s %6.3f |", set, mode, sc.n, sc.rk(0), sc.rk(2), r10, share100(sc.ansNothing, sc.n), abst, ece)
	if withBM25 {
		line += fmt.Sprintf(" %6.1f %6.1f %s", bm.rk(0), bm.rk(2), b10)
	}
	fmt.Println(line)
}

func share100(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

func kindsOf(s *benchSet) []string {
	seen := map[string]bool{}
	var out []string
	for _, q := range s.Questions {
		if !seen[q.Kind] {
			seen[q.Kind] = true
			out = append(out, q.Kind)
		}
	}
	sort.Strings(out)
	return out
}

// printCrossValidation reports how much the grid's best point owes to the
// data it is chosen on: leave one conversation (scope) out within each
// set, and leave one dataset out (the point best on the other sets, each
// set weighing the same, measured on the one left out). Points are chosen
// by R@5 + R@10.
func printCrossValidation(runs []*setRun, cfg recallConfig) {
	if len(cfg.grid) == 0 {
		return
	}
	// per[set][g][qi] = R@5 + R@10 of answerable question qi at grid point g
	type perQ struct {
		scope string
		r     [4]float64
	}
	per := make([][][]perQ, len(runs))
	for si, run := range runs {
		per[si] = make([][]perQ, len(cfg.grid))
		for g := range cfg.grid {
			for qi := range run.set.Questions {
				q := &run.set.Questions[qi]
				a := run.answers[gridAsker(g)][qi]
				if q.Abstain || !a.asked {
					continue
				}
				var r [4]float64
				for i, k := range recallKs {
					r[i] = q.recallAtAliases(a.msgs, k, run.sessionOf)
				}
				per[si][g] = append(per[si][g], perQ{scope: q.Scope, r: r})
			}
		}
	}
	mean := func(list []perQ, keep func(perQ) bool) (r [4]float64, n int) {
		for _, p := range list {
			if keep == nil || keep(p) {
				n++
				for i := range r {
					r[i] += p.r[i]
				}
			}
		}
		for i := range r {
			r[i] = 100 * r[i] / float64(max(n, 1))
		}
		return r, n
	}
	// Every point on every set: R@5 / R@10.
	fmt.Printf("\ngrid points, R@5 / R@10 per set\n%-40s", "point")
	for _, run := range runs {
		fmt.Printf(" %13s", run.set.Name)
	}
	fmt.Println()
	for g := range cfg.grid {
		fmt.Printf("%-40s", orDefault(cfg.gridNames[g]))
		for si := range runs {
			r, _ := mean(per[si][g], nil)
			fmt.Printf("   %5.1f/%5.1f", r[2], r[3])
		}
		fmt.Println()
	}
	fmt.Printf("\ncross-validation over %d grid points (%s), chosen by R@5 + R@10\n", len(cfg.grid), gridSpec)
	fmt.Printf("%-10s | %-20s | %-20s | %-20s %s\n", "set", "defaults R@1/5/10", "leave-one-conv-out", "leave-one-set-out", "(set-out choice)")
	for si, run := range runs {
		def, _ := mean(per[si][0], nil)
		// Leave one conversation out.
		var held [4]float64
		heldN := 0
		scopes := map[string]bool{}
		for _, p := range per[si][0] {
			scopes[p.scope] = true
		}
		loco := "-"
		if len(scopes) > 1 {
			for sc := range scopes {
				best, bestScore := 0, -1.0
				for g := range cfg.grid {
					r, _ := mean(per[si][g], func(p perQ) bool { return p.scope != sc })
					if r[2]+r[3] > bestScore {
						best, bestScore = g, r[2]+r[3]
					}
				}
				r, n := mean(per[si][best], func(p perQ) bool { return p.scope == sc })
				for i := range held {
					held[i] += r[i] * float64(n)
				}
				heldN += n
			}
			loco = fmt.Sprintf("%5.1f %5.1f %5.1f", held[0]/float64(heldN), held[2]/float64(heldN), held[3]/float64(heldN))
		}
		// Leave this set out.
		best, bestScore := 0, -1.0
		for g := range cfg.grid {
			total := 0.0
			for sj := range runs {
				if sj != si {
					r, _ := mean(per[sj][g], nil)
					total += r[2] + r[3]
				}
			}
			if total > bestScore {
				best, bestScore = g, total
			}
		}
		lodo, _ := mean(per[si][best], nil)
		fmt.Printf("%-10s | %5.1f %5.1f %5.1f    | %-20s | %5.1f %5.1f %5.1f    %s\n", run.set.Name, def[0], def[2], def[3], loco, lodo[0], lodo[2], lodo[3], orDefault(cfg.gridNames[best]))
	}
}

func orDefault(s string) string {
	if s == "" {
		return "defaults"
	}
	return s
}

// printBars reports, per set and asker, how often answerable and
// abstention questions would be told nothing_relevant if the bar were
// elsewhere: an answer says nothing relevant when its best confidence is
// under the bar.
func printBars(runs []*setRun) {
	barList := []float64{0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6}
	fmt.Printf("\nother bars: answerable told nothing_relevant / abstaining told nothing_relevant\n%-10s %-8s", "set", "mode")
	for _, b := range barList {
		fmt.Printf(" %11.2f", b)
	}
	fmt.Println()
	for _, run := range runs {
		for _, a := range run.askers {
			if strings.HasPrefix(a, "grid#") {
				continue
			}
			fmt.Printf("%-10s %-8s", run.set.Name, a)
			for _, b := range barList {
				var ans, ansNR, abst, abstNR int
				for qi, q := range run.set.Questions {
					ansr := run.answers[a][qi]
					if !ansr.asked {
						continue
					}
					top := 0.0
					if len(ansr.conf) > 0 {
						top = ansr.conf[0]
					}
					if q.Abstain {
						abst++
						if top < b {
							abstNR++
						}
					} else {
						ans++
						if top < b {
							ansNR++
						}
					}
				}
				fmt.Printf(" %5.1f/%5.1f", share100(ansNR, ans), share100(abstNR, abst))
			}
			fmt.Println()
		}
	}
}

// printMisses shows questions where plain BM25 does better than asker.
func printMisses(runs []*setRun, asker string, n int) {
	for _, run := range runs {
		text := map[string]string{}
		for _, m := range run.set.Messages {
			text[m.ID] = m.Content
		}
		shown := 0
		for qi := range run.set.Questions {
			q := &run.set.Questions[qi]
			a, b := run.answers[asker][qi], run.bm25[qi]
			if q.Abstain || !a.asked || q.recallAtAliases(b.msgs, 5, run.sessionOf) <= q.recallAtAliases(a.msgs, 5, run.sessionOf) {
				continue
			}
			if shown++; shown > n {
				break
			}
			fmt.Printf("\n[%s %s] %q\n", run.set.Name, q.ID, clip(q.Text, 300))
			show := func(who string, msgs [][]string, conf []float64) {
				for j, list := range msgs[:min(5, len(msgs))] {
					mark := " "
					for _, id := range list {
						if q.relevant(id, run.sessionOf) {
							mark = "*"
						}
					}
					c := ""
					if j < len(conf) {
						c = fmt.Sprintf("%.2f", conf[j])
					}
					fmt.Printf("  %s %s%d %s %q\n", who, mark, j+1, c, clip(text[list[0]], 160))
				}
			}
			show("engine", a.msgs, a.conf)
			show("bm25  ", b.msgs, nil)
		}
	}
}

// writeRanks writes, for the first asker of every run, one JSON line per
// asked question: the set, the question's id and its results in order, each
// as the messages it stands for. Two builds asked the same sets give the
// same lines exactly when they rank alike.
func writeRanks(runs []*setRun, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, run := range runs {
		if len(run.askers) == 0 {
			continue
		}
		for qi, ans := range run.answers[run.askers[0]] {
			if !ans.asked {
				continue
			}
			line := struct {
				Set, ID string
				Results [][]string
				Nothing bool
			}{run.set.Name, run.set.Questions[qi].ID, ans.msgs, ans.nothing}
			if err := enc.Encode(line); err != nil {
				f.Close()
				return err
			}
		}
	}
	return f.Close()
}

// lowerSet lower-cases a set's messages (notes) and, with contacts, its
// profile contacts' names: the same memories from a writer who uses no
// capitals ("léa's best friend is chloé"), to measure whether a rule's
// verdict rests on capitals (issue 23 item 5).
func lowerSet(s *benchSet, notes, contacts bool) {
	if notes {
		for i := range s.Messages {
			s.Messages[i].Content = strings.ToLower(s.Messages[i].Content)
		}
	}
	if contacts {
		for i := range s.Contacts {
			s.Contacts[i].Name = strings.ToLower(s.Contacts[i].Name)
		}
	}
}
