package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/infmem/infmem/internal/config"
	"github.com/infmem/infmem/internal/facts"
	"github.com/infmem/infmem/internal/memory"
	"github.com/infmem/infmem/internal/summarize"
	"github.com/infmem/infmem/maintenance"
)

// The aged run (issue 25): does recall survive the nightly maintenance
// pass? Each recall set (sets_*.go) is stored with its timestamps moved
// back past retention.keep_full_days, its questions are asked, the full
// nightly pass runs (summarize, noise, dedup, prune, size, purge, compact:
// maintenance.Env.All, what the scheduler runs; through --mcp the daemon's
// own job runner, optimize_memory), and the same questions are asked again
// on the same data root. A summary among the results stands for every
// message of its scope whose whole text it quotes. A question the set asks
// in the middle of its replay (RealMemBench) is asked of what was stored
// before it: every message is stored first, the messages' timestamps are
// made distinct in replay order and the question's search ends
// (time_range.to) where its replay point is.

// agedAnswer is one search answer as the aged run reads it.
type agedAnswer struct {
	IDs, Texts, Convs []string
	Summary           []bool
	Confidences       []float64
	NothingRelevant   bool
}

type agedAsker interface {
	ask(ctx context.Context, q *benchQuestion, before time.Time, k int) (agedAnswer, error)
}

// agedEngine asks the memory engine as retrieve_memory does. It does not
// count as use, so the measurement does not change what the pass does.
type agedEngine struct{ eng *memory.Engine }

func (r agedEngine) ask(ctx context.Context, q *benchQuestion, before time.Time, k int) (agedAnswer, error) {
	res, err := r.eng.Search(ctx, memory.SearchRequest{Query: q.Text, Scope: q.Scope, ExactScope: q.Scope != "", To: before, Limit: k, NoTouch: true})
	if err != nil {
		return agedAnswer{}, fmt.Errorf("%q: %w", q.Text, err)
	}
	out := agedAnswer{NothingRelevant: res.NothingRelevant}
	for _, m := range res.Results {
		out.IDs, out.Texts = append(out.IDs, m.ID), append(out.Texts, m.Text)
		out.Summary = append(out.Summary, m.Source == "summary")
		out.Confidences = append(out.Confidences, m.Confidence)
	}
	return out, nil
}

// agedMCP asks retrieve_memory over MCP with the question, filter.scope
// (and filter.time_range.to for a question asked mid-replay) and top_k.
type agedMCP struct{ c *client.Client }

func (r agedMCP) ask(ctx context.Context, q *benchQuestion, before time.Time, k int) (agedAnswer, error) {
	filter := map[string]any{"scope": q.Scope}
	if !before.IsZero() {
		filter["time_range"] = map[string]any{"to": before.UTC().Format(time.RFC3339Nano)}
	}
	res, _, err := callTool(ctx, r.c, "retrieve_memory", map[string]any{"query": q.Text, "filter": filter, "top_k": k})
	if err != nil {
		return agedAnswer{}, err
	}
	if res.IsError {
		return agedAnswer{}, fmt.Errorf("retrieve_memory %q: %s", q.Text, text(res))
	}
	var out struct {
		Results []struct {
			MemoryID   string  `json:"memory_id"`
			Text       string  `json:"text"`
			Source     string  `json:"source"`
			Conv       string  `json:"conversation_id"`
			Confidence float64 `json:"confidence"`
		} `json:"results"`
		NothingRelevant bool `json:"nothing_relevant"`
	}
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		return agedAnswer{}, fmt.Errorf("retrieve_memory %q: cannot read the answer: %w", q.Text, err)
	}
	got := agedAnswer{NothingRelevant: out.NothingRelevant || len(out.Results) == 0}
	for _, m := range out.Results {
		got.IDs, got.Texts, got.Convs = append(got.IDs, m.MemoryID), append(got.Texts, m.Text), append(got.Convs, m.Conv)
		got.Summary = append(got.Summary, m.Source == "summary")
		got.Confidences = append(got.Confidences, m.Confidence)
	}
	return got, nil
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
	keepFullDays, maxItems, maxMB, ageDays int
	retention                              string
	summarizer, ollamaURL, ollamaModel     string
}

