package memory

import (
	"context"
	"math"
	"sort"

	"github.com/infmem/infmem/internal/textindex"
)

// Ranking modes.
const (
	ModeHybrid  = "hybrid"
	ModeKeyword = "keyword"
	ModeVector  = "vector"
)

// RankOptions tunes hybrid ranking. The defaults were chosen on the
// LoCoMo development split (see BENCHMARKS.md and infmem-bench locomo).
type RankOptions struct {
	// KeywordWeight and VectorWeight weigh max-normalised BM25 and cosine.
	KeywordWeight, VectorWeight float64
	// NeighborShare adds this share of the best adjacent turn's score in
	// the same conversation: an answer often sits next to the turn that
	// matches the question.
	NeighborShare float64
	// Candidates is how many keyword and how many vector hits are fused.
	Candidates int
	// RecencyWeight and ImportanceWeight are tie-breakers.
	RecencyWeight, ImportanceWeight float64
	// DuplicateOverlap collapses a result whose words overlap a better
	// one's this much (Jaccard of their keyword terms): the same fact
	// stored twice. Cosine alone cannot tell "the password is X" from "the
	// password is Y".
	DuplicateOverlap float64
	// MinConfidence is the relevance bar: results below it are dropped.
	MinConfidence float64
}

func (o RankOptions) withDefaults() RankOptions {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.KeywordWeight, 1)
	def(&o.VectorWeight, 1.25)
	def(&o.NeighborShare, 0.6)
	def(&o.RecencyWeight, 0.02)
	def(&o.ImportanceWeight, 0.02)
	def(&o.DuplicateOverlap, 0.8)
	def(&o.MinConfidence, 0.4)
	if o.Candidates == 0 {
		o.Candidates = 50
	}
	// Negative values switch a term off.
	for _, v := range []*float64{&o.KeywordWeight, &o.VectorWeight, &o.NeighborShare, &o.RecencyWeight, &o.ImportanceWeight} {
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
	hasCos   bool
	base     float64
	score    float64
	coverage float64 // share of the query's ideal BM25 matched
	// nbCos and nbCover are the best neighbour's cosine and coverage.
	nbCos, nbCover float64
}

