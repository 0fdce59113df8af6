package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/infmem/infmem/internal/memory"
)

// The LoCoMo development split's format (see its README).
type locomoSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []locomoQA                 `json:"qa"`
}

type locomoQA struct {
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
}

type locomoTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
}

// locomoMemory is one turn as the protocol stores it.
type locomoMemory struct {
	scope, conv, speaker, diaID, content string
	ts                                   time.Time
}

// locomoQuestion is one question the protocol asks: categories 1–4 with
// usable evidence.
type locomoQuestion struct {
	conv     int // index of its conversation
	scope    string
	text     string
	category int
	evidence map[string]bool
}

var diaIDRe = regexp.MustCompile(`^D\d+:\d+$`)

// locomoData is the dataset flattened into what is stored and asked.
type locomoData struct {
	scopes    []string
	memories  []locomoMemory
	questions []locomoQuestion
}

func readLocomo(path string) (*locomoData, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var samples []locomoSample
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	d := &locomoData{}
	for si, s := range samples {
		d.scopes = append(d.scopes, s.SampleID)
		for n := 1; ; n++ {
			key := fmt.Sprintf("session_%d", n)
			body, ok := s.Conversation[key]
			if !ok {
				break
			}
			var when string
			json.Unmarshal(s.Conversation[key+"_date_time"], &when)
			ts, err := time.Parse("3:04 pm on 2 January, 2006", when)
			if err != nil {
				return nil, fmt.Errorf("%s %s: date %q: %w", s.SampleID, key, when, err)
			}
			var list []locomoTurn
			if err := json.Unmarshal(body, &list); err != nil {
				return nil, fmt.Errorf("%s %s: %w", s.SampleID, key, err)
			}
			for _, t := range list {
				d.memories = append(d.memories, locomoMemory{scope: s.SampleID, conv: s.SampleID + "/" + key, speaker: t.Speaker,
					diaID: t.DiaID, content: t.Speaker + ": " + t.Text, ts: ts})
			}
		}
		for _, qa := range s.QA {
			if qa.Category == 5 {
				continue
			}
			if ev := evidenceSet(qa.Evidence); len(ev) > 0 {
				d.questions = append(d.questions, locomoQuestion{conv: si, scope: s.SampleID, text: qa.Question, category: qa.Category, evidence: ev})
			}
		}
	}
	return d, nil
}

func evidenceSet(ids []string) map[string]bool {
	evidence := map[string]bool{}
	for _, e := range ids {
		for _, part := range strings.Split(e, ";") {
			if part = strings.TrimSpace(part); diaIDRe.MatchString(part) {
				evidence[part] = true
			}
		}
	}
	return evidence
}

// retrieved is one search's answer as the benchmark reads it.
type retrieved struct {
	ids []string // memory ids, best first
	// context are the ids of the turns each result shows as its context
	context         [][]string
	confidences     []float64
	nothingRelevant bool
	// nothingBy: the step that made nothingRelevant (engine only)
	nothingBy string
	// evidence of each result (engine only), for calibration
	evidence []*memory.Evidence
}

// shown is what result i shows: its own memory, then the turns it shows
// as its context. Recall counts all of them as retrieved at position i
// (locomo and recall alike).
func (r retrieved) shown(i int) []string {
	out := []string{r.ids[i]}
	if i < len(r.context) {
		out = append(out, r.context[i]...)
	}
	return out
}

// retriever asks for the top k memories of scope for a question.
type retriever interface {
	retrieve(ctx context.Context, scope, question string, k int) (retrieved, error)
}

// engineRetriever searches the memory engine directly, as the MCP tools do.
type engineRetriever struct {
	eng  *memory.Engine
	mode string
}

func (r engineRetriever) retrieve(ctx context.Context, scope, question string, k int) (retrieved, error) {
	res, err := r.eng.Search(ctx, memory.SearchRequest{Query: question, Scope: scope, ExactScope: true, Limit: k, Mode: r.mode})
	if err != nil {
		return retrieved{}, fmt.Errorf("%s %q: %w", r.mode, question, err)
	}
	out := retrieved{nothingRelevant: res.NothingRelevant, nothingBy: res.NothingBy}
	for _, m := range res.Results {
		out.ids = append(out.ids, m.ID)
		out.confidences = append(out.confidences, m.Confidence)
		out.evidence = append(out.evidence, m.Evidence)
		var turns []string
		for _, t := range m.Context {
			turns = append(turns, t.ID)
		}
		out.context = append(out.context, turns)
	}
	return out, nil
}