func (c agedConfig) apply(cfg *config.Config) {
	cfg.Retention.KeepFullDays, cfg.Retention.Mode = c.keepFullDays, c.retention
	if c.maxItems > 0 {
		cfg.MaxMemoryItems = c.maxItems
	}
	if c.maxMB > 0 {
		cfg.MaxMemorySizeMB = c.maxMB
	}
	cfg.Maintenance.Summarizer = c.summarizer
	if c.summarizer == "ollama" {
		cfg.Maintenance.OllamaURL, cfg.Maintenance.OllamaModel = c.ollamaURL, c.ollamaModel
	}
}

// json is the configuration file for `infmem mcp`: the same settings, no
// scheduled work during the run.
func (c agedConfig) json() string {
	m := map[string]any{
		"retention":   map[string]any{"keep_full_days": c.keepFullDays, "mode": c.retention},
		"maintenance": map[string]any{"schedule": "off", "summarizer": c.summarizer},
		"backup":      map[string]any{"enabled": false},
	}
	if c.summarizer == "ollama" {
		m["maintenance"].(map[string]any)["ollama_url"] = c.ollamaURL
		m["maintenance"].(map[string]any)["ollama_model"] = c.ollamaModel
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

// agedSet is a set prepared for the aged run: its messages moved back in
// time and, for each question asked mid-replay, where its search ends.
type agedSet struct {
	*benchSet
	now    time.Time
	shift  time.Duration
	before []time.Time // by question; zero: open
}

// age moves every timestamp back by the same amount, so the newest
// message happened days days before now (a set already older is left
// where it is). When the set asks questions mid-replay, messages that
// share a timestamp are spread a millisecond apart in replay order, and
// each such question searches up to its replay point.
func age(s *benchSet, now time.Time, days int) *agedSet {
	a := &agedSet{benchSet: s, now: now, before: make([]time.Time, len(s.Questions))}
	var newest time.Time
	for _, m := range s.Messages {
		if m.TS.After(newest) {
			newest = m.TS
		}
	}
	a.shift = min(now.AddDate(0, 0, -days).Sub(newest), 0)
	midReplay := slices.ContainsFunc(s.Questions, func(q benchQuestion) bool { return q.At < len(s.Messages) })
	for i := range s.Messages {
		s.Messages[i].TS = s.Messages[i].TS.Add(a.shift)
		if midReplay {
			s.Messages[i].TS = s.Messages[i].TS.Add(time.Duration(i) * time.Millisecond)
		}
	}
	for qi, q := range s.Questions {
		if q.At < len(s.Messages) {
			a.before[qi] = s.Messages[q.At].TS
		}
	}
	return a
}

// quoteKey is a text as quotes are matched: the "Speaker: " prefix
// stripped, spaces folded.
func quoteKey(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ": "); i > 0 && i <= 40 && !strings.ContainsAny(s[:i], ".!?\n") {
		s = s[i+2:]
	}
	return s
}

// agedRun holds one set's run.
type agedRun struct {
	set    *agedSet
	owners map[string][]string // memory id -> message ids
	quote  map[string]string   // message id -> quoteKey of its text
	// byScope lists each scope's message ids, to find what a summary quotes.
	byScope map[string][]string
}

// standsFor is the set's messages an answer's result stands for: the ones
// stored as it, or, for a summary, every message of the scope it quotes
// whole.
func (a *agedRun) standsFor(ans agedAnswer, scope string) [][]string {
	out := make([][]string, len(ans.IDs))
	for j, id := range ans.IDs {
		if !ans.Summary[j] {
			out[j] = a.owners[id]
			continue
		}
		body := strings.Join(strings.Fields(ans.Texts[j]), " ")
		for _, m := range a.byScope[scope] {
			if q := a.quote[m]; q != "" && strings.Contains(body, q) {
				out[j] = append(out[j], m)
			}
		}
	}
	return out
}

// agedScore is one pass over a set's questions.
type agedScore struct {
	setScore
	// viaSummary: recall owed to summaries alone, summed like r.
	viaSummary [4]float64
	// summaries among the top 5, and the top 5's results.
	summaries, results int
}

// askAll asks every question.
func (a *agedRun) askAll(ctx context.Context, r agedAsker) ([]agedAnswer, error) {
	s := a.set
	answers := make([]agedAnswer, len(s.Questions))
	for qi := range s.Questions {
		q := &s.Questions[qi]
		res, err := r.ask(ctx, q, a.set.before[qi], s.TopK)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", s.Name, q.ID, err)
		}
		answers[qi] = res
	}
	return answers, nil
}