// rank runs a hybrid (or keyword-only / vector-only) search over the items
// f admits and returns the best k, scored, with calibrated confidences.
func (e *Engine) rank(ctx context.Context, query string, f filter, k int, mode string, keepWeak bool) ([]hit, error) {
	ix := e.index()
	ro := e.opts.Rank
	q := ix.text.Analyze(query)
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
	if !useVec && (!useKW || q.Empty()) {
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
	if useKW && !q.Empty() {
		for _, h := range ix.text.SearchQuery(q, ro.Candidates, allow) {
			add(h.ID).bm25 = h.Score
		}
	}
	if useVec {
		for _, h := range ix.vectorSearchLocked(qv, allowed, ro.Candidates) {
			cd := add(h.slot)
			cd.cos, cd.hasCos = h.score, true
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	// Neighbours of the best candidates join the pool: they get their own
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
	slots := make([]uint32, 0, len(cands))
	for s := range cands {
		slots = append(slots, s)
	}
	sort.Slice(slots, func(i, j int) bool { return slots[i] < slots[j] })
	if useKW && !q.Empty() {
		for i, sc := range ix.text.ScoreQuery(q, slots) {
			cands[slots[i]].bm25 = sc
		}
	}
	if useVec {
		for i, sc := range ix.vectorScoreLocked(qv, slots) {
			if !math.IsNaN(sc) {
				cands[slots[i]].cos, cands[slots[i]].hasCos = sc, true
			}
		}
	}
	maxBM := 0.0
	for _, cd := range cands {
		maxBM = max(maxBM, cd.bm25)
	}
	ideal := 0.0
	if useKW {
		ideal = ix.text.IdealScore(q)
	}
	newest, oldest := int64(math.MinInt64), int64(math.MaxInt64)
	for _, cd := range cands {
		ts := ix.items[cd.slot].ts
		newest, oldest = max(newest, ts), min(oldest, ts)
	}
	for _, cd := range cands {
		if maxBM > 0 && useKW {
			cd.base += ro.KeywordWeight * cd.bm25 / maxBM
		}
		if useVec {
			cd.base += ro.VectorWeight * cd.cos
		}
		if ideal > 0 {
			cd.coverage = min(1, cd.bm25/ideal)
		}
	}
	for _, cd := range cands {
		best := 0.0
		// Neighbours are the turns around it that this query may see: a
		// summary whose messages are archived stands alone.
		neighbors := ix.neighborsLocked(cd.slot, c.match)
		for _, n := range neighbors {
			if nc, ok := cands[n]; ok {
				best = max(best, nc.base)
				cd.nbCos, cd.nbCover = max(cd.nbCos, nc.cos), max(cd.nbCover, nc.coverage)
			}
		}
		if len(neighbors) == 0 {
			// A memory outside any conversation (a note) is its own context.
			best, cd.nbCos, cd.nbCover = cd.base, cd.cos, cd.coverage
		}
		it := &ix.items[cd.slot]
		recency := 0.0
		if newest > oldest {
			recency = float64(it.ts-oldest) / float64(newest-oldest)
		}
		cd.score = cd.base + ro.NeighborShare*best + ro.RecencyWeight*recency + ro.ImportanceWeight*float64(it.importance)
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

	out := make([]hit, 0, k)
	var kept []uint32
	for _, cd := range ordered {
		if len(out) == k {
			break
		}
		conf := confidence(cd, useKW, useVec)
		if !keepWeak && conf < ro.MinConfidence {
			continue
		}
		if ix.nearDuplicateLocked(cd.slot, kept, ro.DuplicateOverlap) {
			continue
		}
		kept = append(kept, cd.slot)
		it := &ix.items[cd.slot]
		out = append(out, hit{id: it.id, kind: it.kind, score: conf, ts: it.ts,
			ev: &Evidence{Cosine: cd.cos, Coverage: cd.coverage, NeighborCosine: cd.nbCos, NeighborCoverage: cd.nbCover, Score: cd.score}})
	}
	return out, nil
}

// Evidence is what a search result's rank and confidence rest on.
type Evidence struct {
	Cosine           float64
	Coverage         float64
	NeighborCosine   float64
	NeighborCoverage float64
	Score            float64
}

// confidence turns a candidate's evidence into a 0–1 relevance estimate:
// a logistic function of its cosine to the query and the share of the
// query's keyword weight it matches, fitted on the LoCoMo development
// split (infmem-bench locomo -calibrate) so that a confidence of p means
// about p of such results are relevant.
func confidence(cd *candidate, useKW, useVec bool) float64 {
	var z float64
	switch {
	case useKW && useVec:
		z = calib.bias + calib.cos*cd.cos + calib.cover*cd.coverage + calib.nbCos*cd.nbCos + calib.nbCover*cd.nbCover
	case useVec:
		z = calib.vecBias + calib.vecCos*cd.cos + calib.vecNbCos*cd.nbCos
	default:
		z = calib.kwBias + calib.kwCover*cd.coverage + calib.kwNbCover*cd.nbCover
	}
	p := 1 / (1 + math.Exp(-z))
	return math.Round(p*1000) / 1000
}

// calib holds the fitted coefficients of confidence, from
// `infmem-bench locomo -calibrate` on the LoCoMo development split with the
// default ranking (2026-11-22): positives are questions' evidence turns
// found in their own conversation, negatives the three best matches for the
// same question in another conversation. Brier scores: hybrid 0.090,
// keyword 0.136, vector 0.122.
var calib = struct {
	bias, cos, cover, nbCos, nbCover float64
	vecBias, vecCos, vecNbCos        float64
	kwBias, kwCover, kwNbCover       float64
}{
	bias: -8.419, cos: 7.361, cover: 4.563, nbCos: 8.812, nbCover: 0.198,
	vecBias: -8.765, vecCos: 8.070, vecNbCos: 10.414,
	kwBias: -3.504, kwCover: 5.623, kwNbCover: 3.122,
}
