package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/summarize"
	"github.com/infmem/infmem/maintenance"
)

// The aged run (issue 25): does recall survive the nightly maintenance
// pass? A benchmark is stored with its timestamps moved back past
// retention.keep_full_days, its questions are asked, the full nightly pass
// runs (summarize, noise, dedup, prune, size, purge, compact: the jobs the
// scheduler runs, maintenance.Env.All), and the same questions are asked
// again on the same data root. A summary among the results holds a gold
// turn when it quotes the turn's whole text.

// agedSet is a benchmark as the aged run stores and asks it.
type agedSet struct {
	name      string
	memories  []agedMemory
	questions []agedQuestion
	// sessionGold: gold names sessions (conversation ids), not turns.
	sessionGold bool
}

type agedMemory struct {
	// key names the turn in the set's gold (a LoCoMo dia id, a BEAM
	// message id); conv is its session.
	key, scope, conv, speaker, source, content string
	ts                                         time.Time
}

type agedQuestion struct {
	scope, text, kind string
	// gold holds memory keys, or conversation ids with sessionGold.
	gold map[string]bool
	// before, when set, admits only memories from before it (a question
	// asked in the middle of a replay sees only what was said earlier).
	before time.Time
}

// agedResult is one search answer as the aged run reads it.
type agedResult struct {
	ids, texts, convs []string
	summary           []bool
	confidences       []float64
	nothingRelevant   bool
}

type agedRetriever interface {
	ask(ctx context.Context, q agedQuestion, k int) (agedResult, error)
}

// agedEngine asks the memory engine as retrieve_memory does. It does not
// count as use, so the measurement does not change what the pass does.
type agedEngine struct{ eng *memory.Engine }

func (r agedEngine) ask(ctx context.Context, q agedQuestion, k int) (agedResult, error) {
	res, err := r.eng.Search(ctx, memory.SearchRequest{Query: q.text, Scope: q.scope, ExactScope: q.scope != "", To: q.before, Limit: k, NoTouch: true})
	if err != nil {
		return agedResult{}, fmt.Errorf("%q: %w", q.text, err)
	}
	out := agedResult{nothingRelevant: res.NothingRelevant}
	for _, m := range res.Results {
		out.ids, out.texts, out.convs = append(out.ids, m.ID), append(out.texts, m.Text), append(out.convs, m.ConversationID)
		out.summary = append(out.summary, m.Source == "summary")
		out.confidences = append(out.confidences, m.Confidence)
	}
	return out, nil
}

// agedMCP asks retrieve_memory over MCP with the question, filter.scope
// (and filter.time_range.to for a question asked mid-replay) and top_k.
type agedMCP struct{ c *client.Client }

func (r agedMCP) ask(ctx context.Context, q agedQuestion, k int) (agedResult, error) {
	filter := map[string]any{"scope": q.scope}
	if !q.before.IsZero() {
		filter["time_range"] = map[string]any{"to": q.before.UTC().Format(time.RFC3339)}
	}
	res, _, err := callTool(ctx, r.c, "retrieve_memory", map[string]any{"query": q.text, "filter": filter, "top_k": k})
	if err != nil {
		return agedResult{}, err
	}
	if res.IsError {
		return agedResult{}, fmt.Errorf("retrieve_memory %q: %s", q.text, text(res))
	}
	var out struct {
		Results []struct {
			MemoryID       string  `json:"memory_id"`
			Text           string  `json:"text"`
			Source         string  `json:"source"`
			ConversationID string  `json:"conversation_id"`
			Confidence     float64 `json:"confidence"`
		} `json:"results"`
		NothingRelevant bool `json:"nothing_relevant"`
	}
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		return agedResult{}, fmt.Errorf("retrieve_memory %q: cannot read the answer: %w", q.text, err)
	}
	got := agedResult{nothingRelevant: out.NothingRelevant || len(out.Results) == 0}
	for _, m := range out.Results {
		got.ids, got.texts, got.convs = append(got.ids, m.MemoryID), append(got.texts, m.Text), append(got.convs, m.ConversationID)
		got.summary = append(got.summary, m.Source == "summary")
		got.confidences = append(got.confidences, m.Confidence)
	}
	return got, nil
}