// score scores the answers to every question.
func (a *agedRun) score(answers []agedAnswer) agedScore {
	s := a.set
	run := &setRun{set: s.benchSet, sessionOf: s.sessionOf(), answers: map[string][]answer{"": make([]answer, len(s.Questions))}}
	var sc agedScore
	for qi := range s.Questions {
		q := &s.Questions[qi]
		res := answers[qi]
		msgs := a.standsFor(res, q.Scope)
		run.answers[""][qi] = answer{msgs: msgs, conf: res.Confidences, nothing: res.NothingRelevant, asked: true}
		if q.Abstain {
			continue
		}
		// What the summaries alone add.
		plain := slices.Clone(msgs)
		for j := range plain {
			if res.Summary[j] {
				plain[j] = nil
			}
			if j < 5 {
				sc.results++
				if res.Summary[j] {
					sc.summaries++
				}
			}
		}
		for i, k := range recallKs {
			sc.viaSummary[i] += q.recallAtAliases(msgs, k, run.sessionOf) - q.recallAtAliases(plain, k, run.sessionOf)
		}
	}
	sc.setScore = scoreSet(run, run.answers[""], nil)
	return sc
}

// countingSummarizer counts the summaries each method made.
type countingSummarizer struct {
	summarize.Summarizer
	mu      sync.Mutex
	methods map[string]int
}

func (c *countingSummarizer) Summarize(ctx context.Context, msgs []summarize.Message) (summarize.Summary, error) {
	s, err := c.Summarizer.Summarize(ctx, msgs)
	if err == nil {
		c.mu.Lock()
		c.methods[strings.SplitN(s.Method, ":", 2)[0]]++
		c.mu.Unlock()
	}
	return s, err
}

