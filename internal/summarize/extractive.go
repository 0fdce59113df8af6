package summarize

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/infmem/infmem/internal/embed"
)

// ExtractiveOptions tune an Extractive summarizer. The zero value is usable.
type ExtractiveOptions struct {
	// MaxChars bounds the summary's length in characters, header included,
	// except that sentences with a fact (a date, number, name, decision or
	// link) may take it up to FactChars; 0 means DefaultMaxChars.
	MaxChars int
	// FactChars bounds the length the fact sentences may bring the summary
	// to; 0 means no bound: every fact sentence of the conversation is
	// kept, however long that makes the summary (issue 25: a session of
	// long, detailed turns keeps all its details). Other sentences only
	// fill what is left of MaxChars. A value below MaxChars means MaxChars.
	FactChars int
	// NoHeader leaves out the first line giving the conversation's dates
	// and speakers.
	NoHeader bool
	// Location is the time zone of the header's dates; nil means UTC.
	Location *time.Location
	// Logger hears when the embedder fails and lexical centrality is used
	// instead; nil means slog.Default().
	Logger *slog.Logger
}

// Extractive summarizes offline by keeping whole sentences of the
// conversation, so it cannot state anything the conversation did not. It
// keeps every sentence with a date, number, name, decision or link (the
// most central first when a FactChars bound is given and they overflow
// it), fills the remaining room
// with the most central other sentences, and drops acknowledgements.
// Centrality is the cosine of a sentence's embedding to the mean embedding,
// or a TF-IDF equivalent without an embedder. The result is deterministic.
type Extractive struct {
	emb  embed.Embedder
	opts ExtractiveOptions
}

