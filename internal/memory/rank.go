package memory

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/infmem/infmem/internal/textindex"
)

// Ranking modes.
const (
	ModeHybrid  = "hybrid"
	ModeKeyword = "keyword"
	ModeVector  = "vector"
)

// RankOptions tunes ranking. The defaults were chosen on the LoCoMo
// development split, each kept only where leave-one-conversation-out
// agreed (see BENCHMARKS.md and infmem-bench locomo).
type RankOptions struct {
	// KeywordWeight weighs keyword coverage: the share of the query's
	// keyword weight (BM25 of an average memory holding every query word)
	// a memory matches. VectorWeight weighs the cosine to the query.
	KeywordWeight, VectorWeight float64
	// NeighborShare adds this share of the best adjacent turn's score in
	// the same conversation: an answer often sits next to the turn that
	// matches the question.
	NeighborShare float64
	// SpeakerWeight is added when the query names who said the memory
	// ("What did Caroline paint?" and a turn of Caroline's).
	SpeakerWeight float64
	// TimeWeight is added when the query names a period ("in May 2023",
	// "last week") that the memory happened in or refers to.
	TimeWeight float64
	// DatedWeight is added for a memory that refers to a time ("yesterday",
	// "on May 4") when the query asks when something happened.
	DatedWeight float64
	// Candidates is how many keyword and how many vector hits are fused.
	Candidates int
	// RecencyWeight and ImportanceWeight are tie-breakers.
	RecencyWeight, ImportanceWeight float64
	// DuplicateOverlap collapses a result whose words overlap a better
	// one's this much (Jaccard of their keyword terms): the same fact
	// stored twice. Cosine alone cannot tell "the password is X" from "the
	// password is Y".
	DuplicateOverlap float64
	// MinConfidence is the relevance bar: results below it are returned
	// but marked weak, and a search whose results are all weak says that
	// nothing relevant is remembered.
	MinConfidence float64
}

func (o RankOptions) withDefaults() RankOptions {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.KeywordWeight, 1)
	def(&o.VectorWeight, 1)
	def(&o.NeighborShare, 0.8)
	def(&o.SpeakerWeight, 1.7)
	def(&o.TimeWeight, 0.5)
	def(&o.DatedWeight, 0.3)
	def(&o.RecencyWeight, 0.02)
	def(&o.ImportanceWeight, 0.02)
	def(&o.DuplicateOverlap, 0.8)
	def(&o.MinConfidence, 0.4)
	if o.Candidates == 0 {
		o.Candidates = 50
	}
	// Negative values switch a term off.
	for _, v := range []*float64{&o.KeywordWeight, &o.VectorWeight, &o.NeighborShare, &o.SpeakerWeight, &o.TimeWeight, &o.DatedWeight, &o.RecencyWeight, &o.ImportanceWeight} {
		if *v < 0 {
			*v = 0
		}
	}
	return o
}

// candidate is one memory being ranked.
type candidate struct {
	slot     uint32
	bm25     float64 // raw BM25
	cos      float64 // cosine to the query; 0 without vectors
	coverage float64 // share of the query's ideal BM25 matched
	// base is the memory's own score on what the query asks: keywords,
	// meaning and time; prior adds the speaker the query names.
	base, prior float64
	// score ranks: base and prior, the best neighbour's share of both,
	// and the tie-breakers.
	score float64
	// during: the memory falls in (or refers to) the period the query
	// names. nbCos and nbCover are the best neighbour's cosine and
	// coverage (its own for a memory that stands alone).
	during         bool
	nbCos, nbCover float64
}