// runAged runs every set of --sets through the aged protocol and prints
// the table.
func runAged(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("aged", flag.ContinueOnError)
	setList := fs.String("sets", "locomo,beam,realmem,everyday", "comma-separated sets (name or name=path): "+strings.Join(recallSetOrder, ", "))
	bin := fs.String("mcp", "", "drive this infmem binary over stdio (`BIN mcp`; the pass through optimize_memory) instead of the engine")
	fs.StringVar(&datasetsDir, "datasets", datasetsDir, "folder of the shared datasets")
	fs.StringVar(&benchModel, "embedding", benchModel, "embedding model (engine only): use-lite, hash or none")
	cache := fs.String("embed-cache", "default", "engine: file of embeddings by text hash kept between runs (\"default\": in the user cache folder; \"none\": off)")
	var cfg agedConfig
	def := config.Defaults()
	fs.IntVar(&cfg.keepFullDays, "keep-full-days", def.Retention.KeepFullDays, "retention.keep_full_days")
	fs.StringVar(&cfg.retention, "retention", def.Retention.Mode, "retention.mode: keep, moderate or aggressive")
	fs.IntVar(&cfg.maxItems, "max-items", 0, "max_memory_items (0: the default)")
	fs.IntVar(&cfg.maxMB, "max-mb", 0, "max_memory_size_mb (0: the default)")
	fs.IntVar(&cfg.ageDays, "age-days", 0, "how many days before now the newest message is dated (0: keep-full-days + 30)")
	fs.StringVar(&cfg.summarizer, "summarizer", def.Maintenance.Summarizer, "maintenance.summarizer: extractive, or ollama (needs --ollama-model and an Ollama that answers)")
	fs.StringVar(&cfg.ollamaURL, "ollama-url", summarize.DefaultOllamaURL, "maintenance.ollama_url")
	fs.StringVar(&cfg.ollamaModel, "ollama-model", "", "maintenance.ollama_model")
	verbose := fs.Bool("v", false, "print the questions whose nothing_relevant changed, and the summaries")
	changed := fs.Bool("changed", false, "print the questions whose R@10 changed with the pass, with both answers (confidence, summary, messages it stands for, text)")
	refresh := fs.Bool("refresh-before", false, "with --keep: ask the set without the pass again with this build (stored into a fresh root), rather than the answers saved when the kept root was made")
	sample := fs.Int("sample", 0, "keep only the first N scopes of each set (0: all), to measure a large set in less time")
	keep := fs.String("keep", "", "engine: keep each set's data root in this folder (DIR/SET) after the pass; a kept root is asked again without storing or a new pass")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.ageDays == 0 {
		cfg.ageDays = cfg.keepFullDays + 30
	}
	if cfg.summarizer == "ollama" {
		if err := ollamaAnswers(ctx, cfg.ollamaURL); err != nil {
			return fmt.Errorf("--summarizer ollama: no Ollama endpoint answers at %s (%v); the Ollama check runs only where one does", cfg.ollamaURL, err)
		}
		if cfg.ollamaModel == "" {
			return fmt.Errorf("--summarizer ollama needs --ollama-model")
		}
	}
	if *bin == "" {
		switch *cache {
		case "none", "":
		case "default":
			benchEmbedCache = defaultEmbedCache(benchModel)
		default:
			benchEmbedCache = *cache
		}
		defer closeCache()
	}
	tmp, err := os.MkdirTemp("", "infmem-aged")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	via := "the engine, maintenance.Env.All"
	if *bin != "" {
		via = *bin + " mcp: retrieve_memory (query, filter.scope, top_k), the pass through optimize_memory"
	}
	fmt.Printf("recall without and after the nightly pass (%s; aged %d days, keep_full_days %d, retention %s, summarizer %s)\n",
		via, cfg.ageDays, cfg.keepFullDays, cfg.retention, cfg.summarizer)
	fmt.Printf("%-9s %5s | %-19s | %-19s | %-13s | %-13s | %s\n", "set", "n", "R@5 without/after", "R@10 without/after", "ans→NR", "abstain→NR", "after: via summaries R@5, summaries in top 5")
	sets, err := loadSets(*setList, *sample)
	if err != nil {
		return err
	}
	for i, s := range sets {
		root := filepath.Join(tmp, fmt.Sprintf("root%d", i))
		now := time.Now()
		if *keep != "" && *bin == "" {
			root = filepath.Join(*keep, s.Name)
			// A kept root is asked again with the timestamps it was
			// stored with.
			st, err := readAgedState(root)
			switch {
			case err == nil:
				now = st.Now
			case !errors.Is(err, iofs.ErrNotExist):
				return err
			default:
				if _, err := os.Stat(root); err == nil {
					return fmt.Errorf("%s holds a run that did not finish: remove it", root)
				}
			}
		}
		set := age(s, now, cfg.ageDays)
		b, a, quotes, err := agedSetRun(ctx, set, cfg, *bin, root, *verbose, *changed, *refresh)
		if err != nil {
			return err
		}
		r10 := fmt.Sprintf("%5.1f / %5.1f %+5.1f", b.rk(3), a.rk(3), a.rk(3)-b.rk(3))
		if s.TopK < 10 {
			r10 = fmt.Sprintf("%-19s", "- (top_k "+fmt.Sprint(s.TopK)+")")
		}
		abst := "-"
		if b.abst > 0 {
			abst = fmt.Sprintf("%5.1f / %5.1f", share100(b.abstNR, b.abst), share100(a.abstNR, a.abst))
		}
		fmt.Printf("%-9s %5d | %5.1f / %5.1f %+5.1f | %s | %5.1f / %5.1f | %-13s | %+.1f, %.1f %%\n", s.Name, b.n,
			b.rk(2), a.rk(2), a.rk(2)-b.rk(2), r10, share100(b.ansNothing, b.n), share100(a.ansNothing, a.n), abst,
			100*a.viaSummary[2]/float64(max(a.n, 1)), share100(a.summaries, a.results))
		if quotes != "" {
			fmt.Printf("          %s\n", quotes)
		}
	}
	return nil
}