// NewExtractive returns an extractive summarizer. e may be nil
// (embedding.model=none): centrality is then lexical.
func NewExtractive(e embed.Embedder, opts ExtractiveOptions) *Extractive {
	if opts.MaxChars <= 0 {
		opts.MaxChars = DefaultMaxChars
	}
	switch {
	case opts.FactChars == 0:
		opts.FactChars = math.MaxInt
	case opts.FactChars < opts.MaxChars:
		opts.FactChars = opts.MaxChars
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Extractive{emb: e, opts: opts}
}

// Name implements Summarizer.
func (x *Extractive) Name() string { return "extractive" }

// MethodExtractive is the Method of extractive summaries.
const MethodExtractive = "extractive"

// sentence is one sentence of the conversation and what selection knows
// about it.
type sentence struct {
	text  string
	msg   int // index of its message
	first bool
	toks  []token
	feat  features
	runes int
	// ack marks an acknowledgement, dup a repeat of an earlier sentence;
	// either is never kept on its own.
	ack, dup bool
	// answers are acknowledgements answering this question ("Should we
	// book the 9am flight?" – "Yes."): kept with it, since they carry the
	// decision.
	answers []int
	score   float64
}

func (s *sentence) candidate() bool { return !s.ack && !s.dup }

// Summarize implements Summarizer.
func (x *Extractive) Summarize(ctx context.Context, msgs []Message) (Summary, error) {
	if len(msgs) == 0 {
		return Summary{}, ErrEmpty
	}
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	sents := analyse(msgs)
	if err := x.score(ctx, sents); err != nil {
		return Summary{}, err
	}
	hdr := ""
	if !x.opts.NoHeader {
		hdr = header(msgs, x.opts.Location)
	}
	budget, factBudget := x.opts.MaxChars, x.opts.FactChars
	if hdr != "" {
		if n := utf8.RuneCountInString(hdr); n+1 <= budget {
			budget -= n + 1
			factBudget -= n + 1
		} else {
			hdr = ""
		}
	}
	p := newPlan(sents, msgs, budget)
	p.factBudget = factBudget
	p.choose()
	text, kept := p.render()
	switch {
	case hdr != "" && text != "":
		text = hdr + "\n" + text
	case hdr != "":
		text = hdr
	}
	return Summary{Text: text, Method: MethodExtractive, Kept: kept}, nil
}

// analyse splits msgs into sentences and detects their features,
// acknowledgements, repeats and answered questions.
func analyse(msgs []Message) []sentence {
	var sents []sentence
	for mi, m := range msgs {
		for k, s := range splitSentences(m.body()) {
			sents = append(sents, sentence{text: s, msg: mi, first: k == 0, toks: words(s), runes: utf8.RuneCountInString(s)})
		}
	}
	all := make([][]token, len(sents))
	for i := range sents {
		all[i] = sents[i].toks
	}
	c := newCorpus(all)
	c.speakers = map[string]bool{}
	for _, m := range msgs {
		for _, w := range strings.Fields(strings.ToLower(m.Speaker)) {
			c.speakers[w] = true
		}
	}
	seen := map[string]bool{}
	for i := range sents {
		s := &sents[i]
		if isAck(s.toks) {
			s.ack = true
			continue
		}
		s.feat = detect(s.text, s.toks, c)
		key := dedupKey(s.toks)
		if seen[key] {
			s.dup = true
			continue
		}
		seen[key] = true
	}
	for i := 1; i < len(sents); i++ {
		a, q := &sents[i], &sents[i-1]
		if a.ack && a.first && isAnswer(a.toks) && q.candidate() && isQuestion(q.text) &&
			strings.TrimSpace(msgs[a.msg].Speaker) != strings.TrimSpace(msgs[q.msg].Speaker) {
			q.answers = append(q.answers, i)
		}
	}
	return sents
}

func dedupKey(toks []token) string {
	ws := make([]string, len(toks))
	for i, t := range toks {
		ws[i] = t.lower
	}
	return strings.Join(ws, " ")
}

func isQuestion(s string) bool {
	return strings.HasSuffix(strings.TrimRightFunc(s, isCloser), "?")
}

// embedBatchSize bounds one EmbedBatch call, so a long conversation does
// not hold all its activations at once.
const embedBatchSize = 64

// score sets the centrality of every candidate sentence.
func (x *Extractive) score(ctx context.Context, sents []sentence) error {
	var idx []int
	for i := range sents {
		if sents[i].candidate() {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	if x.emb != nil {
		texts := make([]string, len(idx))
		for k, i := range idx {
			texts[k] = sents[i].text
		}
		vecs, err := embedAll(ctx, x.emb, texts)
		if err == nil {
			for k, s := range cosToMean(vecs) {
				sents[idx[k]].score = s
			}
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("summarize: embedding sentences: %w", err)
		}
		x.opts.Logger.Warn("embedding sentences for a summary failed; using lexical centrality", "model", x.emb.ModelID(), "err", err)
	}
	toks := make([][]token, len(idx))
	for k, i := range idx {
		toks[k] = sents[i].toks
	}
	for k, s := range lexicalCentrality(toks) {
		sents[idx[k]].score = s
	}
	return nil
}

func embedAll(ctx context.Context, e embed.Embedder, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += embedBatchSize {
		vecs, err := e.EmbedBatch(ctx, texts[lo:min(lo+embedBatchSize, len(texts))])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	if len(out) != len(texts) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(out), len(texts))
	}
	return out, nil
}

// cosToMean returns the cosine of each vector to the vectors' mean.
func cosToMean(vecs [][]float32) []float64 {
	var mean []float64
	for _, v := range vecs {
		if mean == nil {
			mean = make([]float64, len(v))
		}
		for j := range min(len(v), len(mean)) {
			mean[j] += float64(v[j])
		}
	}
	var mn float64
	for _, m := range mean {
		mn += m * m
	}
	mn = math.Sqrt(mn)
	out := make([]float64, len(vecs))
	for i, v := range vecs {
		var dot, vn float64
		for j := range min(len(v), len(mean)) {
			dot += float64(v[j]) * mean[j]
			vn += float64(v[j]) * float64(v[j])
		}
		if vn > 0 && mn > 0 {
			out[i] = dot / (math.Sqrt(vn) * mn)
		}
	}
	return out
}

// plan is the set of kept sentences and the exact length of their
// rendering: consecutive sentences of one message share a line, and each
// line starts with "Speaker: " when the conversation has several speakers.
type plan struct {
	sents  []sentence
	prefix []int // per message: runes of its line prefix
	kept   []int // sorted sentence indexes
	used   int   // runes of the rendered body
	budget int
	// factBudget bounds used while fact sentences are kept; budget, while
	// the others are.
	factBudget int
	labels     []string
}

func newPlan(sents []sentence, msgs []Message, budget int) *plan {
	p := &plan{sents: sents, budget: budget, prefix: make([]int, len(msgs)), labels: make([]string, len(msgs))}
	speakers := map[string]bool{}
	for _, m := range msgs {
		speakers[strings.TrimSpace(m.Speaker)] = true
	}
	if len(speakers) > 1 {
		for i, m := range msgs {
			p.labels[i] = speakerLabel(m.Speaker) + ": "
			p.prefix[i] = utf8.RuneCountInString(p.labels[i])
		}
	}
	return p
}

// join is the cost of what separates kept sentence a from the next kept
// sentence b: a space within a message, else a newline and b's prefix.
func (p *plan) join(a, b int) int {
	if p.sents[a].msg == p.sents[b].msg {
		return 1
	}
	return 1 + p.prefix[p.sents[b].msg]
}

// add keeps sentence i and returns how many runes that added.
func (p *plan) add(i int) int {
	k, _ := slices.BinarySearch(p.kept, i)
	prev, next := -1, -1
	if k > 0 {
		prev = p.kept[k-1]
	}
	if k < len(p.kept) {
		next = p.kept[k]
	}
	d := p.sents[i].runes
	if prev >= 0 {
		d += p.join(prev, i)
	} else {
		d += p.prefix[p.sents[i].msg]
	}
	if next >= 0 {
		d += p.join(i, next)
		if prev >= 0 {
			d -= p.join(prev, next)
		} else {
			d -= p.prefix[p.sents[next].msg]
		}
	}
	p.kept = slices.Insert(p.kept, k, i)
	p.used += d
	return d
}

func (p *plan) remove(i int, d int) {
	k, _ := slices.BinarySearch(p.kept, i)
	p.kept = slices.Delete(p.kept, k, k+1)
	p.used -= d
}

// tryKeep keeps sentence i with the answers to it if they all fit in
// budget.
func (p *plan) tryKeep(i, budget int) {
	unit := append([]int{i}, p.sents[i].answers...)
	var deltas []int
	for _, j := range unit {
		deltas = append(deltas, p.add(j))
	}
	if p.used <= budget {
		return
	}
	for k := len(unit) - 1; k >= 0; k-- {
		p.remove(unit[k], deltas[k])
	}
}

// choose keeps the fact sentences, most central first, up to the fact
// budget, then fills the room left of the budget with the most central
// other sentences. Sentences that do not
// fit are skipped, never cut: a cut sentence can lose a "not".
func (p *plan) choose() {
	var facts, others []int
	for i := range p.sents {
		switch s := &p.sents[i]; {
		case !s.candidate():
		case s.feat.must():
			facts = append(facts, i)
		default:
			others = append(others, i)
		}
	}
	byScore := func(a, b int) int {
		if c := cmp.Compare(p.sents[b].score, p.sents[a].score); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	slices.SortStableFunc(facts, byScore)
	slices.SortStableFunc(others, byScore)
	for _, i := range facts {
		p.tryKeep(i, max(p.factBudget, p.budget))
	}
	for _, i := range others {
		p.tryKeep(i, p.budget)
	}
}

// render writes the kept sentences in conversation order and lists their
// messages.
func (p *plan) render() (string, []int) {
	var b strings.Builder
	var msgs []int
	for k, i := range p.kept {
		s := &p.sents[i]
		if k > 0 && p.sents[p.kept[k-1]].msg == s.msg {
			b.WriteByte(' ')
		} else {
			if k > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.labels[s.msg])
			msgs = append(msgs, s.msg)
		}
		b.WriteString(s.text)
	}
	return b.String(), msgs
}

// FactSentences lists, per message, the sentences of msgs that state a
// fact (a date, number, name, decision or link): those an extractive
// summary keeps first, acknowledgements and repeats aside. Benchmarks
// use it to measure how many of them a summary keeps.
func FactSentences(msgs []Message) [][]string {
	out := make([][]string, len(msgs))
	for _, s := range analyse(msgs) {
		if s.candidate() && s.feat.must() {
			out[s.msg] = append(out[s.msg], s.text)
		}
	}
	return out
}
