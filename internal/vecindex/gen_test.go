package vecindex

import (
	"math"
	"math/rand/v2"
	"slices"
)

// clustered generates vectors shaped like sentence embeddings, which are not
// isotropic: every vector shares a common mean direction, belongs to one of a
// number of topic clusters, and adds its own noise. With the default weights
// two unrelated vectors have cosine ≈ 0.25, two of one topic ≈ 0.55, and a
// query's best matches score 0.6–0.75.
type clustered struct {
	rng     *rand.Rand
	dim     int
	mean    []float64
	centres [][]float64
	// weights of the mean, the cluster centre and the noise
	wMean, wCluster, wNoise float64
	// spread scales each dimension's noise, so some dimensions carry more
	// variance than others, as in real embeddings.
	spread []float64
}

func newClustered(seed uint64, dim, clusters int) *clustered {
	g := &clustered{rng: rand.New(rand.NewPCG(seed, 7)), dim: dim, wMean: 0.5, wCluster: 0.75, wNoise: 0.9}
	g.mean = g.unit()
	for range clusters {
		g.centres = append(g.centres, g.unit())
	}
	g.spread = make([]float64, dim)
	for i := range g.spread {
		g.spread[i] = math.Exp(g.rng.NormFloat64() * 0.5)
	}
	return g
}

func (g *clustered) unit() []float64 {
	v := make([]float64, g.dim)
	var ss float64
	for i := range v {
		v[i] = g.rng.NormFloat64()
		ss += v[i] * v[i]
	}
	for i := range v {
		v[i] /= math.Sqrt(ss)
	}
	return v
}

// next returns a unit vector of a random cluster.
func (g *clustered) next() []float32 {
	c := g.centres[g.rng.IntN(len(g.centres))]
	noise := make([]float64, g.dim)
	var ns float64
	for i := range noise {
		noise[i] = g.rng.NormFloat64() * g.spread[i]
		ns += noise[i] * noise[i]
	}
	v := make([]float32, g.dim)
	var ss float64
	tmp := make([]float64, g.dim)
	for i := range tmp {
		tmp[i] = g.wMean*g.mean[i] + g.wCluster*c[i] + g.wNoise*noise[i]/math.Sqrt(ns)
		ss += tmp[i] * tmp[i]
	}
	for i := range v {
		v[i] = float32(tmp[i] / math.Sqrt(ss))
	}
	return v
}

// exactCosine is the reference: the cosine of two float32 vectors computed
// in float64.
func exactCosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// exactHit is a reference result.
type exactHit struct {
	id    uint32
	score float64
}

// exactTopK is brute-force float search over docs (indexed by id) restricted
// to allow (nil: all), best first, ties by id.
func exactTopK(docs [][]float32, q []float32, k int, allow func(uint32) bool) []exactHit {
	var all []exactHit
	for id, d := range docs {
		if d == nil || (allow != nil && !allow(uint32(id))) {
			continue
		}
		all = append(all, exactHit{uint32(id), exactCosine(q, d)})
	}
	slices.SortFunc(all, func(a, b exactHit) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return int(a.id) - int(b.id)
	})
	return all[:min(k, len(all))]
}

// recall is the share of hits that belong to an exact top-k: hits whose
// exact score reaches the exact k-th score. Counting by score rather than by
// id treats documents tied at the k-th place alike.
func recall(hits []Hit, exact []exactHit, docs [][]float32, q []float32) float64 {
	if len(exact) == 0 {
		return 1
	}
	kth := exact[len(exact)-1].score
	good := 0
	for _, h := range hits {
		if exactCosine(q, docs[h.ID]) >= kth-1e-12 {
			good++
		}
	}
	return float64(good) / float64(len(exact))
}