// agedSetRun stores one aged set in a fresh data root, asks, runs the
// pass, asks again, and measures its summaries.
func agedSetRun(ctx context.Context, set *agedSet, cfg agedConfig, bin, dir string, verbose, changed, refreshBefore bool) (before, after agedScore, quotes string, err error) {
	var st storer
	var r agedAsker
	var m agedMaintainer
	var stack *benchStack
	var counting *countingSummarizer
	if bin != "" {
		c, done, err := startMCPConfig(ctx, dir, bin, cfg.json())
		if err != nil {
			return before, after, "", err
		}
		defer done()
		st, r, m = mcpStorer{c}, agedMCP{c}, agedOptimize{c}
	} else {
		if stack, err = openBenchStack(ctx, dir); err != nil {
			return before, after, "", err
		}
		defer stack.close()
		for !stack.eng.Ready() {
			select {
			case <-ctx.Done():
				return before, after, "", ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
		c := config.Defaults()
		cfg.apply(&c)
		log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		// The summarizers the daemon chains (daemon/maintenance.go), less
		// MCP sampling (no client here).
		var sum summarize.Summarizer = summarize.NewExtractive(stack.embedder, summarize.ExtractiveOptions{Logger: log})
		if c.Maintenance.Summarizer == "ollama" {
			o := summarize.NewOllama(c.Maintenance.OllamaURL, c.Maintenance.OllamaModel, sum, nil)
			o.Logger = log
			sum = o
		}
		counting = &countingSummarizer{Summarizer: sum, methods: map[string]int{}}
		env := &maintenance.Env{Engine: stack.eng, Store: stack.store, Config: c, Log: log, Summarizer: counting,
			Pause: func(time.Duration) time.Duration { return 0 }}
		st, r, m = engineStorer{stack.eng}, agedEngine{stack.eng}, agedEnvMaintainer{env}
	}

	run := &agedRun{set: set, owners: map[string][]string{}, quote: map[string]string{}, byScope: map[string][]string{}}
	for _, msg := range set.Messages {
		run.quote[msg.ID] = quoteKey(msg.Content)
		run.byScope[msg.Scope] = append(run.byScope[msg.Scope], msg.ID)
	}
	// A kept data root (--keep) holds the set after the pass and what the
	// run saw before it: asking again skips storing and the pass.
	statePath := filepath.Join(dir, agedStateFile)
	state, err := readAgedState(dir)
	if err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return before, after, "", err
	}
	if err == nil && stack != nil {
		if len(state.Before) != len(set.Questions) || state.Shift != set.shift {
			return before, after, "", fmt.Errorf("%s holds another run (another set, or other --age-days): remove it", statePath)
		}
		run.owners = state.Owners
		fmt.Fprintf(os.Stderr, "%s: the stored set after the pass, from %s\n", set.Name, dir)
		if refreshBefore {
			// Ask the set without the pass again with this build: stored
			// the same way into a fresh root beside the kept one.
			fresh, err := os.MkdirTemp("", "infmem-aged-before")
			if err != nil {
				return before, after, "", err
			}
			defer os.RemoveAll(fresh)
			bs, err := openBenchStack(ctx, filepath.Join(fresh, "root"))
			if err != nil {
				return before, after, "", err
			}
			defer bs.close()
			for !bs.eng.Ready() {
				select {
				case <-ctx.Done():
					return before, after, "", ctx.Err()
				case <-time.After(100 * time.Millisecond):
				}
			}
			if err := run.storeAll(ctx, engineStorer{bs.eng}); err != nil {
				return before, after, "", err
			}
			if state.Before, err = run.askAll(ctx, agedEngine{bs.eng}); err != nil {
				return before, after, "", err
			}
			fmt.Fprintf(os.Stderr, "%s: asked again without the pass, in a fresh root\n", set.Name)
		}
	} else {
		start := time.Now()
		if err := run.storeAll(ctx, st); err != nil {
			return before, after, "", err
		}
		fmt.Fprintf(os.Stderr, "%s: stored %d messages in %v (moved back %.0f days)\n", set.Name, len(set.Messages), time.Since(start).Round(time.Second), math.Abs(set.shift.Hours()/24))
		start = time.Now()
		if state.Before, err = run.askAll(ctx, r); err != nil {
			return before, after, "", err
		}
		fmt.Fprintf(os.Stderr, "%s: asked %d questions in %v\n", set.Name, len(set.Questions), time.Since(start).Round(time.Second))
		start = time.Now()
		counts, warnings, err := m.maintain(ctx)
		if err != nil {
			return before, after, "", fmt.Errorf("%s: the nightly pass: %w", set.Name, err)
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(counts)) {
			if counts[k] != 0 && k != "compacted" && k != "stats_refreshed" {
				parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
			}
		}
		fmt.Fprintf(os.Stderr, "%s: nightly pass in %v: %s\n", set.Name, time.Since(start).Round(time.Second), strings.Join(parts, ", "))
		for _, w := range warnings {
			fmt.Fprintln(os.Stderr, "  warning:", w)
		}
		state.Owners, state.Shift, state.Now = run.owners, set.shift, set.now
		if counting != nil {
			state.Methods = counting.methods
		}
		raw, err := json.Marshal(&state)
		if err == nil {
			err = os.WriteFile(statePath, raw, 0o600)
		}
		if err != nil {
			return before, after, "", err
		}
	}
	afterAns, err := run.askAll(ctx, r)
	if err != nil {
		return before, after, "", err
	}
	before, after = run.score(state.Before), run.score(afterAns)
	if changed {
		// The questions whose R@10 changed, with both answers.
		so := set.sessionOf()
		for qi := range set.Questions {
			q := &set.Questions[qi]
			bm, am := run.standsFor(state.Before[qi], q.Scope), run.standsFor(afterAns[qi], q.Scope)
			rb, ra := q.recallAtAliases(bm, 10, so), q.recallAtAliases(am, 10, so)
			if rb == ra {
				continue
			}
			fmt.Printf("\nQ %q R@10 %.2f -> %.2f\n", q.Text, rb, ra)
			for j := range max(len(state.Before[qi].IDs), len(afterAns[qi].IDs)) {
				line := ""
				if j < len(state.Before[qi].IDs) {
					b := state.Before[qi]
					line = fmt.Sprintf("%.3f %v %v %.60q", b.Confidences[j], b.Summary[j], bm[j], b.Texts[j])
				}
				fmt.Printf("  B %s\n", line)
				if j < len(afterAns[qi].IDs) {
					a := afterAns[qi]
					fmt.Printf("  A %.3f %v %v %.60q\n", a.Confidences[j], a.Summary[j], am[j], a.Texts[j])
				}
			}
		}
	}
	if verbose {
		run.flips(state.Before, afterAns)
	}
	if stack != nil {
		quotes, err = run.quotes(ctx, stack.eng, state.Methods, verbose)
	}
	return before, after, quotes, err
}

// storeAll stores every message of the set with st, noting which memory
// holds which message.
func (a *agedRun) storeAll(ctx context.Context, st storer) error {
	for _, msg := range a.set.Messages {
		meta := map[string]any{"timestamp": msg.TS.UTC().Format(time.RFC3339Nano)}
		for k, v := range map[string]string{"scope": msg.Scope, "source": msg.Source, "conversation_id": msg.Conv, "speaker": msg.Speaker} {
			if v != "" {
				meta[k] = v
			}
		}
		id, err := st.store(ctx, msg.Content, meta)
		if err != nil {
			return fmt.Errorf("%s: store %s: %w", a.set.Name, msg.ID, err)
		}
		a.owners[id] = append(a.owners[id], msg.ID)
	}
	return nil
}

// agedState is what a kept data root (--keep) remembers of its run.
type agedState struct {
	// Now is the time the set was aged from; Shift how far it moved.
	Now     time.Time
	Shift   time.Duration
	Owners  map[string][]string
	Before  []agedAnswer
	Methods map[string]int
}

// agedStateFile is the file in a kept data root that holds its agedState.
const agedStateFile = "aged-state.json"

// readAgedState reads a kept data root's agedState.
func readAgedState(dir string) (agedState, error) {
	var st agedState
	raw, err := os.ReadFile(filepath.Join(dir, agedStateFile))
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("%s: %w", filepath.Join(dir, agedStateFile), err)
	}
	return st, nil
}