// rank runs a hybrid (or keyword-only / vector-only) search over the items
// f admits and returns the best k, best first, with confidences that fall
// with rank; results under the relevance bar are marked weak.
func (e *Engine) rank(ctx context.Context, query string, loc *time.Location, f filter, k int, mode string) ([]hit, error) {
	ix := e.index()
	ro := e.opts.Rank
	if loc == nil {
		loc = e.opts.Location
	}
	q := readQuery(ix.text, query, e.opts.Now(), loc)
	useVec := mode != ModeKeyword && ix.vecs != nil && e.opts.Embedder != nil
	useKW := mode != ModeVector
	var qv []float32
	if useVec {
		v, err := e.queryVector(ctx, query)
		if err != nil {
			// Semantic recall is unavailable for now; keywords still work.
			e.log.Warn("cannot embed the query; keyword search only", "err", err)
			useVec = false
		} else {
			qv = v
		}
	}
	if !useVec && (!useKW || q.terms.Empty()) {
		return nil, nil
	}

	ix.mu.RLock()
	defer ix.mu.RUnlock()
	c := ix.compileLocked(f)
	allowed, n := ix.allowedLocked(&c)
	if n == 0 {
		return nil, nil
	}
	allow := func(slot textindex.DocID) bool { return int(slot) < len(ix.items) && c.match(&ix.items[slot]) }

	cands := map[uint32]*candidate{}
	add := func(slot uint32) *candidate {
		cd, ok := cands[slot]
		if !ok {
			cd = &candidate{slot: slot}
			cands[slot] = cd
		}
		return cd
	}
	if useKW && !q.terms.Empty() {
		for _, h := range ix.text.SearchQuery(q.terms, ro.Candidates, allow) {
			add(h.ID)
		}
	}
	// A caller that left (or a cancelled call) stops between the phases.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if useVec {
		for _, h := range ix.vectorSearchLocked(qv, allowed, ro.Candidates) {
			add(h.slot)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, nil
	}
	// Neighbours of the candidates join the pool: they get their own
	// scores and lend part of them to each other.
	if ro.NeighborShare > 0 {
		seeds := make([]uint32, 0, len(cands))
		for s := range cands {
			seeds = append(seeds, s)
		}
		for _, s := range seeds {
			for _, n := range ix.neighborsLocked(s, c.match) {
				add(n)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slots := make([]uint32, 0, len(cands))
	for s := range cands {
		slots = append(slots, s)
	}
	sort.Slice(slots, func(i, j int) bool { return slots[i] < slots[j] })
	ideal := 0.0
	if useKW && !q.terms.Empty() {
		for i, sc := range ix.text.ScoreQuery(q.terms, slots) {
			cands[slots[i]].bm25 = sc
		}
		ideal = ix.text.IdealScore(q.terms)
	}
	if useVec {
		for i, sc := range ix.vectorScoreLocked(qv, slots) {
			if !math.IsNaN(sc) {
				cands[slots[i]].cos = sc
			}
		}
	}
	speakers := speakerMatcher{ix: ix, q: &q}
	newest, oldest := int64(math.MinInt64), int64(math.MaxInt64)
	for _, cd := range cands {
		it := &ix.items[cd.slot]
		newest, oldest = max(newest, it.ts), min(oldest, it.ts)
		if ideal > 0 {
			cd.coverage = min(1, cd.bm25/ideal)
		}
		cd.base = ro.KeywordWeight*cd.coverage + ro.VectorWeight*cd.cos
		if speakers.named(it.speaker) {
			cd.prior = ro.SpeakerWeight
		}
		if q.hasPeriod && it.during(q.from, q.to) {
			cd.base += ro.TimeWeight
			cd.during = true
		}
		if q.when && it.refFrom != 0 {
			cd.base += ro.DatedWeight
		}
	}
	for _, cd := range cands {
		best := 0.0
		// Neighbours are the turns around it that this query may see: a
		// summary whose messages are archived stands alone.
		neighbors := ix.neighborsLocked(cd.slot, c.match)
		for _, n := range neighbors {
			if nc, ok := cands[n]; ok {
				best = max(best, nc.base+nc.prior)
				cd.nbCos, cd.nbCover = max(cd.nbCos, nc.cos), max(cd.nbCover, nc.coverage)
			}
		}
		if len(neighbors) == 0 {
			// A memory outside any conversation is its own context.
			best, cd.nbCos, cd.nbCover = cd.base+cd.prior, cd.cos, cd.coverage
		}
		it := &ix.items[cd.slot]
		recency := 0.0
		if newest > oldest {
			recency = float64(it.ts-oldest) / float64(newest-oldest)
		}
		cd.score = cd.base + cd.prior + ro.NeighborShare*best + ro.RecencyWeight*recency + ro.ImportanceWeight*float64(it.importance)
	}
	ordered := make([]*candidate, 0, len(cands))
	for _, cd := range cands {
		ordered = append(ordered, cd)
	}
	sort.Slice(ordered, func(i, j int) bool {
		a, b := ordered[i], ordered[j]
		if a.score != b.score {
			return a.score > b.score
		}
		return ix.items[a.slot].ts > ix.items[b.slot].ts
	})

	cal := calibrationFor(useKW, useVec)
	out := make([]hit, 0, k)
	var kept []uint32
	for _, cd := range ordered {
		if len(out) == k {
			break
		}
		if ix.nearDuplicateLocked(cd.slot, kept, ro.DuplicateOverlap) {
			continue
		}
		kept = append(kept, cd.slot)
		it := &ix.items[cd.slot]
		ev := &Evidence{Cosine: cd.cos, Coverage: cd.coverage, NeighborCosine: cd.nbCos, NeighborCoverage: cd.nbCover, During: cd.during, Score: cd.score}
		out = append(out, hit{id: it.id, kind: it.kind, score: cal.confidence(ev), ts: it.ts, ev: ev})
	}
	monotone(out)
	for i := range out {
		out[i].weak = out[i].score < ro.MinConfidence
	}
	return out, nil
}

// monotone makes confidences fall with rank where the ranking (with its
// speaker prior and weights) ordered them otherwise: each run of results that rises is
// replaced by its mean (isotonic regression by pooling adjacent
// violators), the closest non-increasing sequence to the estimates.
func monotone(hits []hit) {
	type block struct {
		sum float64
		n   int
	}
	var blocks []block
	for _, h := range hits {
		blocks = append(blocks, block{h.score, 1})
		for len(blocks) > 1 {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if a.sum/float64(a.n) >= b.sum/float64(b.n) {
				break
			}
			blocks = append(blocks[:len(blocks)-2], block{a.sum + b.sum, a.n + b.n})
		}
	}
	i := 0
	for _, b := range blocks {
		v := math.Round(b.sum/float64(b.n)*1000) / 1000
		for j := 0; j < b.n; j++ {
			hits[i].score = v
			i++
		}
	}
}

// Evidence is what a search result's rank and confidence rest on.
type Evidence struct {
	// Cosine is the query's cosine to the memory; Coverage the share of
	// the query's keyword weight it matches.
	Cosine, Coverage float64
	// NeighborCosine and NeighborCoverage are the best neighbouring
	// turn's (the memory's own when it stands alone).
	NeighborCosine, NeighborCoverage float64
	// During: the memory falls in, or refers to, the period the query names.
	During bool
	// Score is the ranking score.
	Score float64
}

// Features lists the evidence a mode's confidence is calibrated on, in
// the order of its calibration weights: how well the memory's content
// answers, without the speaker prior that helps rank it.
func (ev *Evidence) Features(useKW, useVec bool) []float64 {
	during := 0.0
	if ev.During {
		during = 1
	}
	switch {
	case useKW && useVec:
		return []float64{ev.Cosine, ev.Coverage, ev.NeighborCosine, ev.NeighborCoverage, during}
	case useVec:
		return []float64{ev.Cosine, ev.NeighborCosine, during}
	}
	return []float64{ev.Coverage, ev.NeighborCoverage, during}
}

// calibration turns evidence into a 0–1 relevance estimate,
// P(relevant) = 1 / (1 + exp(-(Bias + Weights·features))). Fitted per mode
// on the LoCoMo development split by `infmem-bench locomo --calibrate`
// (positives: a question's evidence turns among its results in its own
// conversation; negatives: the best matches for the same question in
// another conversation), so that a confidence of p means about p of such
// results are relevant. Results keep their rank order; monotone then
// evens out the few places where a lower-ranked result has the higher
// estimate.
type calibration struct {
	useKW, useVec bool
	Bias          float64
	Weights       []float64
}

func (c calibration) confidence(ev *Evidence) float64 {
	z := c.Bias
	for i, x := range ev.Features(c.useKW, c.useVec) {
		z += c.Weights[i] * x
	}
	p := 1 / (1 + math.Exp(-z))
	return math.Round(p*1000) / 1000
}

// Calibrations per ranking mode, from `infmem-bench locomo --calibrate`
// (features: cosine, coverage, neighbour cosine, neighbour coverage, time
// match; keyword and vector modes use their own subset).
var (
	calHybrid  = calibration{useKW: true, useVec: true, Bias: -8.317, Weights: []float64{5.814, 5.521, 8.647, 0.681, 3.151}}
	calKeyword = calibration{useKW: true, Bias: -3.757, Weights: []float64{6.145, 3.267, 3.300}}
	calVector  = calibration{useVec: true, Bias: -7.965, Weights: []float64{8.560, 8.271, 2.314}}
)

func calibrationFor(useKW, useVec bool) calibration {
	switch {
	case useKW && useVec:
		return calHybrid
	case useVec:
		return calVector
	}
	return calKeyword
}