// runLocomo follows the dataset README's turn-level protocol: every turn
// stored as "Speaker: text" with its session's date, one scope per
// conversation; every question of categories 1–4 retrieved within its
// scope; Recall@k averaged. With --mcp the turns are stored and the
// questions asked through the real binary's `infmem mcp` with default
// settings, as Claude would; otherwise through the memory engine.
func runLocomo(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("locomo", flag.ContinueOnError)
	dir := fs.String("data-dir", "", "data root to load into (default: a temporary one)")
	modes := fs.String("modes", "hybrid", "comma-separated ranking modes to report (engine only): keyword, vector, hybrid")
	fs.StringVar(&benchModel, "embedding", benchModel, "embedding model (engine only): use-lite, hash or none")
	bin := fs.String("mcp", "", "instead of the engine, drive this infmem binary over stdio (`infmem mcp`, default settings)")
	minimal := fs.Bool("minimal", false, "store only content, scope and timestamp (no source, conversation_id or speaker), as a plain client might")
	calibrate := fs.Bool("calibrate", false, "fit each mode's confidence calibration and print it (engine only)")
	crossValidate := fs.Bool("cross-validate", false, "leave one conversation out over the ranking grid (engine only; see --grid)")
	fs.StringVar(&gridSpec, "grid", gridSpec, "ranking grid for --cross-validate: semicolon-separated name=v1,v2 lists over kw, vw, ns, spk, time, dated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: infmem-bench locomo [flags] FILE")
	}
	data, err := readLocomo(fs.Arg(0))
	if err != nil {
		return err
	}
	if *dir == "" {
		tmp, err := os.MkdirTemp("", "infmem-locomo")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		*dir = filepath.Join(tmp, "root")
	}
	var st storer
	var eng *memory.Engine
	var mcpr mcpRetriever
	if *bin != "" {
		c, done, err := startMCP(ctx, *dir, *bin)
		if err != nil {
			return err
		}
		defer done()
		st, mcpr = mcpStorer{c}, mcpRetriever{c}
	} else {
		var done func()
		if eng, done, err = openBenchEngine(ctx, *dir); err != nil {
			return err
		}
		defer done()
		st = engineStorer{eng}
	}

	start := time.Now()
	owners := map[string]string{} // memory id -> dia id
	for _, m := range data.memories {
		meta := map[string]any{"scope": m.scope, "timestamp": m.ts.UTC().Format(time.RFC3339)}
		if !*minimal {
			meta["source"], meta["conversation_id"], meta["speaker"] = "conversation", m.conv, m.speaker
		}
		id, err := st.store(ctx, m.content, meta)
		if err != nil {
			return fmt.Errorf("store %s %s: %w", m.scope, m.diaID, err)
		}
		owners[id] = m.diaID
	}
	fields := "content, scope, timestamp, source, conversation_id, speaker"
	if *minimal {
		fields = "content, scope, timestamp"
	}
	via := "the engine"
	if *bin != "" {
		via = "infmem mcp"
	}
	fmt.Printf("stored %d turns of %d conversations through %s (%s) in %v\n", len(data.memories), len(data.scopes), via, fields, time.Since(start).Round(time.Millisecond))

	if *bin != "" {
		run, err := locomoRecall(ctx, mcpr, data, owners)
		if err != nil {
			return err
		}
		fmt.Printf("\nthrough infmem mcp, retrieve_memory with filter.scope and top_k 10:\n")
		run.print(data)
		return locomoNegatives(ctx, mcpr, data, run)
	}
	if *crossValidate {
		return locomoCrossValidate(ctx, eng, data, owners)
	}
	for _, mode := range strings.Split(*modes, ",") {
		mode = strings.TrimSpace(mode)
		r := engineRetriever{eng: eng, mode: mode}
		rec, err := locomoRecall(ctx, r, data, owners)
		if err != nil {
			return err
		}
		fmt.Printf("\nengine, mode %s:\n", mode)
		rec.print(data)
		if err := locomoNegatives(ctx, r, data, rec); err != nil {
			return err
		}
		if *calibrate {
			if err := locomoCalibrate(ctx, r, data, owners); err != nil {
				return err
			}
		}
	}
	return nil
}