// ollamaAnswers checks that an Ollama endpoint answers at url.
func ollamaAnswers(ctx context.Context, url string) error {
	probe := summarize.NewOllama(url, "probe", nil, nil)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return probe.Ping(ctx)
}

// flips prints the questions whose nothing_relevant changed with the pass,
// with the best results before and after.
func (a *agedRun) flips(before, after []agedAnswer) {
	show := func(r agedAnswer) {
		for j := range min(3, len(r.IDs)) {
			kind := "turn"
			if r.Summary[j] {
				kind = "summary"
			}
			fmt.Printf("      %.3f %-7s %.110q\n", r.Confidences[j], kind, r.Texts[j])
		}
	}
	for i, q := range a.set.Questions {
		b, f := before[i], after[i]
		if b.NothingRelevant == f.NothingRelevant {
			continue
		}
		fmt.Printf("\n  %q (%s, abstain %v): nothing_relevant %v -> %v\n    before:\n", q.Text, q.Scope, q.Abstain, b.NothingRelevant, f.NothingRelevant)
		show(b)
		fmt.Printf("    after:\n")
		show(f)
	}
}

// quotes measures the summaries against the set's gold messages: of the
// gold messages whose conversation has a summary, the share it quotes
// whole, the share whose fact sentences (the extractive rule:
// summarize.FactSentences) it all keeps, and the share whose details
// (numbers, amounts, dates, times, names: internal/facts) it all states —
// the measure that also applies to a model's summary, which does not
// quote. Beside those, of every fact sentence of the summarized sessions
// (gold or not: RealMemBench names its gold by session), the share kept.
// It also counts summaries that repeat a speaker label.
func (a *agedRun) quotes(ctx context.Context, eng *memory.Engine, methods map[string]int, verbose bool) (string, error) {
	sums := map[string]string{} // conversation -> summary text
	doubled := 0
	for _, scope := range slices.Sorted(maps.Keys(a.byScope)) {
		for off := 0; ; {
			page, err := eng.List(ctx, memory.ListRequest{Scope: scope, Source: "summary", Limit: memory.MaxLimit, Offset: off})
			if err != nil {
				return "", err
			}
			for _, m := range page.Memories {
				if m.Scope == scope {
					sums[m.ConversationID] += m.Text + "\n"
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
	if len(sums) == 0 {
		return "no summaries", nil
	}
	byConv := map[string][]int{}
	for i, m := range a.set.Messages {
		byConv[m.Conv] = append(byConv[m.Conv], i)
	}
	gold := map[string]bool{}
	for _, q := range a.set.Questions {
		for g := range q.Gold {
			gold[g] = true
		}
	}
	var n, whole, factsKept, detailsKept, chars, sessChars, allFacts, allFactsKept int
	for conv, text := range sums {
		idx := byConv[conv]
		msgs := make([]summarize.Message, len(idx))
		for k, i := range idx {
			m := a.set.Messages[i]
			msgs[k] = summarize.Message{Text: m.Content, Speaker: m.Speaker, Timestamp: m.TS}
			sessChars += len([]rune(m.Content))
		}
		chars += len([]rune(text))
		folded := strings.Join(strings.Fields(text), " ")
		sumDetails := facts.Extract(text)
		factSents := summarize.FactSentences(msgs)
		for _, ss := range factSents {
			for _, x := range ss {
				allFacts++
				if strings.Contains(folded, strings.Join(strings.Fields(x), " ")) {
					allFactsKept++
				}
			}
		}
		for k, i := range idx {
			id := a.set.Messages[i].ID
			if !gold[id] {
				continue
			}
			n++
			if strings.Contains(folded, a.quote[id]) {
				whole++
			}
			all := true
			for _, s := range factSents[k] {
				all = all && strings.Contains(folded, strings.Join(strings.Fields(s), " "))
			}
			if all {
				factsKept++
			}
			if detailsIn(facts.Extract(a.quote[id]), sumDetails) {
				detailsKept++
			}
		}
		if verbose {
			fmt.Printf("\n--- %s\n%s", conv, text)
		}
	}
	var ms []string
	for _, k := range slices.Sorted(maps.Keys(methods)) {
		ms = append(ms, fmt.Sprintf("%s %d", k, methods[k]))
	}
	return fmt.Sprintf("%d summaries (%s), %.0f %% of their sessions' length; of %d fact sentences in the summarized sessions, %.1f %% kept; of %d gold messages in a summarized session, the summary quotes %.1f %% whole, keeps every fact sentence of %.1f %%, states every detail of %.1f %%; summaries repeating a speaker label: %d",
		len(sums), strings.Join(ms, ", "), 100*float64(chars)/float64(max(sessChars, 1)), allFacts, share100(allFactsKept, allFacts), n, share100(whole, n), share100(factsKept, n), share100(detailsKept, n), doubled), nil
}

// detailsIn reports whether every number, amount, date, time and name of
// d is among those of in.
func detailsIn(d, in facts.Details) bool {
	for _, k := range []facts.Kind{facts.Number, facts.Amount, facts.Date, facts.Time, facts.Name} {
		for _, v := range d.Of(k) {
			if !slices.Contains(in.Of(k), v) {
				return false
			}
		}
	}
	return true
}

var (
	// labelPair finds a speaker label followed by another.
	labelPair = regexp.MustCompile(`(?m)^(\pL[\pL\pN.'-]*(?: \pL[\pL\pN.'-]*){0,2}): (\pL[\pL\pN.'-]*(?: \pL[\pL\pN.'-]*){0,2}): `)
)

// hasDoubledLabel reports whether a line of s starts with the same
// speaker label twice ("Fahim Khan: Fahim Khan: I went…").
func hasDoubledLabel(s string) bool {
	for _, m := range labelPair.FindAllStringSubmatch(s, -1) {
		if strings.EqualFold(m[1], m[2]) {
			return true
		}
	}
	return false
}