// agedKs are the k of the reported recall.
var agedKs = [2]int{5, 10}

// agedScore is one pass over the questions.
type agedScore struct {
	recall [2]float64 // summed over questions
	// viaSummary: gold found only through a summary that quotes it.
	viaSummary [2]float64
	nothing    int
	// summaries counts summaries among the top 5; results the top 5's.
	summaries, results int
	n                  int
	byKind             map[string]*agedScore
	// answers are the answers, by question.
	answers []agedResult
}

func (s *agedScore) add(r [2]float64, via [2]float64, nothing bool, sums, results int) {
	s.n++
	for i := range r {
		s.recall[i] += r[i]
		s.viaSummary[i] += via[i]
	}
	if nothing {
		s.nothing++
	}
	s.summaries += sums
	s.results += results
}

func (s *agedScore) pct(v float64) float64 { return 100 * v / float64(max(s.n, 1)) }

// quoteKey is a text as quotes are matched: the "Speaker: " prefix
// stripped, spaces folded.
func quoteKey(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ": "); i > 0 && i <= 40 && !strings.ContainsAny(s[:i], ".!?") {
		s = s[i+2:]
	}
	return s
}

// agedRun holds what the run needs to judge an answer.
type agedRun struct {
	set    *agedSet
	owners map[string]string // memory id -> key
	convOf map[string]string // memory id -> conversation
	quote  map[string]string // key -> quoteKey of its text
}

// judge scores one answer: the share of the question's gold found in the
// top k, and the share found only through summaries.
func (a *agedRun) judge(q agedQuestion, res agedResult) (r, via [2]float64, sums int) {
	for ki, k := range agedKs {
		hit, viaSum := map[string]bool{}, map[string]bool{}
		for j := range res.ids {
			if j >= k {
				break
			}
			if res.summary[j] {
				if ki == 0 {
					sums++
				}
				body := strings.Join(strings.Fields(res.texts[j]), " ")
				for g := range q.gold {
					switch {
					case a.set.sessionGold && res.convs[j] == g:
						viaSum[g] = true
					case !a.set.sessionGold && a.quote[g] != "" && strings.Contains(body, a.quote[g]):
						viaSum[g] = true
					}
				}
				continue
			}
			key := a.owners[res.ids[j]]
			if a.set.sessionGold {
				key = a.convOf[res.ids[j]]
			}
			if q.gold[key] {
				hit[key] = true
			}
		}
		for g := range viaSum {
			if !hit[g] {
				hit[g] = true
				via[ki]++
			}
		}
		r[ki] = float64(len(hit)) / float64(len(q.gold))
		via[ki] /= float64(len(q.gold))
	}
	return r, via, sums
}

// score asks every question with gold and every question without (those
// only count toward nothing_relevant).
func (a *agedRun) score(ctx context.Context, r agedRetriever) (agedScore, agedScore, error) {
	var with, without agedScore
	with.byKind = map[string]*agedScore{}
	for _, q := range a.set.questions {
		res, err := r.ask(ctx, q, agedKs[1])
		if err != nil {
			return with, without, err
		}
		with.answers = append(with.answers, res)
		if len(q.gold) == 0 {
			without.add([2]float64{}, [2]float64{}, res.nothingRelevant, 0, 0)
			continue
		}
		rec, via, sums := a.judge(q, res)
		with.add(rec, via, res.nothingRelevant, sums, min(len(res.ids), agedKs[0]))
		if q.kind != "" {
			if with.byKind[q.kind] == nil {
				with.byKind[q.kind] = &agedScore{}
			}
			with.byKind[q.kind].add(rec, via, res.nothingRelevant, sums, min(len(res.ids), agedKs[0]))
		}
	}
	return with, without, nil
}