// locomoKs are the k of the reported Recall@k.
var locomoKs = [3]int{1, 5, 10}

// recallRun holds one pass over the questions.
type recallRun struct {
	perQuestion [][3]float64
	// ownNothing counts questions whose own-scope answer said nothing
	// relevant; perQuestionTime is the mean time per question.
	ownNothing      int
	perQuestionTime time.Duration
}

// locomoRecall retrieves the top 10 for every question within its
// conversation's scope.
func locomoRecall(ctx context.Context, r retriever, data *locomoData, owners map[string]string) (recallRun, error) {
	run := recallRun{perQuestion: make([][3]float64, len(data.questions))}
	start := time.Now()
	for qi, q := range data.questions {
		res, err := r.retrieve(ctx, q.scope, q.text, 10)
		if err != nil {
			return run, err
		}
		if res.nothingRelevant {
			run.ownNothing++
		}
		for i, k := range locomoKs {
			hit := map[string]bool{}
			for j := range res.ids {
				if j >= k {
					break
				}
				for _, id := range res.shown(j) {
					if d := owners[id]; q.evidence[d] {
						hit[d] = true
					}
				}
			}
			run.perQuestion[qi][i] = float64(len(hit)) / float64(len(q.evidence))
		}
	}
	run.perQuestionTime = time.Since(start) / time.Duration(max(len(data.questions), 1))
	return run, nil
}

var categoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

type recallSum struct {
	n   int
	sum [3]float64
}

func (s *recallSum) add(r [3]float64) {
	s.n++
	for i := range r {
		s.sum[i] += r[i]
	}
}

func (s recallSum) row(name string) string {
	n := float64(max(s.n, 1))
	return fmt.Sprintf("  %-14s %5d %6.1f%% %6.1f%% %6.1f%%", name, s.n, 100*s.sum[0]/n, 100*s.sum[1]/n, 100*s.sum[2]/n)
}

// print reports Recall@k by category and overall.
func (run recallRun) print(data *locomoData) {
	byCat := map[int]*recallSum{}
	var total recallSum
	for qi, q := range data.questions {
		if byCat[q.category] == nil {
			byCat[q.category] = &recallSum{}
		}
		byCat[q.category].add(run.perQuestion[qi])
		total.add(run.perQuestion[qi])
	}
	if run.perQuestionTime > 0 {
		fmt.Printf("  %d questions, %v per question\n", total.n, run.perQuestionTime.Round(time.Microsecond))
	}
	fmt.Printf("  %-14s %5s %7s %7s %7s\n", "category", "n", "R@1", "R@5", "R@10")
	cats := make([]int, 0, len(byCat))
	for c := range byCat {
		cats = append(cats, c)
	}
	sort.Ints(cats)
	for _, c := range cats {
		fmt.Println(byCat[c].row(strconv.Itoa(c) + " " + categoryNames[c]))
	}
	fmt.Println(total.row("overall"))
}

// locomoNegatives asks every question of the scope of the next
// conversation, where its answer is not, and reports how often the
// response says nothing relevant, beside how often it says so in the
// question's own conversation.
func locomoNegatives(ctx context.Context, r retriever, data *locomoData, own recallRun) error {
	nothing := 0
	for _, q := range data.questions {
		other := data.scopes[(q.conv+1)%len(data.scopes)]
		res, err := r.retrieve(ctx, other, q.text, 10)
		if err != nil {
			return err
		}
		if res.nothingRelevant {
			nothing++
		}
	}
	n := float64(max(len(data.questions), 1))
	fmt.Printf("  nothing_relevant: %.1f%% of questions asked in another conversation's scope, %.1f%% in their own\n",
		100*float64(nothing)/n, 100*float64(own.ownNothing)/n)
	return nil
}