// agedMaintainer runs the nightly pass.
type agedMaintainer interface {
	maintain(ctx context.Context) (map[string]int, []string, error)
}

type agedEnvMaintainer struct{ env *maintenance.Env }

func (m agedEnvMaintainer) maintain(ctx context.Context) (map[string]int, []string, error) {
	rep, err := m.env.All(ctx, false)
	return rep.Counts, rep.Warnings, err
}

// agedOptimize runs the pass through the daemon's job runner
// (optimize_memory, job maintenance), as Claude or `infmem maintain` would.
type agedOptimize struct{ c *client.Client }

func (m agedOptimize) maintain(ctx context.Context) (map[string]int, []string, error) {
	res, _, err := callTool(ctx, m.c, "optimize_memory", map[string]any{"job": "maintenance"})
	if err != nil {
		return nil, nil, err
	}
	if res.IsError {
		return nil, nil, fmt.Errorf("optimize_memory: %s", text(res))
	}
	var out struct {
		Counts   map[string]int `json:"counts"`
		Warnings []string       `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		return nil, nil, fmt.Errorf("optimize_memory: cannot read the answer: %w", err)
	}
	return out.Counts, out.Warnings, nil
}

// agedConfig is the configuration the pass runs with: the defaults and
// the run's flags.
type agedConfig struct {
	keepFullDays, maxItems, maxMB int
	retention                     string
}

func (c agedConfig) apply(cfg *config.Config) {
	cfg.Retention.KeepFullDays, cfg.Retention.Mode = c.keepFullDays, c.retention
	if c.maxItems > 0 {
		cfg.MaxMemoryItems = c.maxItems
	}
	if c.maxMB > 0 {
		cfg.MaxMemorySizeMB = c.maxMB
	}
}

// json is the configuration file for `infmem mcp`: the same settings, no
// scheduled work during the run.
func (c agedConfig) json() string {
	m := map[string]any{
		"retention":   map[string]any{"keep_full_days": c.keepFullDays, "mode": c.retention},
		"maintenance": map[string]any{"schedule": "off"},
		"backup":      map[string]any{"enabled": false},
	}
	if c.maxItems > 0 {
		m["max_memory_items"] = c.maxItems
	}
	if c.maxMB > 0 {
		m["max_memory_size_mb"] = c.maxMB
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// age moves every timestamp back by the same amount, so the newest memory
// happened `days` days before now and the whole set is due for
// summarization; question bounds move with them.
func (s *agedSet) age(now time.Time, days int) time.Duration {
	var newest time.Time
	for _, m := range s.memories {
		if m.ts.After(newest) {
			newest = m.ts
		}
	}
	shift := now.AddDate(0, 0, -days).Sub(newest)
	if shift > 0 {
		// Already older than that: leave it.
		shift = 0
	}
	for i := range s.memories {
		s.memories[i].ts = s.memories[i].ts.Add(shift)
	}
	for i := range s.questions {
		if !s.questions[i].before.IsZero() {
			s.questions[i].before = s.questions[i].before.Add(shift)
		}
	}
	return shift
}

// agedLoaders read each set into an agedSet.
var agedLoaders = map[string]func(path string) (*agedSet, error){
	"locomo": agedLocomo,
}

// agedDefaultPaths are where the sets live on the development machine.
var agedDefaultPaths = map[string]string{
	"locomo": "/work/shared/datasets/locomo/locomo-dev.json",
}

func agedLocomo(path string) (*agedSet, error) {
	d, err := readLocomo(path)
	if err != nil {
		return nil, err
	}
	s := &agedSet{name: "LoCoMo"}
	for _, m := range d.memories {
		s.memories = append(s.memories, agedMemory{key: m.scope + "/" + m.diaID, scope: m.scope, conv: m.conv, speaker: m.speaker,
			source: "conversation", content: m.content, ts: m.ts})
	}
	for _, q := range d.questions {
		gold := map[string]bool{}
		for e := range q.evidence {
			gold[q.scope+"/"+e] = true
		}
		s.questions = append(s.questions, agedQuestion{scope: q.scope, text: q.text, kind: categoryNames[q.category], gold: gold})
	}
	// Every question asked again in the next conversation, where its
	// answer is not: there nothing_relevant is the right answer.
	for _, q := range d.questions {
		s.questions = append(s.questions, agedQuestion{scope: d.scopes[(q.conv+1)%len(d.scopes)], text: q.text})
	}
	return s, nil
}

// runAged stores a set aged past keep_full_days, asks its questions, runs
// the nightly pass and asks them again.
func runAged(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("aged", flag.ContinueOnError)
	setName := fs.String("set", "locomo", "the set: "+strings.Join(slices.Sorted(maps.Keys(agedLoaders)), ", "))
	bin := fs.String("mcp", "", "instead of the engine, drive this infmem binary over stdio (`infmem mcp`; the pass through optimize_memory)")
	dir := fs.String("data-dir", "", "data root to load into (default: a temporary one)")
	var cfg agedConfig
	fs.IntVar(&cfg.keepFullDays, "keep-full-days", config.Defaults().Retention.KeepFullDays, "retention.keep_full_days")
	fs.StringVar(&cfg.retention, "retention", config.Defaults().Retention.Mode, "retention.mode: keep, moderate or aggressive")
	fs.IntVar(&cfg.maxItems, "max-items", 0, "max_memory_items (0: the default)")
	fs.IntVar(&cfg.maxMB, "max-mb", 0, "max_memory_size_mb (0: the default)")
	ageDays := fs.Int("age-days", 0, "how many days before now the newest memory is dated (0: keep-full-days + 30)")
	verbose := fs.Bool("v", false, "print each summary's share of quoted gold turns per conversation")
	if err := fs.Parse(args); err != nil {
		return err
	}
	load, ok := agedLoaders[*setName]
	if !ok {
		return fmt.Errorf("unknown set %q: %s", *setName, strings.Join(slices.Sorted(maps.Keys(agedLoaders)), ", "))
	}
	path := fs.Arg(0)
	if path == "" {
		path = agedDefaultPaths[*setName]
	}
	set, err := load(path)
	if err != nil {
		return err
	}
	if *ageDays == 0 {
		*ageDays = cfg.keepFullDays + 30
	}
	shift := set.age(time.Now(), *ageDays)
	if *dir == "" {
		tmp, err := os.MkdirTemp("", "infmem-aged")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		*dir = filepath.Join(tmp, "root")
	}

	var st storer
	var r agedRetriever
	var m agedMaintainer
	var eng *memory.Engine
	if *bin != "" {
		c, done, err := startMCPConfig(ctx, *dir, *bin, cfg.json())
		if err != nil {
			return err
		}
		defer done()
		st, r, m = mcpStorer{c}, agedMCP{c}, agedOptimize{c}
	} else {
		stack, err := openBenchStack(ctx, *dir)
		if err != nil {
			return err
		}
		defer stack.close()
		eng = stack.eng
		c := config.Defaults()
		cfg.apply(&c)
		log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		env := &maintenance.Env{Engine: stack.eng, Store: stack.store, Config: c, Log: log,
			Summarizer: summarize.NewExtractive(stack.embedder, summarize.ExtractiveOptions{Logger: log}),
			Pause:      func(time.Duration) time.Duration { return 0 }}
		st, r, m = engineStorer{stack.eng}, agedEngine{stack.eng}, agedEnvMaintainer{env}
	}

	run := &agedRun{set: set, owners: map[string]string{}, convOf: map[string]string{}, quote: map[string]string{}}
	start := time.Now()
	for _, mem := range set.memories {
		meta := map[string]any{"timestamp": mem.ts.UTC().Format(time.RFC3339Nano)}
		for k, v := range map[string]string{"scope": mem.scope, "source": mem.source, "conversation_id": mem.conv, "speaker": mem.speaker} {
			if v != "" {
				meta[k] = v
			}
		}
		id, err := st.store(ctx, mem.content, meta)
		if err != nil {
			return fmt.Errorf("store %s: %w", mem.key, err)
		}
		run.owners[id], run.convOf[id] = mem.key, mem.conv
		run.quote[mem.key] = quoteKey(mem.content)
	}
	via := "the engine"
	if *bin != "" {
		via = "infmem mcp"
	}
	fmt.Printf("%s: stored %d memories through %s in %v, aged by %.0f days (newest %d days ago; keep_full_days %d, retention %s)\n",
		set.name, len(set.memories), via, time.Since(start).Round(time.Millisecond), -shift.Hours()/24, *ageDays, cfg.keepFullDays, cfg.retention)

	start = time.Now()
	before, beforeNeg, err := run.score(ctx, r)
	if err != nil {
		return err
	}
	fmt.Printf("asked %d questions in %v\n", len(set.questions), time.Since(start).Round(time.Millisecond))

	start = time.Now()
	counts, warnings, err := m.maintain(ctx)
	if err != nil {
		return fmt.Errorf("the nightly pass: %w", err)
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if counts[k] != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
	}
	fmt.Printf("nightly pass in %v: %s\n", time.Since(start).Round(time.Millisecond), strings.Join(parts, ", "))
	for _, w := range warnings {
		fmt.Println("  warning:", w)
	}

	after, afterNeg, err := run.score(ctx, r)
	if err != nil {
		return err
	}
	agedPrint(before, after, beforeNeg, afterNeg)
	if *verbose {
		run.flips(before, after)
	}
	if eng != nil && !set.sessionGold {
		return run.quotes(ctx, eng, *verbose)
	}
	return nil
}

// agedPrint prints the before/after table.
func agedPrint(before, after, beforeNeg, afterNeg agedScore) {
	fmt.Printf("\n  %-26s %6s %7s %7s %17s %12s\n", "", "n", "R@5", "R@10", "nothing_relevant", "summaries@5")
	row := func(name string, s *agedScore) {
		sums := 0.0
		if s.results > 0 {
			sums = 100 * float64(s.summaries) / float64(s.results)
		}
		fmt.Printf("  %-26s %6d %6.1f%% %6.1f%% %16.1f%% %11.1f%%\n", name, s.n, s.pct(s.recall[0]), s.pct(s.recall[1]), s.pct(float64(s.nothing)), sums)
	}
	row("without the pass", &before)
	row("after the nightly pass", &after)
	fmt.Printf("  %-26s %6s %+6.1f  %+6.1f  %+16.1f\n", "difference (points)", "", after.pct(after.recall[0])-before.pct(before.recall[0]),
		after.pct(after.recall[1])-before.pct(before.recall[1]), after.pct(float64(after.nothing))-before.pct(float64(before.nothing)))
	fmt.Printf("  after the pass, gold found only through a summary that quotes it: R@5 %.1f, R@10 %.1f points\n",
		after.pct(after.viaSummary[0]), after.pct(after.viaSummary[1]))
	if beforeNeg.n > 0 {
		fmt.Printf("  questions without gold (%d) told nothing_relevant: %.1f%% without the pass, %.1f%% after\n",
			beforeNeg.n, beforeNeg.pct(float64(beforeNeg.nothing)), afterNeg.pct(float64(afterNeg.nothing)))
	}
	if len(before.byKind) > 1 {
		fmt.Printf("\n  %-26s %6s %15s %15s\n", "by kind: R@5 / R@10", "n", "without", "after")
		for _, k := range slices.Sorted(maps.Keys(before.byKind)) {
			b, a := before.byKind[k], after.byKind[k]
			if a == nil {
				a = &agedScore{}
			}
			fmt.Printf("  %-26s %6d %6.1f / %5.1f %6.1f / %5.1f\n", k, b.n, b.pct(b.recall[0]), b.pct(b.recall[1]), a.pct(a.recall[0]), a.pct(a.recall[1]))
		}
	}
}

// quotes reports the share of gold turns the summary of their session
// quotes whole, and the share it quotes at least one sentence of (the
// extractive summarizer keeps whole sentences).
func (a *agedRun) quotes(ctx context.Context, eng *memory.Engine, verbose bool) error {
	sums := map[string]string{} // conversation -> folded summary text
	doubled := 0
	for _, scope := range uniqueScopes(a.set) {
		for off := 0; ; {
			page, err := eng.List(ctx, memory.ListRequest{Scope: scope, Source: "summary", Limit: memory.MaxLimit, Offset: off})
			if err != nil {
				return err
			}
			for _, m := range page.Memories {
				if m.Scope == scope || scope == "" {
					sums[m.ConversationID] += "\n" + strings.Join(strings.Fields(m.Text), " ")
					if hasDoubledLabel(m.Text) {
						doubled++
					}
				}
			}
			if page.NextOffset == 0 {
				break
			}
			off = page.NextOffset
		}
	}
	convOfKey := map[string]string{}
	for _, m := range a.set.memories {
		convOfKey[m.key] = m.conv
	}
	gold := map[string]bool{}
	for _, q := range a.set.questions {
		for g := range q.gold {
			gold[g] = true
		}
	}
	var whole, some, n int
	for g := range gold {
		s, ok := sums[convOfKey[g]]
		if !ok {
			continue
		}
		n++
		if strings.Contains(s, a.quote[g]) {
			whole++
		}
		for _, sent := range sentenceRe.FindAllString(a.quote[g], -1) {
			if sent = strings.TrimSpace(sent); len(sent) > 12 && strings.Contains(s, sent) {
				some++
				break
			}
		}
	}
	fmt.Printf("\n  summaries: %d; gold turns in a summarized session %d: quoted whole %.1f%%, at least one sentence %.1f%%; summaries with a doubled speaker label: %d\n",
		len(sums), n, 100*float64(whole)/float64(max(n, 1)), 100*float64(some)/float64(max(n, 1)), doubled)
	if verbose {
		for c, s := range sums {
			fmt.Printf("\n--- %s\n%s\n", c, s)
		}
	}
	return nil
}

var (
	sentenceRe = regexp.MustCompile(`[^.!?]+[.!?]*`)
	// labelPair finds a speaker label followed by another.
	labelPair = regexp.MustCompile(`(?m)^([A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2}): ([A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2}): `)
)

// hasDoubledLabel reports whether a line of s starts with the same
// speaker label twice ("Fahim Khan: Fahim Khan: I went…").
func hasDoubledLabel(s string) bool {
	for _, m := range labelPair.FindAllStringSubmatch(s, -1) {
		if m[1] == m[2] {
			return true
		}
	}
	return false
}

func uniqueScopes(s *agedSet) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range s.memories {
		if !seen[m.scope] {
			seen[m.scope] = true
			out = append(out, m.scope)
		}
	}
	return out
}

// flips prints the questions whose nothing_relevant changed with the pass,
// with the best results before and after.
func (a *agedRun) flips(before, after agedScore) {
	show := func(r agedResult) {
		for j := range min(3, len(r.ids)) {
			kind := "turn"
			if r.summary[j] {
				kind = "summary"
			}
			fmt.Printf("      %.3f %-7s %.110q\n", r.confidences[j], kind, r.texts[j])
		}
	}
	for i, q := range a.set.questions {
		b, f := before.answers[i], after.answers[i]
		if b.nothingRelevant == f.nothingRelevant {
			continue
		}
		fmt.Printf("\n  %q (%s, gold %d): nothing_relevant %v -> %v\n    before:\n", q.text, q.scope, len(q.gold), b.nothingRelevant, f.nothingRelevant)
		show(b)
		fmt.Printf("    after:\n")
		show(f)
	}
}
